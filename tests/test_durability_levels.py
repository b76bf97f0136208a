"""Durability levels in the cluster model: the active's fence, each level's promise, the
in-flight rule per key, and what a level looks like in a run."""

from __future__ import annotations

from checker.cluster_check import model_for
from checker.report.html import timeline_svg
from spec.cluster import ACK_RULES, BRANCH_RULES, ClusterBounds, ClusterModel
from spec.cluster import actions as act
from spec.cluster.narrate import picture_of
from spec.cluster.passive_dm import hps_at_snapshot_ends, hps_on_receipt
from spec.cluster.properties import lost_syncwrites, promised_failures
from spec.cluster.state import (
    COMMIT,
    MAJORITY,
    MAJORITY_AND_PERSIST_ON_MASTER,
    PERSIST_TO_MAJORITY,
    PREPARE,
    ClusterItem,
    ClusterState,
    SyncWrite,
)
from spec.rules import RULE_SETS

N1 = 1


def two_nodes(levels: int, keys: int = 1, prepares: int = 1) -> ClusterModel:
    bounds = ClusterBounds(
        nodes=2, keys=keys, prepares=prepares, items=4, failovers=1, restarts=1, levels=levels
    )
    return model_for(
        ACK_RULES.get("ack-at-snapshot-end+restart-fix"),
        BRANCH_RULES.get("highest-snapshot"),
        RULE_SETS.get("kv-current"),
        bounds,
    )


def run(model: ClusterModel, *actions: act.Action) -> ClusterState:
    (state,) = model.init_states()
    for action in actions:
        assert action in model.actions(state), f"{action} is not enabled"
        state = model.next_state(state, action)
    return state


WRITTEN = (act.ClientPrepare(0), act.CloseSnapshot(), act.ReplicateItem(N1), act.ReplicateItem(N1))


def test_a_majority_syncwrite_commits_without_the_actives_disk() -> None:
    model = two_nodes(levels=1)
    state = run(model, *WRITTEN, act.AckPrepare(N1))
    assert act.Commit() in model.actions(state)
    assert act.PersistActive() not in model.actions(state)  # a Majority search never flushes it


def test_majority_and_persist_on_master_waits_for_the_actives_disk_not_the_replicas() -> None:
    model = two_nodes(levels=2)
    state = run(model, *WRITTEN)
    assert state.nodes[N1].high_prepared_seqno == 1  # the replica acks it from memory
    state = run(model, *WRITTEN, act.AckPrepare(N1))
    assert act.Commit() not in model.actions(state)  # the active's fence holds it
    state = model.next_state(state, act.PersistActive())
    assert act.Commit() in model.actions(state)


def test_persist_to_majority_waits_for_both_disks() -> None:
    model = two_nodes(levels=3)
    state = run(model, *WRITTEN)
    assert state.nodes[N1].high_prepared_seqno == 0  # the replica's fence: not persisted
    assert state.nodes[N1].snapshot_ends == (1,)
    state = run(model, *WRITTEN, act.PersistReplica(N1), act.AckPrepare(N1))
    assert state.nodes[N1].high_prepared_seqno == 1 and state.nodes[N1].snapshot_ends == ()
    assert act.Commit() not in model.actions(state)
    state = model.next_state(state, act.PersistActive())
    state = model.next_state(state, act.Commit())
    assert state.acknowledged == (SyncWrite(1, 0, 0, 0, PERSIST_TO_MAJORITY),)


def test_a_second_syncwrite_on_a_key_in_flight_is_refused() -> None:
    model = two_nodes(levels=13, keys=1, prepares=2)
    state = run(model, act.ClientPrepare(0))
    assert not [a for a in model.actions(state) if isinstance(a, act.ClientPrepare)]
    state = run(model, *WRITTEN, act.AckPrepare(N1), act.Commit())
    assert act.ClientPrepare(0) in model.actions(state)  # committed: the key is free again
    state = model.next_state(state, act.ClientPrepare(0))
    assert state.nodes[0].items[-1].level == PERSIST_TO_MAJORITY  # the second SyncWrite's level


def test_each_level_counts_the_failures_its_promise_covers() -> None:
    model = two_nodes(levels=3)
    (state,) = model.init_states()
    after = state.but(epoch=1, restarts=1)
    assert promised_failures(after, MAJORITY) == 2
    assert promised_failures(after, MAJORITY_AND_PERSIST_ON_MASTER) == 2
    assert promised_failures(after, PERSIST_TO_MAJORITY) == 1  # restarts keep the disk


def test_a_persist_to_majority_write_missing_after_restarts_alone_is_lost() -> None:
    """Majority 2: two restarts release a Majority write's promise, not a
    PersistToMajority one's (restarts keep what each node persisted)."""
    model = two_nodes(levels=3)
    (state,) = model.init_states()
    for level, lost in ((MAJORITY, []), (PERSIST_TO_MAJORITY, [1])):
        write = SyncWrite(1, 0, 0, 0, level)
        gone = state.but(acknowledged=(write,), restarts=2)  # the active holds no item 1
        assert [w.seqno for w in lost_syncwrites(model.setup, gone)] == lost


def test_a_level_is_named_in_a_prepares_label_and_json() -> None:
    state = run(two_nodes(levels=3), act.ClientPrepare(0))
    item = state.nodes[0].items[0]
    assert item.label(1) == "1:PREPARE(A,persistToMajority)"
    assert item.to_json(1)["level"] == "persist_to_majority"
    assert run(two_nodes(levels=1), act.ClientPrepare(0)).nodes[0].items[0].label(1) == (
        "1:PREPARE(A)"
    )


def test_the_picture_marks_where_a_replicas_fence_holds_its_hps() -> None:
    model = two_nodes(levels=3)
    fenced = run(model, *WRITTEN)
    (mark,) = picture_of(fenced).marks
    assert (mark.seqno, mark.label, mark.kind) == (0, "N1 fence: HPS 0", "fence")
    assert "N1 fence: HPS 0" in timeline_svg(picture_of(fenced))
    assert picture_of(run(model, *WRITTEN, act.PersistReplica(N1))).marks == ()


def test_a_committed_persist_to_majority_prepare_fences_after_mb_34197_not_before() -> None:
    """8a0f8da1b^ (6.0) removes a PREPARE from trackedWrites on its COMMIT, so it no
    longer fences; eba4298 keeps completed PREPAREs until the HPS passes them."""
    items = (
        ClusterItem(PREPARE, 0, 0, 0, PERSIST_TO_MAJORITY),
        ClusterItem(PREPARE, 1, 0, 0, MAJORITY),
        ClusterItem(COMMIT, 0, 0, 1),
    )
    assert hps_on_receipt(items[:2], 0, 0) == 0  # the fence at 1
    assert hps_on_receipt(items, 0, 0) == 2  # committed: no fence
    assert hps_at_snapshot_ends(items, 0, 0, (3,)) == (0, (3,))  # still the fence
    assert hps_at_snapshot_ends(items, 0, 3, (3,)) == (2, ())  # the snapshot persisted whole
