"""An HTML report: the verdict table and, per counterexample, a history timeline.

One self-contained page (inline CSS and SVG, no scripts, no external
assets), for results of either model. Each run with a picture
(``spec.run.Picture``) is drawn one column per seqno: a row per lane (a
producer's history, what the consumer holds, each failover's new items, or
each node's history), snapshot brackets under a lane, vertical marks for
branch points and the purge seqno; then the run in words and the command
that reproduces it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.report.text import narrative, shows_run
from checker.result import Result
from spec.run import Lane, Picture

__all__ = ["render_html", "timeline_svg", "write_html"]

COL, ROW, LEFT, TOP = 78, 30, 190, 24
FILL = {
    "set": "#d9ecff",
    "del": "#ffd9d9",
    "prepare": "#fff0c2",
    "commit": "#d9f2d9",
    "held": "#cfeccf",
    "dropped": "#eeeeee",
}
STROKE = {"branch": "#c60", "purge": "#808"}

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


def _box(x: float, y: float, w: float, kind: str, text: str) -> str:
    out = (
        f'<rect x="{x}" y="{y}" width="{w}" height="{ROW - 6}" rx="4" '
        f'fill="{FILL.get(kind, "#ffffff")}" stroke="#888"/>'
        f'<text x="{x + w / 2}" y="{y + ROW / 2 + 1}" text-anchor="middle">{_e(text)}</text>'
    )
    if kind == "dropped":
        mid = y + (ROW - 6) / 2
        out += f'<line x1="{x + 4}" y1="{mid}" x2="{x + w - 4}" y2="{mid}" stroke="#b00"/>'
    return out


def _label(y: float, text: str) -> str:
    return f'<text x="8" y="{y + ROW / 2 + 1}">{_e(text)}</text>'


def _col(seqno: int) -> float:
    return LEFT + (seqno - 1) * COL


def _lane(lane: Lane, y: float) -> tuple[list[str], float]:
    parts = [_label(y, lane.label)]
    for cell in lane.cells:
        parts.append(_box(_col(cell.seqno), y, COL - 8, cell.kind, cell.text))
    y += ROW
    if lane.spans:
        for span in lane.spans:
            x0, x1 = _col(span.start), _col(span.end) + COL - 8
            middle = (x0 + x1) / 2
            parts.append(
                f'<path d="M{x0} {y - 2} v8 H{x1} v-8" fill="none" stroke="#335"/>'
                f'<text x="{middle}" y="{y + 18}" text-anchor="middle">{_e(span.label)}</text>'
            )
        y += ROW
    return parts, y


def timeline_svg(picture: Picture) -> str:
    width = picture.width
    parts: list[str] = [_label(TOP, "seqno")]
    for x in range(1, width + 1):
        parts.append(
            f'<text x="{_col(x) + COL / 2 - 4}" y="{TOP + ROW / 2}" text-anchor="middle">{x}</text>'
        )
    y = TOP + ROW
    for lane in picture.lanes:
        drawn, y = _lane(lane, y)
        parts += drawn
    bottom = y
    for mark in picture.marks:
        x = LEFT + mark.seqno * COL - 4  # in the gap after the mark's seqno, not on a box
        parts.append(_mark_line(x, TOP, bottom, mark.kind))
        parts.append(
            f'<text x="{x + 3}" y="{y + 14}" fill="{STROKE.get(mark.kind, "#444")}">'
            f"{_e(mark.label)}</text>"
        )
        y += ROW / 2
    if picture.legend:
        y += ROW / 2
        drawn, y = _legend(picture.legend, y)
        parts += drawn
    height = y + ROW
    total = max(LEFT + width * COL + 160, LEFT + LEGEND_WIDTH + 200)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="{height}" '
        f'role="img" aria-label="history timeline">' + "".join(parts) + "</svg>"
    )


def _mark_line(x: float, top: float, bottom: float, kind: str) -> str:
    colour = STROKE.get(kind, "#444")
    style = ' stroke-dasharray="4 3"' if kind == "branch" else ' stroke-width="2"'
    return f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="{colour}"{style}/>'


LEGEND_WIDTH = 760  # wrap the legend past this many pixels


def _legend(entries: tuple[tuple[str, str], ...], y: float) -> tuple[list[str], float]:
    parts = [_label(y, "legend")]
    x = LEFT
    for kind, meaning in entries:
        width = 36 + 7 * len(meaning)
        if x > LEFT and x + width > LEFT + LEGEND_WIDTH:
            x, y = LEFT, y + ROW
        if kind in STROKE:
            parts.append(_mark_line(x + 10, y + 2, y + ROW - 8, kind))
        else:
            parts.append(_box(x, y, 20, kind, ""))
        parts.append(f'<text x="{x + 26}" y="{y + ROW / 2 + 1}">{_e(meaning)}</text>')
        x += width
    return parts, y + ROW


def _anchor(r: Result) -> str:
    return "--".join([r.property, *r.subject.values(), *((r.preset and [r.preset]) or [])])


def _row(r: Result) -> str:
    mark = ""
    if r.expected is not None:
        ok = r.expected == r.verdict.value
        mark = " (as expected)" if ok else f" (expected {r.expected})"
    cell = _e(r.verdict.value)
    if shows_run(r):
        cell = f'<a href="#{_e(_anchor(r))}">{cell}</a>'
    names = "".join(f"<td>{_e(v)}</td>" for v in r.subject.values())
    return (
        f"<tr>{names}<td>{_e(r.property)}</td><td>{_e(r.kind)}</td>"
        f"<td class='{r.verdict.value}'>{cell}{_e(mark)}</td><td>{r.seconds:.2f}</td></tr>"
    )


def _section(r: Result) -> str:
    picture = timeline_svg(r.run.picture) if r.run and r.run.picture else ""
    replay = f" (replay: {_e(r.replay.status)})" if r.replay else ""
    story = "\n".join(narrative(r))
    return (
        f'<section id="{_e(_anchor(r))}">'
        f"<h2>{_e(r.property)}: {_e(' / '.join(r.subject.values()))}</h2>"
        f"<p><strong>{_e(r.explanation)}</strong>{replay}</p>"
        f"{picture}<pre>{_e(story)}</pre>"
        f"<p>Reproduce: <code>{_e(r.command)}</code></p></section>"
    )


def _table(results: Sequence[Result]) -> str:
    names = "".join(f"<th>{_e(n.replace('_', ' '))}</th>" for n in results[0].subject)
    head = f"<tr>{names}<th>property</th><th>kind</th><th>verdict</th><th>seconds</th></tr>"
    bounds = results[0].bounds.describe()
    return (
        f"<p>Bounds: {_e(bounds)}.</p><table>{head}"
        + "".join(_row(r) for r in results)
        + "</table>"
    )


def render_html(results: Sequence[Result], title: str) -> str:
    """One table per model (and per bounds) checked, then one section per run."""
    groups: dict[tuple[str, str], list[Result]] = {}
    for r in results:
        groups.setdefault((r.model, r.bounds.describe()), []).append(r)
    tables = "".join(_table(group) for group in groups.values())
    sections = "".join(_section(r) for r in results if shows_run(r))
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>{_e(title)}</h1><p><em>holds</em> means no run within the stated bounds "
        "violates the property; <em>unknown</em> claims nothing.</p>"
        + tables
        + sections
        + "</body></html>\n"
    )


def write_html(results: Sequence[Result], path: str | Path, title: str) -> Path:
    return write_text_atomic(path, render_html(results, title))
