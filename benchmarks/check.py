"""Time to the first counterexample for seed 001's situation, three ways; the whole matrix.

Z3, hypothesis random search and exhaustive enumeration search the *same*
model (kv-current, collapse-snapshot, no-missed-item) at the same bounds; the
table gives each one's time and scenarios examined, and its time as a
multiple of Z3's, all measured in this run. Then the whole verify matrix
(4 x 5 checks) in one process and as Spark tasks on local[*].
"""

from __future__ import annotations

import time

from tabulate import tabulate

from checker.check import check
from checker.engines import exhaustive
from checker.engines import random as random_search
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, TEXTBOOK
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS


def _timed(fn):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def first_counterexample(bounds: Bounds) -> None:
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot")
    prop = PROPERTIES.get("no-missed-item")
    model = ScenarioModel(bounds, rules, variant)
    z3_result, z3_time = _timed(lambda: check(rules, variant, prop, bounds, minimise=False))
    rnd, rnd_time = _timed(lambda: random_search.search(model, prop, max_examples=200_000))
    exh, exh_time = _timed(lambda: exhaustive.search(model, prop))
    assert z3_result.verdict.value == "violated" and rnd.scenario and exh.scenario
    rows = [
        ["z3", f"{z3_time:.2f}", "-", "1.0"],
        ["random (hypothesis)", f"{rnd_time:.2f}", rnd.examined, f"{rnd_time / z3_time:.0f}"],
        ["exhaustive (BFS)", f"{exh_time:.2f}", exh.examined, f"{exh_time / z3_time:.0f}"],
    ]
    print(f"seed 001's situation, first counterexample within {bounds.describe()}")
    print(tabulate(rows, headers=["engine", "seconds", "scenarios examined", "x z3"]))
    print()


def matrix(bounds: Bounds) -> None:
    from checker.spark.session import spark_session
    from checker.spark.tasks import run_tasks
    from checker.tasks import ScenarioTask, run_task

    combos = [
        ScenarioTask(r, c, p, bounds, timeout_s=600.0)
        for r in RULE_SETS.names()
        for c in TEXTBOOK
        for p in PROPERTIES.names()
    ]
    _, local = _timed(lambda: [run_task(task) for task in combos])
    spark, created = spark_session("local[*]", "dcpcheck benchmark")
    try:
        run_tasks(spark, combos[:1])  # warm the workers
        _, distributed = _timed(lambda: run_tasks(spark, combos))
    finally:
        if created:
            spark.stop()
    print(f"the verify matrix ({len(combos)} checks) within {bounds.describe()}")
    rows = [
        ["one process", f"{local:.1f}", "1.00"],
        ["Spark local[*]", f"{distributed:.1f}", f"{distributed / local:.2f}"],
    ]
    print(tabulate(rows, headers=["runs as", "seconds", "x one process"]))
    print()


def run(quick: bool = False) -> None:
    first_counterexample(Bounds(seqnos=3 if quick else 4, keys=2, entries=2, failovers=1))
    matrix(Bounds() if quick else Bounds(seqnos=8, keys=3, entries=5, failovers=3))
