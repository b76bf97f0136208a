"""The shared runner and emit: Ctrl-C, the order of results, parts of a report, the engines."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

import pytest

from checker.engines.options import Options
from checker.engines.registry import CLUSTER_ENGINES, refuse
from checker.progress import Progress
from checker.report.emit import Outputs, Section, emit
from checker.result import Result, Verdict
from checker.runner import Forked, Job, run_jobs
from checker.scenario_check import planned
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.errors import UsageError
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

TINY = Bounds(seqnos=2, keys=1, entries=2, failovers=1)
RULES, CORRECT = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")


def _planned(prop: str) -> Result:
    return planned(RULES, CORRECT, PROPERTIES.get(prop), TINY)


def _decided(prop: str) -> Job:
    return Job.one(
        prop, lambda update: _planned(prop).but(verdict=Verdict.HOLDS), lambda: _planned(prop)
    )


def _stopped(update) -> Result:
    raise KeyboardInterrupt


def test_ctrl_c_in_a_job_leaves_it_and_every_later_job_unknown_interrupted() -> None:
    seen: list[Result] = []
    jobs = [
        _decided("valid-request"),
        Job.one("stopped", _stopped, lambda: _planned("no-missed-item")),
        _decided("no-needless-rollback"),
    ]
    results = run_jobs(jobs, Progress(3, quiet=True), each=seen.append)
    assert [r.verdict for r in results] == [Verdict.HOLDS, Verdict.UNKNOWN, Verdict.UNKNOWN]
    assert [r.interrupted for r in results] == [False, True, True]
    assert [r.property for r in results] == [
        "valid-request",
        "no-missed-item",
        "no-needless-rollback",
    ]
    assert seen == results


def _slow(prop: str, seconds: float) -> Job:
    def run(update) -> Result:
        time.sleep(seconds)
        return _planned(prop).but(verdict=Verdict.HOLDS)

    return Job.one(prop, run, lambda: _planned(prop))


def test_a_job_on_a_worker_process_is_reported_with_its_own_time() -> None:
    """Both jobs run side by side; the parent takes the second's result as the first's
    ends, and reports the time the second took where it ran (at least its sleep), not
    the time since the first ended."""
    stream = io.StringIO()
    jobs = [_slow("valid-request", 0.5), _slow("no-missed-item", 0.5)]
    results = run_jobs(jobs, Progress(2, stream=stream, live=False), place=Forked(2))
    assert [r.verdict for r in results] == [Verdict.HOLDS, Verdict.HOLDS]
    took = [float(t) for t in re.findall(r"done \S+: holds in ([0-9.]+)s", stream.getvalue())]
    assert len(took) == 2 and min(took) >= 0.5, stream.getvalue()


def test_emit_reports_each_part_under_its_key_and_exits_on_the_verdicts(
    tmp_path: Path, capsys
) -> None:
    results = [_planned(p).but(verdict=Verdict.HOLDS) for p in ("valid-request", "no-missed-item")]
    sections = (
        Section("results", 1, tmp_path),
        Section("clients", 1, tmp_path / "c"),
        Section("none", 0, tmp_path),
    )
    code = emit(results, Outputs("t", tmp_path, as_json=True, sections=sections))
    printed = json.loads(capsys.readouterr().out)
    assert code == 0 and list(printed) == ["results", "clients", "none"]
    assert [len(v) for v in printed.values()] == [1, 1, 0]
    assert emit([results[0].but(verdict=Verdict.UNKNOWN)], Outputs("t", tmp_path)) == 3


def test_a_cluster_engine_refuses_the_flags_it_does_not_take() -> None:
    with pytest.raises(UsageError, match="--strategy dfs needs --engine explore"):
        refuse(CLUSTER_ENGINES["bfs-spark"], Options(strategy="dfs"), None)
    with pytest.raises(UsageError, match="--checkpoint is for --engine bfs-spark"):
        refuse(CLUSTER_ENGINES["explore"], Options(), "dir")
    refuse(CLUSTER_ENGINES["explore"], Options(workers=4, strategy="dfs"), None)
