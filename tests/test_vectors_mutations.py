"""Mutation operators: pure, named, deterministic transformations of rule sets."""

from __future__ import annotations

import functools

import pytest

from spec.failover_table import FailoverTable
from spec.rules import RULE_SETS, Decider
from spec.rules.mutation.operators import OPERATORS, mutants
from spec.types import ProducerState, StreamRequest

BUILTIN = ["kv-current", "rollback-doc"]


@functools.cache
def listed(name: str) -> tuple:
    """The built-in rule set's mutants, made once for the tests that only read them."""
    return tuple(mutants(RULE_SETS.get(name)))


@pytest.mark.parametrize("name", BUILTIN)
def test_mutant_ids_are_unique_and_stable(name: str) -> None:
    """Made again from scratch, the mutants are those ``listed`` made (the first time it
    was asked, in this test or an earlier one): the same ids, in the same order."""
    rules = RULE_SETS.get(name)
    before = rules.describe()
    first = [(m.id, m.description) for m in listed(name)]
    again = [(m.id, m.description) for m in mutants(rules)]
    assert first == again
    assert len({mid for mid, _ in first}) == len(first)
    assert rules.describe() == before  # mutating leaves the original rule set unchanged


@pytest.mark.parametrize("name", BUILTIN)
def test_every_operator_yields_mutants(name: str) -> None:
    found = {m.operator for m in listed(name)}
    assert found == set(OPERATORS)


def test_descriptions_name_the_step_and_the_change() -> None:
    described = {m.id: m.description for m in listed("kv-current")}
    assert described["strict:purge:1"] == "purge: start < purge_seqno -> start <= purge_seqno"
    assert described["drop:lagging:1"] == "drop clause 'lagging'"
    assert described["swap:purge:uuid-not-found:1"] == "swap 'purge' and 'uuid-not-found'"
    assert described["outcome:ahead-of-upper:1"] == "ahead-of-upper: rollback(upper) -> accept()"
    assert described["flip:start-zero:1"] == "start-zero: ~strict -> strict"


def test_a_mutant_decides_as_its_description_says() -> None:
    """strict:purge:1 rolls back a consumer whose start equals the purge seqno."""
    rules = RULE_SETS.get("kv-current")
    mutant = next(m for m in listed("kv-current") if m.id == "strict:purge:1")
    producer = ProducerState(FailoverTable.of((1111, 0)), 5, 3)
    at_purge = StreamRequest(1111, 3, 3, 3)
    assert Decider(rules).decide(at_purge, producer).case == "lagging"
    mutated = Decider(mutant.rules).decide(at_purge, producer)
    assert (mutated.case, mutated.rollback_seqno) == ("purge", 0)
