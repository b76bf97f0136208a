"""Checks as Spark tasks: one Spark job per check, results in the checks' order.

Each ``checker.tasks`` task resolves its names (built-in or ``.py`` file) on
an executor, runs there, and returns its ``Result`` (plain data). Jobs are
submitted from a few driver threads, so checks run side by side on the
executors and each one is reported (``on_start``, ``on_done``) as it
finishes rather than all at the end. All jobs share one job group: Ctrl-C
cancels every job still running, and ``run_tasks`` returns the results
decided so far with the rest ``unknown (interrupted)``. A user's files go
with the job (``checker.spark.shipping``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any, TypeVar

from checker.result import Result, interrupted
from checker.spark.shipping import on_executor, ship
from checker.tasks import AnyTask, ClusterGroupTask, ScenarioGroupTask, planned_any, run_any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["GROUP", "one_task_each", "run_tasks"]

T = TypeVar("T")
R = TypeVar("R")
GROUP = "dcpcheck"
NAMES = ("rules", "consumer", "property", "ack_rule", "branch_rule")


def _names(task: AnyTask, rename: Callable[[str], str]) -> AnyTask:
    named = {f.name for f in fields(task)} & set(NAMES)
    changes: dict[str, object] = {name: rename(getattr(task, name)) for name in named}
    if isinstance(task, ScenarioGroupTask | ClusterGroupTask):
        changes["properties"] = tuple(rename(p) for p in task.properties)
    return replace(task, **changes)  # type: ignore[arg-type]  # str or tuple fields, by name


def _run_there(task: AnyTask) -> list[Result]:
    return run_any(_names(task, on_executor))


def run_tasks(
    spark: SparkSession,
    tasks: Sequence[AnyTask],
    *,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[int, list[Result]], None] | None = None,
) -> list[list[Result]]:
    """Each task's results (a list: a group gives one per property), in the tasks' order.
    After Ctrl-C a task not decided is its planned results ``unknown (interrupted)``."""
    shipped = [_names(task, lambda text: ship(spark, text)) for task in tasks]
    try:
        found = one_task_each(spark, _run_there, shipped, on_start=on_start, on_done=on_done)
        return [_named_here(task, results) for task, results in zip(tasks, found, strict=True)]
    except Interrupted as stop:
        return [
            [interrupted(r) for r in planned_any(task)] if results is None else results
            for task, results in zip(tasks, stop.results, strict=True)
        ]


def _named_here(task: AnyTask, results: list[Result]) -> list[Result]:
    """``results`` (named on an executor by the shipped copies of the user's files) with the
    reproduce command and sources the driver's names give: what the user typed."""
    named = []
    for result, here in zip(results, planned_any(task), strict=True):
        record = None
        if result.record is not None:
            record = {k: v for k, v in result.record.items() if k != "sources"}
            record["command"] = here.command
            record |= {"sources": dict(here.sources)} if here.sources else {}
        named.append(result.but(command=here.command, sources=here.sources, record=record))
    return named


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped ``one_task_each``: ``results`` holds what was decided (None: not)."""

    def __init__(self, results: list[Any]) -> None:
        super().__init__()
        self.results = results


def one_task_each(
    spark: SparkSession,
    run: Callable[[T], R],
    items: Sequence[T],
    *,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[int, R], None] | None = None,
) -> list[R]:
    """``run`` on each item as its own Spark job, ``defaultParallelism`` at a time;
    the results in the items' order. Ctrl-C cancels the jobs still running and raises
    ``Interrupted`` with the results decided by then."""
    context = spark.sparkContext

    def job(n: int) -> R:
        context.setJobGroup(GROUP, f"dcpcheck check {n + 1}/{len(items)}", True)
        if on_start is not None:
            on_start(n)
        (value,) = context.parallelize([items[n]], 1).map(run).collect()
        return value

    results: dict[int, R] = {}
    workers = max(1, min(len(items), context.defaultParallelism))
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dcpcheck-job")
    try:
        pending = {pool.submit(job, n): n for n in range(len(items))}
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                n = pending.pop(future)
                results[n] = future.result()
                if on_done is not None:
                    on_done(n, results[n])
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        # a job a thread submits just after a cancel runs on: cancel until none is left
        while not all(future.done() for future in pending):
            context.cancelJobGroup(GROUP)
            wait(pending, timeout=0.5)
        pool.shutdown(wait=True)
        for future, n in pending.items():  # decided while the others were being cancelled
            if future.done() and not future.cancelled() and future.exception() is None:
                results[n] = future.result()
        raise Interrupted([results.get(n) for n in range(len(items))]) from None
    except BaseException:
        context.cancelJobGroup(GROUP)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[n] for n in range(len(items))]
