"""Seed 003 (MB-34150), "Example Scenarios for HPS updates": the six timelines, step by step.

Each scenario is the active writing two or three PREPAREs of the seed's levels into
one snapshot, then the seed's replica timeline as the model's named steps: ``S``
(the marker) and ``1``, ``2``, ``3`` (an item received) are ``ReplicateItem(N1)``;
``[k]`` (persisted up to k) is ``PersistNextItem(N1)`` while more is received,
``PersistReplica(N1)`` when k is the last. After every step whose HPS moved, the
replica acks (``AckPrepare(N1)``); the test asserts at which steps it acks and
which PREPAREs each ack newly covers (``A:1,2``), under ack-on-prepare (the
seed's "Today", kv_engine 8a0f8da1b^) and the ack-at-snapshot-end rules (its
"Tomorrow", MB-34197: kv_engine 8a0f8da1b and eba4298), on the model and, in
lockstep, on the reference implementation.

Scenarios 1-4 are the seed's lines exactly. In 5 and 6 the seed's "Tomorrow" line
is not what kv_engine does, and the code wins (docs/durability.md shows both): its
PassiveDurabilityMonitor lets a memory snapshot's end pass only PREPAREs below
PersistToMajority until the *whole snapshot* is persisted (eba4298
``updateHighPreparedSeqno``: ``maxLevelCanAdvanceOver`` is MajorityAndPersistOnMaster
unless ``snapshotFullyPersisted``; 8a0f8da1b: the blind move needs
``getPersistenceSeqno() >= snapshotEnd``), even when the PersistToMajority PREPARE
itself is persisted. So in scenario 5 the end of the snapshot acks 1 only (the seed:
1 and 3), and in scenario 6 persisting 2 acks nothing (the seed: 2 and 3); both
ack the rest when seqno 3 is persisted, a step the seed's timeline does not draw
and each test adds.

A seventh scenario, not the seed's, is a disk snapshot (rule (5)): ``hps_moves``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from checker.cluster_check import model_for
from spec.cluster import ACK_RULES, BRANCH_RULES, ClusterBounds
from spec.cluster import actions as act
from spec.cluster.state import ClusterState
from spec.reference.cluster import Cluster
from spec.rules import RULE_SETS

N1 = 1
TODAY = ("ack-on-prepare",)
TOMORROW = ("ack-at-snapshot-end", "ack-at-snapshot-end+restart-fix")

M, P = "1", "3"  # the bounds' level digits: majority, persist_to_majority


def _bounds(levels: str) -> ClusterBounds:
    return ClusterBounds(
        nodes=2,
        keys=len(levels),
        prepares=len(levels),
        items=2 * len(levels),
        failovers=0,
        levels=int(levels),
        partial_flush=1,
    )


Step = Callable[[ClusterState, act.Action], ClusterState]


def _lockstep(bounds: ClusterBounds, ack_rule: str) -> tuple[ClusterState, Cluster, Step]:
    """The model's initial state, the reference cluster, and a step that takes an
    enabled action on both (the branch rule highest-snapshot, the rules kv-current)."""
    model = model_for(
        ACK_RULES.get(ack_rule),
        BRANCH_RULES.get("highest-snapshot"),
        RULE_SETS.get("kv-current"),
        bounds,
    )
    reference = Cluster(bounds.to_json(), ack_rule, "highest-snapshot")
    (state,) = model.init_states()

    def step(state: ClusterState, action: act.Action) -> ClusterState:
        assert action in model.actions(state), f"{action} is not enabled"
        reference.apply(action.to_json())
        return model.next_state(state, action)

    return state, reference, step


def acks_of(ack_rule: str, levels: str, timeline: str) -> list[str]:
    """Run the scenario; the replica's acks as ``"<event>: A:<seqnos>"`` in order.

    The active writes one PREPARE per level (keys A, B, C) into snapshot ``[1,n]``;
    ``timeline`` is the seed's replica events, space-separated."""
    bounds = _bounds(levels)
    state, reference, step = _lockstep(bounds, ack_rule)
    for key in range(len(levels)):
        state = step(state, act.ClientPrepare.of(key))
    state = step(state, act.CloseSnapshot())
    acks = []
    for event in timeline.split():
        if event.startswith("["):
            upto = int(event[1:-1])
            node = state.nodes[N1]
            assert upto == node.persisted_seqno + 1, f"{event}: persist one item at a time"
            last = upto == node.high_seqno
            state = step(state, act.PersistReplica.of(N1) if last else act.PersistNextItem.of(N1))
        else:
            state = step(state, act.ReplicateItem.of(N1))
            if event != "S":
                assert state.nodes[N1].high_seqno == int(event), event
        before = state.acks[N1]
        hps = state.nodes[N1].high_prepared_seqno
        assert reference.nodes[N1].hps == hps, f"{event}: the reference's HPS differs"
        if hps > before:
            state = step(state, act.AckPrepare.of(N1))
            covered = ",".join(str(x) for x in range(before + 1, hps + 1))
            acks.append(f"{event}: A:{covered}")
    return acks


# (levels, the replica's timeline, Today's acks, Tomorrow's acks as kv_engine gives them)
SCENARIOS = {
    # SNAP(1,2) 1:PRE(majority) 2:PRE(majority); Today A:1 A:2, Tomorrow A:1,2 at 2
    "1: two majority": (M + M, "S 1 2", ["1: A:1", "2: A:2"], ["2: A:1,2"]),
    # 1:PRE(majority) 2:PRE(persistMajority); Today A:1 at 1, A:2 at [2];
    # Tomorrow A:1 at 2, A:2 at [2]
    "2: majority, persistMajority": (
        M + P,
        "S 1 2 [1] [2]",
        ["1: A:1", "[2]: A:2"],
        ["2: A:1", "[2]: A:2"],
    ),
    # 1:PRE(persistMajority) 2:PRE(majority); Today A:1,2 at [1]; Tomorrow A:1,2 at [2]
    "3: persistMajority, majority": (
        P + M,
        "S 1 2 [1] [2]",
        ["[1]: A:1,2"],
        ["[2]: A:1,2"],
    ),
    # two persistMajority; Today A:1 at [1], A:2 at [2]; Tomorrow A:1,2 at [2]
    "4: two persistMajority": (
        P + P,
        "S 1 2 [1] [2]",
        ["[1]: A:1", "[2]: A:2"],
        ["[2]: A:1,2"],
    ),
    # SNAP(1,3) majority, persistMajority, majority; 1 2 [1] [2] then 3.
    # Today A:1 at 1, A:2 at [2], A:3 at 3 (as the seed).
    # Tomorrow, the seed: A:1,3 at 3. kv_engine: A:1 at 3 (2 fences a snapshot not
    # persisted whole), A:2,3 once 3 is persisted (the step [3], not drawn by the seed).
    "5: snapshot complete after 2 persisted": (
        M + P + M,
        "S 1 2 [1] [2] 3 [3]",
        ["1: A:1", "[2]: A:2", "3: A:3"],
        ["3: A:1", "[3]: A:2,3"],
    ),
    # SNAP(1,3) majority, persistMajority, majority; 1 2 [1] 3 [2].
    # Today A:1 at 1, A:2,3 at [2] (as the seed).
    # Tomorrow, the seed: A:1 at 3, A:2,3 at [2]. kv_engine: A:1 at 3, nothing at [2]
    # (the snapshot [1,3] is not persisted whole), A:2,3 at [3] (not drawn by the seed).
    "6: snapshot complete before 2 persisted": (
        M + P + M,
        "S 1 2 [1] 3 [2] [3]",
        ["1: A:1", "[2]: A:2,3"],
        ["3: A:1", "[3]: A:2,3"],
    ),
}


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("ack_rule", TODAY)
def test_today_acks_where_the_seed_says(name: str, ack_rule: str) -> None:
    levels, timeline, today, _ = SCENARIOS[name]
    assert acks_of(ack_rule, levels, timeline) == today


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("ack_rule", TOMORROW)
def test_tomorrow_acks_where_kv_engine_does(name: str, ack_rule: str) -> None:
    levels, timeline, _, tomorrow = SCENARIOS[name]
    assert acks_of(ack_rule, levels, timeline) == tomorrow


def test_the_seeds_tomorrow_in_scenario_5_would_need_a_persisted_prepare_to_lift_the_fence() -> (
    None
):
    """What the seed draws for scenario 5 (A:1,3 when 3 arrives) is what a fence at the
    first *unpersisted* PersistToMajority PREPARE would give - the rule 6.0 applies to
    each PREPARE - not eba4298's fence at the first PersistToMajority PREPARE of a
    snapshot not persisted whole. Under ack-on-prepare the end of the snapshot is
    not waited for, so 3 is acked alone, as the seed's Today line says."""
    assert acks_of("ack-on-prepare", M + P + M, "S 1 2 [1] [2] 3") == [
        "1: A:1",
        "[2]: A:2",
        "3: A:3",
    ]
    assert acks_of("ack-at-snapshot-end", M + P + M, "S 1 2 [1] [2] 3") == ["3: A:1"]


# -- rule (5): a disk snapshot ------------------------------------------------------------
#
# Not one of the seed's six: kv_engine eba4298's rule (5) in
# PassiveDurabilityMonitor::State::updateHighPreparedSeqno (passive_durability_monitor.cc)
# for a snapshot the active backfilled from disk (``D``: ``BackfillReplica(N1)``; ``S`` is
# the memory marker): its end acks nothing, not even a Majority PREPARE, until the whole
# snapshot is persisted; then the HPS takes the HPS its marker carries (the last PREPARE
# in it) or, with no PREPARE in it, the snapshot's end. The active writes
# 1:PREPARE(A) 2:SET(B) in snapshot [1,2]; ``C`` is its Commit (3:COMMIT(A), once N1's
# ack makes the majority of 2) and the snapshot [3,3] closed.

DISK_PREFIX = (act.ClientPrepare.of(0), act.ClientSet.of(1), act.CloseSnapshot())


def hps_moves(ack_rule: str, timeline: str) -> list[str]:
    """Run ``DISK_PREFIX`` then ``timeline`` on the model and, in lockstep, on the
    reference; the replica's acks as ``"<event>: <HPS acked>"``, in order."""
    bounds = ClusterBounds(
        nodes=2, keys=2, prepares=1, sets=1, items=3, failovers=0, partial_flush=1,
        disk_snapshots=1,
    )  # fmt: skip
    state, reference, step = _lockstep(bounds, ack_rule)
    for action in DISK_PREFIX:
        state = step(state, action)
    acks = []
    for event in timeline.split():
        node = state.nodes[N1]
        if event == "C":
            state = step(step(state, act.Commit()), act.CloseSnapshot())
            continue
        if event.startswith("["):
            last = int(event[1:-1]) == node.high_seqno
            state = step(state, act.PersistReplica.of(N1) if last else act.PersistNextItem.of(N1))
        elif event == "D":
            state = step(state, act.BackfillReplica.of(N1))
            assert state.nodes[N1].snapshot_is_disk
        else:
            state = step(state, act.ReplicateItem.of(N1))
        hps = state.nodes[N1].high_prepared_seqno
        assert reference.nodes[N1].hps == hps, f"{event}: the reference's HPS differs"
        if hps > state.acks[N1]:
            state = step(state, act.AckPrepare.of(N1))
            acks.append(f"{event}: {hps}")
    return acks


DISK = "D 1 2 [1] [2] C D 3 [3]"


@pytest.mark.parametrize("ack_rule", TOMORROW)
def test_a_disk_snapshot_acks_once_persisted_whole_and_up_to_its_end(ack_rule: str) -> None:
    # 1 is acked at [2] (the disk snapshot [1,2] persisted whole), not at 2 nor at [1];
    # the disk snapshot [3,3] holds a COMMIT only and moves the HPS to 3 once persisted
    assert hps_moves(ack_rule, DISK) == ["[2]: 1", "[3]: 3"]
    # the same items as memory snapshots: 1 is acked at the snapshot's end, and a
    # snapshot without a PREPARE moves nothing
    assert hps_moves(ack_rule, DISK.replace("D", "S")) == ["2: 1"]


def test_before_mb_34873_a_disk_snapshot_acks_as_a_memory_one() -> None:
    """ack-on-prepare (8a0f8da1b^) has no rule (5): it came with MB-34873 (4834fe37b)."""
    assert hps_moves("ack-on-prepare", DISK) == ["1: 1"]
    assert hps_moves("ack-on-prepare", DISK.replace("D", "S")) == ["1: 1"]
