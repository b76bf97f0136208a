"""The HTML reports render in a real browser: drawn, not blank, no console errors.

Headless Chromium (Debian's, see tests/browser.py) renders the reports that
`check --html` and `durability --html` write; the screenshot must show a
drawing and the page must log nothing. Two pages built to fail show that
both checks can fail.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from browser import dom, render
from clihelp import MB51805_STALL, ROOT, run_cli

from checker.confirm import replay_stored
from checker.report.html import write_html
from checker.result import Replayed, Result, Verdict
from spec.bounds import Bounds

GO_DCP_LOOP = ROOT / "counterexamples/clients/bounded-rollback--kv-current--go-dcp--90e27cf970.json"


class _Drawing(HTMLParser):
    """The rounds (``g.round``: number and answer) and each text's y and words."""

    def __init__(self) -> None:
        super().__init__()
        self.rounds: list[tuple[int, str]] = []
        self.texts: list[tuple[float, str, str]] = []  # (y, class, words)
        self._text: tuple[float, str] | None = None

    def handle_starttag(self, tag, attrs) -> None:
        a = dict(attrs)
        if tag == "g" and a.get("class") == "round":
            self.rounds.append((int(a["data-round"]), a["data-answer"]))
        if tag == "text":
            self._text = (float(a.get("y", 0)), a.get("class", ""))

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self.texts.append((*self._text, data))
            self._text = None

    def y_of(self, words: str) -> float:
        return next(y for y, _, text in self.texts if text == words)


def _drawn(page: Path) -> _Drawing:
    drawing = _Drawing()
    drawing.feed(dom(page))
    return drawing


def _stored_page(path: Path, page: Path) -> Path:
    """The HTML report of a stored counterexample, replayed on the reference."""
    record = json.loads(path.read_text())
    stored = replay_stored(path)
    bounds = {k: v for k, v in record["bounds"].items() if k != "max_entries"}
    names = {"rules": record["rules"], "consumer": record["consumer"]}
    result = Result(
        "scenario", names, record["property"], record["kind"], Verdict.VIOLATED,
        Bounds(**bounds), "stored", run=stored.run, replay=Replayed(True),
        explanation=stored.explanation, command=f"dcpcheck replay {path.name}",
    )  # fmt: skip
    write_html([result], page, "dcpcheck check")
    return page


SMALL = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]


def test_a_single_node_report_renders_its_timeline(tmp_path: Path, monkeypatch, capsys) -> None:
    page = tmp_path / "check.html"
    args = ["check", "--rules", "kv-current", "--consumer", "collapse-snapshot"]
    args += ["--property", "no-missed-item", *SMALL, "--out", tmp_path, "--html", page]
    assert run_cli(args, "", monkeypatch, capsys).code == 1
    text = page.read_text()
    for part in ("first producer", "final producer", "consumer holds", "branch", "legend"):
        assert part in text
    shot = render(page, 900, 800)
    assert shot.console == []
    assert shot.distinct_colours() > 20 and shot.inked() > 0.02
    drawn = _drawn(page)  # seed 001: one round, answered OK, then the stream
    assert drawn.rounds == [(1, "OK")]
    assert any(text.startswith("stream after OK: ") for _, kind, text in drawn.texts)
    # the branch label sits on its failover's row
    (branch,) = [t for _, kind, t in drawn.texts if kind == "mark" and t.startswith("branch ")]
    (failover,) = [t for _, _, t in drawn.texts if t.startswith("failover 1: ")]
    assert failover.endswith(branch.removeprefix("branch "))
    assert drawn.y_of(branch) == drawn.y_of(failover)


def test_go_dcps_rollback_loop_is_drawn_round_by_round(tmp_path: Path) -> None:
    page = _stored_page(GO_DCP_LOOP, tmp_path / "loop.html")
    drawn = _drawn(page)
    rounds = json.loads(GO_DCP_LOOP.read_text())["trace"]["rounds"]
    answers = [f"ROLLBACK({r['decision']['rollback_seqno']})" for r in rounds]
    assert drawn.rounds == list(enumerate(answers, start=1))  # one lane per round, 8 of them
    assert len(answers) == 8 and set(answers) == {"ROLLBACK(1)", "ROLLBACK(0)"}
    loops = [text for _, kind, text in drawn.texts if kind == "loop"]
    assert loops == [f"same as request {n % 2}: a loop" for n in range(6)]
    assert "resume 1: still rolling back after 8 rounds: no OK" in [t for _, _, t in drawn.texts]
    ends = [t for _, kind, t in drawn.texts if kind == "empty"]
    assert ends == ["no stream: the producer never answered OK"]
    shot = render(page, 1300, 1700)
    assert shot.console == []
    assert shot.distinct_colours() > 20 and shot.inked() > 0.05


def test_a_durability_report_renders_its_run(tmp_path: Path, monkeypatch, capsys) -> None:
    page = tmp_path / "durability.html"
    args = [*MB51805_STALL, "--out", tmp_path, "--html", page]
    assert run_cli(args, "", monkeypatch, capsys).code == 0
    text = page.read_text()
    assert "prepare-ack-progress" in text and "N1 replica" in text
    shot = render(page, 900, 800)
    assert shot.console == []
    assert shot.distinct_colours() > 20 and shot.inked() > 0.02


def test_the_browser_check_sees_console_errors_and_blank_pages(tmp_path: Path) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><svg width="50" height="50"><rect width="-5" height="1"/></svg>')
    assert any("negative value" in m for m in render(bad, 300, 200).console)
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    assert render(blank, 300, 200).inked() == 0
