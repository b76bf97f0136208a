"""``sg-dcp-client``: Sync Gateway's own DCP client (its cache feed), read at f39abe1.

Sync Gateway streams its cache feed (and attachment compaction, resync
tasks) through ``base/gocb_dcp_client.go: GoCBDCPClient``, not through cbgt
(``cbgt`` models the sharded import feed). Our reading (couchbase/sync_gateway
f39abe1; ``CITATIONS`` below):

* **What it remembers: its own metadata, not its data.**
  ``base/dcp_client_worker.go: DCPWorker.Start`` keeps a snapshot marker
  pending and ``updateSeq`` -> ``checkPendingSnapshot`` stores it with the
  first event after it (``dcpMetadataBase.SetSnapshot``), then ``UpdateSeq``
  stores the event's seqno, for a mutation, a deletion or a SeqnoAdvanced
  (``seqnoAdvancedEvent``); ``dcpMetadataBase.Rollback`` sets it too
  (below). It negotiates collections (``base/gocb_dcp_client.go:
  getAgentConfig`` sets ``IoConfig.UseCollections``; ``openStreamRequest``
  passes ``FilterOptions``; ``base/dcp_client_stream_observer.go:
  SeqNoAdvanced`` forwards the event), so kv_engine sends it SeqnoAdvanced
  (``ActiveStream::isSeqnoAdvancedEnabled``, kv_engine eba4298: a
  collection-enabled stream without sync replication) at the end of a
  snapshot whose last item it does not send: ``seqno_advanced``,
  ``remembered`` = ``view.offset``.
* **Which uuid.** When a stream opens, ``openStreamRequest``'s callback calls
  ``dcpMetadataBase.SetFailoverEntries``: the producer's log is stored and
  ``VbUUID = getVbUUID(log, StartSeqNo)``. ``getVbUUID`` walks the log from
  its *last* element and returns the first entry with seqno <= the start;
  gocbcore (``dcpcomponent.go: OpenStream``, fd54a52) hands the log over in
  wire order, newest first, as go-dcp and cbgt read it, so this is the
  *oldest* entry whenever its seqno is at or below the start at open (its
  comment says "the most recent"). That is so at every open: the cache feed
  (``db/change_listener.go: Start``, ``FromLatestSequence: true``) opens at
  the high seqno with the vbucket's current uuid (``base/gocb_dcp_feed.go:
  getHighSeqMetadata``), at or above every entry, and is accepted; later
  opens start at or above 0, the seqno of the oldest entry of any log that
  has not been trimmed. So every *re*-open (a stream ended by a state change,
  TooSlow, a disconnect, a rebalance: ``onStreamEnd`` -> ``openStream``)
  sends the oldest uuid (``remembered``). The model's first stream is the
  stream after that first open (the open itself is not modelled: it is
  always accepted); with ``--sessions K`` every later resume stores the
  oldest uuid again.
* **What it sends.** ``openStreamRequest``: ActiveOnly, the stored VbUUID,
  start = ``StartSeqNo``, snapshot = ``SnapStartSeqNo``/``SnapEndSeqNo``.
  kv_engine finds the oldest uuid, and a start above the next entry's seqno
  is answered ROLLBACK to that seqno (or lower, to the snapshot start):
  with two or more entries in the log, every reconnect is rolled back and
  what lies above R is streamed again (``no-needless-rollback``).
* **What it does on ROLLBACK(R).** ``openStream`` -> ``GoCBDCPClient.rollback``
  -> ``dcpMetadataBase.Rollback``: uuid = the first stored entry (newest)
  with seqno <= R (0 if none), start = min(R, StartSeqNo), snapshot {x, x};
  the failover entries are kept; then ``openStream`` tries again. The
  callback's derived data (the channel cache) is not told (``on_rollback``).
  A client built with ``FailOnRollback`` (attachment compaction:
  ``db/attachment_compaction.go: getCompactionDCPClientOptions``)
  does not retry: ``openStream`` returns the rollback as an error and the
  client stops.
* **Persistence.** ``DCPWorker.updateSeq`` persists the metadata when
  ``time.Since(lastMetaPersistTime) > metaPersistFrequency``;
  ``lastMetaPersistTime`` is declared and never assigned, so it persists
  after every item. The cache feed's store is in memory
  (``DCPMetadataStoreInMemory``): a restarted cache feed does not resume, it
  opens again at the high seqno. The import feed of a database without
  sharded import (``db/import_listener.go: StartImportFeed``, the Community
  Edition's case) runs on this client with a persistent store
  (``DCPMetadataStoreCS``) and resumes from it, with the same uuid rule.

Not modelled: ``FailOnRollback`` (the rollback ends the client: there is no
resume to judge), an oldest entry above the start at open (a log trimmed
past kv_engine's maximum entries: ``getVbUUID`` then returns 0), one-shot
feeds' end seqnos, collections, the harm downstream (what the cache keeps
is in memory and rebuilt on restart).

``sg-dcp-client-fixed``: sends the newest entry of the log it received at
open (the branch it streamed; "the newest entry at or below the start at
open", the comment's intent, is still too old when a failover entry lies
between the start at open and the last seqno), and on ROLLBACK(R) the callback drops what
it derived above the highest whole-snapshot point c <= R and the client
resumes from c. dcpcheck verifies the fix (docs/clients.md): it holds every
safety property, and the repeated rollback is gone (it is rolled back
needlessly only where ``correct`` is: a purge, an unknown uuid).
"""

from spec.consumers.api import (
    ConsumerVariant,
    ConsumerView,
    LogView,
    Reaction,
    ResumeRequest,
    resume_at_whole_snapshot,
)
from spec.consumers.citations import Citation
from spec.expr import Expr, min_of

REPO, AT = "couchbase/sync_gateway", "f39abe1"
CITATIONS = (
    Citation(REPO, "base/dcp_client_worker.go", "updateSeq", AT, "marker stored with an item"),
    Citation(REPO, "base/gocb_dcp_client.go", "getAgentConfig", AT, "UseCollections"),
    Citation(REPO, "base/dcp_client_stream_observer.go", "SeqNoAdvanced", AT, "to the worker"),
    Citation(
        "couchbase/kv_engine",
        "engines/ep/src/dcp/active_stream.cc",
        "ActiveStream::isSeqnoAdvancedEnabled",
        "eba4298",
        "collection-enabled, no sync replication",
    ),
    Citation(REPO, "base/dcp_client_metadata.go", "SetFailoverEntries", AT, "uuid at open"),
    Citation(REPO, "base/gocb_dcp_client.go", "getVbUUID", AT, "oldest entry <= the start"),
    Citation("couchbase/gocbcore", "dcpcomponent.go", "OpenStream", "fd54a52", "wire order"),
    Citation(REPO, "base/gocb_dcp_client.go", "openStreamRequest", AT, "what it sends"),
    Citation(REPO, "base/gocb_dcp_client.go", "openStream", AT, "rollback, then retry"),
    Citation(REPO, "base/dcp_client_metadata.go", "Rollback", AT, "uuid<=R, min(R,start), {x,x}"),
    Citation(REPO, "db/change_listener.go", "Start", AT, "cache feed: latest seqno, in memory"),
    Citation(REPO, "base/gocb_dcp_feed.go", "getHighSeqMetadata", AT, "open at the high seqno"),
    Citation(REPO, "base/gocb_dcp_client.go", "onStreamEnd", AT, "every stream end reopens"),
    Citation(REPO, "base/dcp_client_worker.go", "updateSeq", AT, "persists after every item"),
    Citation(REPO, "db/import_listener.go", "StartImportFeed", AT, "unsharded import: stored"),
    Citation(
        REPO, "db/attachment_compaction.go", "getCompactionDCPClientOptions", AT, "FailOnRollback"
    ),
)


class SgDcpClient(ConsumerVariant):
    name = "sg-dcp-client"
    summary = "uuid = its log's oldest entry; on rollback min(R,start) with {x,x}; keeps its data"
    seqno_advanced = True  # getAgentConfig: UseCollections

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        # SetFailoverEntries: getVbUUID(log, start at open) walks from the oldest entry, whose
        # seqno is at or below the start at open (the cache feed opens at the high seqno).
        # The start and snapshot: its own metadata, moved by updateSeq (view.offset).
        return ResumeRequest(view.log.oldest_uuid, *view.offset)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        # dcpMetadataBase.Rollback: first stored entry <= R; start = min(R, StartSeqNo).
        point = min_of(rollback_seqno, view.claim.start)
        return Reaction(claim=view.claim.at(point, uuid=view.log.covering(rollback_seqno)))


class SgDcpClientFixed(ConsumerVariant):
    name = "sg-dcp-client-fixed"
    summary = "sg-dcp-client sending its log's newest uuid; drops data above a whole snapshot <= R"
    seqno_advanced = True

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        return ResumeRequest(view.log.latest_uuid, *view.offset)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        return resume_at_whole_snapshot(view, rollback_seqno, view.log)


VARIANTS = (SgDcpClient(), SgDcpClientFixed())
