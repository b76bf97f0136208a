"""``cbgt``: couchbase/cbgt's gocbcore DCP feed with Sync Gateway's destination.

Sync Gateway runs cbgt for its sharded import feed and, on a sharded
database, for resync (``base/dcp_sharded.go``); its cache feed runs on its own DCP client
(``sg-dcp-client``). Our reading (cbgt a830c7f, sync_gateway f39abe1;
``CITATIONS`` below):

* **What it remembers.** cbgt ``feed_dcp_gocbcore.go:
  checkAndUpdateVBucketState`` persists ``SnapStart``/``SnapEnd`` (the
  marker) and the failover log through the destination's ``OpaqueSet``;
  Sync Gateway's ``DCPCommon.updateSeq`` records the last seqno it processed
  (``c.seqs``: moved by ``dataUpdate``, for each ``DataUpdate``/``DataDelete``,
  and set to R by ``rollbackEx``; not by the data it keeps), which
  ``OpaqueGet`` returns as the feed's last seqno (``remembered``: the start
  of ``view.offset``) (since CBG-5489,
  sync_gateway 031d6e53f, 2026-07-30, persisted as ``lastSeq`` and read back
  by ``DCPCommon.loadCheckpoint``; earlier releases restarted from the
  persisted ``SnapStart``: not modelled).
* **What it sends.** cbgt ``feed_dcp_gocbcore.go:
  lastVbUUIDSeqFromFailOverLog`` takes uuid = ``FailOverLog[0][0]`` (the
  newest stored entry), or 0 when the last seqno is 0; ``initiateStreamEx``
  sends ActiveOnly | StrictVBUUID with start = the last seqno and
  snap_start = snap_end = start: it ignores the stored ``SnapStart``/
  ``SnapEnd`` (``request``: ``strict = True``).
* **What it does on ROLLBACK(R).** cbgt ``GocbcoreDCPFeed.rollback`` takes
  the first stored entry with seqno <= R (0 when R is 0) and calls the
  destination's ``RollbackEx``. cbgt's ``Dest`` contract (``dest.go``,
  ``Rollback``) says regular and opaque data "should be rolled back"; Sync
  Gateway's ``DCPDest.RollbackEx`` (uuid 0 when R is 0) ->
  ``DCPCommon.makeVbucketMetadataForSequence`` writes seq = snap_start =
  snap_end = R and ``FailOverLog = [[uuid, 0]]``, and ``DCPCommon.rollbackEx``
  sets the last seqno to R; cbgt's ``rollback`` then opens the stream again
  from that metadata itself (``AutoReconnectAfterRollback``, set by Sync
  Gateway's ``base/dcp_feed_type.go``), with no catch-up filter: the new
  branch, above its failover entry and so above R, is streamed whole.
  What Sync Gateway derived (documents it imported) is not undone
  (``on_rollback``): keeping it is Sync Gateway's ``DCPDest``, not cbgt.

Not modelled: what an import does with a mutation (``db/import.go: importDoc``: the
write-back is CAS-guarded, ``ErrImportCasFailure``, so an import of a
discarded mutation that the new active no longer has fails instead of
writing; the harm is a document that needed import and is never imported:
a mutation deduplicated away inside a snapshot the feed held in part, lost
through ``{start, start}``),
collections, ``stopAfter`` one-shot feeds.

``cbgt-fixed``: sends the stored snapshot range (cbgt already persists it:
``initiateStreamEx`` must read it), and on ROLLBACK(R) the destination
rolls back what it derived above the highest whole-snapshot point c <= R,
as the ``Dest`` contract asks, and resumes from c. dcpcheck verifies the
fix (docs/clients.md).
"""

from spec.consumers.api import ConsumerVariant, ConsumerView, LogView, Reaction, ResumeRequest
from spec.consumers.citations import Citation
from spec.expr import Expr, ite

CBGT, SG, AT_CBGT, AT_SG = "couchbase/cbgt", "couchbase/sync_gateway", "a830c7f", "f39abe1"
FEED = "feed_dcp_gocbcore.go"
CITATIONS = (
    Citation(CBGT, FEED, "checkAndUpdateVBucketState", AT_CBGT, "persists SnapStart/SnapEnd"),
    Citation(CBGT, FEED, "lastVbUUIDSeqFromFailOverLog", AT_CBGT, "uuid FailOverLog[0][0]"),
    Citation(CBGT, FEED, "initiateStreamEx", AT_CBGT, "snapshot {start,start}, strict"),
    Citation(CBGT, FEED, "rollback", AT_CBGT, "first entry <= R, then RollbackEx"),
    Citation(CBGT, "dest.go", "Rollback", AT_CBGT, "the Dest must roll back its data"),
    Citation(SG, "base/dcp_dest.go", "RollbackEx", AT_SG, "uuid 0 when R is 0"),
    Citation(SG, "base/dcp_common.go", "makeVbucketMetadataForSequence", AT_SG, "{R,[R,R]}"),
    Citation(SG, "base/dcp_common.go", "rollbackEx", AT_SG, "last seqno = R; data kept"),
    Citation(SG, "base/dcp_common.go", "dataUpdate", AT_SG, "updateSeq per data event"),
    Citation(SG, "base/dcp_common.go", "loadCheckpoint", AT_SG, "restart from lastSeq"),
    Citation(SG, "db/import.go", "importDoc", AT_SG, "CAS-guarded import"),
)


class Cbgt(ConsumerVariant):
    name = "cbgt"
    summary = "StrictVBUUID, snapshot {start,start} always; on rollback (R,R,R), log [[uuid,0]]"
    strict = True

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        # DCPCommon.seqs: the last seqno of a data event, or R after rollbackEx.
        return super().remembered(view).at(view.offset[0])

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
