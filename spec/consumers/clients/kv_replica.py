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
  -> ``CouchKVStore::rollback`` (kvstore/couch-kvstore/couch-kvstore.cc)
  goes back to the newest disk header at or below R; ``EPVBucket::
  postProcessRollback`` (ep_vb.cc) prunes the failover table above that
  seqno h (``FailoverTable::pruneEntries``) and resets the checkpoints at h;
  R = 0, or no header at or below R, resets the vbucket. Then
  ``PassiveStream::reconnectStream(vb, h)`` (dcp/passive_stream.cc) asks for
  {uuid = newest entry, or 0 when h is 0; start h; snapshot [h, h]}.
  A header may sit after any item the flusher wrote, mid-snapshot too (see
  MB-51805). We model the flusher writing a header after every item: the
  newest header at or below R is the highest seqno the replica holds at or
  below R. Other flush timings give lower headers; they are not explored.
  ``pruneEntries`` refills an emptied table with a fresh uuid at h, which no
  producer knows; we model it as an empty log (uuid 0), which kv_engine's
  producer rejects the same way (uuid not found, rollback to 0).

``kv-replica-fixed``: ``CouchKVStore::rollback`` skips the headers written
mid-snapshot (a header records its persisted snapshot range: keep going back
until a header's seqno is its snapshot's end, or reset at 0), so that [h, h]
is true of the data kept. dcpcheck verifies the fix (docs/clients.md).
"""

from spec.consumers.api import (
    ConsumerVariant,
    ConsumerView,
    LogView,
    Reaction,
    ResumeRequest,
    choose_log,
    choose_request,
)
from spec.expr import Expr, ite


class KvReplica(ConsumerVariant):
    name = "kv-replica"
    summary = "kv_engine's replica: back to its newest disk header h <= R, asks {h, [h,h]}"

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

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        log = view.log
        # handleRollbackResponse: avoid a rollback to 0 with the previous entry's uuid.
        spare = (rollback_seqno == 0) & (log.length > 1) & (log.seqno_at(0) == view.claim.start)
        spare_log = log.dropped(1)
        # doRollback: back to a disk header h <= R, table pruned above it, then
        # reconnectStream asks {h, [h, h]}.
        header = self.header(view, rollback_seqno)
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
def _citations() -> tuple:
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
        Citation(kv, f"{ep}/ep_vb.cc", "EPVBucket::postProcessRollback", at, "table pruned"),
        Citation(
            kv, f"{ep}/dcp/passive_stream.cc", "PassiveStream::reconnectStream", at, "{h,[h,h]}"
        ),
    )


CITATIONS = _citations()
