"""``cbgt``: couchbase/cbgt's gocbcore DCP feed with Sync Gateway's metadata handling.

Our reading of the sources:

* **What it remembers.** Sync Gateway's destination (couchbase/sync_gateway
  ``base/dcp_dest.go``, ``base/dcp_common.go``) records the last seqno it
  processed (``DCPCommon.updateSeq``) and the metadata cbgt asks it to keep;
  cbgt (``feed_dcp_gocbcore.go: initiateStreamEx``) stores the producer's
  failover log in that metadata when a stream opens.
* **What it sends.** cbgt ``feed_dcp_gocbcore.go``:
  ``lastVbUUIDSeqFromFailOverLog`` takes uuid = ``FailOverLog[0][0]`` (the
  newest stored entry), or 0 when the last seqno is 0; ``initiateStreamEx``
  sends flags ActiveOnly | StrictVBUUID with start = the last seqno and
  snap_start = snap_end = start, always (``request``: ``strict = True``).
* **What it does on ROLLBACK(R).** cbgt ``GocbcoreDCPFeed.rollback`` takes
  the first stored entry with seqno <= R (0 when R is 0) and calls the
  destination's ``RollbackEx``; Sync Gateway's ``DCPDest.RollbackEx`` (uuid
  0 when R is 0) -> ``DCPCommon.makeVbucketMetadataForSequence`` writes
  seq = snap_start = snap_end = R and ``FailOverLog = [[uuid, 0]]``, and
  ``DCPCommon.rollbackEx`` sets the last seqno to R; cbgt then opens the
  stream again from that metadata. Nothing else is undone: what Sync
  Gateway derived from the stream is kept (``on_rollback``). Sync
  Gateway's own DCP client (``base/dcp_client_metadata.go:
  dcpMetadataBase.Rollback``) stores min(R, start), the same whenever the
  producer rolls back to R <= start, as kv_engine does.

``cbgt-fixed``: reports the snapshot its last item came from instead of
{start, start} (cbgt forgets the marker: it must keep it with the last seqno),
and on ROLLBACK(R) drops what it derived above the highest whole-snapshot
point c <= R and resumes from c. dcpcheck verifies the fix (docs/clients.md).
"""

from spec.consumers.api import ConsumerVariant, ConsumerView, LogView, Reaction, ResumeRequest
from spec.expr import Expr, ite


class Cbgt(ConsumerVariant):
    name = "cbgt"
    summary = "StrictVBUUID, snapshot {start,start} always; on rollback (R,R,R), log [[uuid,0]]"
    strict = True

    def request(self, view: ConsumerView) -> ResumeRequest:
        last_seq = view.claim.start
        uuid = ite(last_seq == 0, 0, view.log.latest_uuid)
        return view.claim.at(last_seq, uuid=uuid)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        uuid = ite(rollback_seqno == 0, 0, view.log.covering(rollback_seqno))
        return Reaction(claim=view.claim.at(rollback_seqno), log=view.log.single(uuid, 0))


class CbgtFixed(ConsumerVariant):
    name = "cbgt-fixed"
    summary = "cbgt reporting its real snapshot; drops data above a whole snapshot <= R on rollback"
    strict = True

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        # The last seqno with the snapshot marker of its item (the fix); uuid as cbgt picks it.
        claim = super().remembered(view)
        return claim.but(uuid=ite(view.last == 0, 0, view.log.latest_uuid))

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        point = view.consistent_at_or_below(rollback_seqno)
        uuid = ite(point == 0, 0, view.log.covering(point))
        return Reaction(
            keep=point, claim=view.claim.at(point, uuid=uuid), log=view.log.single(uuid)
        )


VARIANTS = (Cbgt(), CbgtFixed())
