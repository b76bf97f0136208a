"""Failover: CrashActive, then PromoteReplica (ns_server's auto-failover).

Each action is a guard (``*_enabled``) and an effect (``apply_*``). The branch
rule (``spec.cluster.rules.BranchRule``) puts the promoted node's new failover
entry.
"""

from __future__ import annotations

from spec.cluster.actions import CrashActive, PromoteReplica
from spec.cluster.setup import Setup
from spec.cluster.state import DEAD, MAJORITY, ClusterState, NodeState, epoch_uuid

__all__ = [
    "apply_crash_active",
    "apply_promote_replica",
    "crash_active_enabled",
    "disconnected",
    "promote_candidates",
    "promote_replica_enabled",
    "promoted",
]


# -- CrashActive -----------------------------------------------------------------------
# Who: the active node. What: it crashes and ns_server fails it over: it leaves the
# cluster for good, with everything it held; every stream closes and the ADM's acks
# are gone; its clients' SyncWrites in flight are never acknowledged. Allowed while
# the failover budget lasts and another node is alive.
# Not modelled: a failed-over node coming back (delta recovery, rebalance), a
# crash of a replica (see RestartReplica), graceful failover.


def crash_active_enabled(setup: Setup, state: ClusterState) -> list[CrashActive]:
    if state.active is None or state.epoch >= setup.bounds.failovers or not state.replicas():
        return []
    return [CrashActive()]


def apply_crash_active(setup: Setup, state: ClusterState, action: CrashActive) -> ClusterState:
    assert state.active is not None
    nodes = tuple(
        [
            DEAD if i == state.active else setup.remembered(disconnected, n)
            for i, n in enumerate(state.nodes)
        ]
    )
    return state.but(nodes=nodes, active=None, acks=(0,) * len(nodes), in_flight=())


def disconnected(setup: Setup, node: NodeState) -> NodeState:
    """A replica whose stream closed: the PassiveStream and its flag are gone."""
    return node.but(
        connected=False, marker_due=True, snapshot_has_prepare=False, snapshot_is_disk=False
    )


# -- PromoteReplica(node) ----------------------------------------------------------------
# Who: ns_server, then the promoted node. What: ns_server picks a most up-to-date
# survivor (highest high seqno; any of them on a tie); the node becomes active,
# puts a new failover entry (uuid of the next epoch) at the branch rule's branch
# point, keeps every item it holds, also above the branch point (kv_engine does
# not roll itself back), and closes the snapshot it was receiving at its high
# seqno. Its PREPAREs without a COMMIT are pending in its ADM, to be acked anew.
# (Its replica-side fields - HPS, the PassiveDurabilityMonitor's snapshot ends - are
# cleared: an active never restarts or acks in this model, and equal states should
# be one state. Its persisted seqno is kept while it holds a pending PREPARE above
# level Majority, the only thing it decides for an active: its durability fence.)
# Not modelled: ns_server choosing a less up-to-date replica, a new replica added
# to the chain (the chain keeps its size; the failed node's slot is empty).


def promote_candidates(state: ClusterState) -> list[int]:
    if state.active is not None:
        return []
    alive = state.replicas()
    if not alive:
        return []
    best = max(state.nodes[r].high_seqno for r in alive)
    return [r for r in alive if state.nodes[r].high_seqno == best]


def promote_replica_enabled(setup: Setup, state: ClusterState) -> list[PromoteReplica]:
    return [PromoteReplica.of(r) for r in promote_candidates(state)]


def promoted(setup: Setup, node: NodeState, epoch: int) -> NodeState:
    """The node as the new active of ``epoch``: its new entry is at the branch point."""
    branch = setup.branch_rule.branch_point(node)
    high = node.high_seqno
    closed = tuple([m for m in node.snapshots if m[1] <= high])
    partial = tuple([(start, high) for start, end in node.snapshots if start <= high < end])
    node = node.but(
        snapshots=closed + partial,
        table=node.table.create_entry(branch, epoch_uuid(epoch)),
        connected=False,
        marker_due=False,
        snapshot_has_prepare=False,
        high_prepared_seqno=0,
        persisted_seqno=node.persisted_seqno if _fenced(node) else 0,
        persisted_hps=0,
        headers=(),
        snapshot_ends=(),
        snapshot_is_disk=False,
        disk_ends=(),
    )
    return node


def _fenced(node: NodeState) -> bool:
    """Whether ``node`` holds a pending PREPARE of a level above Majority."""
    return any(node.items[x - 1].level != MAJORITY for x in node.pending_prepares())


def apply_promote_replica(
    setup: Setup, state: ClusterState, action: PromoteReplica
) -> ClusterState:
    epoch = state.epoch + 1
    node = setup.remembered(promoted, state.nodes[action.node], epoch)
    state = state.with_node(action.node, node)
    return state.but(active=action.node, epoch=epoch, acks=(0,) * len(state.nodes))
