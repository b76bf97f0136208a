"""What a vector set is guaranteed to expose: every rule set one change away, proved by Z3."""

from __future__ import annotations

import pytest
from vectorhelp import BASELINE, CORPUS

from checker.symbolic.budget import Budget
from checker.vectors.format import load_corpus
from checker.vectors.guarantee import prove
from spec.rules import (
    RULE_SETS,
    Adjust,
    Clause,
    Decider,
    DecisionSpace,
    F,
    RuleSet,
    accept,
    otherwise,
    rollback,
)
from spec.rules.mutation.neighbourhood import Neighbourhood

BUILTIN = ["kv-current", "rollback-doc"]

# A small rule set: its neighbourhood is searched in seconds.
TOY = RuleSet(
    name="toy",
    summary="start 0 accepted, unknown uuid to 0, lagging accepted, else back to upper",
    steps=(
        Clause("start-zero", when=F.start == 0, then=accept()),
        Clause("uuid-not-found", when=~F.uuid_found, then=rollback(0)),
        Adjust("no-item-received", when=F.start == F.snap_start, field="snap_end", to=F.start),
        Clause("lagging", when=F.snap_end <= F.upper, then=accept()),
        Clause("ahead", when=otherwise, then=rollback(F.upper)),
    ),
)


def inputs(path):
    return [(v.request, v.producer) for v in load_corpus(path).vectors]


@pytest.mark.parametrize("name", BUILTIN)
def test_the_checked_in_vectors_expose_every_rule_set_one_change_away(name: str) -> None:
    guarantee = prove(inputs(CORPUS), RULE_SETS.get(name), DecisionSpace(3), False, Budget())
    assert guarantee.holds, [v for v in guarantee.verdicts if v.verdict != "proved"]
    assert guarantee.members > 100_000
    assert "proved by Z3 at every one of the" in guarantee.statement()


def test_the_baseline_does_not_and_each_member_it_misses_really_differs() -> None:
    rules = RULE_SETS.get("kv-current")
    baseline = inputs(BASELINE)
    space = DecisionSpace(5)
    guarantee = prove(baseline, rules, space, True, Budget())
    missed = [v for v in guarantee.verdicts if v.verdict == "survived"]
    assert missed and not guarantee.holds
    assert "DOES NOT HOLD" in guarantee.statement()
    hood = Neighbourhood(rules)
    original = Decider(rules)
    for verdict in missed:
        assert verdict.witness is not None and verdict.selection is not None
        member = Decider(hood.instance(verdict.selection))
        req, producer = verdict.witness
        assert req.humpty_expressible
        assert member.decide(req, producer) != original.decide(req, producer)
        for req, producer in baseline:
            if req.humpty_expressible:
                a, b = member.decide(req, producer), original.decide(req, producer)
                assert (a.outcome, a.rollback_seqno) == (b.outcome, b.rollback_seqno)


def extended(space: DecisionSpace) -> list:
    added: list = []
    result = prove([], TOY, space, True, Budget(), None, lambda r, p, o: added.append((r, p, o)))
    assert result.holds
    return added


def test_extend_adds_vectors_until_proved_and_the_same_ones_each_time() -> None:
    space = DecisionSpace(1)
    assert not prove([], TOY, space, True, Budget()).holds
    first, second = extended(space), extended(space)
    assert first == second
    assert first and all(req.humpty_expressible for req, _, _ in first)
    assert prove([(r, p) for r, p, _ in first], TOY, space, True, Budget()).holds


def test_a_solver_that_runs_out_of_budget_proves_nothing() -> None:
    guarantee = prove(inputs(CORPUS), TOY, DecisionSpace(3), True, Budget(1))
    assert guarantee.count("unknown") > 0
    assert not guarantee.holds
    assert "NOT PROVED" in guarantee.statement()
