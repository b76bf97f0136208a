"""Output that said the wrong thing (issue 25, item 6): ``clients`` judges a user's file
beside the catalogue and prints each violation's counterexample, a bad ``--master`` is one
line, verify's totals agree and it ends with "N of N as expected", a job of several
checks tells its verdicts instead of ``mixed``, bound options show their defaults, a cost
violation exits 0 unless ``--fail-on cost``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import DATA

from checker.cli import build_parser
from checker.client_catalogue import client_tasks
from checker.commands.verify import closing_line, plan_line
from checker.progress import Progress
from checker.result import Result, Verdict
from checker.runner import Job, run_jobs
from checker.scenario_check import planned
from checker.tasks import ClusterGroupTask, ScenarioGroupTask
from spec.bounds import Bounds
from spec.cluster import PRESETS
from spec.consumers import CONSUMERS, catalogue_names
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

SMALL = ["--seqnos", "3", "--keys", "2", "--entries", "3", "--failovers", "1"]
USER_CLIENT = (DATA / "claims_rollback_point.py").read_text()  # a user's client file


def test_a_users_file_is_judged_beside_the_whole_catalogue(tmp_path: Path) -> None:
    path = tmp_path / "mine.py"
    path.write_text(USER_CLIENT)
    tasks = client_tasks(["kv-current"], [str(path)], ["no-missed-item"], Bounds(), None)
    assert [t.consumer for t in tasks] == [*catalogue_names(), str(path)]
    named = client_tasks(["kv-current"], ["go-dcp", str(path)], ["no-missed-item"], Bounds(), None)
    assert [t.consumer for t in named] == ["go-dcp", str(path)]


def test_clients_prints_each_violations_counterexample_and_no_story_for_yours(
    tmp_path: Path, cli
) -> None:
    path = tmp_path / "mine.py"
    path.write_text(USER_CLIENT)
    args = ["clients", "--consumer", "kv-replica:midpoint=off", "--consumer", path]
    args += ["--rules", "rollback-doc", "--property", "no-missed-item", "--no-spark", "--quiet"]
    result = cli(*args, "--out", tmp_path / "cex", *SMALL)
    assert result.code == 1, result.err  # my-client's violation has no pinned verdict
    text = result.out.split("\ncounterexamples:\n")[1]
    for name, source in (
        ("kv-replica:midpoint=off", "kv-replica:midpoint=off"),
        ("my-client", path),
    ):
        (row,) = [line for line in text.splitlines() if f"rollback-doc/{name}: " in line]
        assert Path(row.split(": ")[-1]).exists(), row
        assert f"reproduce: dcpcheck check --rules rollback-doc --consumer {source} " in text
    footer = result.out.splitlines()[-1]
    assert "each pinned violation's story is in docs/clients.md" in footer
    assert "my-client: no pinned verdict (a violation is exit 1) and no story there" in footer


@pytest.mark.parametrize("command", ["clients", "verify"])
def test_a_bad_master_is_one_line_and_nothing_before_it(command: str, cli) -> None:
    result = cli(command, "--master", "bogus://x", "--rules", "kv-current")
    assert result.code == 2
    assert result.err == (
        "dcpcheck: error: --master: 'bogus://x' is not a Spark master URL; use local[*], "
        "local[N], spark://HOST:PORT, yarn or k8s://https://HOST:PORT\n"
    )


def test_verify_counts_its_checks_and_tasks_once_and_closes_with_n_of_n() -> None:
    single = [ScenarioGroupTask("kv-current", c, ("a", "b"), Bounds()) for c in ("x", "y")]
    clients = [ScenarioGroupTask("kv-current", "go-dcp", ("a", "b", "c"), Bounds())]
    cluster = [ClusterGroupTask("a", "b", ("p", "q"), PRESETS["mb-34150"].bounds, "mb-34150")] * 3
    line = plan_line(single, clients, cluster, Bounds(), True)
    assert line.startswith("dcpcheck verify: 13 checks (4 single-node + 3 client + 6 durability)")
    assert " in 6 tasks, progress counts tasks; " in line
    held = _planned().but(verdict=Verdict.HOLDS)
    pinned = _planned().but(verdict=Verdict.VIOLATED, expected="violated")
    assert closing_line([held, pinned], 2.5) == "2 of 2 checks as expected in 2.5s"
    off = _planned().but(verdict=Verdict.VIOLATED)
    assert closing_line([held, off, _planned()], 1.0) == (
        "1 of 3 checks as expected, 1 not as expected, 1 unknown in 1.0s"
    )


def _planned() -> Result:
    rules, correct = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    return planned(rules, correct, PROPERTIES.get("valid-request"), Bounds())


def test_a_job_of_several_checks_shows_how_many_of_each_verdict_not_mixed() -> None:
    both = [_planned().but(verdict=Verdict.HOLDS), _planned().but(verdict=Verdict.VIOLATED)]
    stream = io.StringIO()
    job = Job("kv-current/x: a, b", lambda update: both, lambda: both)
    run_jobs([job], Progress(1, "tasks", stream=stream, live=False))
    assert "done kv-current/x: a, b: 1 holds, 1 violated" in stream.getvalue()


@pytest.mark.parametrize("command", ["check", "clients", "verify"])
def test_bound_options_show_their_defaults_in_help(command: str, capsys) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag, default in (("seqnos", 6), ("keys", 3), ("entries", 4), ("failovers", 2)):
        assert f"--{flag} N" in text and f"(default {default})" in text
    assert "(default entries + 3)" in text and "(default 25)" in text


def test_a_cost_violation_exits_0_unless_fail_on_cost(tmp_path: Path, cli) -> None:
    args = ["check", "--rules", "kv-current", "--consumer", "correct"]
    args += ["--property", "no-needless-rollback", "--out", tmp_path, *SMALL, "--quiet"]
    reported = cli(*args)
    assert reported.code == 0 and ": no-needless-rollback: violated" in reported.out
    assert cli(*args, "--fail-on", "cost").code == 1


def _region_result(*evidence):
    from checker.diff.classify import Classification
    from checker.diff.engine import RegionResult
    from checker.diff.regions import Change, Region
    from spec.types import Outcome

    region = Region("lagging", "purge", Change(Outcome.ACCEPT, Outcome.ROLLBACK))
    return RegionResult(region, Classification.SAFETY_FIX, list(evidence))


def test_a_safety_fix_only_an_unsafe_consumer_shows_is_flagged_as_such() -> None:
    from checker.diff.classify import Evidence

    unsafe = Evidence("collapse-snapshot", reached=True, fixes=["no-missed-item"], unsafe_b=True)
    safe = Evidence("correct", reached=True, fixes=["no-missed-item"], unsafe_b=False)
    bystander = Evidence("correct", reached=True)
    assert _region_result(unsafe, bystander).fix_only_for_unsafe
    assert not _region_result(unsafe, safe).fix_only_for_unsafe


def test_a_violation_the_textbook_consumer_shares_is_marked_in_the_table() -> None:
    from checker.report.text import summary_table

    shared = _planned().but(verdict=Verdict.VIOLATED, also_by="correct")
    assert "violated (correct too)" in summary_table([shared, _planned()])
