"""The durability part of the verify job: one cluster-model search per Spark task.

Each task is a ``DurabilityTask`` (built-ins named by id at a preset's
bounds); the executor runs the breadth-first search and returns its
picklable parts, the driver rebuilds the results in a fixed order.
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.durability import DurabilityResult, DurabilityTask
from checker.spark.matrix import one_task_each

__all__ = ["run_durability"]


def _run_one(item):  # type: ignore[no-untyped-def]
    task, max_states, timeout_s = item
    return task.run(max_states=max_states, timeout_s=timeout_s)


def run_durability(
    spark,  # type: ignore[no-untyped-def]
    tasks: Sequence[DurabilityTask],
    *,
    max_states: int | None,
    timeout_s: float | None,
) -> list[DurabilityResult]:
    items = [(task, max_states, timeout_s) for task in tasks]
    ran = one_task_each(spark, _run_one, items)
    return [task.result(exploration) for task, exploration in zip(tasks, ran, strict=True)]
