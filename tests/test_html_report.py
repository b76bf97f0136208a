"""The HTML report: a table of verdicts and a timeline picture per counterexample."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from clihelp import check_args


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:  # type: ignore[no-untyped-def]
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
    assert parser.tags.count("svg") == 1  # one violation, one picture
    assert "no-missed-item--kv-current--collapse-snapshot" in parser.ids
    assert "key A: the producer has" in text
    assert "<td class='holds'>holds</td>" in text  # valid-request holds, no picture
    assert "SET(A)" in text and "consumer holds" in text
