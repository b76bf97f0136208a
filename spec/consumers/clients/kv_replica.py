"""``kv-replica``: kv_engine's own replica (a DCP consumer) resuming its replication stream.

Our reading of couchbase/kv_engine (engines/ep/src/):

* **What it sends.** ``dcp/consumer.cc: DcpConsumer::addStream``: uuid = the
  newest entry of the replica's failover table (``getLatestEntry``), start =
  ``CheckpointManager::getSnapshotInfo().start`` (its last seqno), snapshot =
  the open checkpoint's range, whose start is moved up to the start when the
  range ends there (``info.range.getEnd() == info.start``): ``remembered``.
  Its failover table is the producer's, as received when the stream opened.
* **ROLLBACK(0) with a spare entry.** ``DcpConsumer::handleRollbackResponse``:
  if R is 0, the table has more than one entry and the newest entry's seqno
  equals the stream's start, it removes the newest entry and asks again with
  the previous uuid and the same start and snapshot, keeping its data.
* **Any other ROLLBACK(R).** ``DcpConsumer::doRollback`` -> ``KVBucket::rollback``
  (kv_bucket.cc; R = 0 resets the vbucket) -> ``CouchKVStore::rollback``
  (kvstore/couch-kvstore/couch-kvstore.cc) rewinds the file's headers while
  the header's seqno is above R, so it lands on the newest header h <= R (no
  header left, or h = 0: the vbucket is reset); ``EPBucket::
  rollbackUnpersistedItems`` (ep_bucket.cc) then drops every unpersisted
  item above h. **Midpoint reset:** with ``couchstore_midpoint_rollback_
  optimisation`` (configuration.json, default true) it first counts the
  file's by-seqno entries, ``totSeqCount`` = ``couchstore_changes_count(0,
  L)`` (L: the newest header) and ``rollbackSeqCount`` =
  ``couchstore_changes_count(h, L)`` (h and L included), and resets the
  vbucket when ``totSeqCount / 2 <= rollbackSeqCount`` (integer division):
  a rollback that would discard at least half of the file starts again from
  0. ``EPVBucket::postProcessRollback`` (ep_vb.cc) prunes the failover table
  above h (``FailoverTable::pruneEntries``) and resets the checkpoints at h.
  Then ``PassiveStream::reconnectStream(vb, h)`` (dcp/passive_stream.cc)
  asks for {uuid = newest entry, or 0 when h is 0; start h; snapshot [h, h]}.
* **Where headers are.** The flusher writes a header per flush, at the
  high seqno it persisted; a flush may stop mid-snapshot (the flusher,
  ``EPBucket::flushVBucket_UNLOCKED``, persists what
  ``CheckpointManager::getItemsForCursor`` hands it, a snapshot still being
  received included) or span several snapshots. Here the flusher wrote a header after every item
  up to h, the highest seqno held at or below R, and persisted nothing above
  h (items above it are dropped by ``rollbackUnpersistedItems``). Of all the
  flush timings that land on h this is the one where the midpoint reset
  happens least: every item persisted above h adds one entry to
  ``rollbackSeqCount`` and at most one to ``totSeqCount``, so if this timing
  resets, every timing landing on h resets. Timings whose newest header at
  or below R is lower than h (sparser flushes) are not explored here; the
  durability model (spec/cluster/disk.py) explores every flush timing.
  ``view.entries_between`` counts the file's by-seqno entries, one per key.
  ``pruneEntries`` refills
  an emptied table with a fresh uuid at h, which no producer knows; we model
  it as an empty log (uuid 0), which kv_engine's producer rejects the same
  way (uuid not found, rollback to 0).
* **Not modelled:** magma (``MagmaKVStore::rollback`` has its own rollback
  points and reset rule), prepares and system events in the file's count,
  compaction (which drops old headers).

All of it is from couchbase/kv_engine at eba4298 (2026-08). The midpoint reset
is a setting, ``midpoint``: ``kv-replica`` has it on (kv_engine's default),
``kv-replica:midpoint=off`` off. It decides the verdict: a rollback in a vbucket
of at most 3 keys always resets, since the count it compares with half the
file's entries includes the entry at h itself (so it is at least 1 even when
nothing on disk is discarded); with it on
kv-replica resets and loses nothing at those sizes; the loss below needs a
larger vbucket and a small rollback (docs/clients.md).

``kv-replica-fixed``: ``CouchKVStore::rollback`` skips the headers written
mid-snapshot (a header records its persisted snapshot range: keep going back
until a header's seqno is its snapshot's end, or reset at 0), so that [h, h]
is true of the data kept. dcpcheck verifies the fix (docs/clients.md).
"""

from typing import TYPE_CHECKING

from spec.consumers.api import (
    ConsumerVariant,
    ConsumerView,
    LogView,
    Reaction,
    ResumeRequest,
    Setting,
    choose_log,
    choose_request,
)
from spec.expr import Expr, ite

if TYPE_CHECKING:
    from spec.consumers.citations import Citation

MIDPOINT = Setting(
    "midpoint",
    "on",
    {"on": {"midpoint_rollback": True}, "off": {"midpoint_rollback": False}},
    "couchstore_midpoint_rollback_optimisation (configuration.json, default true)",
    option="couchstore_midpoint_rollback_optimisation",
    option_default="true",
)


class KvReplica(ConsumerVariant):
    name = "kv-replica"
    summary = (
        "kv_engine's replica: back to its newest disk header h <= R (reset to 0 when that "
        "discards half its disk), asks {h, [h,h]}"
    )
    midpoint_rollback = True  # couchstore_midpoint_rollback_optimisation (default true)
    settings = (MIDPOINT,)

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        snap_start, snap_end = view.snapshot_of(view.last)
        complete = snap_end == view.last
        return ResumeRequest(
            view.log.latest_uuid, view.last, ite(complete, view.last, snap_start), snap_end
        )

    def header(self, view: ConsumerView, rollback_seqno: Expr) -> Expr:
        """The disk header ``CouchKVStore::rollback`` goes back to: the newest at or below R
        (the flusher wrote one after every item)."""
        return view.held_at_or_below(rollback_seqno)

    def landing(self, view: ConsumerView, rollback_seqno: Expr) -> Expr:
        """Where ``KVBucket::rollback`` leaves the replica: its header h, or 0 (a reset)
        when the midpoint optimisation finds ``totSeqCount / 2 <= rollbackSeqCount``."""
        header = self.header(view, rollback_seqno)
        if not self.midpoint_rollback:
            return header
        # The file's newest header is h itself (nothing persisted above it): of all flush
        # timings landing on h, the one where the reset happens least (module docstring).
        total = view.entries_between(0, header)
        discarded = view.entries_between(header, header)
        # total / 2 <= discarded (integer division) is total <= 2 * discarded + 1.
        reset = total <= discarded + discarded + 1
        return ite(reset, 0, header)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        log = view.log
        # handleRollbackResponse: avoid a rollback to 0 with the previous entry's uuid.
        spare = (rollback_seqno == 0) & (log.length > 1) & (log.seqno_at(0) == view.claim.start)
        spare_log = log.dropped(1)
        # doRollback: back to a disk header h <= R (or reset), table pruned above it, then
        # reconnectStream asks {h, [h, h]}.
        header = self.landing(view, rollback_seqno)
        pruned = log.pruned(header)
        reconnect = view.claim.at(header, uuid=ite(header == 0, 0, pruned.latest_uuid))
        return Reaction(
            keep=ite(spare, view.keep, header),
            claim=choose_request(spare, view.claim.but(uuid=spare_log.latest_uuid), reconnect),
            log=choose_log(spare, spare_log, pruned),
        )


class KvReplicaFixed(KvReplica):
    name = "kv-replica-fixed"
    summary = "kv-replica rolling back to its newest disk header that closes a snapshot"

    def header(self, view: ConsumerView, rollback_seqno: Expr) -> Expr:
        """The newest header at or below R whose persisted snapshot is complete (its seqno is
        the snapshot's end), or 0: a header mid-snapshot is skipped."""
        return view.consistent_at_or_below(rollback_seqno)


VARIANTS = (KvReplica(), KvReplicaFixed())


# Where each behaviour above was read (machine-readable; spec.consumers.citations).
def _citations() -> "tuple[Citation, ...]":
    from spec.consumers.citations import Citation

    kv, at, ep = "couchbase/kv_engine", "eba4298", "engines/ep/src"
    return (
        Citation(kv, f"{ep}/dcp/consumer.cc", "DcpConsumer::addStream", at, "what it sends"),
        Citation(
            kv, f"{ep}/dcp/consumer.cc", "DcpConsumer::handleRollbackResponse", at, "spare entry"
        ),
        Citation(kv, f"{ep}/dcp/consumer.cc", "DcpConsumer::doRollback", at, "rolls back"),
        Citation(
            kv,
            f"{ep}/kvstore/couch-kvstore/couch-kvstore.cc",
            "CouchKVStore::rollback",
            at,
            "back to a disk header <= R",
        ),
        Citation(
            kv,
            f"{ep}/kvstore/couch-kvstore/couch-kvstore.cc",
            "CouchKVStore::rollback",
            at,
            "midpoint reset: totSeqCount / 2 <= rollbackSeqCount",
        ),
        Citation(
            kv,
            "engines/ep/configuration.json",
            "couchstore_midpoint_rollback_optimisation",
            at,
            "midpoint reset on by default",
        ),
        Citation(kv, f"{ep}/ep_vb.cc", "EPVBucket::postProcessRollback", at, "table pruned"),
        Citation(
            kv, f"{ep}/ep_bucket.cc", "EPBucket::flushVBucket_UNLOCKED", at, "a header per flush"
        ),
        Citation(
            kv,
            f"{ep}/checkpoint_manager.cc",
            "CheckpointManager::getItemsForCursor",
            at,
            "a flush may end mid-snapshot",
        ),
        Citation(
            kv, f"{ep}/dcp/passive_stream.cc", "PassiveStream::reconnectStream", at, "{h,[h,h]}"
        ),
    )


CITATIONS = _citations()
