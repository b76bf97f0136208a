"""``xdcr``: XDCR's source side (couchbase/goxdcr), one vbucket's DCP stream, read at 7845cfd4.

XDCR streams a source bucket over DCP (``parts/dcp_nozzle.go: DcpNozzle``)
and writes every mutation to the target bucket with ``SET_WITH_META`` /
``DEL_WITH_META`` (``parts/xmem_nozzle.go``), where the target's conflict
resolution decides whether a write is taken. Its "data" is the target
bucket; its resume point is the checkpoint manager's
(``pipeline_svc/checkpoint_manager.go: CheckpointManager``). Our reading
(couchbase/goxdcr 7845cfd4b2b3, 2026-07-02; ``CITATIONS`` below):

* **What it checkpoints.** ``CheckpointManager.doCheckpoint`` (every
  ``checkpoint_interval``, default 600 s, and ``CheckpointBeforeStop`` when
  a pipeline stops) records the vbucket's *through-seqno* (every seqno at or
  below it was replicated or filtered), the snapshot marker that contains
  it (``getSnapshotForSeqno``, from the markers seen: ``OnEvent``
  ``SnapshotMarkerReceived``) and the failover uuid of the newest entry at
  or below that snapshot's end (``getFailoverUUIDForSeqno``) in the log the
  producer sent when the stream opened (``OnEvent`` ``StreamingStart``).
  When no marker in the history covers the through-seqno (the history keeps
  the newest ``MaxLengthSnapshotHistory`` = 200 markers, ``base/constant.go``;
  an older through-seqno's marker has rotated out), ``getSnapshotForSeqno``
  returns ``(seqno, seqno)`` with an error that ``doCheckpoint`` only logs
  (MB-48855, 0fe587d5: "if snapshot cannot be found, then use seqno as start
  and end seqno"): the record claims ``{s, [s, s]}`` mid-snapshot, seed 001's
  mistake. Setting ``snapshot-marker``: ``kept`` (the default path: the
  marker is found) or ``lost`` (every record takes the fallback).
  ``metadata/checkpoint.go: CheckpointsDoc.AddRecord`` keeps the newest
  records first, at most 5 (``MaxCheckpointRecordsToKeepTraditional``; 12
  in variable-vbucket mode).
  We model a checkpoint at every item: the one taken when the stream ends
  is its last item (``remembered``: uuid = ``log.covering(snapshot end)``,
  start = the item, its snapshot marker; nothing held: uuid 0, start 0).
* **What it sends.** ``DcpNozzle.startUprStreamInner``: the checkpoint's
  uuid, seqno and snapshot range, ActiveVBOnly, and ``0x80``
  (``dcpFlagIgnoreTombstones``) unless the replication setting
  ``dcpEnablePurgeRollback`` is true (``base/constant.go: EnableDcpPurgeRollback``;
  ``metadata/replication_settings.go: EnableDcpPurgeRollbackConfig``,
  default false since MB-45321, eb87ac33, 2023: "Disable DCP rollback due
  to purgeSeqno by default"): ``ignore_purged``, setting ``purge-rollback``.
* **What it does on ROLLBACK(R).** ``DcpNozzle.performRollback`` ->
  ``CheckpointManager.UpdateVBTimestamps``: max = R, or the current start
  - 1 when R is 0 and the start is above 0 (its comment: "best effort to
  avoid rolling back to 0"); ``getDataFromCkpts`` takes the newest stored
  record with seqno <= max that the target agrees on (pre-replicate: the
  target vbucket's opaque and seqno still match the record's), and
  ``populateDataFromCkptDoc`` resumes with that record's uuid, seqno and
  snapshot range (clamped so that start lies in it), or
  with (uuid 0, seqno 0) when no record qualifies. The start it stores is
  the new start (``pipeline_startSeqnos_map``), so a second ROLLBACK(0)
  walks one record lower. Nothing is removed from the target: what it
  replicated above the rollback point stays there (``on_rollback`` keeps
  its data), and the mutations re-sent from the resume point go through
  the target's conflict resolution.
* **A ROLLBACK answering a request from seqno 0** is an error
  (``dcpStreamReqHelper.processRollbackResponse``) and the pipeline
  restarts; kv_engine never rolls such a request back.

**What the properties mean here.** The consumer's data is the target
bucket's copy of the vbucket. ``no-missed-item``: once the stream has
caught up, every key is live on the target exactly when it is live on the
source, with the source's version (source and target converge).
``no-foreign-snapshot``: the target holds no mutation the source no longer
has. The model applies a re-streamed item over the target's version of its
key (the consumer stores items by seqno): that is the target when the
re-sent mutation wins conflict resolution. When it loses (revision-id
resolution: the discarded version had more revisions), the target keeps
the discarded version even of a key the new branch rewrote, so the
target diverges in more runs than the model shows, never fewer.

Not modelled: a stream reopened inside a running pipeline
(``DcpNozzle.checkInactiveUprStreams``, not read: the model's resume is a
pipeline restart from its checkpoints); the checkpoint cadence and the
5-record limit (the model's
checkpoint after every item is the cadence where XDCR resumes highest and
re-sends least; a sparser one resumes lower, re-sends more, and keeps the
same keys of the discarded branch: nothing re-sent deletes them); the
target's own failovers (``validateTargetTimestampForResume``); the
pre-replicate check, collections, backfill pipelines, filtered
replications, the target's conflict resolution beyond "the re-sent version
wins", and a record's uuid taken from an older stream's log (with one
resume, the log the consumer holds is the one its checkpoints were taken
with).

``xdcr-fixed``: ``dcpEnablePurgeRollback`` on (no ``0x80``); a record
whose marker is lost (``snapshot-marker=lost``) claims ``{s, [c, E]}``
instead of ``(s, s)``: c the highest point <= s it knows whole, E the end
of the newest marker it saw (the model: the lost marker's own end); with
``(s, s)`` the fix misses a deduplicated mutation (tests/test_xdcr.py). A
record at a lower point while the target holds more above it, as a skipped
checkpoint or a sparser cadence leaves, is not covered by the proof. And on
ROLLBACK(R) the target is reconciled to the resume point: every key XDCR
replicated above the highest whole-snapshot point c <= R gets the source's
version at c (deleted where the source has none), then it resumes from c
with the producer's uuid covering c. That is not a small change to XDCR
(it does not track what it wrote per seqno); it states what a target must
do to converge after a source rollback. dcpcheck verifies it
(docs/clients.md).
"""

from dataclasses import replace

from spec.consumers.api import (
    ConsumerVariant,
    ConsumerView,
    LogView,
    Reaction,
    ResumeRequest,
    Setting,
    resume_at_whole_snapshot,
)
from spec.consumers.citations import Citation
from spec.expr import Expr, ite, lift, max_of, min_of, saturating_sub

REPO, AT = "couchbase/goxdcr", "7845cfd4"
CKMGR = "pipeline_svc/checkpoint_manager.go"
NOZZLE = "parts/dcp_nozzle.go"
CITATIONS = (
    Citation(REPO, CKMGR, "CheckpointManager.doCheckpoint", AT, "records the through-seqno"),
    Citation(REPO, CKMGR, "CheckpointBeforeStop", AT, "a checkpoint when the pipeline stops"),
    Citation(REPO, CKMGR, "getSnapshotForSeqno", AT, "the snapshot holding the through-seqno"),
    Citation(REPO, CKMGR, "getFailoverUUIDForSeqno", AT, "newest entry <= the snapshot end"),
    Citation(REPO, "metadata/checkpoint.go", "CheckpointsDoc.AddRecord", AT, "newest first"),
    Citation(REPO, NOZZLE, "DcpNozzle.startUprStreamInner", AT, "uuid, seqno, snapshot, 0x80"),
    Citation(
        REPO,
        "metadata/replication_settings.go",
        "EnableDcpPurgeRollbackConfig",
        AT,
        "0x80 unless set (default false, MB-45321)",
    ),
    Citation(REPO, "base/constant.go", "EnableDcpPurgeRollback", AT, '"dcpEnablePurgeRollback"'),
    Citation(REPO, "base/constant.go", "MaxLengthSnapshotHistory", AT, "200 markers kept"),
    Citation(REPO, NOZZLE, "DcpNozzle.performRollback", AT, "rollback -> UpdateVBTimestamps"),
    Citation(REPO, CKMGR, "CheckpointManager.UpdateVBTimestamps", AT, "max = R, or start - 1"),
    Citation(REPO, CKMGR, "getDataFromCkpts", AT, "newest record <= max the target agrees on"),
    Citation(REPO, CKMGR, "populateDataFromCkptDoc", AT, "that record's uuid/seqno/snapshot"),
    Citation(REPO, NOZZLE, "dcpStreamReqHelper.processRollbackResponse", AT, "0 rolled back"),
)

PURGE_ROLLBACK = Setting(
    "purge-rollback",
    "off",
    {"off": {"ignore_purged": True}, "on": {"ignore_purged": False}},
    "dcpEnablePurgeRollback (replication setting, default false since MB-45321): 0x80 unless on",
    option="dcpEnablePurgeRollback",
    option_default="false",
)

SNAPSHOT_MARKER = Setting(
    "snapshot-marker",
    "kept",
    {"kept": {"marker_lost": False}, "lost": {"marker_lost": True}},
    "getSnapshotForSeqno's fallback (MB-48855): (s, s) when the marker rotated out of the 200 kept",
)


class Xdcr(ConsumerVariant):
    name = "xdcr"
    summary = (
        "0x80 by default; on rollback the newest checkpoint <= R (or <= start-1 when R = 0) "
        "with its uuid and snapshot; the target keeps what it was sent"
    )
    ignore_purged = True
    marker_lost = False
    settings = (PURGE_ROLLBACK, SNAPSHOT_MARKER)

    def checkpoint(
        self, view: ConsumerView, seqno: Expr, ignore_purged: Expr | bool
    ) -> ResumeRequest:
        """The checkpoint record at ``seqno`` (a record at every item): its snapshot marker
        (``(seqno, seqno)`` when the marker is lost), the uuid of the newest entry at or
        below the snapshot's end, start clamped into the snapshot
        (``populateDataFromCkptDoc``); no record (0): uuid 0 from seqno 0."""
        if self.marker_lost:
            snap_start = snap_end = seqno
        else:
            snap_start, snap_end = view.snapshot_of(seqno)
        none = seqno == 0
        return ResumeRequest(
            ite(none, 0, view.log.covering(snap_end)),
            seqno,
            ite(none, 0, min_of(snap_start, seqno)),
            ite(none, 0, max_of(snap_end, seqno)),
            ignore_purged=lift(ignore_purged),
        )

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        # CheckpointBeforeStop: the through-seqno is the last item received.
        return self.checkpoint(view, view.last, self.ignore_purged)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        start = view.claim.start
        # UpdateVBTimestamps: R = 0 from a start above 0 tries the records below the start.
        # (start - 1, written so that it cannot wrap: the solver keeps small bit-vectors)
        below_start = saturating_sub(start, 1)
        highest = ite((rollback_seqno == 0) & (start > 0), below_start, rollback_seqno)
        record = view.held_at_or_below(highest)
        return Reaction(claim=self.checkpoint(view, record, view.claim.ignore_purged))


class XdcrFixed(ConsumerVariant):
    name = "xdcr-fixed"
    summary = "xdcr with purge rollback on, reconciling the target to a whole snapshot <= R"
    marker_lost = False
    settings = (SNAPSHOT_MARKER,)

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        """The record at the last item s, with its marker. When the marker is lost the fix
        claims a range that contains it instead of (s, s): from the highest point c <= s
        it knows whole to the end E of the newest marker it saw (at least the lost one's;
        the model takes the least, the lost marker's own end)."""
        record = super().remembered(view)
        if not self.marker_lost:
            return record
        whole = view.consistent_at_or_below(record.start)
        return replace(record, snap_start=whole)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        return resume_at_whole_snapshot(view, rollback_seqno, producer_log)


VARIANTS = (Xdcr(), XdcrFixed())
