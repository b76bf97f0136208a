"""The symbolic model and the reference implementation tell the same story.

For random scenarios, every trace field the model's expressions evaluate to
(concretely, over the scenario's assignment) must equal what the reference
implementation produces by running the scenario step by step; and every
property must get the same verdict from both. Any difference means the Z3
encoding drifted from the executable semantics.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from strategies import scenarios

from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.expr import Compiled, evaluate
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Scenario
from spec.trace import TraceFields, trace_values

BOUNDS = Bounds(seqnos=5, keys=2, entries=3, failovers=2)
MODELS = {
    (r, c): ScenarioModel(BOUNDS, RULE_SETS.get(r), CONSUMERS.get(c))
    for r in RULE_SETS.names()
    for c in CONSUMERS.names()
}


def both_traces(rules: str, consumer: str, scenario: Scenario) -> tuple[dict, dict]:
    """The trace fields the model predicts for ``scenario``, and those the reference
    implementation produces running it step by step."""
    model = MODELS[(rules, consumer)]
    reference = trace_values(simulate(scenario, model.rules, model.variant, BOUNDS.rounds), BOUNDS)
    return model.predicted(scenario), reference


@pytest.mark.parametrize(("rules", "consumer"), sorted(MODELS))
@settings(max_examples=300)
@given(scenario=scenarios(BOUNDS))
def test_model_trace_equals_reference_trace(rules, consumer, scenario: Scenario) -> None:
    predicted, reference = both_traces(rules, consumer, scenario)
    differ = {k: (predicted[k], reference[k]) for k in reference if predicted[k] != reference[k]}
    assert not differ, differ


# Every property's formula over the trace fields, compiled once (the same semantics as
# ``evaluate``, tests/test_expr.py checks it).
FORMULAS = Compiled([prop.holds(TraceFields(BOUNDS)) for prop in PROPERTIES])


@pytest.mark.parametrize(("rules", "consumer"), sorted(MODELS))
@settings(max_examples=100)
@given(scenario=scenarios(BOUNDS))
def test_properties_agree_on_model_and_reference(rules, consumer, scenario: Scenario) -> None:
    predicted, reference = both_traces(rules, consumer, scenario)
    verdicts = zip(FORMULAS(predicted), FORMULAS(reference), strict=True)
    for prop, (by_model, by_reference) in zip(PROPERTIES, verdicts, strict=True):
        assert by_model == by_reference, prop.id


@settings(max_examples=200)
@given(scenario=scenarios(BOUNDS))
def test_scenarios_round_trip_through_the_model_variables(scenario: Scenario) -> None:
    model = MODELS[("kv-current", "correct")]
    values = model.vars.encode(scenario)
    assert evaluate(model.constraints, values), (
        "a well-formed scenario must satisfy the model's constraints"
    )
    canonical = model.vars.decode(values)  # keys renamed by first use, uuids relabelled
    assert model.vars.decode(model.vars.encode(canonical)) == canonical
    assert [m.deleted for m in canonical.history] == [m.deleted for m in scenario.history]
    assert canonical.snapshot_ends == scenario.snapshot_ends
    assert [f.branch for f in canonical.failovers] == [f.branch for f in scenario.failovers]
