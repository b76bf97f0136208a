"""``go-dcp``: Trendyol/go-dcp (a Go DCP library on gocbcore), rollback mitigation off.

Our reading of its source:

* **What it remembers.** ``couchbase/observer.go``: ``Mutation``/``Deletion``
  hand the listener an ``models.Offset`` with the current snapshot marker
  (set by ``SnapshotMarker``), the event's seqno and ``vbUUID``, which
  ``couchbase/client.go: OpenStream`` sets from the newest entry of the
  failover log the producer returns when the stream opens; ``stream/stream.go``
  keeps it as the checkpoint (``setOffset``). After the stream: the
  producer's newest uuid, the last item's seqno and its marker
  (``remembered``, the interface's default).
* **What it sends.** ``couchbase/client.go: OpenStream`` sends the checkpoint
  with flags ``0x80`` (IgnorePurgedTombstones) and end = the latest seqno
  (2^64-1 when the feed is infinite, ``stream/offset``): ``ignore_purged = True``.
* **What it does on ROLLBACK(R).** ``OpenStream`` calls
  ``openStreamWithRollback``: it fetches the producer's failover log
  (``GetFailOverLogs``), takes the newest entry with seqno <= R (0 if none),
  and sends (that uuid, R, snapshot {R, R}) with flags 0. On success it calls
  ``observer.SetCatchup(failedSeqNo)``: ``needCatchup`` then drops every
  event with seqno <= the checkpoint's seqno (``filter``). The listener is
  never told of the rollback, so the application keeps its data, and the
  checkpoint is not changed until the next event.
* **A second ROLLBACK**, answering ``openStreamWithRollback``'s request, is
  returned as an error: ``stream/stream.go: reopenStream`` opens the stream
  again from the unchanged checkpoint (up to 5 times, then panics; the
  initial ``openAllStreams`` panics at once; a restarted process loads the
  same checkpoint). We model that as: the next request is the checkpoint
  again, with ``0x80``, and the catch-up filter is not set.

Not modelled: rollback mitigation (``couchbase/rollback_mitigation.go``:
events are held back until persisted on every replica, which makes a
failover rollback rarer but changes nothing once one happens; our bounds
let a failover branch anywhere), the skip window, collections.

``go-dcp-fixed``: no ``0x80``; on ROLLBACK(R) the listener is told and drops
its data above the highest whole-snapshot point c <= R, and the stream is
reopened from c with the producer's uuid covering c, without a catch-up
filter. dcpcheck verifies the fix (docs/clients.md).
"""

from spec.consumers.api import (
    ConsumerVariant,
    ConsumerView,
    LogView,
    Reaction,
    choose_request,
)
from spec.consumers.settings import mitigation
from spec.expr import Expr, ite

MITIGATION = mitigation(
    "on",
    "rollbackMitigation.disabled (config, default false; stream/stream.go sets it on "
    "ephemeral buckets)",
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
        point = view.consistent_at_or_below(rollback_seqno)
        return Reaction(keep=point, claim=view.claim.at(point, uuid=producer_log.covering(point)))


VARIANTS = (GoDcp(), GoDcpFixed())
