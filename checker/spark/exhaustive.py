"""Exhaustive search on Spark: the work made, searched and reduced on the executors.

The first histories, smallest first (``checker.engines.exhaustive``), are
numbered; the driver sends only chunk numbers. Each task makes its chunk's
histories itself (``history_at``), enumerates every scenario of each in
order, and reduces them to one summary: scenarios examined, and the first
violation with its history's number. The summaries come back as tasks
finish (``checker.spark.parts``); once a violation is known and every chunk
before its own has finished, the smallest violation is decided and the
remaining tasks are cancelled. The result is the one an in-process search
gives: the same scenario, the same count of scenarios examined before it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from checker.engines.finding import Finding
from checker.engines.registry import SearchOnSpark
from checker.result import Verdict
from checker.spark.models import scenario_model
from checker.spark.parts import until_decided
from checker.spark.shipping import ship
from spec.bounds import Bounds
from spec.model.protocol import ScenarioModelInterface
from spec.properties import Property

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["exhaustive_on_spark"]

# (examined, index of the first violation, scenario, the task's CPU seconds)
Summary = tuple[int, int | None, Any, float]


def _chunk(names: tuple[str, str, str], bounds: Bounds, start: int, end: int) -> Summary:
    """Search the histories numbered ``start`` to ``end - 1``, in order."""
    from checker.engines.exhaustive import history_at, search

    started = time.process_time()
    model, prop = scenario_model(*names, bounds)
    examined = 0
    for index in range(start, end):
        found = search(model, prop, history=history_at(model.bounds, index))
        examined += found.examined or 0
        if found.verdict is Verdict.VIOLATED:
            return examined, index, found.scenario, time.process_time() - started
    return examined, None, None, time.process_time() - started


def _decided(done: Mapping[int, Summary], chunks: int) -> int | None:
    """The chunk holding the smallest violation, once every chunk before it is done."""
    for chunk in range(chunks):
        if chunk not in done:
            return None
        if done[chunk][1] is not None:
            return chunk
    return None


def exhaustive_on_spark(spark: SparkSession, rules: str, consumer: str, prop: str) -> SearchOnSpark:
    """The exhaustive engine for the check of (``rules``, ``consumer``, ``prop``), named
    as the executors resolve them, run on ``spark``."""
    names = (ship(spark, rules), ship(spark, consumer), ship(spark, prop))

    def search(model: ScenarioModelInterface, _prop: Property) -> Finding:
        from checker.engines.exhaustive import history_count

        total = history_count(model.bounds)
        chunks = max(1, min(total, 8 * spark.sparkContext.defaultParallelism))
        edges = [total * c // chunks for c in range(chunks + 1)]
        bounds = model.bounds

        def run_chunk(chunk: int) -> Summary:
            return _chunk(names, bounds, edges[chunk], edges[chunk + 1])

        done = until_decided(
            spark, chunks, run_chunk, lambda found: _decided(found, chunks) is not None
        )
        chunk = _decided(done, chunks)
        # the CPU of the chunks that finished (a cancelled chunk's is not reported)
        elsewhere = sum(summary[3] for summary in done.values())
        if chunk is not None:
            examined = sum(done[c][0] for c in range(chunk + 1))
            cancelled = chunks - len(done)
            note = f"{cancelled} of {chunks} chunks cancelled once decided" if cancelled else ""
            return Finding(
                Verdict.VIOLATED,
                done[chunk][2],
                examined=examined,
                note=note,
                cpu_elsewhere=elsewhere,
            )
        examined = sum(summary[0] for summary in done.values())
        return Finding(
            Verdict.HOLDS,
            examined=examined,
            note=f"all {examined} scenarios enumerated",
            cpu_elsewhere=elsewhere,
        )

    return search
