"""One run loop for every command: jobs run here, on forked processes or on Spark.

A ``Job`` is a label, how to run it (``run(update) -> results``, ``update``
for its own progress) and its results if it never decides anything
(``planned() -> results``: unknown, named and bounded). ``run_jobs`` runs
them in order where ``place`` says (``HERE``, ``Forked(workers)``, or
``OnSpark(...)`` for jobs made from ``checker.tasks`` tasks), shows progress
on stderr, hands each result to ``each`` as it is decided (a command prints
or writes it there: ``checker.report.emit.Emit.one``) and returns the results
in the jobs' order. Ctrl-C stops the run: the job it stops is ``unknown
(interrupted)`` unless it had decided its verdict (a violation whose
minimisation was cut short), and so is every job after it; the command then
writes nothing and exits 130 with the one line ``checker.interrupt`` words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial

from checker.progress import Progress
from checker.result import Result, Stats, interrupted
from checker.tasks import AnyTask, planned_any, run_any
from checker.timing import Stopwatch

__all__ = ["HERE", "Forked", "Here", "Job", "OnSpark", "run_jobs"]

Update = Callable[[str], None]


@dataclass(frozen=True)
class Job:
    label: str
    run: Callable[[Update], list[Result]]
    planned: Callable[[], list[Result]]
    task: AnyTask | None = None  # what a Spark executor is sent (``OnSpark``)

    @classmethod
    def one(cls, label: str, run: Callable[[Update], Result], planned: Callable[[], Result]) -> Job:
        """A job of one check."""
        return cls(label, partial(_listed, run), partial(_listed_planned, planned))

    @classmethod
    def of(cls, task: AnyTask) -> Job:
        """A ``checker.tasks`` task as a job (a group gives one result per property)."""
        return cls(task.label, partial(_run_task, task), partial(planned_any, task), task)


def _listed(run: Callable[[Update], Result], update: Update) -> list[Result]:
    return [run(update)]


def _listed_planned(planned: Callable[[], Result]) -> list[Result]:
    return [planned()]


def _run_task(task: AnyTask, update: Update) -> list[Result]:
    return run_any(task)


@dataclass(frozen=True)
class Here:
    """In this process, one job after another."""


@dataclass(frozen=True)
class Forked:
    """On ``workers`` forked processes side by side (``checker.engines.processes``); the
    results are taken in the jobs' order, and a job reports no progress of its own."""

    workers: int


@dataclass(frozen=True)
class OnSpark:
    """One Spark job per task (``checker.spark.tasks``), on a session to ``master``."""

    master: str
    app: str
    conf: dict[str, str] = field(default_factory=dict)
    executor_wait: float = 60.0


HERE = Here()
Place = Here | Forked | OnSpark


def run_jobs(
    jobs: Sequence[Job],
    progress: Progress,
    *,
    place: Place = HERE,
    each: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Every job's results, in the jobs' order (see the module's docstring)."""
    try:
        if isinstance(place, OnSpark) and jobs:
            results = _on_spark(jobs, progress, place)
            if each is not None:
                for result in results:
                    each(result)
            return results
        with ExitStack() as stack:
            taken = None
            if isinstance(place, Forked):
                work = [partial(_timed, job.run) for job in jobs]
                from checker.engines.processes import in_order

                taken = stack.enter_context(in_order(work, place.workers))
            return _in_order(jobs, progress, each, taken)
    finally:
        progress.close()


def _in_order(
    jobs: Sequence[Job],
    progress: Progress,
    each: Callable[[Result], None] | None,
    taken: Iterator[tuple[list[Result], float]] | None = None,
) -> list[Result]:
    """Run ``jobs`` here one after another, or, with ``taken``, take their results (and
    each job's own wall seconds) from the worker processes in the jobs' order."""
    results: list[Result] = []
    for job in jobs:
        if results and results[-1].interrupted:
            done = [interrupted(r) for r in job.planned()]
        else:
            progress.start(job.label)
            clock = Stopwatch()
            took = None  # here: the time since start
            try:
                if taken is None:
                    done = job.run(partial(progress.update, job.label))
                else:
                    done, took = next(taken)
            except KeyboardInterrupt:
                done = [interrupted(r).but(stats=Stats(*clock.read())) for r in job.planned()]
            progress.finish(job.label, _outcome(done), took)
        for result in done:
            results.append(result)
            if each is not None:
                progress.close()
                each(result)
    return results


def _outcome(results: list[Result]) -> str:
    """A job's verdict as progress shows it: ``holds``, or, for a job of several checks
    with different verdicts, how many of each (``3 holds, 1 violated``)."""
    counts = Counter(r.verdict.value for r in results)
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))


def _on_spark(jobs: Sequence[Job], progress: Progress, place: OnSpark) -> list[Result]:
    from checker.spark.session import spark_session
    from checker.spark.tasks import run_tasks

    tasks = [job.task for job in jobs if job.task is not None]
    if len(tasks) < len(jobs):
        raise ValueError("only jobs made from tasks (Job.of) run on Spark")

    def start(n: int) -> None:
        progress.start(jobs[n].label)

    def done(n: int, results: list[Result]) -> None:
        progress.finish(jobs[n].label, _outcome(results))

    found = None
    try:
        with spark_session(place.master, place.app, place.conf, place.executor_wait) as spark:
            found = run_tasks(spark, tasks, on_start=start, on_done=done)
    except KeyboardInterrupt:  # in the session's start-up (or its stop): nothing decided yet
        if found is None:
            found = [[interrupted(r) for r in job.planned()] for job in jobs]
    return [result for results in found for result in results]


def _timed(run: Callable[[Update], list[Result]]) -> tuple[list[Result], float]:
    """A job's results in a worker process, and the wall seconds it took there (the
    parent takes results in the jobs' order, so its own clock would time a job from the
    end of the one before)."""
    clock = Stopwatch()
    results = run(_silent)
    return results, clock.read()[0]


def _silent(text: str) -> None:
    """A worker's progress goes nowhere: the parent reports each job as it is taken."""
