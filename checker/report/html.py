"""An HTML report: the verdict table and, per counterexample, a history timeline.

One self-contained page (inline CSS and SVG, no scripts, no external
assets), for results of either model. Each run with a picture
(``spec.run.Picture``) is drawn one column per seqno: a row per lane (a
producer's history, what the consumer holds, each failover's new items, or
each node's history; an empty one says so), snapshot brackets under a lane,
vertical marks for branch points (labelled on their failover's row) and the
purge seqno. Then each resume's rounds as a sequence diagram (``rounds_svg``):
a lifeline for the consumer and one for the producer, and per round (one
``g.round`` each) the request, the answer (OK, ROLLBACK(R), ERANGE) and what the
consumer drops and filters before its next request; a request the consumer
already sent is flagged, so a rollback loop shows as the same pair again and
again. Then the run in words and the command that reproduces it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.report.text import narrative, shows_run
from checker.result import Result
from spec.run import Exchange, Lane, Mark, Picture, Rounds

__all__ = ["render_html", "rounds_svg", "timeline_svg", "write_html"]

COL, ROW, LEFT, TOP = 84, 34, 250, 26
CHAR = 8.5  # the width of a character of the drawing's 14px monospace font, roughly
FILL = {
    "set": "#d9ecff",
    "del": "#ffd9d9",
    "prepare": "#fff0c2",
    "commit": "#d9f2d9",
    "held": "#cfeccf",
    "rolledback": "#f4d6d6",
    "dropped": "#eeeeee",
}
ANSWER = {"ok": "#1a7f1a", "rollback": "#b00000", "error": "#8a5a00"}
STROKE = {"branch": "#c60", "purge": "#808"}

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: left; }
td.violated { background: #ffe0e0; }
td.holds { background: #e5f5e5; }
td.unknown { background: #fff4cc; }
td.cost { background: #ffe2c2; }
section { margin: 2em 0; padding-top: 1em; border-top: 2px solid #ddd; }
code, pre { background: #f6f6f6; padding: 0.1em 0.3em; }
svg text { font-family: ui-monospace, monospace; font-size: 14px; }
svg { display: block; margin: 1em 0; }
h3 { margin-bottom: 0.2em; }
"""


def _e(text: object) -> str:
    return html.escape(str(text))


def _box(x: float, y: float, w: float, kind: str, text: str) -> str:
    out = (
        f'<rect x="{x}" y="{y}" width="{w}" height="{ROW - 6}" rx="4" '
        f'fill="{FILL.get(kind, "#ffffff")}" stroke="#888"/>'
        f'<text x="{x + w / 2}" y="{y + ROW / 2 + 1}" text-anchor="middle">{_e(text)}</text>'
    )
    if kind in ("dropped", "rolledback"):
        mid = y + (ROW - 6) / 2
        out += f'<line x1="{x + 4}" y1="{mid}" x2="{x + w - 4}" y2="{mid}" stroke="#b00"/>'
    return out


def _label(y: float, text: str, raised: bool = False) -> str:
    return f'<text x="8" y="{y + (12 if raised else ROW / 2 + 1)}">{_e(text)}</text>'


def _room(mark: Mark) -> bool:
    """Whether a mark's label fits between the cells' left edge and its line."""
    return mark.seqno * COL - 4 >= len(mark.label) * CHAR + 6


def _col(seqno: int) -> float:
    return LEFT + (seqno - 1) * COL


def _lane(lane: Lane, y: float, raised: bool = False) -> tuple[list[str], float]:
    parts = [_label(y, lane.label, raised)]
    for cell in lane.cells:
        parts.append(_box(_col(cell.seqno), y, COL - 8, cell.kind, cell.text))
    if not lane.cells and lane.empty:
        parts.append(
            f'<text x="{LEFT}" y="{y + ROW / 2 + 1}" font-style="italic" class="empty">'
            f"{_e(lane.empty)}</text>"
        )
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
    y: float = TOP + ROW
    rows: dict[str, float] = {}
    # a mark with no room left of its line (a branch at 0) is labelled in its row's margin,
    # under the row's own label: that label moves up
    margin = {m.lane for m in picture.marks if m.lane and not _room(m)}
    for lane in picture.lanes:
        rows[lane.label] = y
        drawn, y = _lane(lane, y, raised=lane.label in margin)
        parts += drawn
    bottom = y
    for mark in picture.marks:
        x = LEFT + mark.seqno * COL - 4  # in the gap after the mark's seqno, not on a box
        parts.append(_mark_line(x, TOP, bottom, mark.kind))
        colour = STROKE.get(mark.kind, "#444")
        if mark.lane in rows:  # on its failover's row, left of the line (cells are right)
            row = rows[mark.lane]
            # no room before the line: in the row's margin, below the row's raised label
            at, baseline = (x - 4, row + ROW / 2 + 1) if _room(mark) else (LEFT - 6, row + ROW - 3)
            parts.append(
                f'<text x="{at}" y="{baseline}" text-anchor="end" '
                f'fill="{colour}" class="mark">{_e(mark.label)}</text>'
            )
        else:
            parts.append(
                f'<text x="{x + 3}" y="{y + 14}" fill="{colour}" class="mark">'
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


CONSUMER_X, PRODUCER_X, SEQ_TOP = 150, 700, 44


def _arrow(x0: float, x1: float, y: float, colour: str, dashed: bool) -> str:
    head = -10 if x1 > x0 else 10
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return (
        f'<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="{colour}" stroke-width="2"{dash}/>'
        f'<path d="M{x1} {y} l{head} -5 v10 z" fill="{colour}"/>'
    )


def _exchange(n: int, ex: Exchange, y: float) -> tuple[str, float]:
    """Round ``n`` (from 1) at height ``y``: request, answer, reaction; the next y. Its
    label counts requests from 0, as the run in words below the drawing does."""
    colour = ANSWER.get(ex.kind, "#444")
    middle = (CONSUMER_X + PRODUCER_X) / 2
    request = ex.request + ("" if ex.repeats is None else f"  (= request {ex.repeats - 1})")
    parts = [
        f'<text x="8" y="{y + 24}" font-weight="bold">request {n - 1}</text>',
        f'<text x="{middle}" y="{y + 16}" text-anchor="middle" class="request">'
        f"{_e(request)}</text>",
        _arrow(CONSUMER_X, PRODUCER_X, y + 24, "#335", dashed=False),
        f'<text x="{middle}" y="{y + 48}" text-anchor="middle" fill="{colour}" '
        f'font-weight="bold" class="answer">{_e(ex.answer)}</text>',
        _arrow(PRODUCER_X, CONSUMER_X, y + 56, colour, dashed=True),
    ]
    if ex.repeats is not None:
        parts.append(
            f'<text x="{PRODUCER_X + 14}" y="{y + 28}" fill="#b00000" class="loop">'
            f"same as request {ex.repeats - 1}: a loop</text>"
        )
    y += 66
    if ex.reaction:
        width = len(ex.reaction) * CHAR + 16
        parts.append(
            f'<rect x="{CONSUMER_X - 8}" y="{y}" width="{width}" height="{ROW - 6}" rx="4" '
            f'fill="#fff7e0" stroke="#c90"/>'
            f'<text x="{CONSUMER_X}" y="{y + ROW / 2 + 1}" class="reaction">'
            f"{_e(ex.reaction)}</text>"
        )
        y += ROW + 4
    group = (
        f'<g class="round" data-round="{n}" data-answer="{_e(ex.answer)}">'
        + "".join(parts)
        + "</g>"
    )
    return group, y + 6


def rounds_svg(rounds: Rounds) -> str:
    """A resume's rounds as a sequence diagram (see the module's docstring)."""
    parts = []
    for x, who in ((CONSUMER_X, "consumer"), (PRODUCER_X, "producer")):
        parts.append(
            f'<rect x="{x - 50}" y="4" width="100" height="{ROW - 4}" rx="4" fill="#f0f0f0" '
            f'stroke="#888"/><text x="{x}" y="{4 + ROW / 2 + 1}" text-anchor="middle" '
            f'font-weight="bold">{who}</text>'
        )
    y = float(SEQ_TOP)
    drawn = []
    for n, ex in enumerate(rounds.exchanges, start=1):
        group, y = _exchange(n, ex, y)
        drawn.append(group)
    lifelines = "".join(
        f'<line x1="{x}" y1="{ROW}" x2="{x}" y2="{y}" stroke="#aaa"/>'
        for x in (CONSUMER_X, PRODUCER_X)
    )
    outcome = (
        f'<text x="8" y="{y + 20}" font-weight="bold" class="outcome">'
        f"{_e(rounds.label)}: {_e(rounds.outcome)}</text>"
    )
    widest = [len(ex.reaction) * CHAR + CONSUMER_X + 40 for ex in rounds.exchanges]
    widest += [PRODUCER_X + 340 if any(ex.repeats for ex in rounds.exchanges) else 0]
    total = max([PRODUCER_X + 120, *widest])
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total:.0f}" height="{y + 40:.0f}" '
        f'role="img" aria-label="{_e(rounds.label)} rounds" class="rounds">'
        + lifelines
        + "".join(parts)
        + "".join(drawn)
        + outcome
        + "</svg>"
    )


def _mark_line(x: float, top: float, bottom: float, kind: str) -> str:
    colour = STROKE.get(kind, "#444")
    style = ' stroke-dasharray="4 3"' if kind == "branch" else ' stroke-width="2"'
    return f'<line x1="{x}" y1="{top}" x2="{x}" y2="{bottom}" stroke="{colour}"{style}/>'


LEGEND_WIDTH = 760  # wrap the legend past this many pixels


def _legend(entries: tuple[tuple[str, str], ...], y: float) -> tuple[list[str], float]:
    parts = [_label(y, "legend")]
    x: float = LEFT
    for kind, meaning in entries:
        width = 40 + CHAR * len(meaning)
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


# What a review region that holds is (its note starts with diff's classification): a cost
# regression holds every safety property, and is not shown as a plain green "holds".
REVIEW_CLASSES = {
    "cost regression": "cost",
    "cost improvement": "holds",
    "safety fix": "holds",
    "neutral": "holds",
}


def _verdict(r: Result) -> tuple[str, str]:
    """The verdict cell's text and class: a review region's classification, as the text
    report gives it (``cost regression``, amber), else the verdict."""
    if r.engine == "review" and r.verdict.value == "holds":
        for shown, css in REVIEW_CLASSES.items():
            if r.note.startswith(shown):
                return (f"{shown} (no safety property broken)" if css == "cost" else shown), css
    return r.verdict.value, r.verdict.value


def _row(r: Result) -> str:
    mark = ""
    if r.expected is not None:
        ok = r.expected == r.verdict.value
        mark = " (as expected)" if ok else f" (expected {r.expected})"
    text, css = _verdict(r)
    cell = _e(text)
    if shows_run(r):
        cell = f'<a href="#{_e(_anchor(r))}">{cell}</a>'
    names = "".join(f"<td>{_e(v)}</td>" for v in r.subject.values())
    return (
        f"<tr>{names}<td>{_e(r.property)}</td><td>{_e(r.kind)}</td>"
        f"<td class='{css}'>{cell}{_e(mark)}</td><td>{r.seconds:.2f}</td></tr>"
    )


def _pictures(picture: Picture) -> str:
    out = timeline_svg(picture)
    for rounds in picture.resumes:
        out += f"<h3>{_e(rounds.label)}: request by answer</h3>" + rounds_svg(rounds)
    return out


def _section(r: Result) -> str:
    picture = _pictures(r.run.picture) if r.run and r.run.picture else ""
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
