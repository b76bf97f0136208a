"""The symbolic model and the reference implementation tell the same story.

For random scenarios, every trace field the model's expressions evaluate to
(concretely, over the scenario's assignment) must equal what the reference
implementation produces by running the scenario step by step; and every
property must get the same verdict from both. Any difference means the Z3
encoding drifted from the executable semantics.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import scenarios

from checker.engines.exhaustive import sent_seqnos
from checker.engines.random import mutations
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.consumers.settings import configurations
from spec.expr import Compiled, evaluate
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.reference.simulate import NotARun, simulate
from spec.rules import RULE_SETS
from spec.scenario import Failover, Mutation, Scenario
from spec.trace import TraceFields, trace_values

BOUNDS = Bounds(seqnos=5, keys=2, entries=3, failovers=2)
# Every registered variant as it ships; the traces of a variant under another setting
# differ only in which scenarios are runs (rollback mitigation), which the mitigation
# test below checks for every variant under every setting that has it.
SHIPPED = sorted((r, c) for r in RULE_SETS.names() for c in CONSUMERS.names())
NAMES = [v.name for c in CONSUMERS.names() for v in configurations(CONSUMERS.get(c))]
MITIGATING = sorted(
    {(r, c) for r in RULE_SETS.names() for c in NAMES if CONSUMERS.get(c).rollback_mitigation}
)


@functools.cache
def model_of(rules: str, consumer: str) -> ScenarioModel:
    """The pair's model, built once per test process when a test first asks for it."""
    return ScenarioModel(BOUNDS, RULE_SETS.get(rules), CONSUMERS.get(consumer))


def agreeing_traces(rules: str, consumer: str, scenario: Scenario) -> tuple[dict, dict] | None:
    """The trace fields the model predicts for ``scenario``, and those the reference
    implementation produces running it step by step, asserted equal field by field; None
    when the scenario is not a run of this consumer (its rollback mitigation rules it out:
    then the model's constraints must rule it out too)."""
    model = model_of(rules, consumer)
    try:
        trace = simulate(scenario, model.rules, model.variant, BOUNDS.rounds)
    except NotARun:
        assert not evaluate(model.constraints, model.vars.encode(scenario))
        return None
    predicted, reference = model.predicted(scenario), trace_values(trace, BOUNDS)
    differ = {k: (predicted[k], reference[k]) for k in reference if predicted[k] != reference[k]}
    assert not differ, (rules, consumer, differ)
    return predicted, reference


@settings(max_examples=100)
@given(scenario=scenarios(BOUNDS))
def test_mitigation_rules_out_the_same_scenarios_in_model_and_reference(
    scenario: Scenario,
) -> None:
    """Each scenario against every mitigating pair: 100 scenarios each, as when each pair
    drew its own (drawing a scenario costs several times what checking a pair on it does).
    A reference whose mitigation still refuses a failover below the client's last item
    (the reading before kv_engine's bound, ``consumer.last()`` for ``whole`` in
    simulate.py) fails it."""
    for rules, consumer in MITIGATING:
        model = model_of(rules, consumer)
        try:
            simulate(scenario, model.rules, model.variant, BOUNDS.rounds)
            a_run = True
        except NotARun:
            a_run = False
        assert evaluate(model.constraints, model.vars.encode(scenario)) == a_run, (rules, consumer)


@st.composite
def mid_snapshot_failovers(draw: st.DrawFn) -> Scenario:
    """A consumer that got part of a snapshot, then a failover branching anywhere: the
    scenarios where mitigation as kv_engine bounds it (no branch below a snapshot held
    whole) and the reading before it (none below the last item) differ, rare among
    ``scenarios``' draws (2 in 300)."""
    n = draw(st.integers(2, BOUNDS.seqnos))
    history = draw(mutations(BOUNDS.keys, n))
    ends = tuple(sorted({n} | draw(st.sets(st.integers(1, n - 1)))))
    mid = [x for x in sent_seqnos(history, ends) if x not in ends]
    assume(mid)
    branch = draw(st.integers(0, n))
    new_high = draw(st.integers(branch, BOUNDS.seqnos))
    return Scenario(
        history=history,
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=draw(st.sampled_from([0, 1])),
        snapshot_ends=ends,
        received=draw(st.sampled_from(mid)),
        failovers=(Failover(branch, 2222, draw(mutations(BOUNDS.keys, new_high - branch))),),
    )


@settings(max_examples=40)
@given(scenario=mid_snapshot_failovers())
def test_mitigating_clients_mid_snapshot_agree_with_the_reference(scenario: Scenario) -> None:
    """Every mitigating pair, a failover after a snapshot received in part: the same runs,
    the same trace fields. A reference that refuses a failover below the client's last
    item (``consumer.last()`` for ``whole`` in simulate.py) fails it."""
    for rules, consumer in MITIGATING:
        agreeing_traces(rules, consumer, scenario)


@pytest.mark.parametrize(
    ("ends", "branch", "a_run"),
    [((2,), 0, False), ((2,), 1, False), ((2,), 2, True), ((3,), 0, True), ((1, 3), 0, False)],
)
def test_a_failover_below_a_snapshot_a_mitigating_client_holds_whole_is_not_a_run(
    ends, branch, a_run
) -> None:
    # The consumer got 1:SET(A) 2:SET(B), in snapshot [1,2] (whole), [1,3] (in part) or
    # [1,1] whole and [2,3] in part. go-dcp ships with rollback mitigation: every replica
    # persisted seqno 2, but the one that takes over branches at the end of the last
    # snapshot it received whole (kv_engine getFailoverSeqno), which may be below 2.
    scenario = Scenario(
        history=(Mutation(0), Mutation(1), Mutation(0)),
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=ends,
        received=2,
        failovers=(Failover(branch=branch, uuid=2222, mutations=(Mutation(0),)),),
    )
    for consumer, expected in (("go-dcp", a_run), ("go-dcp:mitigation=off", True)):
        model = ScenarioModel(BOUNDS, RULE_SETS.get("kv-current"), CONSUMERS.get(consumer))
        assert evaluate(model.constraints, model.vars.encode(scenario)) == expected
        try:
            simulate(scenario, model.rules, model.variant, BOUNDS.rounds)
            assert expected
        except NotARun:
            assert not expected


# Every property's formula over the trace fields, compiled once (the same semantics as
# ``evaluate``, tests/test_expr.py checks it).
FORMULAS = Compiled([prop.holds(TraceFields(BOUNDS)) for prop in PROPERTIES])


@settings(max_examples=150)
@given(scenario=scenarios(BOUNDS))
def test_model_trace_and_verdicts_equal_the_reference_ones(scenario: Scenario) -> None:
    """Every trace field, and so every property's verdict, on the same scenario, for every
    shipped pair: 150 scenarios each, as when each pair drew its own (drawing a scenario
    costs several times what checking a pair on it does). A reference that counts a
    tombstone at the purge seqno as kept fails it."""
    for rules, consumer in SHIPPED:
        both = agreeing_traces(rules, consumer, scenario)
        if both is None:
            continue
        predicted, reference = both
        verdicts = zip(FORMULAS(predicted), FORMULAS(reference), strict=True)
        for prop, (by_model, by_reference) in zip(PROPERTIES, verdicts, strict=True):
            assert by_model == by_reference, (rules, consumer, prop.id)


@settings(max_examples=200)
@given(scenario=scenarios(BOUNDS))
def test_scenarios_round_trip_through_the_model_variables(scenario: Scenario) -> None:
    model = model_of("kv-current", "correct")
    values = model.vars.encode(scenario)
    assert evaluate(model.constraints, values), (
        "a well-formed scenario must satisfy the model's constraints"
    )
    canonical = model.vars.decode(values)  # keys renamed by first use, uuids relabelled
    assert model.vars.decode(model.vars.encode(canonical)) == canonical
    assert [m.deleted for m in canonical.history] == [m.deleted for m in scenario.history]
    assert canonical.snapshot_ends == scenario.snapshot_ends
    assert [f.branch for f in canonical.failovers] == [f.branch for f in scenario.failovers]
