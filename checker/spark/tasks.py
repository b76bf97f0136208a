"""Checks as Spark tasks: one task per check, results in the checks' order.

Each ``checker.tasks`` task resolves its names (built-in or ``.py`` file) on
the executor, runs there, and returns its ``Result`` (plain data); the
driver puts the results back in the order the tasks were given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from checker.result import Result
from checker.tasks import Task, run_task

__all__ = ["one_task_each", "run_tasks"]

T = TypeVar("T")
R = TypeVar("R")


def run_tasks(spark, tasks: Sequence[Task]) -> list[Result]:  # type: ignore[no-untyped-def]
    return one_task_each(spark, run_task, tasks)


def one_task_each(spark, run: Callable[[T], R], items: Sequence[T]) -> list[R]:  # type: ignore[no-untyped-def]
    """``run`` on each item, one Spark task per item; the results in the items' order."""
    rdd = spark.sparkContext.parallelize(list(enumerate(items)), numSlices=max(1, len(items)))
    results = dict(rdd.map(lambda pair: (pair[0], run(pair[1]))).collect())
    return [results[n] for n in range(len(items))]
