"""A split Z3 proof on Spark: the cubes solved on the executors (``check --engine cubes-spark``).

The driver sends each task only a cube's number; the names of the rule set,
consumer and property, the bounds, the split depth and the budget travel
with the job. A task rebuilds the model from them (``checker.spark.models``),
takes cube ``n`` of ``model.split(depth)`` and solves it as
``checker.engines.cubes`` does in one process: a fresh solver, the check's
whole budget of Z3 resource units, so what a cube finds and spends is the
same on any executor and on a retried task. The costliest cubes (the most
failovers) are scheduled first. Findings come back as tasks finish
(``checker.spark.parts``); the first violated cube cancels the others, and
the driver minimises the violation over the whole model, so the
counterexample is the one ``--engine z3`` reports.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from checker.engines.cubes import SolveCubes, Split, solve_cube
from checker.engines.finding import Finding
from checker.result import Verdict
from checker.spark.models import scenario_model
from checker.spark.parts import until_decided
from checker.spark.shipping import ship
from checker.symbolic.budget import Budget
from spec.bounds import Bounds

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["cubes_on_spark"]


def _wall_deadline(deadline: float | None) -> float | None:
    """The driver's monotonic ``deadline`` as a wall-clock time executors can read."""
    return None if deadline is None else time.time() + (deadline - time.monotonic())


def _solve_there(
    names: tuple[str, str, str],
    bounds: Bounds,
    depth: int,
    n: int,
    limit: int | None,
    wall_deadline: float | None,
) -> Finding:
    """Cube ``n``, solved on this executor; its CPU seconds travel with the finding."""
    started = time.process_time()
    model, prop = scenario_model(*names, bounds)
    deadline = None if wall_deadline is None else time.monotonic() + wall_deadline - time.time()
    found = solve_cube(model, prop, model.split(depth)[n], Budget(limit), deadline)
    return replace(found, cpu_elsewhere=time.process_time() - started)


def cubes_on_spark(
    spark: SparkSession,
    rules: str,
    consumer: str,
    prop: str,
    update: Callable[[str], None] | None = None,
) -> SolveCubes:
    """The cubes of the check of (``rules``, ``consumer``, ``prop``), named as executors
    resolve them, solved on ``spark``; ``update`` hears how many are solved."""
    names = (ship(spark, rules), ship(spark, consumer), ship(spark, prop))

    def solve(split: Split) -> dict[int, Finding]:
        count = len(split.model.split(split.depth))
        bounds, depth, limit = split.model.bounds, split.depth, split.limit
        wall_deadline = _wall_deadline(split.deadline)

        def run_cube(n: int) -> Finding:
            return _solve_there(names, bounds, depth, n, limit, wall_deadline)

        def decided(done: Mapping[int, Finding]) -> bool:
            return any(f.verdict is Verdict.VIOLATED for f in done.values())

        def solved(done: Mapping[int, Finding]) -> None:
            if update is not None:
                update(f"{len(done)}/{count} cubes solved on Spark")

        return until_decided(
            spark,
            count,
            run_cube,
            decided,
            order=list(reversed(range(count))),
            on_progress=solved,
        )

    return solve
