"""``dcpcheck durability --engine bfs-spark``: every check of the command in one distributed search.

The checks (ack rule x branch rule x property) share their models: a model
is one (ack rule, branch rule), searched once for all its properties
(``checker.spark.bfs``). Each check's ``Exploration`` then goes through the
same ``checker.cluster_check.result_of`` as an in-process search: the same
verdict, states, run, replay on the model and on the reference cluster.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from checker.cluster_check import SANITY, result_of
from checker.engines.options import DEFAULT, Options
from checker.result import Result
from checker.spark.bfs import Level, cluster_search, search_on_spark
from checker.spark.shipping import ship
from checker.timing import Stopwatch
from spec.cluster import ClusterBounds

__all__ = ["check_durability_on_spark", "print_level"]


def print_level(level: Level, states: int) -> None:
    """One progress line on stderr per level."""
    new = sum(level.states.values())
    retried = f", {level.retried} failed tasks retried" if level.retried else ""
    print(
        f"    level {level.index}: {new:,} new states, {states:,} in all, "
        f"{'in the driver' if level.on_driver else f'{level.partitions} partitions'}, "
        f"{level.seconds:.1f}s{retried}",
        file=sys.stderr,
        flush=True,
    )


def check_durability_on_spark(
    spark,  # type: ignore[no-untyped-def]
    models: Sequence[tuple[str, str]],
    properties: Sequence[str],
    rules: str,
    bounds: ClusterBounds,
    *,
    preset: str | None = None,
    checkpoint: str | None = None,
    options: Options = DEFAULT,
    quiet: bool = False,
) -> list[Result]:
    """A result per (model, property), models outermost; names as the command line gave them.
    ``options.max_states`` and ``options.timeout_s`` limit the whole search."""
    clock = Stopwatch()
    search = cluster_search(models, rules, bounds, properties, [SANITY], options.symmetry)
    found = search_on_spark(
        spark,
        search,
        shipped=_shipped(spark, search),
        checkpoint=checkpoint,
        max_states=options.max_states,
        timeout_s=options.timeout_s,
        progress=None if quiet else print_level,
    )
    results = []
    for watched, explorations in found:
        for prop in watched.properties[: search.checked]:
            results.append(
                result_of(watched.model, prop.property, explorations[prop.name], preset, clock)
            )
    return results


def _shipped(spark, search):  # type: ignore[no-untyped-def]
    """The search as the executors name it: a user's files sent with the job."""
    from dataclasses import replace

    return replace(
        search,
        models=tuple((ship(spark, a), ship(spark, b)) for a, b in search.models),
        rules=ship(spark, search.rules),
        properties=tuple(ship(spark, p) for p in search.properties),
    )
