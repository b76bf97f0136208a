"""What the solver may assume about the scenario model, checked against the model itself.

The Z3 engine narrows the search with facts the model states: variable
ranges (bit-vectors), keys in first-use order, a violation at key 0 for a
property that holds key by key, minimisation in a smaller model, and proofs
cut into cubes. Each must lose no scenario that matters.
"""

from __future__ import annotations

import functools

from hypothesis import given, settings
from strategies import scenarios

from checker.engines import cubes
from checker.engines import z3 as z3_engine
from checker.engines.options import Options
from checker.result import Verdict
from checker.scenario_check import check
from checker.symbolic.budget import Budget
from checker.symbolic.session import Session, SolverAnswer
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.expr import Compiled, all_of, evaluate
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Scenario
from spec.trace import trace_values

BOUNDS = Bounds(seqnos=5, keys=2, entries=3, failovers=2)
MODEL = ScenarioModel(BOUNDS, RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot"))


def test_declared_ranges_follow_from_the_constraints() -> None:
    """Z3 over unbounded integers finds no scenario outside the declared ranges."""
    session = Session()
    session.declare(MODEL.variables)  # no ranges: every uint64
    inside = all_of(
        *(
            (MODEL.vars[name] >= lo) & (MODEL.vars[name] <= hi)
            for name, (lo, hi) in MODEL.ranges.items()
        )
    )
    session.add(MODEL.constraints, ~inside)
    assert session.check().answer is SolverAnswer.UNSAT


@functools.cache
def verdicts() -> Compiled:
    """Every property's formula over the trace fields, compiled once (``Compiled`` has the
    semantics of ``evaluate``: tests/test_expr.py), not built again for each scenario."""
    return Compiled([prop.holds(MODEL.fields) for prop in PROPERTIES])


@settings(max_examples=200)
@given(scenario=scenarios(BOUNDS))
def test_renaming_keys_in_first_use_order_changes_no_verdict(scenario: Scenario) -> None:
    canonical = MODEL.decode(MODEL.encode(scenario))
    assert evaluate(MODEL.symmetry, MODEL.encode(canonical))
    before = trace_values(simulate(scenario, MODEL.rules, MODEL.variant, BOUNDS.rounds), BOUNDS)
    after = trace_values(simulate(canonical, MODEL.rules, MODEL.variant, BOUNDS.rounds), BOUNDS)
    both = zip(verdicts()(before), verdicts()(after), strict=True)
    for prop, (by_before, by_after) in zip(PROPERTIES, both, strict=True):
        assert by_before == by_after, prop.id


@settings(max_examples=150)
@given(scenario=scenarios(BOUNDS))
def test_the_cubes_partition_the_scenarios(scenario: Scenario) -> None:
    values = MODEL.encode(scenario)
    for depth in (1, 2, 3):
        assert sum(bool(evaluate(c, values)) for c in MODEL.split(depth)) == 1


def test_a_proof_in_cubes_agrees_with_the_whole_proof() -> None:
    for consumer, prop in (("correct", "no-missed-item"), ("collapse-snapshot", "no-missed-item")):
        model = ScenarioModel(BOUNDS, RULE_SETS.get("kv-current"), CONSUMERS.get(consumer))
        whole = z3_engine.search(model, PROPERTIES.get(prop), budget=Budget())
        split = cubes.search(model, PROPERTIES.get(prop), Options(budget=None, split=2))
        side_by_side = cubes.search(model, PROPERTIES.get(prop), Options(budget=None, workers=2))
        assert split.verdict is side_by_side.verdict is whole.verdict
        assert split.scenario == side_by_side.scenario == whole.scenario


def test_the_least_counterexample_does_not_depend_on_the_bounds_it_was_found_in() -> None:
    """Minimisation in the smaller model and the canonical tie-break give one scenario."""
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot")
    prop = PROPERTIES.get("no-missed-item")
    small = check(rules, variant, prop, Bounds(seqnos=3, keys=2, entries=3, failovers=2))
    large = check(rules, variant, prop, Bounds(seqnos=7, keys=3, entries=3, failovers=2))
    assert small.verdict is large.verdict is Verdict.VIOLATED
    assert small.ident == large.ident
    assert small.size == large.size
