"""Checks as Spark tasks: one Spark job per check, results in the checks' order.

Each ``checker.tasks`` task resolves its names (built-in or ``.py`` file) on
an executor, runs there, and returns its ``Result`` (plain data). Jobs are
submitted from a few driver threads, so checks run side by side on the
executors and each one is reported (``on_start``, ``on_done``) as it
finishes rather than all at the end. All jobs share one job group: Ctrl-C
cancels every job still running, then re-raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import TypeVar

from checker.result import Result
from checker.tasks import Task, run_task

__all__ = ["GROUP", "one_task_each", "run_tasks"]

T = TypeVar("T")
R = TypeVar("R")
GROUP = "dcpcheck"


def run_tasks(
    spark,  # type: ignore[no-untyped-def]
    tasks: Sequence[Task],
    *,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[int, Result], None] | None = None,
) -> list[Result]:
    return one_task_each(spark, run_task, tasks, on_start=on_start, on_done=on_done)


def one_task_each(
    spark,  # type: ignore[no-untyped-def]
    run: Callable[[T], R],
    items: Sequence[T],
    *,
    on_start: Callable[[int], None] | None = None,
    on_done: Callable[[int, R], None] | None = None,
) -> list[R]:
    """``run`` on each item as its own Spark job, ``defaultParallelism`` at a time;
    the results in the items' order."""
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
    except BaseException:
        context.cancelJobGroup(GROUP)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [results[n] for n in range(len(items))]
