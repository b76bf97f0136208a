"""The HTML reports render in a real browser: drawn, not blank, no console errors.

Headless Chromium (Debian's, see tests/browser.py) renders the reports that
`check --html` and `durability --html` write; the screenshot must show a
drawing and the page must log nothing. Two pages built to fail show that
both checks can fail.
"""

from __future__ import annotations

from pathlib import Path

from browser import render
from clihelp import MB51805_STALL, run_cli

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


def test_a_durability_report_renders_its_run(tmp_path: Path, monkeypatch, capsys) -> None:
    page = tmp_path / "durability.html"
    args = [*MB51805_STALL, "--out", tmp_path, "--html", page]
    assert run_cli(args, "", monkeypatch, capsys).code == 1
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
