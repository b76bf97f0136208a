"""When a reference replica's high prepared seqno moves, and when the active acks its own
PREPAREs, by durability level (``spec.reference.cluster``).

Written from kv_engine's code apart from the model's ``spec.cluster.passive_dm``:

* 6.0 (ack-on-prepare; kv_engine 8a0f8da1b^, passive_durability_monitor.cc,
  ``PassiveDurabilityMonitor::State::updateHighPreparedSeqno``), run when a
  PREPARE arrives and after each flush: walk the PREPAREs still waiting (no COMMIT
  received yet) above the HPS; a persisted one is satisfied whatever its level, an
  unpersisted one only if it is not persist_to_majority, and the walk stops at the
  first that is not satisfied.
* MB-34197 and after (ack-at-snapshot-end*; kv_engine eba4298, the same function,
  rules (1)-(4)): a snapshot end is queued when the stream notifies it; the queue
  is walked oldest first, each end letting the HPS pass the PREPAREs up to it:
  all of them once that end is persisted, else majority and
  majority_and_persist_on_master ones, stopping at the first persist_to_majority
  one; an end whose PREPAREs were all passed leaves the queue, the first one
  that stops the walk stays (with those after it). The end of a disk snapshot (a
  backfill) is rule (5): until the snapshot is persisted whole it lets the HPS pass
  nothing, not even a majority PREPARE, and stays queued; once it is, the HPS passes
  every PREPARE up to it and then takes the HPS the snapshot's marker carried
  (``Node.disk_snapshot_hps``), which may be past the last PREPARE, up to the end.
* the active (kv_engine eba4298, active_durability_monitor.cc,
  ``ActiveDurabilityMonitor::State::updateHighPreparedSeqno``): it acks a pending
  PREPARE unless a pending PREPARE at or below it is unpersisted and of a level
  that needs the active's disk (majority_and_persist_on_master,
  persist_to_majority).
"""

from __future__ import annotations

from spec.reference.cluster_node import Node

__all__ = ["active_acks", "move_hps_6_0", "move_hps_at_snapshot_ends"]

_NEEDS_OWN_DISK = ("majority_and_persist_on_master", "persist_to_majority")


def move_hps_6_0(node: Node) -> None:
    completed = {i.prepare_seqno for i in node.items if i.op == "COMMIT"}
    for seqno in range(node.hps + 1, node.high_seqno + 1):
        item = node.items[seqno - 1]
        if item.op != "PREPARE" or seqno in completed:
            continue
        if seqno > node.disk.seqno and item.level == "persist_to_majority":
            return
        node.hps = seqno


def move_hps_at_snapshot_ends(node: Node) -> None:
    while node.snapshot_ends:
        end = node.snapshot_ends[0]
        persisted_whole = node.disk.seqno >= end
        from_disk = node.disk_snapshot_hps.get(end)
        if from_disk is not None and not persisted_whole:
            return  # a disk snapshot not yet on disk whole: no ack at all
        for seqno in range(node.hps + 1, min(end, node.high_seqno) + 1):
            item = node.items[seqno - 1]
            if item.op != "PREPARE":
                continue
            if not persisted_whole and item.level == "persist_to_majority":
                return  # the durability fence; this end stays queued
            node.hps = seqno
        if from_disk is not None:
            node.hps = from_disk
            del node.disk_snapshot_hps[end]
        node.snapshot_ends.pop(0)


def active_acks(node: Node, seqno: int) -> bool:
    for pending in node.pending_prepares():
        if pending > seqno:
            break
        if pending > node.disk.seqno and node.items[pending - 1].level in _NEEDS_OWN_DISK:
            return False
    return True
