"""Every bad input the CLI-trust issue lists: one line on stderr, the documented exit code.

Exit 1 means "violation found" to a CI gate, so no bad input and no crash
may exit 1: bad input is 2, and an unexpected exception is 4 with a crash
report file (tested by injecting one). Each row runs the real command in a
subprocess, with a time limit: a row that hangs fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from clihelp import run_cli, run_subprocess
from conftest import DATA

TABLE = DATA / "humpty_sanity_table.json"
HUGE = str(2**64)
LOOP = "while True:\n    pass\n"


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("dcpcheck: ")


ROWS = [
    (["check", "--timeout", "inf"], "--timeout"),
    (
        ["replay", "counterexamples/vectors", "--target", "rules:kv-current", "--timeout", "inf"],
        "--timeout",
    ),
    (["diff", "kv-current", "rollback-doc", "--timeout", "inf"], "--timeout"),
    (["check", "--html", "{tmp}"], "is a directory"),
    (["check", "--out", "{tmp}/file"], "not a directory"),
    (["check", "--seqnos", HUGE], "at most 64"),
    (["check", "--rules", "{tmp}/loop.py"], "took more than"),
    (["replay", "counterexamples/vectors", "--target", "rules:nosuch"], "--target: unknown"),
    (["diff", "kv-current", "nosuch"], "CANDIDATE: unknown"),
    (["durability", "--items", HUGE], "at most 32"),
    (["check", "--html", "{tmp}/no/such/r.html"], "no directory"),
    (["durability", "--html", "{tmp}/no/such/r.html"], "no directory"),
]


@pytest.mark.parametrize("args, expected", ROWS, ids=lambda r: " ".join(map(str, r))[:50])
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], expected: str, tmp_path: Path, monkeypatch
) -> None:
    (tmp_path / "file").write_text("not a directory")
    (tmp_path / "loop.py").write_text(LOOP)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    monkeypatch.setenv("DCPCHECK_IMPORT_SECONDS", "2")
    result = run_subprocess(argv, timeout=60)
    assert result.code == 2, result.err
    assert one_line(result.err), result.err
    assert expected in result.err
    assert result.out == ""
    assert not (tmp_path / "no").exists()  # nothing made on the way


def test_decide_with_binary_stdin_prints_nothing_but_one_error() -> None:
    result = run_subprocess(["decide", TABLE, "100", "0"], stdin=b"1 2 3\n\xff\xfe 1 2 3\n")
    assert result.code == 2 and result.out == ""
    # the field-count warning of line 1 is not printed: the error comes before any work
    assert result.err.count("\n") == 1 and "stdin line 2" in result.err


def test_dfs_stops_at_exactly_the_state_limit(monkeypatch, capsys) -> None:
    args = ["durability", "--preset", "mb-34150", "--strategy", "dfs", "--max-states", "1000"]
    args += ["--ack-rule", "ack-on-prepare", "--branch-rule", "highest-snapshot", "--json"]
    args += ["--property", "no-lost-syncwrite"]
    result = run_cli(args, "", monkeypatch, capsys)
    assert result.code == 3
    assert '"states": 1000,' in result.out


def _crash_in_check(error: Exception, tmp_path: Path, monkeypatch, capsys):
    """``dcpcheck check`` whose command raises ``error``: its result and its crash report."""
    import checker.commands.check as command

    def broken(args):
        raise error

    monkeypatch.setattr(command, "run", broken)
    monkeypatch.setenv("DCPCHECK_CRASH_DIR", str(tmp_path))
    result = run_cli(["check"], "", monkeypatch, capsys)
    (report,) = tmp_path.glob("dcpcheck-crash-*.txt")
    return result, report


def test_a_crash_is_one_line_exit_4_with_a_crash_report(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    result, report = _crash_in_check(
        ZeroDivisionError("an injected bug"), tmp_path, monkeypatch, capsys
    )
    assert result.code == 4
    assert one_line(result.err) and "ZeroDivisionError: an injected bug" in result.err
    assert str(report) in result.err
    text = report.read_text()
    assert "Traceback" in text and "an injected bug" in text and "command: dcpcheck check" in text
    assert re.search(r"python \d+\.\d+", text)


def test_a_crash_whose_message_cannot_be_read_is_still_one_line_exit_4(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    """Py4J's error reads its text from the JVM: after a Spark Python worker is killed (out of
    memory) the JVM can be gone, and str() of the error raises in turn."""

    class Unreadable(RuntimeError):
        def __str__(self) -> str:
            raise ConnectionRefusedError(111, "Connection refused")

    result, report = _crash_in_check(Unreadable(), tmp_path, monkeypatch, capsys)
    assert result.code == 4
    assert one_line(result.err) and "Unreadable: <its message could not be read>" in result.err
    assert "Traceback" in report.read_text()
