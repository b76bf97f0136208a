"""Checks as Spark tasks: one task per check, results in the checks' order.

Each ``checker.tasks`` task resolves its names (built-in or ``.py`` file) on
the executor, runs there, and returns its ``Result`` (plain data); the
driver puts the results back in the order the tasks were given.

Each task is a Spark job of its own, submitted together from driver threads
(Spark runs them side by side as executor cores free up), so the driver
hears of each result as it is decided. Ctrl-C cancels every job still
running: ``run_tasks`` then returns the results decided so far and the rest
as ``unknown (interrupted)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from checker.result import Result, Verdict
from checker.tasks import Task, run_task

__all__ = ["one_task_each", "run_tasks"]

T = TypeVar("T")
R = TypeVar("R")


def run_tasks(
    spark,  # type: ignore[no-untyped-def]
    tasks: Sequence[Task],
    each: Callable[[int, Result], None] | None = None,
) -> list[Result]:
    """Every task's result in order; ``each(index, result)`` as each one is decided."""
    done = one_task_each(spark, run_task, tasks, each)
    if all(r is not None for r in done):
        return done  # type: ignore[return-value]
    return [
        r
        if r is not None
        else task.planned().but(verdict=Verdict.UNKNOWN, reason="interrupted", interrupted=True)
        for task, r in zip(tasks, done, strict=True)
    ]


def one_task_each(
    spark,  # type: ignore[no-untyped-def]
    run: Callable[[T], R],
    items: Sequence[T],
    each: Callable[[int, R], None] | None = None,
) -> list[R | None]:
    """``run`` on each item, one Spark task (and job) per item; the results in the items'
    order. After Ctrl-C (the jobs are cancelled) an item without a result gets None."""
    if not items:
        return []
    sc = spark.sparkContext
    rdd = sc.parallelize(list(enumerate(items)), numSlices=len(items))
    rdd = rdd.map(lambda pair: (pair[0], run(pair[1])))
    results: list[R | None] = [None] * len(items)
    pool = ThreadPoolExecutor(max_workers=len(items), thread_name_prefix="dcpcheck-job")
    jobs: list[Future] = [  # type: ignore[type-arg]
        pool.submit(sc.runJob, rdd, lambda rows: list(rows), [n]) for n in range(len(items))
    ]

    def collect(future: Future) -> None:  # type: ignore[type-arg]
        for n, value in future.result():
            results[n] = value
            if each is not None:
                each(n, value)

    pending = set(jobs)
    try:
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=jobs.index):
                collect(future)
    except KeyboardInterrupt:
        sc.cancelAllJobs()
        pool.shutdown(wait=True, cancel_futures=True)
        for future in pending:  # decided while the others were being cancelled
            if future.done() and not future.cancelled() and future.exception() is None:
                collect(future)
        return results
    pool.shutdown(wait=True)
    return results
