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
from threading import Lock
from typing import TYPE_CHECKING, Any, TypeVar

from checker.engines.options import Options
from checker.result import Result, Verdict, interrupted
from checker.spark.shipping import on_executor, ship
from checker.tasks import AnyTask, ClusterGroupTask, ScenarioGroupTask, planned_any, run_any
from spec.bounds import Bounds
from spec.consumers import TEXTBOOK
from spec.rules import RULE_SETS

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
    textbook = _Textbook()

    def done(n: int, results: list[Result]) -> None:
        textbook.learn(tasks[n], results)
        if on_done is not None:
            on_done(n, results)

    first = [n for n, task in enumerate(tasks) if _Textbook.teaches(task)]
    try:
        found = one_task_each(
            spark,
            _run_there,
            shipped,
            on_start=on_start,
            on_done=done,
            order=[*first, *(n for n in range(len(tasks)) if n not in first)],
            before=textbook.given,
        )
        return [_named_here(task, results) for task, results in zip(tasks, found, strict=True)]
    except Interrupted as stop:
        return [
            [interrupted(r) for r in planned_any(task)] if results is None else results
            for task, results in zip(tasks, stop.results, strict=True)
        ]


class _Textbook:
    """``correct``'s verdicts the run has decided, handed to each task started after them
    (``ScenarioGroupTask.textbook``): each Spark worker would otherwise check ``correct``
    again for its own comparisons (``checker.cell``). The tasks of ``correct`` start first."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, Bounds, Options], dict[tuple[str, str], str]] = {}
        self._lock = Lock()  # learnt on the driver's main thread, given on job threads

    @staticmethod
    def teaches(task: AnyTask) -> bool:
        return (
            isinstance(task, ScenarioGroupTask)
            and task.consumer == TEXTBOOK[0]
            and task.rules in RULE_SETS  # a user's file has another name on an executor
        )

    @staticmethod
    def _key(task: ScenarioGroupTask) -> tuple[str, Bounds, Options]:
        return task.rules, task.bounds, task.options.but(minimise=False)

    def learn(self, task: AnyTask, results: list[Result]) -> None:
        if not isinstance(task, ScenarioGroupTask) or not self.teaches(task):
            return
        decided = {
            (task.rules, r.property): r.verdict.value
            for r in results
            if not r.interrupted and r.verdict in (Verdict.HOLDS, Verdict.VIOLATED)
        }
        with self._lock:
            self._known.setdefault(self._key(task), {}).update(decided)

    def given(self, task: T) -> T:
        if not isinstance(task, ScenarioGroupTask) or task.consumer == TEXTBOOK[0]:
            return task
        with self._lock:
            known = dict(self._known.get(self._key(task), {}))
        verdicts = tuple((rules, prop, verdict) for (rules, prop), verdict in known.items())
        return replace(task, textbook=verdicts) if verdicts else task


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
    order: Sequence[int] | None = None,
    before: Callable[[T], T] | None = None,
) -> list[R]:
    """``run`` on each item as its own Spark job, ``defaultParallelism`` at a time, started
    in ``order`` (default the items'), each item passed through ``before`` as its job
    starts; the results in the items' order. Ctrl-C cancels the jobs still running and
    raises ``Interrupted`` with the results decided by then."""
    context = spark.sparkContext

    def job(n: int) -> R:
        context.setJobGroup(GROUP, f"dcpcheck check {n + 1}/{len(items)}", True)
        if on_start is not None:
            on_start(n)
        item = items[n] if before is None else before(items[n])
        (value,) = context.parallelize([item], 1).map(run).collect()
        return value

    results: dict[int, R] = {}
    workers = max(1, min(len(items), context.defaultParallelism))
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dcpcheck-job")
    try:
        pending = {pool.submit(job, n): n for n in (order or range(len(items)))}
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
