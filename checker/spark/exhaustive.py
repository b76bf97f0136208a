"""Exhaustive search on Spark: one task per first history.

Each task enumerates every scenario that starts from its first history
(``checker.engines.exhaustive``) and returns how many it examined and its
first violation; the driver keeps the violation of the smallest history
(partitions are in breadth-first order, so it is a small one).
"""

from __future__ import annotations

from checker.check import SearchOnSpark
from checker.engines.finding import Finding
from checker.result import Verdict
from spec.model.build import ScenarioModel
from spec.properties import Property

__all__ = ["exhaustive_on_spark"]


def _task(item):  # type: ignore[no-untyped-def]
    from checker.engines.exhaustive import search
    from checker.loading import resolve
    from spec.consumers import CONSUMERS, ConsumerVariant
    from spec.model.build import ScenarioModel
    from spec.properties import PROPERTIES, Property
    from spec.rules import RULE_SETS, RuleSet

    index, history, (rules, consumer, prop, bounds) = item
    model = ScenarioModel(
        bounds, resolve(RULE_SETS, RuleSet, rules), resolve(CONSUMERS, ConsumerVariant, consumer)
    )
    found = search(model, resolve(PROPERTIES, Property, prop), history=history)
    return index, found.examined, found.scenario


def exhaustive_on_spark(spark, rules: str, consumer: str, prop: str) -> SearchOnSpark:  # type: ignore[no-untyped-def]
    """The exhaustive engine for the check of (``rules``, ``consumer``, ``prop``), named
    as the executors resolve them, run on ``spark``."""

    def search(model: ScenarioModel, _prop: Property) -> Finding:
        from checker.engines.exhaustive import partitions

        names = (rules, consumer, prop, model.bounds)
        work = [(i, h, names) for i, h in enumerate(partitions(model.bounds))]
        slices = max(1, min(len(work), 4 * spark.sparkContext.defaultParallelism))
        rows = spark.sparkContext.parallelize(work, numSlices=slices).map(_task).collect()
        rows.sort(key=lambda row: row[0])
        examined = sum(row[1] for row in rows)
        violation = next((row[2] for row in rows if row[2] is not None), None)
        if violation is not None:
            return Finding(Verdict.VIOLATED, violation, examined=examined)
        # Each task stops at its own first violation; without one, every scenario was examined.
        return Finding(
            Verdict.HOLDS, examined=examined, note=f"all {examined} scenarios enumerated"
        )

    return search
