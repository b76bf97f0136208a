"""Checks as Spark tasks: one task per check, results in the checks' order.

Each ``checker.tasks`` task resolves its names (built-in or ``.py`` file) on
the executor, runs there, and returns its ``Result`` (plain data); the
driver puts the results back in the order the tasks were given. A user's
files go with the job (``checker.spark.shipping``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import TypeVar

from checker.result import Result
from checker.spark.shipping import on_executor, ship
from checker.tasks import Task, run_task

__all__ = ["one_task_each", "run_tasks"]

T = TypeVar("T")
R = TypeVar("R")
NAMES = ("rules", "consumer", "property", "ack_rule", "branch_rule")


def _names(task: Task, rename: Callable[[str], str]) -> Task:
    named = {f.name for f in fields(task)} & set(NAMES)
    return replace(task, **{name: rename(getattr(task, name)) for name in named})


def _run_there(task: Task) -> Result:
    return run_task(_names(task, on_executor))


def run_tasks(spark, tasks: Sequence[Task]) -> list[Result]:  # type: ignore[no-untyped-def]
    shipped = [_names(task, lambda text: ship(spark, text)) for task in tasks]
    return one_task_each(spark, _run_there, shipped)


def one_task_each(spark, run: Callable[[T], R], items: Sequence[T]) -> list[R]:  # type: ignore[no-untyped-def]
    """``run`` on each item, one Spark task per item; the results in the items' order."""
    rdd = spark.sparkContext.parallelize(list(enumerate(items)), numSlices=max(1, len(items)))
    results = dict(rdd.map(lambda pair: (pair[0], run(pair[1]))).collect())
    return [results[n] for n in range(len(items))]
