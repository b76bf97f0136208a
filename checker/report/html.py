"""An HTML report: the verdict table and, per counterexample, a history timeline.

One self-contained page (inline CSS and SVG, no scripts, no external
assets). The timeline draws one column per seqno: the first producer's
history with its snapshot markers, which items the consumer holds (items
deduplicated away are struck through), each failover's branch point and new
mutations, the purge seqno, then the requests and answers and the final
states side by side.
"""

from __future__ import annotations

import html
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.check import CheckResult, Verdict
from checker.report.results import reproduce_command
from checker.report.timeline import explain
from spec.scenario import Item, key_name
from spec.trace import Trace

__all__ = ["render_html", "timeline_svg", "write_html"]

COL, ROW, LEFT, TOP = 78, 30, 170, 24
COLOURS = {"set": "#d9ecff", "del": "#ffd9d9", "held": "#2b7a2b", "dropped": "#999999"}

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: left; }
td.violated { background: #ffe0e0; }
td.holds { background: #e5f5e5; }
td.unknown { background: #fff4cc; }
section { margin: 2em 0; padding-top: 1em; border-top: 2px solid #ddd; }
code, pre { background: #f6f6f6; padding: 0.1em 0.3em; }
svg text { font-family: ui-monospace, monospace; font-size: 12px; }
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _box(x: float, y: float, w: float, fill: str, text: str, strike: bool = False) -> str:
    out = (
        f'<rect x="{x}" y="{y}" width="{w}" height="{ROW - 6}" rx="4" fill="{fill}" stroke="#888"/>'
        f'<text x="{x + w / 2}" y="{y + ROW / 2 + 1}" text-anchor="middle">{_e(text)}</text>'
    )
    if strike:
        mid = y + (ROW - 6) / 2
        out += f'<line x1="{x + 4}" y1="{mid}" x2="{x + w - 4}" y2="{mid}" stroke="#b00"/>'
    return out


def _label(y: float, text: str) -> str:
    return f'<text x="8" y="{y + ROW / 2 + 1}">{_e(text)}</text>'


def _col(seqno: int) -> float:
    return LEFT + (seqno - 1) * COL


def timeline_svg(trace: Trace) -> str:
    s = trace.scenario
    width = max(len(s.history), trace.high_seqno, *(f.high_seqno for f in s.failovers), 1)
    parts: list[str] = []
    y = TOP
    parts.append(_label(y, "seqno"))
    for x in range(1, width + 1):
        parts.append(
            f'<text x="{_col(x) + COL / 2 - 4}" y="{y + ROW / 2}" text-anchor="middle">{x}</text>'
        )
    y += ROW
    parts.append(_label(y, "first producer"))
    held = {i.seqno for i in trace.held}
    for x, m in enumerate(s.history, start=1):
        op = "del" if m.deleted else "set"
        parts.append(_box(_col(x), y, COL - 8, COLOURS[op], f"{op.upper()}({key_name(m.key)})"))
    y += ROW
    parts.append(_label(y, "snapshots"))
    start = s.first_snapshot_start
    for end in s.snapshot_ends:
        x0, x1 = _col(max(start, 1)), _col(end) + COL - 8
        parts.append(
            f'<path d="M{x0} {y + 4} v10 H{x1} v-10" fill="none" stroke="#335"/>'
            f'<text x="{(x0 + x1) / 2}" y="{y + 26}" text-anchor="middle">[{start},{end}]</text>'
        )
        start = end + 1
    y += ROW + 6
    parts.append(_label(y, "consumer holds"))
    for x, m in enumerate(s.history, start=1):
        if x > s.received:
            break
        text = f"{'DEL' if m.deleted else 'SET'}({key_name(m.key)})"
        if x in held:
            parts.append(_box(_col(x), y, COL - 8, "#cfeccf", text))
        else:
            parts.append(_box(_col(x), y, COL - 8, "#eeeeee", text, strike=True))
    y += ROW
    for n, f in enumerate(s.failovers, start=1):
        parts.append(_label(y, f"failover {n}: {f.uuid}@{f.branch}"))
        bx = LEFT + f.branch * COL - 4
        parts.append(
            f'<line x1="{bx}" y1="{TOP}" x2="{bx}" y2="{y + ROW}" stroke="#c60" '
            'stroke-dasharray="4 3"/>'
        )
        for x, m in enumerate(f.mutations, start=f.branch + 1):
            op = "del" if m.deleted else "set"
            parts.append(
                _box(_col(x) + 4, y, COL - 12, COLOURS[op], f"{op.upper()}({key_name(m.key)})'")
            )
        y += ROW
    if s.purge_seqno:
        px = _col(s.purge_seqno) + COL - 8
        parts.append(
            f'<line x1="{px}" y1="{TOP}" x2="{px}" y2="{y}" stroke="#808" stroke-width="2"/>'
            f'<text x="{px + 3}" y="{y + 14}" fill="#808">purge {s.purge_seqno}</text>'
        )
        y += ROW
    height = y + ROW
    total = LEFT + width * COL + 120
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{height}" '
        f'role="img" aria-label="history timeline">' + "".join(parts) + "</svg>"
    )


def _states(trace: Trace) -> str:
    def live(items: dict[int, Item]) -> str:
        return " ".join(str(i) for _, i in sorted(items.items()) if not i.deleted) or "nothing live"

    producer: dict[int, Item] = {}
    for item in trace.producer_items:
        producer[item.key] = item
    rows = [f"<tr><th>producer has</th><td>{_e(live(producer))}</td></tr>"]
    if trace.accepted:
        rows.append(f"<tr><th>consumer ends with</th><td>{_e(live(trace.final))}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def _rounds(trace: Trace) -> str:
    rows = [
        "<tr><th>#</th><th>uuid</th><th>snapshot</th><th>start</th><th>answer</th><th>case</th></tr>"
    ]
    for n, r in enumerate(trace.rounds):
        req, dec = r.request, r.decision
        answer = dec.outcome.value + (f" to {dec.rollback_seqno}" if dec.rolls_back else "")
        rows.append(
            f"<tr><td>{n}</td><td>{req.uuid}</td><td>{{{req.snap_start},{req.snap_end}}}</td>"
            f"<td>{req.start}</td><td>{_e(answer)}</td><td>{_e(dec.case)}</td></tr>"
        )
    return "<table>" + "".join(rows) + "</table>"


def render_html(results: list[CheckResult], title: str, expected: dict | None = None) -> str:
    rows = []
    for r in results:
        want = (expected or {}).get((r.rules, r.consumer, r.property))
        mark = (
            ""
            if want is None
            else (" (as expected)" if want == r.verdict.value else f" (expected {want})")
        )
        anchor = f"{r.property}--{r.rules}--{r.consumer}"
        cell = (
            f'<a href="#{_e(anchor)}">{_e(r.verdict.value)}</a>'
            if r.scenario
            else _e(r.verdict.value)
        )
        rows.append(
            f"<tr><td>{_e(r.rules)}</td><td>{_e(r.consumer)}</td><td>{_e(r.property)}</td>"
            f"<td>{_e(r.kind)}</td><td class='{r.verdict.value}'>{cell}{_e(mark)}</td>"
            f"<td>{r.seconds:.2f}</td></tr>"
        )
    sections = []
    for r in results:
        if r.verdict is not Verdict.VIOLATED or r.replay is None or r.replay.trace is None:
            continue
        trace = r.replay.trace
        sections.append(
            f'<section id="{_e(r.property)}--{_e(r.rules)}--{_e(r.consumer)}">'
            f"<h2>{_e(r.property)}: {_e(r.rules)} / {_e(r.consumer)}</h2>"
            f"<p><strong>{_e(explain(r.property, trace))}</strong> "
            f"(replay: {_e(r.replay.status)})</p>"
            f"{timeline_svg(trace)}{_rounds(trace)}{_states(trace)}"
            f"<p>Reproduce: <code>{_e(reproduce_command(r))}</code></p></section>"
        )
    bounds = results[0].bounds.describe() if results else ""
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{_e(title)}</h1><p>Bounds: {_e(bounds)}. <em>holds</em> means no scenario within "
        "these bounds violates the property; <em>unknown</em> claims nothing.</p>"
        "<table><tr><th>rules</th><th>consumer</th><th>property</th><th>kind</th><th>verdict</th>"
        "<th>seconds</th></tr>"
        + "".join(rows)
        + "</table>"
        + "".join(sections)
        + "</body></html>\n"
    )


def write_html(
    results: list[CheckResult], path: str | Path, title: str, expected: dict | None = None
) -> Path:
    return write_text_atomic(path, render_html(results, title, expected))
