"""The verify job: every (rule set, consumer, property) checked on a Spark executor.

Each task resolves its names (built-in or ``.py`` file) on the executor, runs
``checker.check.check`` and returns the picklable ``CheckResult``. The driver
collects results in a fixed order.
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.check import CheckResult
from spec.bounds import Bounds

__all__ = ["run_matrix"]


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
    tasks = [(r, c, p, bounds, timeout_s) for r, c, p in combos]
    rdd = spark.sparkContext.parallelize(list(enumerate(tasks)), numSlices=max(1, len(tasks)))
    results = rdd.map(lambda item: (item[0], _check_one(item[1]))).collect()
    return [result for _, result in sorted(results, key=lambda pair: pair[0])]
