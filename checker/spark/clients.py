"""A client adapter judged on Spark: the first histories dealt into parts, a task each.

Part ``c`` of ``P`` judges the first histories ``c, c + P, c + 2P, ...``: longer
histories have many more scenarios and come last in the enumeration, so dealing
them out like cards gives every part about the same work (cutting the list into
runs left the last part, all long histories, running alone at the end). There
are ``PARTS_PER_CORE`` parts per core (``defaultParallelism``): each part starts
one adapter process (a JVM for the Java adapter), so few parts, but more than
one per core so a part slowed by a busy core does not hold the job up alone.
Each task starts its own adapter process (the command of ``jsonl:CMD``: on a
local master the executors share the driver's file system, on a cluster the
command must exist on every executor), plays every scenario of its part's
first histories to it (``checker.adapter.search.judge_part``), stops the
process and sends back only the part's summary (``PartSummary``: counts, each violated
property's smallest scenario, the first fault, the CPU seconds the task and its
adapter process spent; never a trace); the driver merges
the parts into what one search of them all gives (``merge``: the same smallest
violations). Ctrl-C cancels the job (``checker.spark.parts``); a cancelled
task's Python worker is killed, and its adapter process with it (it dies with
its parent).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from checker.adapter.search import PartSummary, judge_part, merge
from checker.spark.parts import until_decided
from checker.spark.shipping import ship
from spec.bounds import Bounds
from spec.scenario import Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["PARTS_PER_CORE", "judge_on_spark"]

PARTS_PER_CORE = 2


def _part(
    spec: str,
    timeout: float,
    rules: str,
    props: tuple[str, ...],
    bounds: Bounds,
    mitigation: bool,
    part: int,
    parts: int,
    first: tuple[Scenario, ...],
) -> PartSummary:
    from checker.adapter.check import ClientTarget
    from checker.engines.exhaustive import history_count
    from checker.loading import resolve
    from checker.spark.shipping import on_executor
    from spec.properties import PROPERTIES
    from spec.rules import RULE_SETS, RuleSet

    rule_set = resolve(RULE_SETS, RuleSet, on_executor(rules))
    chosen = [PROPERTIES.get(p) for p in props]
    started = _task_cpu()
    client = ClientTarget(spec, timeout).start()
    try:
        found = judge_part(
            client,
            rule_set,
            chosen,
            bounds,
            part,
            history_count(bounds),
            mitigation,
            first,
            step=parts,
        )
    finally:
        client.close()  # reaps the adapter process: its CPU is then this worker's children's
    return replace(found, cpu_elsewhere=_task_cpu() - started)


def _task_cpu() -> float:
    """CPU seconds of this Python worker and of the children it has reaped."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def judge_on_spark(
    spark: SparkSession,
    spec: str,
    timeout: float,
    rules: str,
    props: Sequence[str],
    bounds: Bounds,
    mitigation: bool,
    first: tuple[Scenario, ...] = (),
    update: Callable[[str], None] | None = None,
    total: int | None = None,
) -> PartSummary:
    """Every scenario within ``bounds`` judged on ``spark``'s executors (``first`` by the
    first part, before its histories); ``update``: told as parts finish, with what is
    done of ``total`` scenarios and the time left at the rate so far."""
    from checker.adapter.size import Tally
    from checker.engines.exhaustive import history_count

    shipped, ids = ship(spark, rules), tuple(props)
    cores = spark.sparkContext.defaultParallelism
    parts = max(1, min(history_count(bounds), PARTS_PER_CORE * cores))

    def run_part(part: int) -> PartSummary:
        return _part(
            spec,
            timeout,
            shipped,
            ids,
            bounds,
            mitigation,
            part,
            parts,
            first if part == 0 else (),
        )

    tally = Tally(total)

    def finished(done: Mapping[int, PartSummary]) -> None:
        if update is not None:
            played = sum(p.examined + p.not_runs for p in done.values())
            update(f"{len(done)} of {parts} parts, {tally.text(played)}")

    done = until_decided(spark, parts, run_part, lambda found: False, on_progress=finished)
    return merge(done[c] for c in range(parts))
