"""The verify job: every (rule set, consumer, property) checked on a Spark executor.

Each task resolves its names (built-in or ``.py`` file) on the executor, runs
``checker.check.check`` and returns the picklable ``CheckResult``. The driver
collects results in a fixed order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from checker.check import CheckResult
from spec.bounds import Bounds

__all__ = ["one_task_each", "run_matrix"]

T = TypeVar("T")
R = TypeVar("R")


def _check_one(task: tuple[str, str, str, Bounds, float]) -> CheckResult:
    from checker.check import check
    from checker.loading import resolve
    from spec.consumers import CONSUMERS, ConsumerVariant
    from spec.properties import PROPERTIES, Property
    from spec.rules import RULE_SETS, RuleSet

    rules, consumer, prop, bounds, timeout = task
    return check(
        resolve(RULE_SETS, RuleSet, rules),
        resolve(CONSUMERS, ConsumerVariant, consumer),
        resolve(PROPERTIES, Property, prop),
        bounds,
        timeout_s=timeout,
    )


def run_matrix(
    spark,  # type: ignore[no-untyped-def]
    combos: Sequence[tuple[str, str, str]],
    bounds: Bounds,
    timeout_s: float,
) -> list[CheckResult]:
    return one_task_each(spark, _check_one, [(r, c, p, bounds, timeout_s) for r, c, p in combos])


def one_task_each(spark, run: Callable[[T], R], items: Sequence[T]) -> list[R]:  # type: ignore[no-untyped-def]
    """``run`` on each item, one Spark task per item; the results in the items' order."""
    rdd = spark.sparkContext.parallelize(list(enumerate(items)), numSlices=max(1, len(items)))
    results = dict(rdd.map(lambda pair: (pair[0], run(pair[1]))).collect())
    return [results[n] for n in range(len(items))]
