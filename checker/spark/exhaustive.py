"""Exhaustive search on Spark: one task per first history.

Each task enumerates every scenario that starts from its first history
(``checker.search.exhaustive``) and returns how many it examined and its
first violation; the driver keeps the violation of the smallest history
(partitions are in breadth-first order, so it is a small one).
"""

from __future__ import annotations

from checker.search.exhaustive import ExhaustiveResult
from spec.bounds import Bounds

__all__ = ["search_on_spark"]


def _task(item):  # type: ignore[no-untyped-def]
    from checker.loading import resolve
    from checker.search.exhaustive import search
    from spec.consumers import CONSUMERS, ConsumerVariant
    from spec.model.build import ScenarioModel
    from spec.properties import PROPERTIES, Property
    from spec.rules import RULE_SETS, RuleSet

    index, history, (rules, consumer, prop, bounds) = item
    model = ScenarioModel(
        bounds, resolve(RULE_SETS, RuleSet, rules), resolve(CONSUMERS, ConsumerVariant, consumer)
    )
    result = search(model, resolve(PROPERTIES, Property, prop), history=history)
    return index, result.examined, result.violation


def search_on_spark(
    spark, rules: str, consumer: str, prop: str, bounds: Bounds
) -> ExhaustiveResult:  # type: ignore[no-untyped-def]
    from checker.search.exhaustive import partitions

    work = [(i, h, (rules, consumer, prop, bounds)) for i, h in enumerate(partitions(bounds))]
    slices = max(1, min(len(work), 4 * spark.sparkContext.defaultParallelism))
    rows = spark.sparkContext.parallelize(work, numSlices=slices).map(_task).collect()
    rows.sort(key=lambda row: row[0])
    examined = sum(row[1] for row in rows)
    violation = next((row[2] for row in rows if row[2] is not None), None)
    # Each task stops at its own first violation; without one, every scenario was examined.
    return ExhaustiveResult(examined, violation, complete=violation is None)
