"""The neighbourhood of a rule set: one symbolic rule set, and the plain rule sets it stands for."""

from __future__ import annotations

import functools
import random

import pytest
from vectorhelp import DATA

from checker.loading import resolve
from spec.expr import Compiled
from spec.failover_table import FailoverEntry, FailoverTable
from spec.rules import RULE_SETS, Decider, DecisionSpace, RuleSet
from spec.rules.inputs import producer_decision
from spec.rules.mutation.neighbour_mutants import structure
from spec.rules.mutation.neighbourhood import Neighbourhood
from spec.rules.mutation.operators import OPERATORS, mutants
from spec.types import Outcome, ProducerState, StreamRequest

BUILTIN = ["kv-current", "rollback-doc"]
CODE = {Outcome.ACCEPT: 0, Outcome.ROLLBACK: 1, Outcome.ERANGE: 2}


def random_input(rnd: random.Random) -> tuple[StreamRequest, ProducerState]:
    """Small seqnos (where quantities coincide), uuids that repeat, every request field."""
    length = rnd.randint(1, 3)
    seqs = sorted((rnd.randint(0, 6) for _ in range(length)), reverse=True)
    table = FailoverTable(tuple(FailoverEntry(rnd.choice((1, 2, 3)), s) for s in seqs))
    high = rnd.randint(seqs[0], 8)
    low, mid, top = sorted(rnd.randint(0, 9) for _ in range(3))
    req = StreamRequest(
        rnd.choice((0, 1, 2, 3, 4)),
        mid,
        low,
        top,
        strict=rnd.random() < 0.2,
        ignore_purged=rnd.random() < 0.1,
        remote_purge=rnd.choice((0, 0, rnd.randint(0, 8))),
        collection_high=rnd.choice((None, None, rnd.randint(0, 8))),
    )
    return req, ProducerState(table, high, rnd.randint(0, high))


@pytest.mark.parametrize("name", BUILTIN)
def test_an_instance_decides_as_the_symbolic_neighbourhood_with_its_selectors_fixed(
    name: str,
) -> None:
    """One definition: the rule set instance() builds is the one Z3 reasons about."""
    rnd = random.Random(9)
    hood = Neighbourhood(RULE_SETS.get(name))
    space = DecisionSpace(3)
    symbolic = producer_decision(hood.symbolic, hood.fields(space.fields))
    program = Compiled([symbolic.outcome, symbolic.seqno])
    for _ in range(150):
        change = rnd.choice(hood.changes)
        selection = {h.name: rnd.randrange(h.size) for h in change.holes}
        decider = Decider(hood.instance(selection))
        for _ in range(12):
            req, producer = random_input(rnd)
            env = space.assignment(req, producer)
            env.update({s: selection.get(s, 0) for s in hood.selectors})
            decision = decider.decide(req, producer)
            expected = [CODE[decision.outcome], decision.rollback_seqno or 0]
            assert program(env) == expected, (hood.describe(selection), req, producer)


@pytest.mark.parametrize("name", BUILTIN)
def test_no_change_is_the_rule_set_itself(name: str) -> None:
    rules = RULE_SETS.get(name)
    assert structure(Neighbourhood(rules).instance({})) == structure(rules)


def test_new_operators_describe_the_change() -> None:
    described = {m.description: m for m in mutants(RULE_SETS.get("kv-current"))}
    cases = {
        "purge: start < purge_seqno -> snap_end < purge_seqno": "operand",
        "purge: start < purge_seqno -> start != purge_seqno": "relation",
        "ahead-of-upper: rollback(upper) -> rollback(entry_seqno)": "return",
        "move clause 'purge' before 'snapshot-complete'": "move",
        "no-item-received: adjusts snap_start (not snap_end)": "adjust-field",
        "new clause before 'lagging': when start == snap_end -> accept()": "early",
        "scan the table newest-first": "scan",
    }
    for description, operator in cases.items():
        assert described[description].operator == operator, description
    assert {m.operator for m in described.values()} == set(OPERATORS)


def test_identical_mutants_are_listed_once() -> None:
    listed = mutants(RULE_SETS.get("kv-current"))
    shapes = [structure(m.rules) for m in listed]
    assert len(shapes) == len(set(shapes))
    assert structure(RULE_SETS.get("kv-current")) not in shapes


@pytest.mark.parametrize(
    "file",
    [
        "single_changes.py:purge-on-snap-end",
        "single_changes.py:ahead-to-entry",
        "single_changes.py:newest-match",
        "single_changes.py:no-item-after-lagging",
    ],
)
def test_a_users_single_change_of_kv_current_is_a_mutant(file: str) -> None:
    """The class the guarantee covers holds what users write by changing one thing."""
    rules = resolve(RULE_SETS, RuleSet, str(DATA / "rules" / file))
    assert structure(rules) in kv_current_mutant_shapes()


@functools.cache
def kv_current_mutant_shapes() -> frozenset:
    return frozenset(structure(m.rules) for m in mutants(RULE_SETS.get("kv-current")))
