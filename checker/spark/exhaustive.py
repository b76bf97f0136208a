"""Exhaustive search on Spark: the work made, searched and reduced on the executors.

The first histories, smallest first (``checker.engines.exhaustive``), are
numbered; the driver sends only chunk numbers. Each task makes its chunk's
histories itself (``history_at``), enumerates every scenario of each in
order, and reduces them to one summary: scenarios examined, and the first
violation with its history's number. The summaries come back through an
accumulator as tasks finish; once a violation is known and every chunk
before its own has finished, the smallest violation is decided and the
remaining tasks are cancelled. The result is the one an in-process search
gives: the same scenario, the same count of scenarios examined before it.
"""

from __future__ import annotations

import time
from typing import Any

from checker.check import SearchOnSpark
from checker.engines.finding import Finding
from checker.result import Verdict
from checker.spark.shipping import on_executor, ship
from spec.model.build import ScenarioModel
from spec.properties import Property

__all__ = ["exhaustive_on_spark"]

Summary = tuple[int, int | None, Any]  # (examined, index of the first violation, scenario)
_models: dict[tuple[str, str, str, object], tuple[ScenarioModel, Property]] = {}


def _model(rules: str, consumer: str, prop: str, bounds: object) -> tuple[ScenarioModel, Property]:
    from checker.loading import resolve
    from spec.consumers import CONSUMERS, ConsumerVariant
    from spec.properties import PROPERTIES
    from spec.rules import RULE_SETS, RuleSet

    key = (rules, consumer, prop, bounds)
    if key not in _models:
        _models.clear()
        model = ScenarioModel(
            bounds,  # type: ignore[arg-type]
            resolve(RULE_SETS, RuleSet, on_executor(rules)),
            resolve(CONSUMERS, ConsumerVariant, on_executor(consumer)),
        )
        _models[key] = (model, resolve(PROPERTIES, Property, on_executor(prop)))
    return _models[key]


def _chunk(names: tuple[str, str, str], bounds: object, start: int, end: int) -> Summary:
    """Search the histories numbered ``start`` to ``end - 1``, in order."""
    from checker.engines.exhaustive import history_at, search

    model, prop = _model(*names, bounds)
    examined = 0
    for index in range(start, end):
        found = search(model, prop, history=history_at(model.bounds, index))
        examined += found.examined
        if found.verdict is Verdict.VIOLATED:
            return examined, index, found.scenario
    return examined, None, None


class _Summaries:
    """An accumulator of chunk number -> summary (a retried task reports the same)."""

    def zero(self, value: dict[int, Summary]) -> dict[int, Summary]:
        return {}

    def addInPlace(self, a: dict[int, Summary], b: dict[int, Summary]) -> dict[int, Summary]:
        a.update(b)
        return a


def _decided(done: dict[int, Summary], chunks: int) -> int | None:
    """The chunk holding the smallest violation, once every chunk before it is done."""
    for chunk in range(chunks):
        if chunk not in done:
            return None
        if done[chunk][1] is not None:
            return chunk
    return None


def exhaustive_on_spark(spark, rules: str, consumer: str, prop: str) -> SearchOnSpark:  # type: ignore[no-untyped-def]
    """The exhaustive engine for the check of (``rules``, ``consumer``, ``prop``), named
    as the executors resolve them, run on ``spark``."""
    names = (ship(spark, rules), ship(spark, consumer), ship(spark, prop))

    def search(model: ScenarioModel, _prop: Property) -> Finding:
        from pyspark.util import InheritableThread

        from checker.engines.exhaustive import history_count

        sc = spark.sparkContext
        total = history_count(model.bounds)
        chunks = max(1, min(total, 8 * sc.defaultParallelism))
        edges = [total * c // chunks for c in range(chunks + 1)]
        bounds = model.bounds
        summaries = sc.accumulator({}, _Summaries())
        tag = f"dcpcheck-exhaustive-{id(summaries)}"
        failure: list[BaseException] = []

        def run_chunk(chunk: int) -> None:
            summaries.add({chunk: _chunk(names, bounds, edges[chunk], edges[chunk + 1])})

        def job() -> None:
            sc.addJobTag(tag)
            sc.setInterruptOnCancel(True)
            try:
                sc.parallelize(range(chunks), chunks).foreach(run_chunk)
            except Exception as exc:  # a cancelled job ends here too
                failure.append(exc)
            finally:
                sc.removeJobTag(tag)

        worker = InheritableThread(target=job, daemon=True)
        worker.start()
        chunk = None
        while worker.is_alive():
            chunk = _decided(summaries.value, chunks)
            if chunk is not None:
                sc.cancelJobsWithTag(tag)
                break
            time.sleep(0.1)
        worker.join()
        done: dict[int, Summary] = dict(summaries.value)
        chunk = _decided(done, chunks)
        if chunk is None and len(done) < chunks:
            raise failure[0] if failure else RuntimeError("the Spark job ended early")
        if chunk is not None:
            examined = sum(done[c][0] for c in range(chunk + 1))
            cancelled = chunks - len(done)
            note = f"{cancelled} of {chunks} chunks cancelled once decided" if cancelled else ""
            return Finding(Verdict.VIOLATED, done[chunk][2], examined=examined, note=note)
        examined = sum(summary[0] for summary in done.values())
        return Finding(
            Verdict.HOLDS, examined=examined, note=f"all {examined} scenarios enumerated"
        )

    return search
