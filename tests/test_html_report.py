"""The HTML report: a table of verdicts and a timeline picture per counterexample."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from clihelp import ROOT, check_args

from checker.confirm import replay_stored
from checker.report.html import timeline_svg


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)
        self.ids |= {value for name, value in attrs if name == "id" and value}


def test_check_writes_a_report_with_a_timeline_for_each_violation(tmp_path: Path, cli) -> None:
    report = tmp_path / "report.html"
    chosen = ("no-missed-item", "valid-request")
    result = cli(
        *check_args("kv-current", "collapse-snapshot", *chosen, out=tmp_path), "--html", report
    )
    assert result.code == 1
    text = report.read_text()
    parser = _Tags()
    parser.feed(text)
    # one violation: one timeline, and its one resume's rounds as a sequence diagram
    assert text.count('aria-label="history timeline"') == 1
    assert text.count('aria-label="resume 1 rounds"') == 1 and parser.tags.count("svg") == 2
    assert "no-missed-item--kv-current--collapse-snapshot" in parser.ids
    assert "key A: the producer has" in text
    assert "<td class='holds'>holds (as expected)</td>" in text  # valid-request, no picture
    assert "SET(A)" in text and "consumer holds" in text


DROPPING = [  # stored counterexamples whose rollback drops items the consumer held, and one
    "counterexamples/no-needless-rollback--kv-current--correct--8d822032b4.json",
    "counterexamples/clients/larger/no-missed-item--kv-current--kv-replica--e895b9ab2f.json",
    "counterexamples/clients/bounded-rollback--kv-current--go-dcp--90e27cf970.json",  # keeps
]


@pytest.mark.parametrize("stored", DROPPING)
def test_consumer_holds_what_the_reference_holds_after_its_rollbacks(stored: str) -> None:
    """The picture's "consumer holds" row is the reference replay's consumer when it sends
    its last request: an item its rollback dropped is drawn rolled back, never held."""
    run = replay_stored(ROOT / stored).run
    assert run is not None and run.picture is not None
    (lane,) = [lane for lane in run.picture.lanes if lane.label == "consumer holds"]
    drawn = {cell.seqno: cell.kind for cell in lane.cells}
    last_request = [step for step in run.steps if step.name == "StreamRequest"][-1]
    holds = {seqno for seqno, _ in last_request.state["consumer"]["items"]["#map"]}
    assert {x for x, kind in drawn.items() if kind == "held"} == holds
    dropped = {x for x, kind in drawn.items() if kind == "rolledback"}
    assert dropped.isdisjoint(holds)
    assert bool(dropped) is ("go-dcp" not in stored)


def test_consumer_ends_with_says_nothing_rather_than_nothing_at_all() -> None:
    run = replay_stored(ROOT / DROPPING[0]).run
    assert run is not None and run.picture is not None
    (lane,) = [lane for lane in run.picture.lanes if lane.label == "consumer ends with"]
    assert lane.cells == () and lane.empty == "nothing"
    assert '<text x="250" y="' in timeline_svg(run.picture)
    assert ">nothing</text>" in timeline_svg(run.picture)


def test_a_branch_at_zero_is_labelled_on_its_failovers_row() -> None:
    """Issue 47, item 11: "branch 2222@0" has no room left of its line (at the cells' left
    edge); it was drawn half a row up, under "consumer holds". It belongs on the failover's
    row: in the row's margin, under the row's own label."""
    from spec.run import Cell, Lane, Mark, Picture

    failover = "failover 1: 2222@0"
    picture = Picture(
        (
            Lane("consumer holds", (Cell(1, "SET(A)", "held"),)),
            Lane(failover, (Cell(1, "DEL(A)", "del"),)),
        ),
        (Mark(0, "branch 2222@0", "branch", lane=failover),),
    )
    drawn = timeline_svg(picture)
    texts = re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]*)</text>', drawn)
    at = {words: (float(x), float(y)) for x, y, words in texts}
    row_top = at[failover][1] - 12  # the row's label, raised to the row's top half
    x, baseline = at["branch 2222@0"]
    assert row_top + 14 <= baseline <= row_top + 34  # all of the text inside the row
    assert baseline - at[failover][1] >= 14  # below the row's label, not over it
    assert x <= 250  # in the margin, left of the first seqno's cells (text anchored at end)
