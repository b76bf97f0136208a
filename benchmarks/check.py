"""Time to the first counterexample for seed 001's situation, three ways; the whole matrix.

Z3, hypothesis random search and exhaustive enumeration search the *same*
model (kv-current, collapse-snapshot, no-missed-item) at the same bounds; the
table gives each one's wall and CPU seconds, the scenarios it examined (Z3:
the resource units it spent), and its CPU time as a multiple of Z3's, all
measured in this run. Random and exhaustive search are capped (``RANDOM_CAP``
examples, ``EXHAUSTIVE_CAP`` scenarios) so the run takes minutes; a row that
hit its cap says so, and its ratio is then a lower bound. Then the whole
verify matrix (4 x 5 checks) in one process and as Spark tasks on local[*].
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

from tabulate import tabulate

from benchmarks._process import tree_cpu_seconds
from benchmarks._table import print_table
from checker.engines import exhaustive
from checker.engines import random as random_search
from checker.engines.finding import Finding
from checker.engines.options import Options
from checker.result import Verdict
from checker.scenario_check import check
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, TEXTBOOK
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

T = TypeVar("T")
RANDOM_CAP = 20_000  # examples
EXHAUSTIVE_CAP = 300_000  # scenarios


def _timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def _row(name: str, found: Finding, wall: float, cpu: float, z3_cpu: float) -> list[object]:
    if found.verdict is Verdict.VIOLATED:
        outcome, ratio = "found", f"{cpu / z3_cpu:.0f}"
    else:
        outcome, ratio = "CAP HIT, none found", f">{cpu / z3_cpu:.0f}"
    return [name, outcome, f"{wall:.2f}", f"{cpu:.2f}", found.examined, ratio]


def first_counterexample(bounds: Bounds) -> None:
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot")
    prop = PROPERTIES.get("no-missed-item")
    model = ScenarioModel(bounds, rules, variant)
    z3_result, z3_wall, z3_cpu = _timed(
        lambda: check(rules, variant, prop, bounds, Options(minimise=False))
    )
    assert z3_result.verdict is Verdict.VIOLATED
    rnd, rnd_wall, rnd_cpu = _timed(
        lambda: random_search.search(model, prop, max_examples=RANDOM_CAP)
    )
    exh, exh_wall, exh_cpu = _timed(lambda: exhaustive.search(model, prop, limit=EXHAUSTIVE_CAP))
    units = f"{(z3_result.stats.budget or 0) / 1e6:.1f}M Z3 units"
    rows = [
        ["z3", "found", f"{z3_wall:.2f}", f"{z3_cpu:.2f}", units, "1"],
        _row("random (hypothesis)", rnd, rnd_wall, rnd_cpu, z3_cpu),
        _row("exhaustive (BFS)", exh, exh_wall, exh_cpu, z3_cpu),
    ]
    print(f"seed 001's situation, first counterexample within {bounds.describe()}")
    caps = (
        f"(caps: random {RANDOM_CAP:,} examples, exhaustive {EXHAUSTIVE_CAP:,} scenarios; "
        "'>' marks a ratio whose row hit its cap)"
    )
    print_table(caps, ["engine", "outcome", "seconds", "cpu s", "examined", "x z3 (cpu)"], rows)


def matrix(bounds: Bounds) -> None:
    from checker.spark.session import spark_session
    from checker.spark.tasks import run_tasks
    from checker.tasks import ScenarioTask, run_task

    combos = [
        ScenarioTask(r, c, p, bounds)
        for r in RULE_SETS.names()
        for c in TEXTBOOK
        for p in PROPERTIES.names()
    ]
    _, local, local_cpu = _timed(lambda: [run_task(task) for task in combos])
    with spark_session("local[*]", "dcpcheck benchmark") as spark:
        run_tasks(spark, combos[:1])  # warm the workers
        cpu = tree_cpu_seconds(os.getpid())  # the JVM and its Python workers included
        _, distributed, _ = _timed(lambda: run_tasks(spark, combos))
        distributed_cpu = tree_cpu_seconds(os.getpid()) - cpu
    print(f"the verify matrix ({len(combos)} checks) within {bounds.describe()}")
    rows = [
        ["one process", f"{local:.1f}", f"{local_cpu:.1f}", "1.00"],
        [
            "Spark local[*]",
            f"{distributed:.1f}",
            f"{distributed_cpu:.1f}",
            f"{distributed / local:.2f}",
        ],
    ]
    print(tabulate(rows, headers=["runs as", "wall s", "CPU s", "wall x one process"]))
    print()


def run(quick: bool = False) -> None:
    first_counterexample(Bounds(seqnos=3 if quick else 4, keys=2, entries=2, failovers=1))
    if not quick:
        first_counterexample(Bounds(seqnos=5, keys=3, entries=3, failovers=2))
    matrix(Bounds() if quick else Bounds(seqnos=8, keys=3, entries=5, failovers=3))
