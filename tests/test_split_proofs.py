"""Split proofs (`check --engine cubes-spark`): the cubes solved on Spark executors give the verdict
and the counterexample `--engine z3` gives; the first violation stops the other cubes; an
unknown cube is named and never becomes `holds`. (On the standalone cluster:
test_spark_cluster.py.)"""

from __future__ import annotations

import json
import time
from pathlib import Path

from clihelp import SMALL

from checker.engines import cubes
from checker.engines import z3 as z3_engine
from checker.engines.options import Options
from checker.result import Verdict
from checker.spark.parts import until_decided
from checker.symbolic.budget import Budget
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

# One violated (seed 001's collapse-snapshot) and one holding combination.
CHECKS = ["check", "--rules", "kv-current", "--consumer", "collapse-snapshot"]
CHECKS += ["--consumer", "correct", "--property", "no-missed-item", "--json", *SMALL]


def _decided(out: str) -> list[tuple]:
    keys = ("consumer", "verdict", "replay", "size")
    return [
        (*(r[k] for k in keys), r["counterexample"] and Path(r["counterexample"]).name)
        for r in json.loads(out)["results"]
    ]


def test_cubes_on_spark_decide_what_one_z3_proof_decides(spark, tmp_path: Path, cli) -> None:
    z3 = cli(*CHECKS, "--out", tmp_path / "z3")
    split = cli(*CHECKS, "--engine", "cubes-spark", "--out", tmp_path / "spark")
    assert split.code == z3.code == 1, split.err
    assert _decided(split.out) == _decided(z3.out)
    assert [d[1] for d in _decided(split.out)] == ["violated", "holds"]
    for record in json.loads(split.out)["results"]:
        assert record["cubes"] == 2  # one failover at most: 0 or 1
        assert record["budget"] > 0
    assert "cubes solved on Spark" in split.err


def test_an_unknown_cube_is_named_and_the_proof_is_not_claimed() -> None:
    model = ScenarioModel(
        Bounds(seqnos=5, keys=2, entries=3, failovers=2),
        RULE_SETS.get("kv-current"),
        CONSUMERS.get("correct"),
    )
    found = cubes.search(model, PROPERTIES.get("no-missed-item"), Options(budget=20_000))
    assert found.verdict is Verdict.UNKNOWN
    assert found.reason.startswith("3 of 3 cubes unknown (failovers=0; failovers=1; failovers=2)")
    assert found.cubes == 3


def test_the_first_decisive_part_cancels_the_parts_still_running(spark) -> None:
    """Part 0 decides at once; the others would take a minute each unless cancelled."""

    def work(n: int) -> str:
        if n == 0:
            return "violated"
        time.sleep(60)
        return "holds"

    done = until_decided(spark, 6, work, lambda found: "violated" in found.values())
    assert done == {0: "violated"}
    # The session is still usable once the cancelled tasks are gone.
    assert spark.sparkContext.parallelize(range(4), 2).sum() == 6


def test_a_job_quicker_than_one_poll_still_reports_its_progress(spark, monkeypatch) -> None:
    """The job ends while the driver sleeps between polls: the last results are reported
    all the same (CI once saw no "cubes solved" line after a sub-second split proof)."""
    from checker.spark import parts

    monkeypatch.setattr(parts, "POLL_SECONDS", 5.0)
    heard: list[int] = []
    done = until_decided(
        spark, 3, lambda n: n * n, lambda found: False, on_progress=lambda d: heard.append(len(d))
    )
    assert done == {0: 0, 1: 1, 2: 4}
    assert heard[-1] == 3


def _minimised_from_each_cube(bounds: Bounds, depth: int) -> tuple[set, set, set]:
    """kv-current x collapse-snapshot x no-missed-item: the violations the cubes of
    ``model.split(depth)`` find, each minimised over the whole model, and the whole
    model's search's own counterexample."""
    model = ScenarioModel(bounds, RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot"))
    prop = PROPERTIES.get("no-missed-item")
    found = [cubes.solve_cube(model, prop, cube, Budget()) for cube in model.split(depth)]
    starts = {f.scenario for f in found if f.verdict is Verdict.VIOLATED}
    least = {z3_engine.minimised_from(model, prop, s, Budget()).scenario for s in starts}
    return starts, least, {z3_engine.search(model, prop, budget=Budget()).scenario}


def test_the_counterexample_does_not_depend_on_the_cube_that_found_it() -> None:
    """Each cube's own violation, minimised over the whole model, is the one least scenario
    (whichever cube an executor finishes first)."""
    bounds = Bounds(seqnos=4, keys=2, entries=3, failovers=2)
    starts, least, searched = _minimised_from_each_cube(bounds, 1)
    assert len(starts) == 2  # one and two failovers: two different violations
    assert least == searched


def test_a_minimised_counterexample_does_not_depend_on_the_violation_it_started_from() -> None:
    """Here the violation a cube of depth 2 finds once minimised to another scenario than
    the whole model's search did (``check --split 2`` and ``check`` wrote different
    counterexamples): a value already at its least (0, false) was left free while the
    names after it were minimised, and a later model could move it."""
    bounds = Bounds(seqnos=3, keys=2, entries=2, failovers=1)
    starts, least, searched = _minimised_from_each_cube(bounds, 2)
    assert starts
    assert least == searched
