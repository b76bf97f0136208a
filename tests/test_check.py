"""The check engine: expected verdicts, minimisation, honest unknowns, replay confirmation."""

from __future__ import annotations

import pytest

import checker.confirm as confirm
from checker.confirm import replay_scenario
from checker.engines.options import Options
from checker.scenario_check import Verdict, check
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.expr import evaluate
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Failover, Mutation, Scenario
from spec.trace import TraceFields, trace_values

SMALL = Bounds(seqnos=4, keys=2, entries=3, failovers=1)
SAFETY = ["no-missed-item", "no-foreign-snapshot", "bounded-rollback", "valid-request"]

# Seed 001, literally: 1:SET(A) 2:SET(B) 3:SET(C) 4:DEL(A) in one memory snapshot [1,4];
# the consumer got 2 and 3 (1 was deduplicated by 4); the node restarts with a new
# branch at 3 and writes on.
SEED_001 = Scenario(
    history=(Mutation(0), Mutation(1), Mutation(2), Mutation(0, deleted=True)),
    table=FailoverTable.of((1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(4,),
    received=3,
    failovers=(Failover(branch=3, uuid=2222, mutations=(Mutation(1),)),),
)


def run(rules: str, consumer: str, prop: str, bounds: Bounds = SMALL, **kw):
    return check(
        RULE_SETS.get(rules), CONSUMERS.get(consumer), PROPERTIES.get(prop), bounds, Options(**kw)
    )


def seed_001_holds(consumer: str, prop: str = "no-missed-item") -> bool:
    bounds = Bounds(seqnos=5, keys=3, entries=2, failovers=1)
    trace = simulate(SEED_001, RULE_SETS.get("kv-current"), CONSUMERS.get(consumer), bounds.rounds)
    return bool(
        evaluate(PROPERTIES.get(prop).holds(TraceFields(bounds)), trace_values(trace, bounds))
    )


def test_seed_001_scenario_loses_document_a_with_collapse_snapshot() -> None:
    assert not seed_001_holds("collapse-snapshot")


def test_seed_001_scenario_is_safe_with_the_correct_consumer() -> None:
    assert seed_001_holds("correct")


def test_seed_001_situation_is_found_for_collapse_snapshot() -> None:
    result = run("kv-current", "collapse-snapshot", "no-missed-item")
    assert result.verdict is Verdict.VIOLATED
    assert result.confirmed
    scenario = result.witness
    # The minimised counterexample has seed 001's shape: a key deduplicated away
    # inside the snapshot the consumer was in, and a branch inside that snapshot.
    assert scenario is not None and len(scenario.failovers) == 1
    assert scenario.received < scenario.snapshot_ends[-1]
    assert result.size["seqnos"] == 3 and result.size["rounds"] == 1


@pytest.mark.parametrize("prop", SAFETY)
def test_kv_current_with_the_correct_consumer_holds_every_safety_property(prop) -> None:
    assert run("kv-current", "correct", prop).verdict is Verdict.HOLDS


def test_kv_currents_purge_rollback_is_reported_as_a_cost() -> None:
    result = run("kv-current", "correct", "no-needless-rollback")
    assert result.verdict is Verdict.VIOLATED and result.confirmed
    assert result.record is not None
    assert result.record["trace"]["rounds"][0]["decision"]["case"] == "purge"


def test_minimisation_can_be_turned_off() -> None:
    result = run("kv-current", "collapse-snapshot", "no-missed-item", minimise=False)
    assert result.verdict is Verdict.VIOLATED and result.size == {}


def test_a_timeout_is_unknown_never_holds() -> None:
    big = Bounds(seqnos=12, keys=4, entries=6, failovers=4)
    result = run("kv-current", "correct", "no-missed-item", bounds=big, timeout_s=0.001)
    assert result.verdict is Verdict.UNKNOWN
    assert "timeout" in result.reason


def test_a_counterexample_the_reference_does_not_reproduce_is_not_confirmed(monkeypatch) -> None:
    model = ScenarioModel(SMALL, RULE_SETS.get("kv-current"), CONSUMERS.get("correct"))
    honest = simulate

    def lying(scenario, rules, variant, rounds):
        # The reference "runs" the correct consumer whatever it is asked: the
        # trace differs from the model's prediction for collapse-snapshot.
        return honest(scenario, rules, CONSUMERS.get("correct"), rounds)

    monkeypatch.setattr(confirm, "simulate", lying)
    collapse = ScenarioModel(SMALL, RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot"))
    replay = replay_scenario(SEED_001_SMALL, collapse, PROPERTIES.get("no-missed-item"))
    assert not replay.confirmed
    assert replay.detail
    assert model  # the honest model still builds


SEED_001_SMALL = Scenario(
    history=(Mutation(0), Mutation(1), Mutation(0, deleted=True)),
    table=FailoverTable.of((1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(3,),
    received=2,
    failovers=(Failover(branch=2, uuid=2222, mutations=()),),
)
