"""Check one (rule set, consumer variant, property) of the single-node model within bounds.

``check`` builds the scenario model (``spec.model``), hands it to an engine
(``checker.engines``: ``z3`` proves or finds a minimised counterexample,
``exhaustive`` enumerates every scenario, ``random`` samples with
hypothesis), replays what it found on the reference implementation
(``checker.confirm``; *confirmed* only if the reference shows the same
violation along the same trace), lets the property explain the violation,
and returns a ``checker.result.Result`` whose run is the reference trace as
named steps (``spec.model.narrate``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypedDict

from checker.confirm import explain, replay_scenario
from checker.engines import ENGINES
from checker.engines.finding import Finding
from checker.report.counterexample import counterexample_id, scenario_record
from checker.result import Result, Stats, Verdict, not_run
from checker.symbolic.budget import CHECK_BUDGET, Budget
from checker.timing import Stopwatch, deadline_after
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.model.build import ScenarioModel
from spec.model.narrate import run_of
from spec.properties import Property
from spec.rules.language import RuleSet

if TYPE_CHECKING:
    from checker.engines.cubes import SolveCubes

__all__ = ["CHECK_BUDGET", "ENGINES", "SearchOnSpark", "check", "planned", "reproduce_command"]

# An engine running elsewhere (the exhaustive search on Spark): model, property -> finding.
SearchOnSpark = Callable[[ScenarioModel, Property], Finding]


def reproduce_command(rules: str, consumer: str, prop: str, b: Bounds) -> str:
    return (
        f"dcpcheck check --rules {rules} --consumer {consumer} --property {prop} "
        f"--seqnos {b.seqnos} --keys {b.keys} --entries {b.entries} --failovers {b.failovers}"
        + (f" --max-entries {b.max_entries}" if b.max_entries < b.entries else "")
        + (f" --sessions {b.sessions}" if b.sessions != 1 else "")
    )


class Limits(TypedDict):
    """What a Z3 search (one proof, or cut into cubes) may spend, and whether it minimises."""

    budget: Budget
    deadline: float | None
    minimised: bool


def _search(
    model: ScenarioModel,
    prop: Property,
    engine: str,
    limits: Limits,
    *,
    spark: SearchOnSpark | None,
    random_examples: int,
    workers: int = 1,
    split: int = 1,
    cubes_on: SolveCubes | None = None,
) -> Finding:
    if engine == "spark" or (engine == "z3" and (workers > 1 or split > 1)):
        from checker.engines import cubes

        if engine == "spark" and cubes_on is None:
            raise ValueError("--engine spark needs the cubes' Spark solver (cubes_on)")
        return cubes.search(model, prop, **limits, depth=split, workers=workers, solver=cubes_on)
    if engine == "z3":
        from checker.engines import z3

        return z3.search(model, prop, **limits)
    if engine == "exhaustive":
        if spark is not None:
            return spark(model, prop)
        from checker.engines import exhaustive

        return exhaustive.search(model, prop)
    if engine == "random":
        from checker.engines import random

        return random.search(model, prop, max_examples=random_examples)
    raise ValueError(f"unknown engine {engine}; known: {', '.join(ENGINES)}")


def planned(
    rules: RuleSet, variant: ConsumerVariant, prop: Property, bounds: Bounds, engine: str = "z3"
) -> Result:
    """The check's result before anything is decided: ``unknown``, named and bounded,
    with the command that reproduces it (what an interrupted run reports for it)."""
    subject = {"rules": rules.name, "consumer": variant.name}
    command = reproduce_command(rules.name, variant.name, prop.id, bounds)
    return not_run("scenario", subject, prop, bounds, engine, command)


def check(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    timeout_s: float | None = None,
    minimise: bool = True,
    engine: str = "z3",
    spark: SearchOnSpark | None = None,
    random_examples: int = 10_000,
    budget: int | None = CHECK_BUDGET,
    workers: int = 1,
    split: int = 1,
    cubes_on: SolveCubes | None = None,
) -> Result:
    """One check. ``engine``: ``z3`` (the default: proofs and minimised
    counterexamples), ``exhaustive`` (every scenario enumerated, with ``spark``
    if given; a proof when it completes), ``random`` (hypothesis; finds
    violations, never claims that a property holds).

    ``budget``: Z3 resource units for the search and the minimisation (None:
    no limit); when it runs out the verdict is ``unknown``, the same on any
    machine. ``timeout_s``: an outer wall-clock guard (its unknowns depend on
    the machine's load). ``workers`` > 1 or ``split`` > 1: the Z3 proof is cut into the
    cubes of ``model.split(split)`` (1: one per number of failovers) solved on that many
    processes, each cube with the whole budget (``checker.engines.cubes``); engine
    ``spark``: the same cubes solved by ``cubes_on`` (``checker.spark.cubes``)."""
    clock = Stopwatch()
    model = ScenarioModel(bounds, rules, variant)
    limits = Limits(budget=Budget(budget), deadline=deadline_after(timeout_s), minimised=minimise)
    found = _search(
        model,
        prop,
        engine,
        limits,
        spark=spark,
        random_examples=random_examples,
        workers=workers,
        split=split,
        cubes_on=cubes_on,
    )
    result = planned(rules, variant, prop, bounds, engine).but(
        verdict=found.verdict,
        reason=found.reason,
        note=found.note,
        size=found.size,
        interrupted=found.interrupted,
    )
    if found.verdict is Verdict.VIOLATED and found.scenario is not None:
        replay = replay_scenario(found.scenario, model, prop)
        result = result.but(witness=found.scenario, replay=replay.outcome())
        if replay.trace is not None:
            explanation = explain(replay.trace, prop, bounds)
            ident = (
                ""
                if found.interrupted
                else counterexample_id(rules.name, variant.name, prop.id, found.scenario)
            )
            result = result.but(
                run=run_of(replay.trace),
                explanation=explanation,
                ident=ident,
                record=None
                if found.interrupted
                else scenario_record(result, ident, replay.trace, explanation),
            )
    wall, cpu = clock.read()
    stats = Stats(wall, cpu + found.cpu_elsewhere, examined=found.examined, budget=found.units)
    return result.but(stats=replace(stats, cubes=found.cubes))
