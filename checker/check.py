"""Check one (rule set, consumer variant, property) within bounds.

Encode, solve, decode and replay are separate steps:

1. *encode*: the scenario model's constraints and the negated property,
   as expressions (``spec.model``, ``spec.properties``);
2. *solve*: Z3 looks for a scenario violating the property
   (``checker.symbolic``); unsat is a proof within the bounds, unknown or a
   timeout is reported as ``unknown`` and never as ``holds``;
3. *minimise*: fewest seqnos, keys, failovers, table entries, rounds, then the
   shortest consumer prefix and fewest snapshots that still violate;
4. *decode* the model into a ``Scenario`` and *replay* it on the reference
   implementation (``checker.confirm``): the counterexample is ``confirmed``
   only if the reference shows the same violation along the same trace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from checker.confirm import Replay, replay_scenario
from checker.symbolic.session import Answer, Session
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.expr import Expr, const, ite, max_of, substitute
from spec.model.build import ScenarioModel
from spec.properties import Property
from spec.rules.language import RuleSet
from spec.scenario import Scenario

__all__ = ["CheckResult", "Verdict", "check"]


class Verdict(StrEnum):
    HOLDS = "holds"
    VIOLATED = "violated"
    UNKNOWN = "unknown"


@dataclass
class CheckResult:
    rules: str
    consumer: str
    property: str
    kind: str
    verdict: Verdict
    bounds: Bounds
    seconds: float
    scenario: Scenario | None = None
    replay: Replay | None = None
    size: dict[str, int] = field(default_factory=dict)
    note: str = ""  # why unknown; how far minimisation got
    engine: str = "z3"
    examined: int | None = None  # scenarios evaluated (exhaustive and random engines)

    @property
    def confirmed(self) -> bool | None:
        return None if self.replay is None else self.replay.confirmed


def measures(model: ScenarioModel) -> list[tuple[str, Expr]]:
    """What minimisation shrinks, most important first."""
    v = model.vars
    highs = [v["h0.high"], *(ite(v[f"f{f}.on"], v[f"f{f}.high"], const(0)) for f in v.failover_ids)]
    key_vars = [v[name] for name in v.sorts if ".key." in name]
    count_on = sum_of([ite(v[f"f{f}.on"], const(1), const(0)) for f in v.failover_ids])
    rounds = sum_of(
        [ite(model.trace[f"r{i}.sent"], const(1), const(0)) for i in range(model.bounds.rounds)]
    )
    snapshots = sum_of([ite(v[f"snap.end.{x}"], const(1), const(0)) for x in v.seqnos])
    deletions = sum_of([ite(v[name], const(1), const(0)) for name in v.sorts if ".del." in name])
    table_seqnos = sum_of([v[f"t0.seq.{i}"] for i in range(model.bounds.first_table_entries)])
    return [
        ("seqnos", max_of(*highs)),
        ("keys", max_of(*key_vars) + 1),
        ("failovers", count_on),
        ("entries", v["t0.len"]),
        ("rounds", rounds),
        ("received", v["received"]),
        ("snapshots", snapshots),
        ("purge", v["purge"]),
        ("deletions", deletions),
        ("table seqnos", table_seqnos),
    ]


def sum_of(terms: list[Expr]) -> Expr:
    total: Expr = const(0)
    for term in terms:
        total = total + term
    return total


def minimise_model(
    session: Session, model: ScenarioModel, values: dict
) -> tuple[dict, dict[str, int], str]:
    """Greedy lexicographic minimisation; stops (keeping what it has) on unknown."""
    from spec.expr import evaluate

    size: dict[str, int] = {}
    want = model.vars.sorts
    for name, measure in measures(model):
        current = int(evaluate(measure, values))
        best = current
        for candidate in range(0, current):
            outcome = session.check(measure <= candidate, want=want)
            if outcome.answer is Answer.UNKNOWN:
                size[name] = best
                return values, size, f"minimisation stopped at {name}: {outcome.reason}"
            if outcome.answer is Answer.SAT:
                best, values = candidate, outcome.values
                break
        session.add(measure <= best)
        size[name] = best
    return values, size, ""


ENGINES = ("z3", "exhaustive", "random")


def check(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    timeout_s: float | None = 60.0,
    minimise: bool = True,
    engine: str = "z3",
    spark: tuple | None = None,  # (session, rules spec, consumer spec, property spec)
    random_examples: int = 10_000,
) -> CheckResult:
    """One check. ``engine``: ``z3`` (the default: proofs and minimised
    counterexamples), ``exhaustive`` (every scenario enumerated, on ``spark``
    if given; a proof when it completes), ``random`` (hypothesis; finds
    violations, never claims that a property holds)."""
    started = time.perf_counter()
    model = ScenarioModel(bounds, rules, variant)

    def result(verdict: Verdict, **extra: object) -> CheckResult:
        return CheckResult(
            rules.name,
            variant.name,
            prop.id,
            prop.kind,
            verdict,
            bounds,
            time.perf_counter() - started,
            engine=engine,
            **extra,  # type: ignore[arg-type]
        )

    def violated(scenario: Scenario, **extra: object) -> CheckResult:
        return result(
            Verdict.VIOLATED,
            scenario=scenario,
            replay=replay_scenario(scenario, model, prop),
            **extra,
        )

    if engine == "exhaustive":
        return _exhaustive(model, prop, spark, result, violated)
    if engine == "random":
        from checker.search.random import search as random_search

        found = random_search(model, prop, max_examples=random_examples)
        if found.violation is not None:
            return violated(found.violation, examined=found.examined)
        return result(
            Verdict.UNKNOWN,
            examined=found.examined,
            note=f"no violation in {found.examined} random scenarios; random search proves nothing",
        )
    if engine != "z3":
        raise ValueError(f"unknown engine {engine}")

    (holds,) = substitute([prop.holds(model.fields)], model.trace)
    session = Session(timeout_s=timeout_s)
    session.declare(model.vars.sorts)
    session.add(model.constraints)
    session.add(~holds)
    outcome = session.check(want=model.vars.sorts)
    if outcome.answer is Answer.UNSAT:
        return result(Verdict.HOLDS)
    if outcome.answer is Answer.UNKNOWN:
        return result(Verdict.UNKNOWN, note=f"solver: {outcome.reason}")
    values, size, note = outcome.values, {}, ""
    if minimise:
        values, size, note = minimise_model(session, model, values)
    return violated(model.vars.decode(values), size=size, note=note)


def _exhaustive(model, prop, spark, result, violated):  # type: ignore[no-untyped-def]
    if spark is not None:
        from checker.spark.exhaustive import search_on_spark

        session, rules_spec, consumer_spec, prop_spec = spark
        found = search_on_spark(session, rules_spec, consumer_spec, prop_spec, model.bounds)
    else:
        from checker.search.exhaustive import search

        found = search(model, prop)
    if found.violation is not None:
        return violated(found.violation, examined=found.examined)
    return result(
        Verdict.HOLDS, examined=found.examined, note=f"all {found.examined} scenarios enumerated"
    )
