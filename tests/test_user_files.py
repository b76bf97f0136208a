"""A user's own consumer and rule files, end to end (issue 25, items 1 and 2): the reproduce
line names the file and every bound that is not the default, and pasting it where the
check ran gives the same verdict; the JSON, the HTML, the ITF trace and the counterexample
file carry the same line; ``promote`` loads the file again; a Python ``if``/``min``/``and``
or a precedence slip in a consumer is one short line naming the file and what to write."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from clihelp import ROOT

DROP_ABOVE_R = """
from spec.consumers import ConsumerVariant, Reaction


class DropAboveR(ConsumerVariant):
    name = "drop-above-r"
    summary = "on ROLLBACK(R) drop the items above R and send the same request again"

    def on_rollback(self, view, rollback_seqno, producer_log):
        return Reaction(keep=rollback_seqno)


VARIANT = DropAboveR()
"""
# Small bounds in which drop-above-r's loop outlives --rounds 5 (bounded-rollback, ~1 s).
LOOP = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1", "--rounds", "5"]


def _reproduce_line(text: str) -> str:
    (line,) = [line for line in text.splitlines() if line.strip().startswith("reproduce: ")]
    return line.strip().removeprefix("reproduce: ")


def _counterexamples(out: Path) -> list[Path]:
    return [p for p in out.glob("*.json") if not p.name.endswith(".itf.json")]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch) -> Path:
    """A directory of the user's own, the current one while the test runs."""
    (tmp_path / "my_client.py").write_text(DROP_ABOVE_R)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_consumer_files_reproduce_line_names_the_file_and_runs_when_pasted(
    workdir: Path, cli
) -> None:
    args = ["check", "--consumer", "my_client.py", "--rules", "kv-current"]
    args += ["--property", "bounded-rollback", *LOOP, "--html", "report.html", "--quiet"]
    first = cli(*args)
    assert first.code == 1, first.err
    line = _reproduce_line(first.out)
    assert line == (
        "dcpcheck check --rules kv-current --consumer my_client.py --property "
        "bounded-rollback --seqnos 4 --keys 2 --entries 3 --failovers 1 --rounds 5"
    )
    assert f"Reproduce: <code>{line}</code>" in (workdir / "report.html").read_text()
    (stored,) = _counterexamples(workdir / "out" / "check")
    record = json.loads(stored.read_text())
    assert record["command"] == line and record["sources"] == {"consumer": "my_client.py"}
    trace = json.loads(stored.with_name(stored.name.replace(".json", ".itf.json")).read_text())
    assert trace["#meta"]["command"] == line

    words = shlex.split(line)
    assert words[0] == "dcpcheck"
    pasted = cli(*words[1:], "--json", "--out", "again")
    (result,) = json.loads(pasted.out)["results"]
    assert pasted.code == 1 and result["verdict"] == "violated"
    assert result["command"] == line and result["sources"] == {"consumer": "my_client.py"}
    assert Path(result["counterexample"]).name == stored.name  # the same counterexample

    promoted = cli("promote", stored, "--to", "corpus")
    assert promoted.code == 0, promoted.err
    assert (workdir / "corpus" / stored.name).exists()
    itf = json.loads((workdir / "corpus" / stored.name.replace(".json", ".itf.json")).read_text())
    assert itf["#meta"]["command"] == line


def test_promote_elsewhere_says_the_consumer_file_is_relative_to_where_the_check_ran(
    workdir: Path, cli, monkeypatch
) -> None:
    args = ["check", "--consumer", "my_client.py", "--rules", "kv-current"]
    assert cli(*args, "--property", "bounded-rollback", *LOOP, "--quiet").code == 1
    (stored,) = _counterexamples(workdir / "out" / "check")
    (workdir / "elsewhere").mkdir()
    monkeypatch.chdir(workdir / "elsewhere")
    result = cli("promote", stored, "--to", "corpus")
    assert result.code == 2 and result.err.count("\n") == 1, result.err
    assert "its consumer comes from my_client.py" in result.err
    assert "relative to" in result.err


def test_a_rule_files_reproduce_line_names_the_file(workdir: Path, cli) -> None:
    shutil.copy(ROOT / "tests" / "data" / "rules" / "no_purge.py", workdir / "mine.py")
    args = ["check", "--rules", "mine.py", "--consumer", "correct", "--property", "valid-request"]
    result = cli(*args, *LOOP[:8], "--sessions", "2", "--budget", "50", "--json")
    (record,) = json.loads(result.out)["results"]
    assert record["command"] == (
        "dcpcheck check --rules mine.py --consumer correct --property valid-request "
        "--seqnos 4 --keys 2 --entries 3 --failovers 1 --sessions 2 --budget 50"
    )
    assert record["sources"] == {"rules": "mine.py"}
    pasted = cli(*shlex.split(record["command"])[1:], "--json")
    assert json.loads(pasted.out)["results"][0]["verdict"] == record["verdict"]


MISTAKES = {
    # the line of on_rollback that is wrong: what the one-line error must advise
    "min": ("keep = min(view.last, rollback_seqno)", "write min_of(a, b)"),
    "max": ("keep = max(view.last, rollback_seqno)", "write max_of(a, b)"),
    "if": ("keep = view.last if view.last < rollback_seqno else rollback_seqno", "ite("),
    "and": (
        "keep = ite(view.rolled_back and view.last < rollback_seqno, view.last, rollback_seqno)",
        "write & | ~",
    ),
    "precedence": (
        "keep = ite(view.last < rollback_seqno & view.rolled_back, view.last, rollback_seqno)",
        "parenthesise each comparison: (a < b) & c",
    ),
}
MISTAKE = """
from spec.consumers import ConsumerVariant, Reaction
from spec.expr import ite


class Mistaken(ConsumerVariant):
    name = "mistaken"

    def on_rollback(self, view, rollback_seqno, producer_log):
        {line}
        return Reaction(keep=keep)


VARIANT = Mistaken()
"""


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_python_control_flow_in_a_consumer_is_one_short_line_naming_the_fix(
    mistake: str, workdir: Path, cli
) -> None:
    line, advice = MISTAKES[mistake]
    (workdir / "mistaken.py").write_text(MISTAKE.format(line=line))
    args = ["check", "--consumer", "mistaken.py", "--rules", "kv-current"]
    result = cli(*args, "--property", "no-missed-item", *LOOP[:8], "--quiet")
    assert result.code == 2
    assert result.err.count("\n") == 1 and len(result.err) < 240, result.err
    assert result.err.startswith("dcpcheck: error: mistaken.py:10: consumer 'mistaken': ")
    assert advice in result.err and "ite((" not in result.err


def test_a_cost_violation_the_textbook_consumer_gets_too_says_so_in_its_row(
    workdir: Path, cli
) -> None:
    args = ["check", "--rules", "kv-current", *LOOP[:8], "--quiet"]
    mine = cli(*args, "--consumer", "my_client.py", "--property", "no-needless-rollback")
    too = "correct gets this too under the same rules and bounds: it comes from the rule set"
    assert mine.code == 0 and ": no-needless-rollback: violated" in mine.out and too in mine.out
    # correct does not miss items: collapse-snapshot's miss is its own
    own = cli(*args, "--consumer", "collapse-snapshot", "--property", "no-missed-item", "--json")
    (record,) = json.loads(own.out)["results"]
    assert record["verdict"] == "violated" and record["also_violated_by"] is None
