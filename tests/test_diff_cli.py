"""`dcpcheck diff` on the command line: exit codes, output, user rule files, bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clihelp import run_cli, run_subprocess
from conftest import DATA, ROOT

from checker.diff.decisions import search_regions
from checker.diff.report import decide_command
from checker.symbolic.budget import Budget
from spec.rules import RULE_SETS

FAST = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]
# The smallest bounds at which each diff below still shows what its test reads (the
# classification itself is tests/test_diff_rules.py's and tests/test_diff_consumers.py's).
TINY = ["--seqnos", "2", "--keys", "1", "--entries", "2", "--failovers", "1"]
LESS = ["--seqnos", "3", "--keys", "2", "--entries", "2", "--failovers", "1"]
RULES = DATA / "rules"


def test_a_safety_regression_exits_1_and_names_the_clause(monkeypatch, capsys) -> None:
    result = run_cli(
        ["diff", "kv-current", RULES / "no_purge.py", "--consumer", "correct", *TINY],
        "",
        monkeypatch,
        capsys,
    )
    assert result.code == 1, result.err
    assert "purge -> lagging (rollback -> ok)" in result.out
    assert "safety regression" in result.out
    assert "confirmed on the reference" in result.out
    assert f"--rules {RULES / 'no_purge.py'}" in result.out  # the decide line names the file


def test_an_equivalence_is_proved_and_said(monkeypatch, capsys) -> None:
    result = run_cli(
        ["diff", "kv-current", RULES / "kv_current_rewrite.py", *FAST], "", monkeypatch, capsys
    )
    assert result.code == 0, result.err
    assert "equivalent: Z3 proved that A and B never differ" in result.out
    assert "failover table has at most 8 entries" in result.out


def test_json_lists_each_region_with_both_answers(monkeypatch, capsys) -> None:
    result = run_cli(
        ["diff", "rollback-doc", "kv-current", "--json", "--consumer", "correct", *TINY],
        "",
        monkeypatch,
        capsys,
    )
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["complete"] and not report["equivalent"]
    assert report["summary"]["safety regression"] == 0
    start_zero = [r for r in report["regions"] if r["case_b"] == "start-zero"]
    (region,) = start_zero
    assert region["case_a"] == "uuid-not-found" and region["change"] == "rollback -> ok"
    assert region["example"]["request"]["start"] == 0
    assert region["example"]["decision_a"]["decision"] == "rollback"
    assert region["example"]["decision_b"]["decision"] == "ok"
    assert region["witness"]["confirmed"] is True


@pytest.mark.skipif(shutil.which("bash") is None, reason="the decide line is a bash command")
def test_the_printed_decide_line_reproduces_both_answers() -> None:
    rules_a, rules_b = RULE_SETS.get("rollback-doc"), RULE_SETS.get("kv-current")
    search = search_regions(rules_a, rules_b, 3, 10, Budget())
    example = next(e for r, e in search.found if r.case_b == "start-zero")
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    answers = []
    for rules in ("rollback-doc", "kv-current"):
        line = decide_command(example, rules)
        proc = subprocess.run(
            ["bash", "-c", line], capture_output=True, text=True, env=env, check=False, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        answers.append(proc.stdout.split("Testing UUID:")[1])
    assert "Rollback:true" in answers[0] and "Requested rollback seqno:0" in answers[0]
    assert "Rollback:false" in answers[1]


def test_the_consumer_diff_acceptance_command_exits_1() -> None:
    result = run_subprocess(
        ["diff", "--consumers", "correct", "collapse-snapshot", "--rules", "kv-current", *LESS]
    )
    assert result.code == 1, result.err
    assert "snapshot-mismatch -> lagging (rollback -> ok): safety regression" in result.out
    assert "collapse-snapshot violates no-missed-item, correct does not" in result.out


BAD_FILES = {
    "syntax_error": (
        "from spec.rules import Clause, F, RuleSet, accept, otherwise\n"
        "\n"
        'RULES = RuleSet("bad", "x", steps=(\n'
        '    Clause("start-zero", when=F.start == 0 then=accept()),\n'
        '    Clause("rest", when=otherwise, then=accept()),\n'
        "))\n",
        4,
        "syntax error",
    ),
    "unknown_field": (
        "from spec.rules import Clause, F, RuleSet, accept, otherwise, rollback\n"
        "\n"
        'RULES = RuleSet("bad", "x", steps=(\n'
        '    Clause("purge", when=F.start < F.purge_seq, then=rollback(0)),\n'
        '    Clause("rest", when=otherwise, then=accept()),\n'
        "))\n",
        4,
        "unknown field 'purge_seq'",
    ),
    "guard_not_boolean": (
        "from spec.rules import Clause, F, RuleSet, accept, otherwise\n"
        "\n"
        'RULES = RuleSet("bad", "x", steps=(\n'
        '    Clause("lagging", when=F.snap_end - F.upper, then=accept()),\n'
        '    Clause("rest", when=otherwise, then=accept()),\n'
        "))\n",
        4,
        "guard `snap_end - upper` is not boolean",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
@pytest.mark.parametrize("side", ["A", "B"])
def test_a_malformed_rule_file_is_one_line_naming_file_and_line_exit_2(
    case: str, side: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    text, line, expected = BAD_FILES[case]
    path = tmp_path / f"{case}_{side}.py"
    path.write_text(text)
    pair = [path, "kv-current"] if side == "A" else ["kv-current", path]
    result = run_cli(["diff", *pair], "", monkeypatch, capsys)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    assert f"{path}:{line}:" in result.err and expected in result.err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["kv-current"], "expected two rule sets BASE CANDIDATE, got 1"),
        (["kv-current", "kv-futur"], "unknown rules 'kv-futur'; known: kv-current, rollback-doc"),
        (["kv-current", "missing.py"], "missing.py: no such file"),
        (["kv-current", "kv-current", "--rules", "kv-current"], "--rules is for --consumers"),
        (["kv-current", "--consumers", "correct", "correct"], "not both"),
        (["--consumers", "correct", "nope"], "unknown consumer 'nope'"),
        (["--consumers", "correct", "correct", "--consumer", "correct"], "not with --consumers"),
        (["kv-current", "kv-current", "--max", "0"], "argument --max: expected 1..10,000, got 0"),
        (["kv-current", "kv-current", "--table-entries", "2"], "--table-entries 2 is below"),
        (["kv-current", "kv-current", "--seqnos", "0"], "bad bounds"),
    ],
)
def test_bad_diff_arguments_are_one_line_exit_2(args, expected, monkeypatch, capsys) -> None:
    result = run_cli(["diff", *args], "", monkeypatch, capsys)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    assert expected in result.err


def test_the_authoring_walkthrough_shows_the_tested_fixture() -> None:
    doc = (ROOT / "docs" / "authoring-rules.md").read_text()
    step = doc.split("## 2. Change a clause")[1].split("```python\n")[1].split("```")[0]
    assert step in (RULES / "purge_on_snap_start.py").read_text()


def test_a_rollback_to_2_64_minus_1_is_labelled_above_the_start_not_shallower(
    monkeypatch, capsys
) -> None:
    """snap_start - 1 in uint64 (C++) at snapshot start 0: a rollback to 18446744073709551615."""
    rules = f"{RULES / 'single_changes.py'}:mismatch-wrapped"
    result = run_cli(["diff", "kv-current", rules, "--quiet", *LESS], "", monkeypatch, capsys)
    assert result.code == 1, result.err
    assert "snapshot-mismatch -> snapshot-mismatch (rollback above start): safety regression" in (
        result.out
    )
    assert "rollback shallower" not in result.out
    assert "above the request's start 1: bounded-rollback breaks" in result.out
    assert result.err == ""  # --quiet


def test_an_unknown_argument_points_at_the_commands_own_help(monkeypatch, capsys) -> None:
    result = run_cli(["diff", "kv-current", "rollback-doc", "--bogus"], "", monkeypatch, capsys)
    assert result.code == 2
    assert result.err == (
        "dcpcheck: error: dcpcheck diff: unrecognized arguments: --bogus "
        "(see dcpcheck diff --help)\n"
    )


def test_an_incomplete_search_of_one_region_says_region() -> None:
    from checker.diff.engine import DiffReport, RegionResult
    from checker.diff.regions import Change, Region
    from checker.diff.report import text
    from spec.bounds import Bounds
    from spec.types import Outcome

    region = Region("purge", "lagging", Change(Outcome.ROLLBACK, Outcome.ACCEPT))
    report = DiffReport("rules", "a", "b", ["correct"], Bounds(), 8, complete=False, note="x")
    report.regions.append(RegionResult(region, None, []))
    assert "1 region found over every stream request" in text(report)[1]
