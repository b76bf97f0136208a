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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from checker.cluster_check import SANITY, result_of
from checker.engines.options import DEFAULT, Options
from checker.loading import source_of
from checker.result import Result
from checker.spark.bfs import Level, cluster_search, search_on_spark
from checker.spark.expand import ClusterSearch, Watched
from checker.spark.shipping import ship
from checker.timing import Stopwatch
from spec.cluster import ClusterBounds, ClusterModel

if TYPE_CHECKING:
    from checker.engines.explore import Exploration
    from checker.engines.registry import Checks, ClusterSession
    from spec.cluster.protocol import ExplicitModel
    from spec.cluster.setup import Setup

__all__ = [
    "SparkSearches",
    "check_durability_on_spark",
    "explorations_on_spark",
    "print_level",
]

CLEAR_LINE = "\r\033[K"  # back to the line's start, the rest of it erased


def print_level(level: Level, states: int) -> None:
    """One progress line on stderr per level (on a terminal, over the runner's live line:
    the search runs in the first check's job)."""
    new = sum(level.states.values())
    retried = f", {level.retried} failed tasks retried" if level.retried else ""
    start = CLEAR_LINE if sys.stderr.isatty() else ""
    print(
        f"{start}    level {level.index}: {new:,} new states, {states:,} in all, "
        f"{'in the driver' if level.on_driver else f'{level.partitions} partitions'}, "
        f"{level.seconds:.1f}s{retried}",
        file=sys.stderr,
        flush=True,
    )


def check_durability_on_spark(
    spark: Any,
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
    results = []
    for watched, explorations in _searched(spark, search, checkpoint, options, quiet):
        for prop in watched.properties[: search.checked]:
            results.append(
                result_of(watched.model, prop.property, explorations[prop.name], preset, clock)
            )
    return results


@dataclass(frozen=True)
class SparkSearches:
    """What a session to ``session.master`` offers the explicit-state engines
    (``checker.engines.registry.ClusterSpark``): the command makes it and binds the
    engine with it, so the registry, below this layer, never imports it."""

    session: ClusterSession

    def check_master(self) -> None:
        from checker.spark.session import check_master

        check_master(self.session.master)

    def explorations(self, checks: Checks, options: Options) -> list[Exploration[Any, Any]]:
        return explorations_on_spark(self.session, checks, options)


def explorations_on_spark(
    session: ClusterSession, checks: Checks, options: Options
) -> list[Exploration[Any, Any]]:
    """One exploration per check (models outermost), ``checks.watched`` decided
    alongside, all from one search on a session to ``session.master``;
    ``options.timeout_s`` is per check (the search has that times the checks)."""
    from checker.spark.session import scheduler_jvm, spark_session

    models, properties, watched = checks.models, checks.properties, checks.watched
    named = [_names(model) for model in models]
    pairs = [(ack, branch) for ack, branch, _ in named]
    (rules,) = {rule for _, _, rule in named}
    (bounds,) = {_setup(model).bounds for model in models}
    given = [_property_name(models[0], p) for p in properties]
    count = checks.count
    if not session.quiet:
        print(
            f"dcpcheck durability: {count} checks, {len(models)} models, breadth-first on "
            f"Spark ({session.master}), within {bounds.describe()}",
            file=sys.stderr,
            flush=True,
        )
    search = cluster_search(pairs, rules, bounds, given, watched, options.symmetry)
    conf = scheduler_jvm(session.conf)  # on local[N] the driver's JVM only schedules bytes
    whole = None if options.timeout_s is None else options.timeout_s * count
    every = options.but(timeout_s=whole)
    with spark_session(session.master, "dcpcheck durability", conf, session.executor_wait) as spark:
        found = _searched(spark, search, session.checkpoint, every, session.quiet)
    return [
        explorations[prop.name]
        for checked, explorations in found
        for prop in checked.properties[: search.checked]
    ]


def _searched(
    spark: Any, search: ClusterSearch, checkpoint: str | None, options: Options, quiet: bool
) -> list[tuple[Watched, dict[str, Exploration[Any, Any]]]]:
    return search_on_spark(
        spark,
        search,
        shipped=_shipped(spark, search),
        checkpoint=checkpoint,
        max_states=options.max_states,
        timeout_s=options.timeout_s,
        progress=None if quiet else print_level,
    )


def _setup(model: ExplicitModel[Any, Any]) -> Setup:
    if not isinstance(model, ClusterModel):
        raise TypeError("the Spark search is of the cluster model (spec.cluster.ClusterModel)")
    return model.setup


def _names(model: ExplicitModel[Any, Any]) -> tuple[str, str, str]:
    """The model's ack rule, branch rule and rule set as a command line names them (a
    user's file as given): what the executors load again."""
    setup = _setup(model)
    return (
        source_of(setup.ack_rule, setup.ack_rule.id),
        source_of(setup.branch_rule, setup.branch_rule.id),
        source_of(setup.rules, setup.rules.name),
    )


def _property_name(model: ExplicitModel[Any, Any], prop: str) -> str:
    """A property as a command line names it: a user's (one of the model's ``extra``) by
    its file."""
    extra = {p.id: p for p in getattr(model, "extra", ())}
    return source_of(extra[prop], prop) if prop in extra else prop


def _shipped(spark: Any, search: ClusterSearch) -> ClusterSearch:
    """The search as the executors name it: a user's files sent with the job."""
    from dataclasses import replace

    return replace(
        search,
        models=tuple((ship(spark, a), ship(spark, b)) for a, b in search.models),
        rules=ship(spark, search.rules),
        properties=tuple(ship(spark, p) for p in search.properties),
    )
