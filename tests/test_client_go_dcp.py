"""go-dcp's purge loop with rollback mitigation on (its default), at a size the real system has.

A one-entry failover log (nothing pruned): the client holds seqno 2 of
snapshot [1,3]; the replica that takes over had persisted 2 (mitigation
allows that failover) and writes 3':DEL(B), which compaction purges before
the client comes back. Its first request (0x80) is rolled back to the
snapshot start 1; ``openStreamWithRollback`` asks again from 1 with flags 0,
so kv_engine's purge rule applies (start 1 < purge seqno 3) and answers
ROLLBACK(0), an error to go-dcp: it reopens from its unchanged checkpoint,
and the two requests repeat until ``reopenStream`` panics. Both
interpretations agree on the trace (the counterexample is confirmed).
"""

from __future__ import annotations

import pytest

from checker.confirm import replay_scenario
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Failover, Mutation, Scenario

A, B, C = 0, 1, 2
PURGED_WHILE_AWAY = Scenario(
    history=(Mutation(A), Mutation(B), Mutation(A)),
    table=FailoverTable.of((1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(3,),
    received=2,
    failovers=(Failover(2, 2222, (Mutation(B, deleted=True), Mutation(C))),),
    purge_seqno=3,
)
BOUNDS = Bounds(seqnos=4, keys=3, entries=2, failovers=1)


@pytest.mark.parametrize("rules", ["kv-current", "rollback-doc"])
def test_with_mitigation_on_a_purge_above_r_loops_without_a_pruned_log(rules) -> None:
    variant = CONSUMERS.get("go-dcp")
    assert variant.rollback_mitigation and len(PURGED_WHILE_AWAY.table) == 1
    trace = simulate(PURGED_WHILE_AWAY, RULE_SETS.get(rules), variant, BOUNDS.rounds)
    answers = [
        (r.request.start, r.request.ignore_purged, r.decision.rollback_seqno) for r in trace.rounds
    ]
    assert answers[:4] == [(2, True, 1), (1, False, 0), (2, True, 1), (1, False, 0)]
    assert not trace.accepted
    replay = replay_scenario(
        PURGED_WHILE_AWAY,
        ScenarioModel(BOUNDS, RULE_SETS.get(rules), variant),
        PROPERTIES.get("bounded-rollback"),
    )
    assert replay.confirmed, replay.detail


def test_the_fix_is_rolled_back_to_0_once_and_converges() -> None:
    variant = CONSUMERS.get("go-dcp-fixed")
    trace = simulate(PURGED_WHILE_AWAY, RULE_SETS.get("kv-current"), variant, BOUNDS.rounds)
    assert [r.decision.rollback_seqno for r in trace.rounds] == [0, None] and trace.accepted
