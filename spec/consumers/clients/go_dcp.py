"""``go-dcp``: Trendyol/go-dcp (a Go DCP library on gocbcore), read at 497dc6e.

Our reading of its source (``CITATIONS`` below, machine-readable):

* **Rollback mitigation, on by default** (setting ``mitigation``; README:
  ``rollbackMitigation.disabled`` defaults to false; ``stream/stream.go:
  Open`` turns it off for ephemeral buckets). ``couchbase/observer.go:
  canForward`` holds every event until ``checkPersistSeqNo`` says it is at
  or below the persisted seqno, which ``couchbase/rollback_mitigation.go:
  getMinSeqNo`` takes as the minimum over the active and every replica
  (0 when their vbuuids differ). So the application is only given items
  every copy has persisted (``rollback_mitigation``; ``go-dcp:mitigation=off``
  drops that). A promoted replica still branches at the end of the last
  snapshot it received whole (kv_engine eba4298
  ``CheckpointManager::getFailoverSeqno``), which can be below those: the
  model allows no branch below a snapshot the client holds whole.
* **What it remembers.** ``couchbase/observer.go``: ``Mutation``/``Deletion``
  hand the listener an ``models.Offset`` with the current snapshot marker,
  the event's seqno and ``vbUUID``, which ``couchbase/client.go: OpenStream``
  sets from the newest entry of the failover log the producer returns when
  the stream opens. ``stream/stream.go: waitAndForward`` stores that offset
  as the checkpoint when the listener calls ``Ack`` (``setOffset``): the
  checkpoint is the last *acked* offset. We model a listener that acks every
  event it handled: the checkpoint is its last item's seqno and marker
  (``remembered``, the interface's default).
* **What it sends.** ``couchbase/client.go: OpenStream`` sends the checkpoint
  with flags ``0x80`` (IgnorePurgedTombstones, set on purpose by commit
  2e20fdc, "ignore purged tombstones after couchbase server 7.2") and end =
  the latest seqno: ``ignore_purged = True``.
* **What it does on ROLLBACK(R).** ``OpenStream`` calls
  ``openStreamWithRollback``: it fetches the producer's failover log
  (``GetFailOverLogs``), takes the newest entry with seqno <= R (0 if none),
  and sends (that uuid, R, snapshot {R, R}) with flags 0. On success
  ``observer.SetCatchup(failedSeqNo)``: ``needCatchup`` then drops every
  event with seqno <= the checkpoint's seqno (``filter``). The listener is
  never told of the rollback, so the application keeps its data.
* **A second ROLLBACK**, answering ``openStreamWithRollback``'s request, is
  returned as an error: ``stream/stream.go: reopenStream`` opens the stream
  again from the unchanged checkpoint, 5 times, then panics; the initial
  ``openAllStreams`` panics at once. Neither recovers the panic, so it ends
  the whole process, with every vbucket it streams. The rollback request
  has flags 0, so kv_engine's purge rule applies to it (kv_engine
  ``engines/ep/src/dcp/producer.cc: checkStreamRequestNeedsRollback`` sets
  the purge seqno to 0 only under 0x80; ``failover-table.cc: needsRollback``
  answers ROLLBACK(0) when 0 < start < the purge seqno and the request's
  purge seqno differs): with mitigation on, a rollback to R > 0 followed by
  a tombstone above R purged while the client was away loops, with a
  one-entry log (tests/test_client_go_dcp.py). We model that as: the next
  request is the checkpoint again, with ``0x80``, and no catch-up filter
  (``bounded-rollback`` counts the rounds; the real process stops by
  panicking). A restarted process loads the checkpoint last saved (the
  ``checkpoint.interval`` setting, README default 1m), which may be older
  than the one in memory:
  restarts are not modelled, so the interval changes no verdict here.

Not modelled: a promoted replica keeping its items above its failover
entry (the model's new branch rewrites them at once: one failover stands
for a chain in which a replica rolled back to that entry is promoted next),
a replica whose markers differ from the client's, restarts (the checkpoint
loaded may be older), a listener that acks late or not at all (its checkpoint is
older: more is re-streamed), the skip window, collections.

``go-dcp-fixed``: no ``0x80``; on ROLLBACK(R) the listener is told and drops
its data above the highest whole-snapshot point c <= R, and the stream is
reopened from c with the producer's uuid covering c, without a catch-up
filter. Dropping ``0x80`` reverses a deliberate feature: it trades
IgnorePurgedTombstones' contract (a client that was away longer than the
metadata purge interval is not rolled back to 0, and misses the purged
deletions) for a rollback to 0. dcpcheck verifies the fix (docs/clients.md).
"""

from spec.consumers.api import (
    ConsumerVariant,
    ConsumerView,
    LogView,
    Reaction,
    choose_request,
    resume_at_whole_snapshot,
)
from spec.consumers.citations import Citation
from spec.consumers.settings import mitigation
from spec.expr import Expr, ite

REPO, AT = "Trendyol/go-dcp", "497dc6e"
KV, KV_AT = "couchbase/kv_engine", "eba4298"
CITATIONS = (
    Citation(REPO, "README.md", "rollbackMitigation.disabled", AT, "mitigation on by default"),
    Citation(REPO, "stream/stream.go", "Open", AT, "mitigation off on ephemeral buckets"),
    Citation(REPO, "couchbase/observer.go", "canForward", AT, "events wait for persistence"),
    Citation(REPO, "couchbase/rollback_mitigation.go", "getMinSeqNo", AT, "min over every copy"),
    Citation(REPO, "stream/stream.go", "waitAndForward", AT, "checkpoint = last acked offset"),
    Citation(REPO, "couchbase/client.go", "OpenStream", AT, "sends the checkpoint with 0x80"),
    Citation(REPO, "couchbase/client.go", "openStreamWithRollback", AT, "(uuid<=R, R, {R,R})"),
    Citation(REPO, "couchbase/observer.go", "needCatchup", AT, "drops events <= checkpoint"),
    Citation(REPO, "stream/stream.go", "reopenStream", AT, "5 retries, then panic"),
    Citation(REPO, "stream/stream.go", "openAllStreams", AT, "panics on an open error"),
    Citation(REPO, "README.md", "checkpoint.interval", AT, "checkpoints saved every 1m"),
    Citation(
        KV,
        "engines/ep/src/dcp/producer.cc",
        "checkStreamRequestNeedsRollback",
        KV_AT,
        "purge seqno ignored only under 0x80",
    ),
    Citation(
        KV,
        "engines/ep/src/failover-table.cc",
        "needsRollback",
        KV_AT,
        "ROLLBACK(0) when 0 < start < purge seqno",
    ),
)

MITIGATION = mitigation(
    "on",
    "rollbackMitigation.disabled (config, default false; stream/stream.go sets it on "
    "ephemeral buckets)",
    option="rollbackMitigation.disabled",
    option_default="false",
)


class GoDcp(ConsumerVariant):
    name = "go-dcp"
    summary = "IgnorePurgedTombstones; on rollback (R,R,R) flags 0 and a catch-up filter"
    ignore_purged = True
    rollback_mitigation = True
    settings = (MITIGATION,)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        checkpoint = self.remembered(view)  # data and checkpoint are unchanged by a rollback
        # The request that was rolled back is openStreamWithRollback's (flags 0): an error,
        # and reopenStream starts again from the checkpoint.
        retrying = ~view.claim.ignore_purged
        rollback_open = view.claim.at(
            rollback_seqno, uuid=producer_log.covering(rollback_seqno)
        ).but(ignore_purged=False)
        return Reaction(
            claim=choose_request(retrying, checkpoint, rollback_open),
            filter=ite(retrying, 0, view.claim.start),
        )


class GoDcpFixed(ConsumerVariant):
    name = "go-dcp-fixed"
    summary = (
        "go-dcp without 0x80 that drops its data above a whole snapshot <= R and resumes there"
    )
    rollback_mitigation = True
    settings = (MITIGATION,)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        return resume_at_whole_snapshot(view, rollback_seqno, producer_log)


VARIANTS = (GoDcp(), GoDcpFixed())
