"""The engines by name: the one place an engine's name is turned into what runs.

A scenario engine is one object with ``search(model, prop, options) ->
Finding`` (``model``: any ``spec.model.protocol.ScenarioModelInterface``); an
explicit-state engine is a ``ClusterEngine`` with ``runs(checks, options) ->
[Run]`` (``Checks``: each model any ``spec.cluster.protocol.ExplicitModel``, the
properties and those watched alongside) and ``workers``, ``fingerprints``,
``on_spark``: what ``dcpcheck durability`` asks it.
``SCENARIO_ENGINES`` and ``CLUSTER_ENGINES`` map the names a command line
gives (``--engine``) to them. An engine that runs on Spark says so
(``needs_spark``) and is bound to a session with ``on_spark`` (given the
session's ``checker.spark.solvers.SparkSolvers``), which gives the engine to
search with; the rest of the harness asks these attributes,
never an engine's name. Adding an engine: an object here, registered under
its name; ``dcpcheck check --engine NAME`` then offers it. A name an engine
had before (``spark``, now ``cubes-spark`` in ``check`` and ``bfs-spark`` in
``durability``) is an alias: it still runs, with a one-line note on stderr.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from checker.engines.finding import Finding
from checker.engines.options import Options
from spec.errors import UsageError
from spec.model.protocol import ScenarioModelInterface
from spec.properties import Property

if TYPE_CHECKING:
    from checker.engines.cubes import SolveCubes
    from checker.engines.explore import Exploration, Progress
    from spec.cluster.protocol import ExplicitModel

__all__ = [
    "CLUSTER_ALIASES",
    "CLUSTER_ENGINES",
    "EXPLORE",
    "SCENARIO_ALIASES",
    "SCENARIO_ENGINES",
    "Z3_ENGINE",
    "Checks",
    "ClusterEngine",
    "ClusterSession",
    "Explore",
    "ScenarioEngine",
    "SearchOnSpark",
    "SparkBreadthFirst",
    "SparkSolvers",
    "cluster_engine",
    "cluster_engine_name",
    "refuse",
    "scenario_engine",
    "scenario_engine_name",
]

Update = Callable[[str], None]
# An engine running elsewhere (the exhaustive search on Spark): model, property -> finding.
SearchOnSpark = Callable[[ScenarioModelInterface, Property], Finding]
Names = tuple[str, str, str]  # (rules, consumer, property) as the command line named them


class ScenarioEngine(ABC):
    """A scenario engine: ``search`` is what it does; the rest answers what the command
    running it asks (each off unless the engine says otherwise)."""

    name: str
    needs_spark = False  # the command starts a Spark session and binds the engine to it
    every_session = False  # decides --sessions any (the induction over resumes is Z3's)
    draws_examples = False  # reads options.examples (a reproduce line then gives --examples)

    @abstractmethod
    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        """A proof, a counterexample or unknown for ``prop`` of ``model``."""

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine:
        """The engine bound to a Spark session's solvers (one that does not use them:
        itself)."""
        return self


class SparkSolvers(Protocol):
    """What a Spark session offers the engines (``checker.spark.solvers.SparkSolvers``):
    passed in by the command that started the session, so nothing here imports Spark."""

    def cubes(self, names: Names, update: Update | None) -> SolveCubes: ...

    def exhaustive(self, names: Names) -> SearchOnSpark: ...


@dataclass(frozen=True)
class Z3(ScenarioEngine):
    """A proof within bounds or a minimised counterexample (``checker.engines.z3``); with
    ``options.workers`` or ``options.split`` above 1, the proof cut into cubes solved on
    that many processes (``checker.engines.cubes``)."""

    name: str = "z3"
    every_session = True

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        if options.cut:
            return Cubes().search(model, prop, options)
        from checker.engines import z3

        budget, deadline = options.new_budget(), options.deadline()
        return z3.search(model, prop, budget=budget, deadline=deadline, minimised=options.minimise)


@dataclass(frozen=True)
class Cubes(ScenarioEngine):
    """The Z3 proof cut into the cubes of ``model.split(options.split)``, solved by
    ``solver`` (None: on ``options.workers`` forked processes). Registered as
    ``cubes-spark``: bound to a session, the cubes are solved on its executors
    (``checker.spark.cubes``)."""

    name: str = "cubes-spark"
    solver: SolveCubes | None = None
    needs_spark = True

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        from checker.engines import cubes

        return cubes.search(model, prop, options, self.solver)

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine:
        return replace(self, solver=solvers.cubes(names, update))


@dataclass(frozen=True)
class Exhaustive(ScenarioEngine):
    """Every scenario enumerated (``checker.engines.exhaustive``), here or, bound to a
    session, on Spark executors (``checker.spark.exhaustive``); a proof when it completes."""

    name: str = "exhaustive"
    elsewhere: SearchOnSpark | None = None
    needs_spark = True

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        if self.elsewhere is not None:
            return self.elsewhere(model, prop)
        from checker.engines import exhaustive

        return exhaustive.search(model, prop)

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine:
        return replace(self, elsewhere=solvers.exhaustive(names))


@dataclass(frozen=True)
class Random(ScenarioEngine):
    """``options.examples`` hypothesis-drawn scenarios (``checker.engines.random``):
    finds violations, never claims that a property holds."""

    name: str = "random"
    draws_examples = True

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        from checker.engines import random

        return random.search(model, prop, max_examples=options.examples)


SCENARIO_ENGINES: dict[str, ScenarioEngine] = {
    engine.name: engine for engine in (Z3(), Exhaustive(), Random(), Cubes())
}
Z3_ENGINE = SCENARIO_ENGINES["z3"]  # the default: proofs and minimised counterexamples
# Names engines had before, still accepted (with a note): old name -> the engine's name.
SCENARIO_ALIASES = {"spark": "cubes-spark"}


def scenario_engine_name(name: str) -> str:
    """The scenario engine's name for ``name`` (an alias gives a note on stderr); what
    ``--engine`` reads, so a command sees the engine's own name only."""
    return _named(name, SCENARIO_ALIASES, "dcpcheck check")


def scenario_engine(name: str) -> ScenarioEngine:
    """The scenario engine named ``name`` (or an alias of its name)."""
    return SCENARIO_ENGINES[scenario_engine_name(name)]


def _named(name: str, aliases: dict[str, str], command: str) -> str:
    if name not in aliases:
        return name
    if (command, name) not in _NOTED:
        _NOTED.add((command, name))
        print(
            f"dcpcheck: note: {command} --engine {name} is now --engine {aliases[name]}; "
            "the old name will go",
            file=sys.stderr,
        )
    return aliases[name]


_NOTED: set[tuple[str, str]] = set()  # each alias noted once per process


# -- explicit-state engines (the cluster model) ---------------------------------------------

# One search the runner runs: given where its progress goes, an exploration.
Run = Callable[["Progress | None"], "Exploration[Any, Any]"]


@dataclass(frozen=True)
class ClusterSession:
    """What a Spark search of the cluster model is bound to (``on_spark``): the session
    the command asks for (``--master``, ``--conf``, ``--executor-wait``), where the
    search keeps its levels (``--checkpoint``) and whether it prints its progress."""

    master: str
    conf: dict[str, str]
    executor_wait: float = 60.0
    checkpoint: str | None = None
    quiet: bool = False


@dataclass(frozen=True)
class Checks:
    """What a command asks an explicit-state engine: each of ``properties`` on each of
    ``models``, one check each (models outermost), with ``watched`` decided alongside."""

    models: Sequence[ExplicitModel[Any, Any]]
    properties: Sequence[str]
    watched: Sequence[str] = ()

    @property
    def count(self) -> int:
        return len(self.models) * len(self.properties)


class ClusterSpark(Protocol):
    """What a Spark session offers the explicit-state engines, made by the command that
    binds them (``checker.spark.cluster_search.SparkSearches``; as ``SparkSolvers`` for
    the scenario engines): this layer never imports the Spark layer above it."""

    def check_master(self) -> None:
        """Refuse a master URL that cannot be used (one line, exit 2)."""
        ...

    def explorations(self, checks: Checks, options: Options) -> list[Exploration[Any, Any]]:
        """One exploration per check, in ``checks``' order, from one search of every check
        on the session."""
        ...


class ClusterEngine(ABC):
    """An explicit-state engine: ``runs`` is what it does; the rest answers what the
    command running it asks (where the checks run, what the visited set keeps)."""

    name: str

    @abstractmethod
    def runs(self, checks: Checks, options: Options) -> list[Run]:
        """One run per check, in ``checks``' order, for the runner (each check a job of its
        own, ``checker.runner``): the search of that property with ``watched`` decided
        alongside, as one search of it alone gives."""

    def search(
        self, checks: Checks, options: Options, progress: Progress | None = None
    ) -> list[Exploration[Any, Any]]:
        """Every check's exploration, the runs made one after another."""
        return [run(progress) for run in self.runs(checks, options)]

    @abstractmethod
    def fingerprints(self, options: Options) -> bool:
        """Whether the visited set keeps fingerprints (a collision could hide a state)."""

    def workers(self, options: Options) -> int:
        """How many processes the runner runs the checks on side by side (1: here)."""
        return 1

    def refusal(self, options: Options, checkpoint: str | None) -> str | None:
        """Why these options do not go with this engine (a usage error), if they do not."""
        return None

    def on_spark(self, spark: ClusterSpark) -> ClusterEngine:
        """The engine bound to a Spark session (an engine that does not use one: itself)."""
        return self


@dataclass(frozen=True)
class Explore(ClusterEngine):
    """Breadth- or depth-first search in this process (``checker.engines.explore``), a
    search per check (``each``: one per model for all its checks, each as its own search
    finds it); with ``options.workers`` above 1 the checks run on that many processes
    side by side, each the same search as alone."""

    name: str = "explore"

    def each(
        self,
        model: ExplicitModel[Any, Any],
        properties: Sequence[str],
        watched: Sequence[str],
        options: Options,
        progress: Progress | None = None,
    ) -> list[Exploration[Any, Any]]:
        """One search of ``model``: for each of ``properties``, what a search of it (and
        ``watched``) alone finds (``checker.engines.explore.explore_each``)."""
        from checker.engines.explore import explore_each

        return explore_each(model, properties, watched, options, progress)

    def runs(self, checks: Checks, options: Options) -> list[Run]:
        """A search per check (so the runner reports each as soon as it is decided);
        ``each`` is the one search of a model for all its checks, for a caller that
        takes a model's results together (verify's ``ClusterGroupTask``)."""
        return [
            partial(_first, partial(self.each, model, [prop], checks.watched, options))
            for model in checks.models
            for prop in checks.properties
        ]

    def workers(self, options: Options) -> int:
        return options.workers

    def fingerprints(self, options: Options) -> bool:
        return not options.exact

    def refusal(self, options: Options, checkpoint: str | None) -> str | None:
        return "--checkpoint is for --engine bfs-spark" if checkpoint else None


def _first(
    search: Callable[[Progress | None], list[Exploration[Any, Any]]], progress: Progress | None
) -> Exploration[Any, Any]:
    (found,) = search(progress)
    return found


class _Shared:
    """A search made once, when the first of its explorations is asked for."""

    def __init__(self, search: Callable[[Progress | None], list[Exploration[Any, Any]]]) -> None:
        self.search = search
        self.found: list[Exploration[Any, Any]] = []

    def nth(self, n: int, progress: Progress | None) -> Exploration[Any, Any]:
        if not self.found:
            self.found = self.search(progress)
        return self.found[n]


@dataclass(frozen=True)
class SparkBreadthFirst(ClusterEngine):
    """Every check of a command in one breadth-first search on Spark, level by level
    (``checker.spark.cluster_search``, ``checker.spark.bfs``), made when the first
    check's result is asked for; ``options.max_states`` limits the whole search and
    ``options.timeout_s`` is per check."""

    name: str = "bfs-spark"
    spark: ClusterSpark | None = None

    def runs(self, checks: Checks, options: Options) -> list[Run]:
        shared = _Shared(partial(self._whole, checks, options))
        return [partial(shared.nth, n) for n in range(checks.count)]

    def _whole(
        self, checks: Checks, options: Options, progress: Progress | None
    ) -> list[Exploration[Any, Any]]:
        """Every check's exploration, from one search on the session (no progress of its
        own: the search prints its levels)."""
        if self.spark is None:
            raise ValueError("--engine bfs-spark searches on a session: bind it with on_spark")
        return self.spark.explorations(checks, options)

    def fingerprints(self, options: Options) -> bool:
        return True

    def refusal(self, options: Options, checkpoint: str | None) -> str | None:
        if options.strategy != "bfs":
            return (
                "--engine bfs-spark searches breadth-first; --strategy dfs needs --engine explore"
            )
        if options.workers > 1:
            return "--workers is for --engine explore; on Spark, --master local[N] gives N cores"
        if options.exact:
            return "--exact is for --engine explore; the Spark search keys states by fingerprint"
        return None

    def on_spark(self, spark: ClusterSpark) -> ClusterEngine:
        spark.check_master()  # a bad one is the only thing said
        return SparkBreadthFirst(self.name, spark)


CLUSTER_ENGINES: dict[str, ClusterEngine] = {
    engine.name: engine for engine in (Explore(), SparkBreadthFirst())
}
EXPLORE = Explore()  # the default: what a check of the cluster model runs unless told
CLUSTER_ALIASES = {"spark": "bfs-spark"}


def cluster_engine_name(name: str) -> str:
    """The explicit-state engine's name for ``name`` (an alias gives a note on stderr)."""
    return _named(name, CLUSTER_ALIASES, "dcpcheck durability")


def cluster_engine(name: str) -> ClusterEngine:
    """The explicit-state engine named ``name`` (or an alias of its name)."""
    return CLUSTER_ENGINES[cluster_engine_name(name)]


def refuse(engine: ClusterEngine, options: Options, checkpoint: str | None) -> None:
    """A usage error if ``options`` do not go with ``engine``."""
    refusal = engine.refusal(options, checkpoint)
    if refusal:
        raise UsageError(refusal)
