"""``java-dcp-client``: couchbase/java-dcp-client (read at ce514c0), its default listener.

Our reading of its source (src/main/java/com/couchbase/client/dcp/):

* **What it remembers: its own offset, not its data.** ``state/PartitionState.java``:
  ``setStartSeqno(long)`` is called for each data event (mutation, deletion,
  expiration: ``Client.dataEventHandler``) and promotes a pending snapshot
  marker (``setPendingSnapshot``, set in ``Client.controlEventHandler`` when a
  marker arrives) to the current one; nothing else moves the start but
  ``SessionState.rollbackToPosition`` (below). ``handleFailoverLogResponse``
  in ``Client.java`` replaces the failover log with the one the server sends
  when a stream opens. So after a stream: start = its last item's seqno,
  snapshot = that item's marker, or, if it delivered no item, the position it
  was opened from, (R, {R, R}) after a rollback, while the application still
  holds its items above R (``remembered``: ``view.offset``).
* **What it sends.** ``Client.startStreaming`` -> ``PartitionState.getOffset()``:
  uuid ``getLastUuid()`` (the newest entry of its own log, 0 if empty), the
  start seqno and the snapshot (``request``). ``conductor/DcpChannel.openStream``
  sends them with end 2^64-1 and no rollback-relevant flag; its "snapshot
  marker from the future" correction (snap_start == start + 1) cannot arise
  here, since a snapshot is remembered only with one of its items.
* **What it does on ROLLBACK(R).** The application *is* told: the high-level
  API calls ``highlevel/DatabaseChangeListener.onRollback(Rollback)``, and
  ``Rollback.getSeqno()`` is R. Only the *default* implementation is
  modelled: it calls ``Rollback.resume()`` -> ``Client.rollbackAndRestartStream``
  -> ``SessionState.rollbackToPosition``: start R, ``SnapshotMarker(R, R)``,
  and every log entry with seqno > R removed; then ``startStreaming`` again
  (so the next uuid is the newest own entry <= R, 0 if none is left). It
  drops nothing the application built (``on_rollback``). In the low-level
  API the library does nothing unless the user's ``ControlEventHandler.onEvent``
  calls ``rollbackAndRestartStream``.
* **Rollback mitigation, off by default** (setting ``mitigation``):
  ``Client.Builder.mitigateRollbacks`` (opt-in, with flow control) holds
  events back until persisted on the active and every replica, as go-dcp's
  does; ``java-dcp-client:mitigation=on`` models a client built with it.

Not modelled: ``PartitionState.fromOffset`` (a client restarted from a stored
offset seeds its log with one placeholder entry at seqno 2^64-1, which any
rollback removes: uuid 0 next; docs/authoring-consumers.md shows it as a
variant), seqno-advanced and system events (collections: negotiated only when
``collectionsAware`` is set, off by default, so a default stream gets
neither), and, with
mitigation on, what go-dcp's docstring lists (a promoted replica keeping
its items above its entry; markers that differ from the client's): the
model allows no branch below a snapshot the client holds whole (kv_engine
``CheckpointManager::getFailoverSeqno``).

``java-dcp-client-fixed``: the application's ``onRollback`` drops its data
above the highest point at or below R where it holds a whole snapshot (0,
or the end of a snapshot it received completely; the offsets of its
events carry the markers it needs), and resumes from that point instead of
R. dcpcheck verifies the fix (docs/clients.md).
"""

from spec.consumers.api import ConsumerVariant, ConsumerView, LogView, Reaction, ResumeRequest
from spec.consumers.citations import Citation
from spec.consumers.settings import mitigation
from spec.expr import Expr

REPO, AT, SRC = "couchbase/java-dcp-client", "ce514c0", "src/main/java/com/couchbase/client/dcp"
CITATIONS = (
    Citation(REPO, f"{SRC}/state/PartitionState.java", "setStartSeqno", AT, "offset per event"),
    Citation(REPO, f"{SRC}/state/PartitionState.java", "getOffset", AT, "what it sends"),
    Citation(REPO, f"{SRC}/Client.java", "dataEventHandler", AT, "setStartSeqno per data event"),
    Citation(REPO, f"{SRC}/Client.java", "startStreaming", AT, "opens from the offset"),
    Citation(
        REPO,
        f"{SRC}/highlevel/DatabaseChangeListener.java",
        "onRollback",
        AT,
        "the application is told; the default resumes",
    ),
    Citation(REPO, f"{SRC}/highlevel/Rollback.java", "resume", AT, "rollbackAndRestartStream(R)"),
    Citation(REPO, f"{SRC}/Client.java", "rollbackAndRestartStream", AT, "stop, rewind, start"),
    Citation(REPO, f"{SRC}/state/SessionState.java", "rollbackToPosition", AT, "(R, {R,R})"),
    Citation(REPO, f"{SRC}/Client.java", "mitigateRollbacks", AT, "opt-in mitigation"),
    Citation(REPO, f"{SRC}/ControlEventHandler.java", "onEvent", AT, "low-level: user's call"),
)

MITIGATION = mitigation(
    "off",
    "Client.Builder.mitigateRollbacks(...) (not called: off)",
    option="mitigateRollbacks",
    option_default="off",
)


class JavaDcpClient(ConsumerVariant):
    name = "java-dcp-client"
    summary = "resumes from (R,R,R) with its own log pruned at R; keeps its data"
    settings = (MITIGATION,)

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        # PartitionState's own offset: moved by data events and rollbackToPosition only.
        start, snap_start, snap_end = view.offset
        return ResumeRequest(view.log.latest_uuid, start, snap_start, snap_end)

    def request(self, view: ConsumerView) -> ResumeRequest:
        # PartitionState.getOffset(): getLastUuid() of the log as it is now.
        return view.claim.but(uuid=view.log.latest_uuid)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        # SessionState.rollbackToPosition: start R, SnapshotMarker(R, R), entries > R removed.
        return Reaction(claim=view.claim.at(rollback_seqno), log=view.log.pruned(rollback_seqno))


class JavaDcpClientFixed(JavaDcpClient):
    name = "java-dcp-client-fixed"
    summary = "java-dcp-client that drops its data above a whole snapshot <= R and resumes there"

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        point = view.consistent_at_or_below(rollback_seqno)
        return Reaction(keep=point, claim=view.claim.at(point), log=view.log.pruned(point))


VARIANTS = (JavaDcpClient(), JavaDcpClientFixed())
