"""Actions of a replica: ReplicateItem, BackfillReplica, PersistReplica, PersistNextItem,
AckPrepare, RestartReplica, ReconnectReplica.

Each action is a guard (``*_enabled``) and an effect (``apply_*``). The ack rule
(``spec.cluster.rules.AckRule``) decides when the high prepared seqno moves, by
the PassiveDurabilityMonitor's rules (``spec.cluster.passive_dm``); the rule set
(``spec.rules``) answers stream requests.
"""

from __future__ import annotations

from collections.abc import Callable

from spec.cluster.actions import (
    AckPrepare,
    BackfillReplica,
    PersistNextItem,
    PersistReplica,
    ReconnectReplica,
    ReplicateItem,
    RestartReplica,
)
from spec.cluster.disk import rollback_landing as landing_on_disk
from spec.cluster.passive_dm import disk_snapshot_hps, hps_at_snapshot_ends, hps_on_receipt
from spec.cluster.setup import Setup
from spec.cluster.state import (
    PREPARE,
    ClusterState,
    NodeState,
    highest_prepare_at_or_below,
    reset_uuid,
)
from spec.errors import HarnessBug
from spec.failover_table import FailoverTable
from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = [
    "Message",
    "ack_prepare_enabled",
    "apply_ack_prepare",
    "apply_backfill_replica",
    "apply_persist_next_item",
    "apply_persist_replica",
    "apply_reconnect_replica",
    "apply_replicate_item",
    "apply_restart_replica",
    "backfill_replica_enabled",
    "backfilled",
    "next_message",
    "persist_next_item_enabled",
    "persist_replica_enabled",
    "persisted",
    "received",
    "reconnect_replica_enabled",
    "reconnected",
    "replicate_item_enabled",
    "restart_replica_enabled",
    "restarted",
    "rollback_landing",
    "stream_request",
]

Message = tuple[str, int, int]  # ("marker", snap_start, snap_end) or ("item", seqno, 0)


def next_message(active: NodeState, replica: NodeState) -> Message | None:
    """What the active's stream sends ``replica`` next, if anything.

    After a marker come the items of its snapshot, up to its end; then the
    marker of the active's closed snapshot holding the next seqno. A stream
    that resumes mid-snapshot starts with that snapshot's marker again (seed
    004: ``SnapshotMarker 1-2`` then seqno 2).
    """
    high = replica.high_seqno
    if replica.marker_due:
        for start, end in active.snapshots:
            if start <= high + 1 <= end:
                return ("marker", start, end)
        return None
    marker = replica.current_marker
    if marker is not None and high < marker[1] and high < active.high_seqno:
        return ("item", high + 1, 0)
    return None


def _streams(state: ClusterState) -> list[tuple[int, NodeState, NodeState]]:
    """(index, active, replica) for each replica connected to the active (none without one)."""
    active = state.active_node
    if active is None:
        return []
    nodes = state.nodes
    return [(r, active, nodes[r]) for r in state.replicas() if nodes[r].connected]


def _streamed(
    setup: Setup, state: ClusterState, index: int, effect: Callable[..., NodeState], *args: int
) -> ClusterState:
    """``state`` with replica ``index`` as ``effect(setup, active, replica, *args)`` makes it."""
    active = state.active_node
    assert active is not None
    return state.with_node(index, setup.remembered(effect, active, state.nodes[index], *args))


# -- ReplicateItem(node) ----------------------------------------------------------------
# Who: a replica connected to the active. What: receives the next message of the
# stream, a snapshot marker or one item. On a PREPARE the PassiveStream sets
# cur_snapshot_prepare (and with ack-on-prepare the HPS moves over it, up to the
# durability fence: passive_dm.hps_on_receipt); on the last item of a snapshot it
# notifies the PassiveDurabilityMonitor if that flag is set, which queues the
# snapshot end and moves the HPS over the snapshot's PREPAREs up to the fence
# (ack-at-snapshot-end*: passive_dm.hps_at_snapshot_ends). The end of a disk snapshot
# (BackfillReplica) is notified whether or not it held a PREPARE (kv_engine eba4298,
# passive_stream.cc PassiveStream::handleSnapshotEnd: "Disk snapshots are subject to
# deduplication"), queued as a disk end with the HPS its marker carries.
# Not modelled: messages lost or reordered (a TCP stream), flow control,
# deduplication, aborts.


def replicate_item_enabled(setup: Setup, state: ClusterState) -> list[ReplicateItem]:
    return [
        ReplicateItem.of(r)
        for r, active, node in _streams(state)
        if next_message(active, node) is not None
    ]


def apply_replicate_item(setup: Setup, state: ClusterState, action: ReplicateItem) -> ClusterState:
    return _streamed(setup, state, action.node, received)


def received(setup: Setup, active: NodeState, node: NodeState) -> NodeState:
    """``node`` after the next message of ``active``'s stream."""
    message = next_message(active, node)
    assert message is not None
    kind, first, second = message
    high = node.high_seqno
    if kind == "marker":
        kept = tuple([m for m in node.snapshots if m[1] <= high and m[1] < first])
        return node.but(snapshots=(*kept, (first, second)), marker_due=False)
    rule = setup.ack_rule
    item = active.items[first - 1]
    items = (*node.items, item)
    hps = node.high_prepared_seqno
    ends, disk_ends = node.snapshot_ends, node.disk_ends
    flag, disk = node.snapshot_has_prepare, node.snapshot_is_disk
    if item.op == PREPARE:
        flag = rule.hps_at_snapshot_end
        if rule.hps_on_prepare:
            hps = hps_on_receipt(items, hps, node.persisted_seqno)
    marker_due = False
    marker = node.current_marker
    if marker is not None and first == marker[1]:
        if disk and rule.hps_at_snapshot_end:
            disk_ends = (*disk_ends, (first, disk_snapshot_hps(items, marker[0], first)))
        if flag or (disk and rule.hps_at_snapshot_end):
            hps, ends = hps_at_snapshot_ends(
                items, hps, node.persisted_seqno, (*ends, first), disk_ends
            )
            disk_ends = _queued(disk_ends, ends)
        flag = disk = False
        marker_due = True
    return node.but(
        items=items,
        high_prepared_seqno=hps,
        snapshot_has_prepare=flag,
        marker_due=marker_due,
        snapshot_ends=ends,
        snapshot_is_disk=disk,
        disk_ends=disk_ends,
    )


def _queued(
    disk_ends: tuple[tuple[int, int], ...], ends: tuple[int, ...]
) -> tuple[tuple[int, int], ...]:
    """The disk ends still queued in ``ends``."""
    return tuple([d for d in disk_ends if d[0] in ends]) if disk_ends else disk_ends


# -- BackfillReplica(node) ------------------------------------------------------------------
# Who: the active's stream to a replica, where a marker is due (a new stream, or between
# two snapshots), with the bound disk_snapshots. What: the replica's next seqno is below
# the active's checkpoints (kv_engine eba4298, active_stream.cc
# ActiveStream::scheduleBackfill_UNLOCKED: registerCursorBySeqno answers tryBackfill; a
# slow stream's cursor is dropped, handleSlowStream, and it backfills too), so the stream
# sends a disk snapshot marker [high seqno + 1, end of the active's newest closed
# snapshot], its items follow as ReplicateItem (the active's open snapshot stays in
# memory). Not modelled: a backfill that ends inside a closed snapshot, deduplication
# and purged tombstones in the disk snapshot (every item is sent), the active's own
# flush (a backfill may read what PersistActive has not reached: its durability fence
# moves only with PersistActive, which the search may take before).


def backfill_replica_enabled(setup: Setup, state: ClusterState) -> list[BackfillReplica]:
    if not setup.bounds.disk_snapshots:
        return []
    return [
        BackfillReplica.of(r)
        for r, active, node in _streams(state)
        if node.marker_due and next_message(active, node)
    ]


def apply_backfill_replica(
    setup: Setup, state: ClusterState, action: BackfillReplica
) -> ClusterState:
    return _streamed(setup, state, action.node, backfilled)


def backfilled(setup: Setup, active: NodeState, node: NodeState) -> NodeState:
    """``node`` once ``active``'s stream sent it a disk snapshot marker."""
    high = node.high_seqno
    marker = (high + 1, active.snapshots[-1][1])
    kept = tuple([m for m in node.snapshots if m[1] <= high])
    return node.but(snapshots=(*kept, marker), marker_due=False, snapshot_is_disk=True)


# -- PersistReplica(node), PersistNextItem(node) -------------------------------------------
# Who: a replica's flusher. What: persists every item received so far (or, with
# bounds.partial_flush, only the next one: PersistNextItem), with the snapshot range
# it lies in and the HPS (under ack-at-snapshot-end the HPS only moves at snapshot
# ends, so mid-snapshot the persisted HPS is the one of the last complete snapshot,
# as in seed 004), and writes a couchstore header at the new persisted seqno: one
# flush may cover several snapshots, or stop mid-snapshot, so headers sit at flush
# points, not at snapshot ends (spec.cluster.disk). Then the PassiveDurabilityMonitor
# is told (notifyLocalPersistence), which may move the durability fence and the HPS.
# The HPS written is the one after that move, cut to the last PREPARE persisted.
# Not modelled: failover-table writes (the table is taken as persisted when it
# changes), the HPS a disk snapshot's marker carries as the HPS written (the last
# PREPARE persisted is written: an HPS between it and the next PREPARE acks the same).


def persist_replica_enabled(setup: Setup, state: ClusterState) -> list[PersistReplica]:
    nodes = state.nodes
    return [
        PersistReplica.of(r)
        for r in state.replicas()
        if nodes[r].persisted_seqno < nodes[r].high_seqno
    ]


def apply_persist_replica(
    setup: Setup, state: ClusterState, action: PersistReplica
) -> ClusterState:
    return state.with_node(action.node, setup.remembered(persisted, state.nodes[action.node]))


def persist_next_item_enabled(setup: Setup, state: ClusterState) -> list[PersistNextItem]:
    if not setup.bounds.partial_flush:
        return []
    nodes = state.nodes
    return [
        PersistNextItem.of(r)
        for r in state.replicas()
        if nodes[r].persisted_seqno + 1 < nodes[r].high_seqno  # else: PersistReplica
    ]


def apply_persist_next_item(
    setup: Setup, state: ClusterState, action: PersistNextItem
) -> ClusterState:
    node = state.nodes[action.node]
    upto = node.persisted_seqno + 1
    return state.with_node(action.node, setup.remembered(persisted, node, upto))


def persisted(setup: Setup, node: NodeState, upto: int | None = None) -> NodeState:
    """``node`` once its flusher persisted what it received up to ``upto`` (all of it)."""
    upto = node.high_seqno if upto is None else upto
    hps, ends = node.high_prepared_seqno, node.snapshot_ends
    if setup.ack_rule.hps_on_prepare:
        hps = hps_on_receipt(node.items, hps, upto)
    else:
        hps, ends = hps_at_snapshot_ends(node.items, hps, upto, ends, node.disk_ends)
    return node.but(
        persisted_seqno=upto,
        persisted_hps=highest_prepare_at_or_below(node.items, min(hps, upto)),
        headers=(*node.headers, upto),
        high_prepared_seqno=hps,
        snapshot_ends=ends,
        disk_ends=_queued(node.disk_ends, ends),
    )


# -- AckPrepare(node) ---------------------------------------------------------------------
# Who: a replica connected to the active. What: sends its HPS (a seqno ack); the
# active's ADM records it for this replica. Enabled whenever the HPS is above what
# this active last recorded (kv_engine also acks on stream connection).
# Not modelled: acks in flight when the active changes (an ack reaches the active
# it was sent to, or is lost with it).


def ack_prepare_enabled(setup: Setup, state: ClusterState) -> list[AckPrepare]:
    if state.active is None:
        return []
    nodes, acks = state.nodes, state.acks
    return [
        AckPrepare.of(r)
        for r in state.replicas()
        if nodes[r].connected and nodes[r].high_prepared_seqno > acks[r]
    ]


def apply_ack_prepare(setup: Setup, state: ClusterState, action: AckPrepare) -> ClusterState:
    acks = list(state.acks)
    acks[action.node] = state.nodes[action.node].high_prepared_seqno
    return state.but(acks=tuple(acks))


# -- RestartReplica(node) -----------------------------------------------------------------
# Who: a replica (graceful shutdown or crash of its node, then warmup). What: keeps
# only what it persisted: items, snapshot range and HPS; the in-memory
# cur_snapshot_prepare flag is lost and its stream is closed. A replica restart
# creates no failover entry (kv_engine does so only for an active vbucket).
# Not modelled: restarts of the active, a replica missing from the topology while
# down (its acks stay recorded by the active).


def restart_replica_enabled(setup: Setup, state: ClusterState) -> list[RestartReplica]:
    if state.restarts >= setup.bounds.restarts:
        return []
    return [RestartReplica.of(r) for r in state.replicas()]


def apply_restart_replica(
    setup: Setup, state: ClusterState, action: RestartReplica
) -> ClusterState:
    node = setup.remembered(restarted, state.nodes[action.node])
    return state.with_node(action.node, node, restarts=state.restarts + 1)


# What a node forgets when it restarts or rolls back: its stream and the PassiveStream's
# and PassiveDurabilityMonitor's memory of the snapshot it was in (a marker is due).
_FORGOTTEN: dict[str, object] = dict(
    snapshot_has_prepare=False,
    connected=False,
    marker_due=True,
    snapshot_ends=(),
    snapshot_is_disk=False,
    disk_ends=(),
)


def restarted(setup: Setup, node: NodeState) -> NodeState:
    """``node`` after a restart: what it persisted, no stream."""
    items, snapshots = node.truncated(node.persisted_seqno)
    return node.but(
        items=items,
        snapshots=snapshots,
        high_prepared_seqno=node.persisted_hps,
        **_FORGOTTEN,
    )


# -- ReconnectReplica(node) ----------------------------------------------------------------
# Who: a replica without a stream (after a failover or a restart). What: sends a
# stream request (its latest uuid, its high seqno, the snapshot range it is in) to
# the active, answered by the rule set. OK: it takes the active's failover table
# and the stream opens (a new PassiveStream: cur_snapshot_prepare starts false, or
# true with the MB-51805 fix). ROLLBACK(R): the replica rolls back as kv_engine
# does (spec.cluster.disk): its disk goes back to the newest header at or below R,
# or the vbucket is reset to 0 when there is none, when R is 0, or when the
# midpoint optimisation (bounds.midpoint_rollback, on by default) finds that at
# least half of the disk's entries would go; every unpersisted item above the
# header is discarded. Its table is pruned there, its HPS is the last PREPARE at or
# below min(persisted HPS, header); it stays disconnected and asks again with
# another ReconnectReplica. Not modelled: magma, purging and compaction, the HPS
# recorded in the header itself.


def stream_request(node: NodeState) -> StreamRequest:
    snap_start, snap_end = node.request_snapshot()
    return StreamRequest(node.table.latest.uuid, node.high_seqno, snap_start, snap_end)


def producer_of(active: NodeState) -> ProducerState:
    return ProducerState(active.table, active.high_seqno, 0)


def rollback_landing(setup: Setup, node: NodeState, rollback_seqno: int) -> int:
    """Where a rollback to ``rollback_seqno`` leaves ``node`` (0: its vbucket is reset)."""
    return landing_on_disk(
        node.items, node.headers, rollback_seqno, bool(setup.bounds.midpoint_rollback)
    )


def reconnect_replica_enabled(setup: Setup, state: ClusterState) -> list[ReconnectReplica]:
    if state.active is None:
        return []
    nodes = state.nodes
    return [ReconnectReplica.of(r) for r in state.replicas() if not nodes[r].connected]


def reconnect_decision(setup: Setup, state: ClusterState, node: int) -> Decision:
    active = state.active_node
    assert active is not None
    return setup.decide(stream_request(state.nodes[node]), producer_of(active))


def apply_reconnect_replica(
    setup: Setup, state: ClusterState, action: ReconnectReplica
) -> ClusterState:
    return _streamed(setup, state, action.node, reconnected, action.node)


def reconnected(setup: Setup, active: NodeState, node: NodeState, index: int) -> NodeState:
    """Node ``index`` once ``active`` answered its stream request: streaming, or rolled back."""
    decision = setup.decide(stream_request(node), producer_of(active))
    if decision.outcome is Outcome.ACCEPT:
        return node.but(
            table=active.table,
            connected=True,
            marker_due=True,
            snapshot_has_prepare=(
                setup.ack_rule.hps_at_snapshot_end and setup.ack_rule.prepare_flag_on_new_stream
            ),
        )
    if decision.outcome is Outcome.ERANGE or decision.rollback_seqno is None:
        raise HarnessBug(
            f"{setup.rules.name} answered {decision.outcome.value} to a valid request "
            f"{stream_request(node)}"
        )
    landing = rollback_landing(setup, node, decision.rollback_seqno)
    return rolled_back(node, index, landing)


def rolled_back(node: NodeState, index: int, landing: int) -> NodeState:
    """``node`` once its rollback landed at seqno ``landing`` (0: reset)."""
    if landing == 0:
        return NodeState(True, (), (), FailoverTable.of((reset_uuid(index), 0)), marker_due=True)
    items, snapshots = node.truncated(landing)
    hps = highest_prepare_at_or_below(items, min(node.persisted_hps, landing))
    return node.but(
        items=items,
        snapshots=snapshots,
        table=node.table.prune(landing, reset_uuid(index)),
        persisted_seqno=landing,
        persisted_hps=hps,
        headers=tuple([h for h in node.headers if h <= landing]),
        high_prepared_seqno=hps,
        **_FORGOTTEN,
    )
