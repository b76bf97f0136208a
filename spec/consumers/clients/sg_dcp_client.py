"""``sg-dcp-client``: Sync Gateway's own DCP client (its cache feed), read at f39abe1.

Sync Gateway streams its cache feed (and attachment compaction, resync
tasks) through ``base/gocb_dcp_client.go: GoCBDCPClient``, not through cbgt
(``cbgt`` models the sharded import feed). Our reading (couchbase/sync_gateway
f39abe1; ``CITATIONS`` below):

* **What it remembers.** ``base/dcp_client_worker.go: DCPWorker.Start``
  keeps a snapshot marker pending and ``updateSeq`` -> ``checkPendingSnapshot``
  stores it with the first item after it (``dcpMetadataBase.SetSnapshot``),
  then ``UpdateSeq`` stores the item's seqno: the last item's seqno and
  marker (``remembered``).
* **Which uuid.** When a stream opens, ``openStreamRequest``'s callback calls
  ``dcpMetadataBase.SetFailoverEntries``: the producer's log is stored and
  ``VbUUID = getVbUUID(log, StartSeqNo)``. ``getVbUUID`` walks the log from
  its *last* element and returns the first entry with seqno <= the start;
  gocbcore (``dcpcomponent.go: OpenStream``, fd54a52) hands the log over in wire order, newest
  first, as go-dcp and cbgt read it, so this is the *oldest* entry at or below
  the start at open (its comment says "the most recent"). We model the start
  at open as 0 (the model's first stream starts there; with ``--sessions K`` a
  later stream opens higher, which this model does not follow): uuid = the
  oldest entry if its seqno is 0, else 0.
* **What it sends.** ``openStreamRequest``: ActiveOnly, the stored VbUUID,
  start = ``StartSeqNo``, snapshot = ``SnapStartSeqNo``/``SnapEndSeqNo``.
* **What it does on ROLLBACK(R).** ``openStream`` -> ``GoCBDCPClient.rollback``
  -> ``dcpMetadataBase.Rollback``: uuid = the first stored entry (newest)
  with seqno <= R (0 if none), start = min(R, StartSeqNo), snapshot {x, x};
  the failover entries are kept; then ``openStream`` tries again. The
  callback's derived data (the channel cache) is not told (``on_rollback``).

Not modelled: ``FailOnRollback`` (a client option that closes the client on
a rollback instead: some one-shot feeds use it), checkpoint persistence
timing (``metaPersistFrequency``: a restart resumes from an older
checkpoint), one-shot feeds' end seqnos, collections, the harm downstream
(what the cache keeps is in memory and rebuilt on restart).

``sg-dcp-client-fixed``: sends the newest entry of the log it received at
open (the branch it streamed; "the newest entry at or below the start at
open", the comment's intent, is still too old when a failover entry lies
between the start at open and the last seqno), and on ROLLBACK(R) the callback drops what
it derived above the highest whole-snapshot point c <= R and the client
resumes from c. dcpcheck verifies the fix (docs/clients.md).
"""

from spec.consumers.api import ConsumerVariant, ConsumerView, LogView, Reaction, ResumeRequest
from spec.consumers.citations import Citation
from spec.expr import Expr, ite, min_of

REPO, AT = "couchbase/sync_gateway", "f39abe1"
CITATIONS = (
    Citation(REPO, "base/dcp_client_worker.go", "updateSeq", AT, "marker stored with an item"),
    Citation(REPO, "base/dcp_client_metadata.go", "SetFailoverEntries", AT, "uuid at open"),
    Citation(REPO, "base/gocb_dcp_client.go", "getVbUUID", AT, "oldest entry <= the start"),
    Citation("couchbase/gocbcore", "dcpcomponent.go", "OpenStream", "fd54a52", "wire order"),
    Citation(REPO, "base/gocb_dcp_client.go", "openStreamRequest", AT, "what it sends"),
    Citation(REPO, "base/gocb_dcp_client.go", "openStream", AT, "rollback, then retry"),
    Citation(REPO, "base/dcp_client_metadata.go", "Rollback", AT, "uuid<=R, min(R,start), {x,x}"),
)


class SgDcpClient(ConsumerVariant):
    name = "sg-dcp-client"
    summary = "uuid = oldest entry at open; on rollback min(R,start) with {x,x}; keeps its data"

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        # SetFailoverEntries: getVbUUID(log, start at open = 0) walks from the oldest entry.
        log = view.log
        oldest_at_zero = (log.length > 0) & (log.seqno_at(log.length - 1) == 0)
        return super().remembered(view).but(uuid=ite(oldest_at_zero, log.oldest_uuid, 0))

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        # dcpMetadataBase.Rollback: first stored entry <= R; start = min(R, StartSeqNo).
        point = min_of(rollback_seqno, view.claim.start)
        return Reaction(claim=view.claim.at(point, uuid=view.log.covering(rollback_seqno)))


class SgDcpClientFixed(ConsumerVariant):
    name = "sg-dcp-client-fixed"
    summary = "sg-dcp-client sending its log's newest uuid; drops data above a whole snapshot <= R"

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        point = view.consistent_at_or_below(rollback_seqno)
        return Reaction(keep=point, claim=view.claim.at(point, uuid=view.log.covering(point)))


VARIANTS = (SgDcpClient(), SgDcpClientFixed())
