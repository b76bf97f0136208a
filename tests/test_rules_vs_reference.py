"""The clause-form rule sets decide exactly as the reference producer does.

One random sweep (hypothesis) and one exhaustive sweep at small bounds; any
disagreement, in outcome, rollback seqno, case or reason, is a failure.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from strategies import decision_inputs

from spec.expr import evaluate_many
from spec.failover_table import UINT64_MAX, FailoverEntry, FailoverTable
from spec.reference.producer import REFERENCE_DECISIONS, stream_request
from spec.rules import RULE_SETS, Decider, DecisionSpace
from spec.types import ProducerState, StreamRequest

BUILTIN = sorted(REFERENCE_DECISIONS)
DECIDERS = {name: Decider(RULE_SETS.get(name)) for name in BUILTIN}


def test_every_builtin_rule_set_has_a_reference() -> None:
    assert sorted(RULE_SETS.names()) == BUILTIN


@pytest.mark.parametrize("name", BUILTIN)
@settings(max_examples=3000)
@given(inputs=decision_inputs())
def test_clause_form_matches_reference_on_random_inputs(name, inputs) -> None:
    req, producer = inputs
    expected = stream_request(req, producer, REFERENCE_DECISIONS[name])
    got = DECIDERS[name].decide(req, producer)
    assert got == expected
    assert got.reason == expected.reason


@pytest.mark.parametrize("name", BUILTIN)
@settings(max_examples=300)
@given(inputs=decision_inputs())
def test_interpreter_and_compiled_evaluation_agree(name, inputs) -> None:
    req, producer = inputs
    space = DecisionSpace(len(producer.table))
    exprs = space.decision(RULE_SETS.get(name))
    env = space.assignment(req, producer)
    interpreted = evaluate_many([exprs.outcome, exprs.seqno, exprs.case], env)
    decision = DECIDERS[name].decide(req, producer)
    case = RULE_SETS.get(name).case_names[interpreted[2]]
    assert case == decision.case
    assert interpreted[1] == (decision.rollback_seqno or 0)


def small_producers(top: int = 2):
    for length in (1, 2):
        for uuids in itertools.permutations((1, 2), length):
            for seqs in itertools.combinations_with_replacement(range(top + 1), length):
                entries = tuple(
                    FailoverEntry(u, s)
                    for u, s in zip(uuids, sorted(seqs, reverse=True), strict=True)
                )
                table = FailoverTable(entries)
                for high in range(table.latest.seqno, top + 1):
                    for purge in range(high + 1):
                        yield ProducerState(table, high, purge)


def small_requests(producer: ProducerState, top: int = 2):
    values = range(top + 1)
    for uuid, start, snap_start, snap_end in itertools.product(
        (0, 1, 2, 3), values, values, values
    ):
        for strict, ignore in itertools.product((False, True), repeat=2):
            for remote, coll in itertools.product((0, producer.purge_seqno), (None, 0, top)):
                for end in (UINT64_MAX, start - 1 if start else UINT64_MAX):
                    yield StreamRequest(
                        uuid, start, snap_start, snap_end, end, strict, ignore, remote, coll
                    )


@pytest.mark.parametrize("name", BUILTIN)
def test_clause_form_matches_reference_exhaustively_at_small_bounds(name) -> None:
    """Every producer with <= 2 entries and seqnos <= 2, every request over the same values."""
    reference, decider = REFERENCE_DECISIONS[name], DECIDERS[name]
    count = 0
    for producer in small_producers():
        for req in small_requests(producer):
            expected = stream_request(req, producer, reference)
            assert decider.decide(req, producer) == expected, (req, producer)
            count += 1
    assert count > 100_000
