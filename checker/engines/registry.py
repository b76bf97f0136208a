"""The engines by name: the one place an engine's name is turned into what runs.

A scenario engine is one object with ``search(model, prop, options) ->
Finding`` (``model``: any ``spec.model.protocol.ScenarioModelInterface``); an
explicit-state engine has ``search(model, properties, options, progress) ->
Exploration`` (``model``: any ``spec.cluster.protocol.ExplicitModel``).
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
    "ClusterEngine",
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


class ScenarioEngine(Protocol):
    # read-only (properties) so that the frozen dataclasses below are ScenarioEngines
    @property
    def name(self) -> str: ...

    @property
    def needs_spark(self) -> bool:
        """The command starts a Spark session and binds the engine to it."""
        ...

    @property
    def every_session(self) -> bool:
        """Decides --sessions any (the induction over resumes is Z3's)."""
        ...

    @property
    def draws_examples(self) -> bool:
        """Reads options.examples (a reproduce line then gives --examples)."""
        ...

    def search(
        self, model: ScenarioModelInterface, prop: Property, options: Options
    ) -> Finding: ...

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine: ...


class SparkSolvers(Protocol):
    """What a Spark session offers the engines (``checker.spark.solvers.SparkSolvers``):
    passed in by the command that started the session, so nothing here imports Spark."""

    def cubes(self, names: Names, update: Update | None) -> SolveCubes: ...

    def exhaustive(self, names: Names) -> SearchOnSpark: ...


@dataclass(frozen=True)
class Z3:
    """A proof within bounds or a minimised counterexample (``checker.engines.z3``); with
    ``options.workers`` or ``options.split`` above 1, the proof cut into cubes solved on
    that many processes (``checker.engines.cubes``)."""

    name: str = "z3"
    needs_spark: bool = False
    every_session: bool = True
    draws_examples: bool = False

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        if options.cut:
            return Cubes().search(model, prop, options)
        from checker.engines import z3

        budget, deadline = options.new_budget(), options.deadline()
        return z3.search(model, prop, budget=budget, deadline=deadline, minimised=options.minimise)

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine:
        return self


@dataclass(frozen=True)
class Cubes:
    """The Z3 proof cut into the cubes of ``model.split(options.split)``, solved by
    ``solver`` (None: on ``options.workers`` forked processes). Registered as
    ``cubes-spark``: bound to a session, the cubes are solved on its executors
    (``checker.spark.cubes``)."""

    name: str = "cubes-spark"
    needs_spark: bool = True
    solver: SolveCubes | None = None
    every_session: bool = False
    draws_examples: bool = False

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        from checker.engines import cubes

        return cubes.search(
            model,
            prop,
            budget=options.new_budget(),
            deadline=options.deadline(),
            minimised=options.minimise,
            depth=options.split,
            workers=options.workers,
            solver=self.solver,
        )

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine:
        return Cubes(self.name, self.needs_spark, solvers.cubes(names, update))


@dataclass(frozen=True)
class Exhaustive:
    """Every scenario enumerated (``checker.engines.exhaustive``), here or, bound to a
    session, on Spark executors (``checker.spark.exhaustive``); a proof when it completes."""

    name: str = "exhaustive"
    needs_spark: bool = True
    elsewhere: SearchOnSpark | None = None
    every_session: bool = False
    draws_examples: bool = False

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        if self.elsewhere is not None:
            return self.elsewhere(model, prop)
        from checker.engines import exhaustive

        return exhaustive.search(model, prop)

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine:
        return Exhaustive(self.name, self.needs_spark, solvers.exhaustive(names))


@dataclass(frozen=True)
class Random:
    """``options.examples`` hypothesis-drawn scenarios (``checker.engines.random``):
    finds violations, never claims that a property holds."""

    name: str = "random"
    needs_spark: bool = False
    every_session: bool = False
    draws_examples: bool = True

    def search(self, model: ScenarioModelInterface, prop: Property, options: Options) -> Finding:
        from checker.engines import random

        return random.search(model, prop, max_examples=options.examples)

    def on_spark(self, solvers: SparkSolvers, names: Names, update: Update) -> ScenarioEngine:
        return self


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


class ClusterEngine(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def together(self) -> bool:
        """True: every check of a command is one search on Spark (``search_all``); False:
        each check is a ``search`` of its own, in this process or on ``options.workers``
        processes."""
        ...

    def refusal(self, options: Options, checkpoint: str | None) -> str | None:
        """Why these options do not go with this engine (a usage error), if they do not."""
        ...


@dataclass(frozen=True)
class Explore:
    """Breadth- or depth-first search in this process (``checker.engines.explore``)."""

    name: str = "explore"
    together: bool = False

    def search(
        self,
        model: ExplicitModel[Any, Any],
        properties: Sequence[str],
        options: Options,
        progress: Progress | None = None,
    ) -> Exploration[Any, Any]:
        from checker.engines.explore import explore

        return explore(
            model,
            properties,
            strategy=options.strategy,
            max_states=options.max_states,
            timeout_s=options.timeout_s,
            progress=progress,
        )

    def refusal(self, options: Options, checkpoint: str | None) -> str | None:
        return "--checkpoint is for --engine bfs-spark" if checkpoint else None


@dataclass(frozen=True)
class SparkBreadthFirst:
    """Every check of a command in one breadth-first search on Spark, level by level
    (``checker.spark.cluster_search``, ``checker.spark.bfs``)."""

    name: str = "bfs-spark"
    together: bool = True

    def refusal(self, options: Options, checkpoint: str | None) -> str | None:
        if options.strategy != "bfs":
            return (
                "--engine bfs-spark searches breadth-first; --strategy dfs needs --engine explore"
            )
        if options.workers > 1:
            return "--workers is for --engine explore; on Spark, --master local[N] gives N cores"
        return None


CLUSTER_ENGINES: dict[str, ClusterEngine] = {
    engine.name: engine for engine in (Explore(), SparkBreadthFirst())
}
EXPLORE = Explore()  # what a check of the cluster model runs (``together`` engines aside)
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
