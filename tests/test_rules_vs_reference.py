"""The clause-form rule sets decide exactly as the reference producer does.

One random sweep (hypothesis, refused requests included) and one exhaustive
sweep of the sweep's input space at small bounds; any disagreement, in
outcome, rollback seqno, case or reason, is a failure.
"""

from __future__ import annotations

from hypothesis import given, settings
from strategies import decision_inputs

from checker.sweep.space import SweepSpace
from spec.expr import evaluate_many
from spec.reference.producer import REFERENCE_DECISIONS, stream_request
from spec.rules import RULE_SETS, Decider, DecisionSpace

BUILTIN = sorted(REFERENCE_DECISIONS)
DECIDERS = {name: Decider(RULE_SETS.get(name)) for name in BUILTIN}


def test_every_builtin_rule_set_has_a_reference() -> None:
    assert sorted(RULE_SETS.names()) == BUILTIN


# Each input below is asked of every built-in rule set: drawing an input (hypothesis) or
# decoding one (SweepSpace.inputs) costs far more than deciding it, so every rule set sees
# as many inputs as when each drew its own, for the cost of one.


@settings(max_examples=1000)
@given(inputs=decision_inputs())
def test_clause_form_matches_reference_on_random_inputs(inputs) -> None:
    req, producer = inputs
    for name in BUILTIN:
        expected = stream_request(req, producer, REFERENCE_DECISIONS[name])
        got = DECIDERS[name].decide(req, producer)
        assert got == expected, name
        assert got.reason == expected.reason, name


@settings(max_examples=300)
@given(inputs=decision_inputs())
def test_interpreter_and_compiled_evaluation_agree(inputs) -> None:
    req, producer = inputs
    space = DecisionSpace(len(producer.table))
    env = space.assignment(req, producer)
    for name in BUILTIN:
        exprs = space.decision(RULE_SETS.get(name))
        interpreted = evaluate_many([exprs.outcome, exprs.seqno, exprs.case], env)
        decision = DECIDERS[name].decide(req, producer)
        case = RULE_SETS.get(name).case_names[interpreted[2]]
        assert case == decision.case, name
        assert interpreted[1] == (decision.rollback_seqno or 0), name


def test_clause_form_matches_reference_exhaustively_at_small_bounds() -> None:
    """Every input of the sweep's space at tables of <= 2 entries and seqnos <= 1, and at
    one entry and seqnos <= 2 (uuids repeated or not): every valid request against every
    producer. (Together a quarter of the inputs of 2 entries and seqnos <= 2, and they catch
    every one-line break of the reference's clauses or of the table lookup tried there: two
    entries for the lookup's, seqnos 2 for the comparisons with upper and the snapshot's.)"""
    for space in (SweepSpace(2, 1, duplicate_uuids=True), SweepSpace(1, 2, duplicate_uuids=True)):
        count = 0
        for req, producer in space.inputs():
            for name in BUILTIN:
                expected = stream_request(req, producer, REFERENCE_DECISIONS[name])
                assert DECIDERS[name].decide(req, producer) == expected, (name, req, producer)
            count += 1
        assert count == space.size
