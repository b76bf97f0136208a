"""``dcpcheck review``'s learning on Spark: each executor asks its own target processes.

The driver sends partition descriptors ``(part, lo, hi)`` as the sweep does
(``checker.spark.sweep.parts_on_spark``); each task runs
``LearnJob.write_part`` (``checker.review.learn``): it generates its inputs,
starts the target's processes itself (humpty: one per producer state;
jsonl: one for the part), writes one Parquet part and returns its tally,
which the driver collects whole (a few rows per part). The target's command
must run on every executor (true for ``local[*]``; on a cluster, install it
on the workers at the same path); ``--out`` must be a path the executors
can write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from checker.review.learn import TALLY, LearnJob
from checker.spark.shipping import on_executor, ship
from checker.spark.sweep import parts_on_spark
from checker.sweep.job import descriptors

__all__ = ["learn_on_spark"]


def learn_on_spark(
    spark,  # type: ignore[no-untyped-def]
    job: LearnJob,
    dataset: Path,
    parts: int,
    *,
    timeout_s: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, list[dict]]:  # type: ignore[type-arg]
    """Learn ``job`` in ``parts`` parts on ``spark`` into ``dataset``; the number of parts
    and every part's tally rows (``checker.review.learn.TALLY``, as dicts)."""
    ranges = descriptors(job.space.size, parts)
    shipped = replace(job, base=ship(spark, job.base))
    rows = parts_on_spark(
        spark,
        _executor(shipped, str(dataset.resolve())),
        ranges,
        TALLY,
        "dcpcheck review",
        lambda frame: frame.collect(),
        timeout_s=timeout_s,
        progress=progress,
    )
    return len(ranges), [row.asDict() for row in rows]


def _executor(job: LearnJob, dataset: str) -> Callable[[Iterator], Iterator]:  # type: ignore[type-arg]
    def run(descriptor_batches):  # type: ignore[no-untyped-def]
        local = replace(job, base=on_executor(job.base))
        for batch in descriptor_batches:
            for part, lo, hi in zip(
                *(batch.column(c).to_pylist() for c in ("part", "lo", "hi")), strict=True
            ):
                yield local.write_part(Path(dataset), part, lo, hi)

    return run
