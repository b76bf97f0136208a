"""``dcpcheck sweep`` on Spark: inputs generated, decided and written on the executors.

The driver sends partition descriptors only, ``(part, lo, hi)``: one row per
partition. In ``mapInArrow``, each executor generates inputs ``lo..hi-1`` of
the space itself, decides them under every rule set with NumPy and writes
them as one Parquet file of the dataset (``checker.sweep.job``); what flows
back through Spark is each part's tally, which Spark reduces (inputs per
rule set and clause, per region) before the driver collects it. ``--out``
must therefore be a path the executors can write (a local disk for
``local[*]`` or a cluster on one host, a shared filesystem otherwise).

A user's rule file is shipped to the executors (``addPyFile``) under a name
made from its contents, and resolved there from ``SparkFiles``.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pyarrow as pa

from checker.spark.session import interruptible
from checker.spark.shipping import on_executor, ship
from checker.sweep.job import TALLY, SweepJob, descriptors

if TYPE_CHECKING:
    from pyspark import SparkContext
    from pyspark.sql import DataFrame, Row, SparkSession

__all__ = ["SweepTimeout", "TallyRow", "parts_on_spark", "sweep_on_spark", "tasks_on_spark"]

T = TypeVar("T")

PART_INPUTS = 1 << 20  # at most this many inputs per partition (more partitions, finer progress)


class SweepTimeout(Exception):
    """The job was cancelled at its deadline: nothing is claimed about the space."""


@dataclass(frozen=True)
class TallyRow:
    """Inputs of one clause of a rule set (kind ``clause``) or of one region of a pair
    (kind ``region``), and the index of the first one."""

    kind: str
    subject: int
    code: int
    inputs: int
    first: int


def sweep_on_spark(
    spark: SparkSession,
    job: SweepJob,
    dataset: Path,
    *,
    timeout_s: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, list[TallyRow]]:
    """Run ``job`` on ``spark``, its parts written into the directory ``dataset``; the
    number of parts and the tally. ``progress(done, total)`` is called as parts finish."""
    parts = max(2 * spark.sparkContext.defaultParallelism, -(-job.space.size // PART_INPUTS))

    def reduce(tallies: DataFrame) -> list[Row]:
        from pyspark.sql import functions as F

        return (
            tallies.groupBy("kind", "subject", "code")
            .agg(F.sum("inputs").alias("inputs"), F.min("first").alias("first"))
            .collect()
        )

    ranges = descriptors(job.space.size, parts)
    shipped = replace(job, rules=tuple(ship(spark, spec) for spec in job.rules))
    reduced = parts_on_spark(
        spark,
        _executor(shipped, str(dataset.resolve())),  # executors have their own cwd
        ranges,
        TALLY,
        "dcpcheck sweep",
        reduce,
        timeout_s=timeout_s,
        progress=progress,
    )
    rows = [TallyRow(r["kind"], r["subject"], r["code"], r["inputs"], r["first"]) for r in reduced]
    return len(ranges), rows


def parts_on_spark(
    spark: SparkSession,
    executor: Callable[[Iterator[Any]], Iterator[Any]],  # record batches (pyarrow: untyped)
    ranges: list[tuple[int, int, int]],
    tally: pa.Schema,
    what: str,
    reduce: Callable[[DataFrame], list[Row]],
    *,
    timeout_s: float,
    progress: Callable[[int, int], None] | None = None,
) -> list[Row]:
    """One Spark task per range ``(part, lo, hi)``: ``executor`` (a ``mapInArrow``
    function) turns each into record batches of schema ``tally``; ``reduce(frame)`` is
    what the driver gets back. Cancelled at ``timeout_s`` (``SweepTimeout``) or Ctrl-C."""

    def action() -> list[Row]:
        from pyspark.sql.pandas.types import from_arrow_schema

        context = spark.sparkContext
        frame = spark.createDataFrame(
            context.parallelize(ranges, len(ranges)), "part long, lo long, hi long"
        )
        return reduce(frame.mapInArrow(executor, from_arrow_schema(tally)))

    return _guarded(spark, what, len(ranges), action, timeout_s, progress)


def tasks_on_spark(
    spark: SparkSession,
    task: Callable[[Iterator[tuple[int, int, int]]], Iterator[Any]],
    ranges: list[tuple[int, int, int]],
    what: str,
    *,
    timeout_s: float,
    progress: Callable[[int, int], None] | None = None,
) -> list[Any]:
    """``parts_on_spark`` on the RDD API: one task per range, ``task`` (a
    ``mapPartitions`` function of the ranges) yields picklable rows, the driver collects
    them all. No SQL plan, no Arrow in the JVM: for a job whose result is a few rows per
    part, Spark's share of the CPU is what scheduling the tasks costs."""

    def action() -> list[Any]:
        rdd = spark.sparkContext.parallelize(ranges, len(ranges))
        return rdd.mapPartitions(task).collect()  # type: ignore[arg-type]  # pyspark's stub wants a function of any Iterable; a task's is the partition's iterator

    return _guarded(spark, what, len(ranges), action, timeout_s, progress)


def _guarded(
    spark: SparkSession,
    what: str,
    tasks: int,
    action: Callable[[], list[T]],
    timeout_s: float,
    progress: Callable[[int, int], None] | None,
) -> list[T]:
    """``action()`` as one job group: cancelled at ``timeout_s`` (``SweepTimeout``) or
    Ctrl-C, its ``tasks`` tasks reported done as they finish."""
    context = spark.sparkContext
    group = f"dcpcheck-parts-{uuid.uuid4().hex[:12]}"
    expired, finished = threading.Event(), threading.Event()

    def expire() -> None:
        # Until the action returns: a job submitted just after a cancel is cancelled too.
        expired.set()
        while True:
            context.cancelJobGroup(group)
            if finished.wait(0.5):
                return

    timer = threading.Timer(timeout_s, expire)
    timer.daemon = True
    watcher = _Watcher(context, group, tasks, progress)
    try:
        context.setJobGroup(group, what, True)
        timer.start()
        watcher.start()

        def collect() -> list[T]:
            context.setJobGroup(group, what, True)  # this thread's jobs
            return action()

        reduced = interruptible(spark, collect)
        if expired.is_set():  # finished, but after the time limit a cancel may have missed
            raise SweepTimeout("stopped at the time limit")
    except SweepTimeout:
        raise
    except Exception as exc:
        if expired.is_set():
            raise SweepTimeout("stopped at the time limit") from exc
        raise
    except BaseException:
        context.cancelJobGroup(group)
        raise
    finally:
        finished.set()
        timer.cancel()
        watcher.stop()
        context.setLocalProperty("spark.jobGroup.id", None)  # type: ignore[arg-type]  # None clears it (SparkContext.setLocalProperty's doc); the stub says str
    return reduced


def _executor(job: SweepJob, dataset: str) -> Callable[[Iterator[Any]], Iterator[Any]]:
    def run(descriptor_batches: Iterator[Any]) -> Iterator[Any]:  # pyarrow record batches
        local = replace(job, rules=tuple(on_executor(spec) for spec in job.rules))
        for descriptors_batch in descriptor_batches:
            for part, lo, hi in zip(
                *(descriptors_batch.column(c).to_pylist() for c in ("part", "lo", "hi")),
                strict=True,
            ):
                yield local.write_part(Path(dataset), part, lo, hi)

    return run


class _Watcher:
    """Polls Spark's status tracker and reports parts done (a daemon thread)."""

    def __init__(
        self,
        context: SparkContext,
        group: str,
        total: int,
        report: Callable[[int, int], None] | None,
    ) -> None:
        self.context, self.group, self.total, self.report = context, group, total, report
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.report is None:
            return
        self._thread = threading.Thread(target=self._run, name="dcpcheck-sweep-progress")
        self._thread.daemon = True
        self._thread.start()

    def _run(self) -> None:
        report = self.report
        assert report is not None  # start() runs this thread only with a report
        tracker = self.context.statusTracker()
        shown = -1
        while not self._stop.wait(1.0):
            done = 0
            for job_id in tracker.getJobIdsForGroup(self.group):
                info = tracker.getJobInfo(job_id)
                for stage_id in info.stageIds if info else ():
                    stage = tracker.getStageInfo(stage_id)
                    if stage is not None and stage.numTasks == self.total:
                        done = max(done, stage.numCompletedTasks)
            if done != shown:
                shown = done
                report(done, self.total)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
