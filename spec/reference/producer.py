"""Reference producer decisions, written as ordinary code.

``needs_rollback_kv_current`` is kv_engine's ``FailoverTable::needsRollback``
today; ``needs_rollback_doc`` is kv_engine's docs/dcp/documentation/rollback.md
exactly as written (seed ``002_``). ``stream_request`` is the producer around
either: the ERANGE check, then IgnorePurgedTombstones, then the decision.

This module is deliberately independent of the clause-form rule sets in
``spec.rules``: the two are cross-checked by the tests, so neither can drift.

Where the document and the code disagree:

====================  ====================================  ===========================
                      kv-current (code)                      rollback-doc (document)
====================  ====================================  ===========================
start 0               no rollback unless STRICT_VBUUID and   rollback checks run when
                      uuid != 0                              uuid != 0 (section 1b)
purge test            start < purge (remote purge seqno      adjusted snap_start < purge
                      equal to purge, or a collection
                      stream already past it, exempt)
adjustments           snap_end moved back before the         both adjustments before
                      lagging test, snap_start moved up      every test (so they also
                      only for the rollback seqno            change the purge test)
strict / remote purge honoured                               not in the document
/ collections
====================  ====================================  ===========================
"""

from __future__ import annotations

from collections.abc import Callable

from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = [
    "REFERENCE_DECISIONS",
    "needs_rollback_doc",
    "needs_rollback_kv_current",
    "stream_request",
]

NeedsRollback = Callable[[StreamRequest, ProducerState], Decision]

PURGE_REASON_CODE = "purge seqno ({}) is greater than start seqno - could miss purged deletions"
PURGE_REASON_DOC = "purge seqno ({}) is greater than snapshot start - could miss purged deletions"
UUID_REASON = (
    "vBucket UUID not found in failover table, consumer and producer have no common history"
)
AHEAD_REASON = "consumer ahead of producer - producer upper at {}"


def _accept(case: str) -> Decision:
    return Decision(Outcome.ACCEPT, case)


def _rollback(case: str, seqno: int, reason: str) -> Decision:
    return Decision(Outcome.ROLLBACK, case, seqno, reason)


def needs_rollback_kv_current(req: StreamRequest, producer: ProducerState) -> Decision:
    """kv_engine's needsRollback, step by step in kv_engine's order."""
    start, purge = req.start, producer.purge_seqno
    snap_start, snap_end = req.snap_start, req.snap_end

    if start == 0 and (not req.strict or req.uuid == 0):
        return _accept("start-zero")

    collection_done = (
        req.collection_high is not None
        and start < purge
        and start >= req.collection_high
        and req.collection_high <= purge
    )
    if start < purge and start != 0 and not collection_done and req.remote_purge != purge:
        return _rollback("purge", 0, PURGE_REASON_CODE.format(purge))

    upper = producer.table.upper(req.uuid, producer.high_seqno)
    if upper is None:
        return _rollback("uuid-not-found", 0, UUID_REASON)

    if start == snap_start:
        snap_end = start  # no item of the snapshot received yet
    if snap_end <= upper:
        return _accept("lagging")
    if start == snap_end:
        snap_start = start  # the whole snapshot received
    if upper < snap_start:
        return _rollback("ahead-of-upper", upper, AHEAD_REASON.format(upper))
    return _rollback("snapshot-mismatch", snap_start, AHEAD_REASON.format(upper))


def needs_rollback_doc(req: StreamRequest, producer: ProducerState) -> Decision:
    """rollback.md's producer logic, section by section."""
    start, purge = req.start, producer.purge_seqno
    snap_start, snap_end = req.snap_start, req.snap_end

    # "The producer adjusts the SnapStartSeqno and SnapEndSeqno" before the cases.
    if start == snap_end:
        snap_start = snap_end
    if start == snap_start:
        snap_end = snap_start

    # 1a: no history at seqno 0. (1b: uuid != 0 goes on to sections 3 and 4.)
    if start == 0 and req.uuid == 0:
        return _accept("start-zero")
    # 2: the purge wild card.
    if snap_start < purge and start != 0:
        return _rollback("purge", 0, PURGE_REASON_DOC.format(purge))
    # 3: diverging history.
    upper = producer.table.upper(req.uuid, producer.high_seqno)
    if upper is None:
        return _rollback("uuid-not-found", 0, UUID_REASON)
    # 4a: lagging consumer.
    if snap_end <= upper:
        return _accept("lagging")
    # 4b: leading consumer.
    if snap_start > upper:
        return _rollback("ahead-of-upper", upper, AHEAD_REASON.format(upper))
    # 4c: snapshot mismatch.
    return _rollback("snapshot-mismatch", snap_start, AHEAD_REASON.format(upper))


REFERENCE_DECISIONS: dict[str, NeedsRollback] = {
    "kv-current": needs_rollback_kv_current,
    "rollback-doc": needs_rollback_doc,
}


def stream_request(
    req: StreamRequest,
    producer: ProducerState,
    needs_rollback: NeedsRollback = needs_rollback_kv_current,
) -> Decision:
    """The producer's answer to a stream request: ERANGE, ROLLBACK(R) or OK."""
    if not req.range_ok:
        return Decision(
            Outcome.ERANGE,
            "erange",
            None,
            "snap_start <= start <= snap_end and start <= end are required",
        )
    if req.ignore_purged:
        producer = ProducerState(producer.table, producer.high_seqno, 0)
    return needs_rollback(req, producer)
