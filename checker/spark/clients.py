"""A client adapter judged on Spark: the first histories cut into parts, a task each.

Each task starts its own adapter process (the command of ``jsonl:CMD``: on a
local master the executors share the driver's file system, on a cluster the
command must exist on every executor), plays every scenario of its part's
first histories to it (``checker.adapter.search.judge_part``), stops the
process and sends back the part's summary; the driver merges the parts into
what one search of them all gives (``merge``: the same smallest violations).
Ctrl-C cancels the job (``checker.spark.parts``); a cancelled task's Python
worker is killed, and its adapter process with it (it dies with its parent).
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.adapter.search import Part, judge_part, merge
from checker.spark.parts import until_decided
from checker.spark.shipping import ship
from spec.bounds import Bounds
from spec.scenario import Scenario

__all__ = ["judge_on_spark"]


def _part(
    spec: str,
    timeout: float,
    rules: str,
    props: tuple[str, ...],
    bounds: Bounds,
    mitigation: bool,
    start: int,
    end: int,
    first: tuple[Scenario, ...],
) -> Part:
    from checker.adapter.check import ClientTarget
    from checker.loading import resolve
    from checker.spark.shipping import on_executor
    from spec.properties import PROPERTIES
    from spec.rules import RULE_SETS, RuleSet

    rule_set = resolve(RULE_SETS, RuleSet, on_executor(rules))
    chosen = [PROPERTIES.get(p) for p in props]
    client = ClientTarget(spec, timeout).start()
    try:
        return judge_part(client, rule_set, chosen, bounds, start, end, mitigation, first)
    finally:
        client.close()


def judge_on_spark(
    spark,
    spec: str,
    timeout: float,
    rules: str,
    props: Sequence[str],  # type: ignore[no-untyped-def]
    bounds: Bounds,
    mitigation: bool,
    first: tuple[Scenario, ...] = (),
) -> Part:
    """Every scenario within ``bounds`` judged on ``spark``'s executors (``first`` by the
    first part, before its histories)."""
    from checker.engines.exhaustive import history_count

    shipped, ids = ship(spark, rules), tuple(props)
    total = history_count(bounds)
    chunks = max(1, min(total, 4 * spark.sparkContext.defaultParallelism))
    edges = [total * c // chunks for c in range(chunks + 1)]

    def run_chunk(chunk: int) -> Part:
        return _part(
            spec,
            timeout,
            shipped,
            ids,
            bounds,
            mitigation,
            edges[chunk],
            edges[chunk + 1],
            first if chunk == 0 else (),
        )

    done = until_decided(spark, chunks, run_chunk, lambda found: False)
    return merge(done[c] for c in range(chunks))
