"""``kv-current``: kv_engine's ``FailoverTable::needsRollback`` today.

Source: kv_engine engines/ep/src/failover-table.cc (read 2026-08) and the
producer around it (dcp/producer.cc: ERANGE check, IgnorePurgedTombstones).
The steps are in kv_engine's order; the reason texts are kv_engine's.
"""

from spec.rules.language import Adjust, Clause, F, RuleSet, accept, otherwise, rollback

AHEAD = "consumer ahead of producer - producer upper at {upper}"

# A collection stream whose client already has every item of its collections
# need not roll back for purged tombstones.
collection_stream_done = (
    F.has_collection_high
    & (F.start < F.purge_seqno)
    & (F.start >= F.collection_high)
    & (F.collection_high <= F.purge_seqno)
)

# The uuid test and its reason text, as kv_engine (and rollback.md) have it.
UUID_NOT_FOUND = Clause(
    "uuid-not-found",
    when=~F.uuid_found,
    then=rollback(0),
    reason="vBucket UUID not found in failover table, consumer and producer have no common history",
)

RULES = RuleSet(
    name="kv-current",
    summary="kv_engine's needsRollback today (STRICT_VBUUID, purge check on start, "
    "remote purge seqno, collection high seqno)",
    source="kv_engine engines/ep/src/failover-table.cc",
    steps=(
        Clause(
            "start-zero",
            when=(F.start == 0) & (~F.strict | (F.uuid == 0)),
            then=accept(),
        ),
        Clause(
            "purge",
            when=(F.start < F.purge_seqno)
            & (F.start != 0)
            & ~collection_stream_done
            & (F.remote_purge != F.purge_seqno),
            then=rollback(0),
            reason="purge seqno ({purge_seqno}) is greater than start seqno - "
            "could miss purged deletions",
        ),
        UUID_NOT_FOUND,
        Adjust("no-item-received", when=F.start == F.snap_start, field="snap_end", to=F.start),
        Clause("lagging", when=F.snap_end <= F.upper, then=accept()),
        Adjust("snapshot-complete", when=F.start == F.snap_end, field="snap_start", to=F.start),
        Clause("ahead-of-upper", when=F.upper < F.snap_start, then=rollback(F.upper), reason=AHEAD),
        Clause("snapshot-mismatch", when=otherwise, then=rollback(F.snap_start), reason=AHEAD),
    ),
)
