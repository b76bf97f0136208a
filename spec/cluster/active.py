"""Actions of the active node: ClientPrepare, ClientSet, CloseSnapshot, Commit,
PersistActive.

Each action is a guard (``*_enabled``: the action values allowed in a state)
and an effect (``apply_*``: the next state). A SyncWrite's level is the bounds'
(``ClusterBounds.level_of``); the active's own ack of a PREPARE follows
``ActiveDurabilityMonitor::State::updateHighPreparedSeqno`` (``active_acked``).
"""

from __future__ import annotations

from spec.cluster.actions import ClientPrepare, ClientSet, CloseSnapshot, Commit, PersistActive
from spec.cluster.setup import Setup
from spec.cluster.state import (
    COMMIT,
    MAJORITY,
    PERSIST_TO_MAJORITY,
    PREPARE,
    SET,
    ClusterItem,
    ClusterState,
    NodeState,
    SyncWrite,
)

__all__ = [
    "acked_by",
    "active_acked",
    "apply_client_prepare",
    "apply_client_set",
    "apply_close_snapshot",
    "apply_commit",
    "apply_persist_active",
    "client_prepare_enabled",
    "client_set_enabled",
    "close_snapshot_enabled",
    "commit_enabled",
    "open_snapshot_start",
    "persist_active_enabled",
]


def open_snapshot_start(node: NodeState) -> int:
    return (node.snapshots[-1][1] if node.snapshots else 0) + 1


def _writable_keys(node: NodeState, keys: int) -> list[int]:
    """The keys a client may write on ``node``: those without a pending SyncWrite.

    kv_engine eba4298, engines/ep/src/vbucket.cc: ``VBucket::fetchValueForWrite`` (and
    the set path) finds the key's pending StoredValue and answers
    ``ESyncWriteInProgress``, which the client sees as SYNC_WRITE_IN_PROGRESS."""
    busy = {node.items[x - 1].key for x in node.pending_prepares()}
    return [key for key in range(keys) if key not in busy]


def active_acked(node: NodeState, seqno: int) -> bool:
    """Whether the active's own HPS covers the PREPARE at ``seqno``.

    kv_engine eba4298, engines/ep/src/durability/active_durability_monitor.cc,
    ``ActiveDurabilityMonitor::State::updateHighPreparedSeqno``: the HPS first moves
    over every pending PREPARE up to the persisted seqno, then over Majority ones up
    to the first MajorityAndPersistOnMaster or PersistToMajority PREPARE (the
    active's durability fence). So it covers ``seqno`` unless a pending PREPARE at or
    below it, above the persisted seqno, is of a level above Majority."""
    items, persisted = node.items, node.persisted_seqno
    for x in node.pending_prepares():
        if x > seqno:
            break
        if x > persisted and items[x - 1].level != MAJORITY:
            return False
    return True


def acked_by(state: ClusterState, seqno: int) -> list[int]:
    """Nodes counted for the PREPARE at ``seqno``: the active if its own HPS covers it, and
    replicas whose ack covers it.

    kv_engine eba4298, engines/ep/src/durability/durability_monitor_impl.cc,
    ``ActiveSyncWrite::isSatisfied``: a majority of the chain acked it *and* the active
    did (MB-35190: "A SyncWrite must always be satisfied on the active"); so a
    SyncWrite the active has not acked is counted as acked by nobody here."""
    assert state.active is not None
    if not active_acked(state.nodes[state.active], seqno):
        return []
    return [state.active] + [r for r in state.replicas() if state.acks[r] >= seqno]


# -- ClientPrepare(key) ---------------------------------------------------------------
# Who: the active, for a client. What: appends PREPARE(key) to its open snapshot, of
# the level the bounds give the client's n-th SyncWrite (ClusterBounds.level_of).
# Refused (not modelled as an action) when the key already has a pending SyncWrite
# (SYNC_WRITE_IN_PROGRESS: _writable_keys), when fewer than a majority of nodes are
# left (durability impossible), or when its COMMIT would not fit in the bounds.
# Not modelled: timeouts, aborts, the client choosing a level at will.


def client_prepare_enabled(setup: Setup, state: ClusterState) -> list[ClientPrepare]:
    node = state.active_node
    b = setup.bounds
    if node is None or state.prepares >= b.prepares or node.high_seqno + 2 > b.items:
        return []
    if sum(n.alive for n in state.nodes) < b.majority:
        return []
    return [ClientPrepare.of(key) for key in _writable_keys(node, b.keys)]


def apply_client_prepare(setup: Setup, state: ClusterState, action: ClientPrepare) -> ClusterState:
    assert state.active is not None
    node = state.nodes[state.active]
    level = setup.bounds.level_of(state.prepares)
    node = _append(setup, node, ClusterItem(PREPARE, action.key, state.epoch, 0, level))
    faults = state.epoch if level == PERSIST_TO_MAJORITY else state.faults
    write = SyncWrite(node.high_seqno, state.epoch, action.key, faults, level)
    return state.with_node(
        state.active,
        node,
        prepares=state.prepares + 1,
        in_flight=(*state.in_flight, write),
    )


# -- ClientSet(key) -------------------------------------------------------------------
# Who: the active, for a client. What: appends SET(key) (not durable) to its open
# snapshot; refused while the key has a pending SyncWrite. Not modelled: deletions,
# deduplication (every item is sent).


def client_set_enabled(setup: Setup, state: ClusterState) -> list[ClientSet]:
    node = state.active_node
    b = setup.bounds
    if node is None or state.sets >= b.sets or node.high_seqno + 1 > b.items:
        return []
    return [ClientSet.of(key) for key in _writable_keys(node, b.keys)]


def apply_client_set(setup: Setup, state: ClusterState, action: ClientSet) -> ClusterState:
    assert state.active is not None
    node = _append(setup, state.nodes[state.active], ClusterItem(SET, action.key, state.epoch))
    return state.with_node(state.active, node, sets=state.sets + 1)


# -- CloseSnapshot ----------------------------------------------------------------------
# Who: the active. What: ends its open snapshot (checkpoint) at its high seqno; the
# stream sends only closed snapshots, so this is where the producer cuts snapshot
# markers. Not modelled: different cuts for different streams, disk snapshots
# (backfill) - every stream is a memory stream.


def close_snapshot_enabled(setup: Setup, state: ClusterState) -> list[CloseSnapshot]:
    node = state.active_node
    if node is not None and node.high_seqno >= open_snapshot_start(node):
        return [CloseSnapshot()]
    return []


def apply_close_snapshot(setup: Setup, state: ClusterState, action: CloseSnapshot) -> ClusterState:
    assert state.active is not None
    return state.with_node(state.active, _closed(setup, state.nodes[state.active]))


# -- Commit -----------------------------------------------------------------------------
# Who: the active (its ActiveDurabilityMonitor). What: once the active (active_acked:
# behind its durability fence, a PREPARE above Majority waits for PersistActive) and
# enough replicas to make a majority acked its lowest pending PREPARE, appends COMMIT(key);
# if this active wrote the PREPARE, the client is acknowledged. A COMMIT never joins
# the open snapshot holding its key's PREPARE (kv_engine starts a new checkpoint).
# A PREPARE inherited from an earlier active is committed too, but nobody is
# acknowledged (its client was connected to the crashed node).


def commit_enabled(setup: Setup, state: ClusterState) -> list[Commit]:
    node = state.active_node
    if node is None or node.high_seqno + 1 > setup.bounds.items:
        return []
    pending = node.pending_prepares()
    if pending and len(acked_by(state, pending[0])) >= setup.bounds.majority:
        return [Commit()]
    return []


def apply_commit(setup: Setup, state: ClusterState, action: Commit) -> ClusterState:
    assert state.active is not None
    node = state.nodes[state.active]
    seqno = node.pending_prepares()[0]
    prepare = node.items[seqno - 1]
    start = open_snapshot_start(node)
    if any(i.op == PREPARE and i.key == prepare.key for i in node.items[start - 1 :]):
        node = _closed(setup, node)
    node = _append(setup, node, ClusterItem(COMMIT, prepare.key, state.epoch, prepare_seqno=seqno))
    written = [w for w in state.in_flight if w.seqno == seqno and w.epoch == prepare.epoch]
    if not written:
        return state.with_node(state.active, node)
    return state.with_node(
        state.active,
        node,
        acknowledged=tuple(sorted((*state.acknowledged, written[0]))),
        in_flight=tuple([w for w in state.in_flight if w != written[0]]),
    )


# -- PersistActive ----------------------------------------------------------------------
# Who: the active's flusher. What: persists everything the active holds, so its
# durability fence (a MajorityAndPersistOnMaster or PersistToMajority PREPARE) moves
# (ActiveDurabilityMonitor::State::updateHighPreparedSeqno, called on persistence).
# Enabled only while such a PREPARE is pending above the persisted seqno: the active
# never restarts, so its persisted seqno matters to nothing else, and a search of
# Majority SyncWrites alone never takes this step. Not modelled: the active's
# couchstore headers (a dead active never rolls back).


def persist_active_enabled(setup: Setup, state: ClusterState) -> list[PersistActive]:
    node = state.active_node
    if node is None:
        return []
    items, persisted = node.items, node.persisted_seqno
    for x in node.pending_prepares():
        if x > persisted and items[x - 1].level != MAJORITY:
            return [PersistActive()]
    return []


def apply_persist_active(setup: Setup, state: ClusterState, action: PersistActive) -> ClusterState:
    assert state.active is not None
    node = state.nodes[state.active]
    return state.with_node(state.active, setup.canonical(node.but(persisted_seqno=node.high_seqno)))


# -- helpers ----------------------------------------------------------------------------


# The active's new nodes are made canonical (``Setup.canonical``), as a replica's are.


def _append(setup: Setup, node: NodeState, item: ClusterItem) -> NodeState:
    return setup.canonical(node.but(items=(*node.items, item)))


def _closed(setup: Setup, node: NodeState) -> NodeState:
    snapshot = (open_snapshot_start(node), node.high_seqno)
    return setup.canonical(node.but(snapshots=(*node.snapshots, snapshot)))
