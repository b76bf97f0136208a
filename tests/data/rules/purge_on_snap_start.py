"""``purge-on-snap-start``: kv-current, but the purge clause tests the snapshot start.

rollback.md says the producer rolls a consumer back to 0 when its
*snapshot start* is below the purge seqno; kv_engine tests the start seqno.
This copy of kv-current makes the document's choice in one clause.
"""

from spec.rules import Adjust, Clause, F, RuleSet, accept, otherwise, rollback

AHEAD = "consumer ahead of producer - producer upper at {upper}"

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
    name="purge-on-snap-start",
    summary="kv-current, with the purge test on snap_start as rollback.md says",
    steps=(
        Clause(
            "start-zero",
            when=(F.start == 0) & (~F.strict | (F.uuid == 0)),
            then=accept(),
        ),
        Clause(
            "purge",
            when=(F.snap_start < F.purge_seqno)  # kv-current: F.start < F.purge_seqno
            & (F.start != 0)
            & ~collection_stream_done
            & (F.remote_purge != F.purge_seqno),
            then=rollback(0),
            reason="purge seqno ({purge_seqno}) is greater than snapshot start - "
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
