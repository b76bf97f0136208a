"""``dcpcheck review``'s learning on Spark: each executor asks its own target processes.

The driver sends partition descriptors ``(part, lo, hi)`` as the sweep does,
on the RDD API (``checker.spark.sweep.tasks_on_spark``: the tally is a few
rows per part, so no SQL plan nor Arrow in the JVM, whose start-up and
compilation cost more CPU than scheduling the tasks); each task runs
``LearnJob.write_part`` (``checker.review.learn``): it generates its inputs,
starts the target's processes itself (humpty: one per producer state;
jsonl: one for the part), writes one Parquet part (the answers stay on the
executor's disk) and returns its tally, which the driver collects whole. The target's command
must run on every executor (true for ``local[*]``; on a cluster, install it
on the workers at the same path); ``--out`` must be a path the executors
can write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker.review.learn import LearnJob
from checker.spark.shipping import on_executor, ship
from checker.spark.sweep import tasks_on_spark
from checker.sweep.job import descriptors

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["learn_on_spark"]


def learn_on_spark(
    spark: SparkSession,
    job: LearnJob,
    dataset: Path,
    parts: int,
    *,
    timeout_s: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """Learn ``job`` in ``parts`` parts on ``spark`` into ``dataset``; the number of parts
    and every part's tally rows (``checker.review.learn.TALLY``, as dicts)."""
    ranges = descriptors(job.space.size, parts)
    shipped = replace(job, base=ship(spark, job.base))
    task = _task(shipped, str(dataset.resolve()))  # executors have their own cwd
    rows = tasks_on_spark(
        spark, task, ranges, "dcpcheck review", timeout_s=timeout_s, progress=progress
    )
    return len(ranges), rows


def _task(
    job: LearnJob, dataset: str
) -> Callable[[Iterator[tuple[int, int, int]]], Iterator[dict[str, Any]]]:
    def run(ranges: Iterator[tuple[int, int, int]]) -> Iterator[dict[str, Any]]:
        local = replace(job, base=on_executor(job.base))
        for part, lo, hi in ranges:
            yield from local.write_part(Path(dataset), part, lo, hi).to_pylist()

    return run
