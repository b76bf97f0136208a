"""A replica's high prepared seqno (HPS) under each ack rule: what its
PassiveDurabilityMonitor has locally satisfied, PREPARE by PREPARE, in seqno order.

Two readings of kv_engine, one per family of ack rules (``spec.cluster.rules``):

* ``hps_on_receipt`` - "Today" in MB-34150 (6.0): kv_engine 8a0f8da1b^
  (the parent of MB-34197), engines/ep/src/durability/passive_durability_monitor.cc,
  ``PassiveDurabilityMonitor::State::updateHighPreparedSeqno``, run by
  ``addSyncWrite`` (a PREPARE received) and ``notifyLocalPersistence`` (a flush):
  the HPS first moves over every tracked PREPARE up to the persisted seqno, then
  over PREPAREs up to the first PersistToMajority one (the durability fence).
  A tracked PREPARE is one not yet completed: ``completeSyncWrite`` removes the
  front one on its COMMIT (``removeFront``), so a committed PREPARE fences nothing.
* ``hps_at_snapshot_ends`` - MB-34197 and after: kv_engine eba4298, the same
  file and function, its rules (1)-(4) in its own comment: nothing is acked before
  a complete snapshot is received (``receivedSnapshotEnds``, pushed by
  ``notifySnapshotEndReceived``); for each received snapshot end, oldest first,
  the HPS moves over every PREPARE up to it if the snapshot is persisted whole,
  else (a memory snapshot) over Majority and MajorityAndPersistOnMaster PREPAREs
  up to the first PersistToMajority one, where it stops and keeps that end (and
  the later ones) for the next flush. A completed PREPARE stays tracked until
  the HPS passes it (``checkForAndRemovePrepares``), so it still fences. Rule (5),
  a disk snapshot (its end queued with type Disk, ``disk``): its end acks nothing
  (``maxLevelCanAdvanceOver`` is ``Level::None``) until the snapshot is persisted
  whole, then the HPS passes every PREPARE up to it and is set to the HPS its marker
  carries, or its end (``snapshotEnd.hps.value_or(snapshotEnd.seqno)``), even with no
  PREPARE in it. 8a0f8da1b^ had no such rule (it came with MB-34873, 4834fe37b): under
  ``hps_on_receipt`` a disk snapshot is a memory one.

Both are pure functions of a node's items, HPS, persisted seqno (and the snapshot
ends); the model calls them where kv_engine does.
"""

from __future__ import annotations

from spec.cluster.state import (
    COMMIT,
    MAJORITY_AND_PERSIST_ON_MASTER,
    PERSIST_TO_MAJORITY,
    PREPARE,
    ClusterItem,
    highest_prepare_at_or_below,
)

__all__ = ["disk_snapshot_hps", "hps_at_snapshot_ends", "hps_on_receipt"]


def hps_on_receipt(items: tuple[ClusterItem, ...], hps: int, persisted: int) -> int:
    """The HPS after ``updateHighPreparedSeqno`` of kv_engine 8a0f8da1b^ (6.0)."""
    committed = {item.prepare_seqno for item in items if item.op == COMMIT}
    tracked = [
        x
        for x in range(hps + 1, len(items) + 1)
        if items[x - 1].op == PREPARE and x not in committed
    ]
    at = 0
    while at < len(tracked) and tracked[at] <= persisted:  # persistence satisfies any level
        hps = tracked[at]
        at += 1
    while at < len(tracked) and items[tracked[at] - 1].level != PERSIST_TO_MAJORITY:
        hps = tracked[at]
        at += 1
    return hps


def disk_snapshot_hps(items: tuple[ClusterItem, ...], start: int, end: int) -> int:
    """The HPS a disk snapshot ``[start, end]`` moves the replica's to once persisted whole.

    Its marker carries the active's max(HPS, persisted prepared seqno) (kv_engine eba4298,
    engines/ep/src/dcp/active_stream.cc ``ActiveStream::markDiskSnapshot``, marker v2.2,
    which an 8.0 consumer asks for): here the last PREPARE at or below ``end``, the
    backfill having read the active's disk up to it. The replica drops a carried HPS
    below ``start`` (passive_stream.cc ``PassiveStream::processMarker``), and then
    moves to ``end``."""
    carried = highest_prepare_at_or_below(items, end)
    return carried if carried >= start else end


def hps_at_snapshot_ends(
    items: tuple[ClusterItem, ...],
    hps: int,
    persisted: int,
    ends: tuple[int, ...],
    disk: tuple[tuple[int, int], ...] = (),
) -> tuple[int, tuple[int, ...]]:
    """The HPS and the snapshot ends still queued after ``updateHighPreparedSeqno`` of
    kv_engine eba4298; ``disk``: the queued ends of disk snapshots, each with the HPS it
    moves to (``disk_snapshot_hps``)."""
    carried = dict(disk)
    queue = list(ends)
    while queue:
        end = queue[0]
        whole = persisted >= end  # snapshotFullyPersisted
        if end in carried and not whole:
            break  # rule (5): a disk snapshot acks nothing before it is persisted whole
        blocked = False
        for x in range(hps + 1, min(end, len(items)) + 1):
            item = items[x - 1]
            if item.op != PREPARE:
                continue
            if not whole and item.level > MAJORITY_AND_PERSIST_ON_MASTER:
                blocked = True  # the durability fence: wait for this snapshot's flush
                break
            hps = x
        if blocked:
            break
        if end in carried:
            hps = carried[end]  # rule (5): its marker's HPS, or its end
        queue.pop(0)
    return hps, tuple(queue)
