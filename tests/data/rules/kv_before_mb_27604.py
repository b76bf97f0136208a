"""``kv-before-mb-27604``: kv_engine's needsRollback until January 2018.

Read from kv_engine's engines/ep/src/failover-table.cc as it was then, after
STRICT_VBUUID (MB-27290) and before MB-27604 moved the purge test to the
start seqno (written here in the clause language): ``adjustSnapshotRange`` runs first (a
complete snapshot moves its start up to the start seqno, *else* a snapshot
with no item received moves its end down), then the purge test on the
*adjusted snapshot start*, then the uuid lookup, lagging and the rollback
point. No remote purge seqno, no collection streams. tests/data/hand_written.py
has the same behaviour as plain Python.
"""

from spec.rules import Adjust, Clause, F, RuleSet, accept, otherwise, rollback

AHEAD = "consumer ahead of producer - producer upper at {upper}"

RULES = RuleSet(
    name="kv-before-mb-27604",
    summary="kv_engine's needsRollback before MB-27604: adjustments first, purge test on "
    "snap_start",
    source="kv_engine engines/ep/src/failover-table.cc (January 2018)",
    steps=(
        Clause("start-zero", when=(F.start == 0) & (~F.strict | (F.uuid == 0)), then=accept()),
        Adjust("snapshot-complete", when=F.start == F.snap_end, field="snap_start", to=F.start),
        # "else if": after the first adjustment start == snap_start holds too, and moving
        # snap_end down to start (== snap_end) changes nothing, so no guard is needed.
        Adjust("no-item-received", when=F.start == F.snap_start, field="snap_end", to=F.start),
        Clause(
            "purge",
            when=(F.snap_start < F.purge_seqno) & (F.start != 0),
            then=rollback(0),
            reason="purge seqno ({purge_seqno}) is greater than snapshot start - "
            "could miss purged deletions",
        ),
        Clause("uuid-not-found", when=~F.uuid_found, then=rollback(0)),
        Clause("lagging", when=F.snap_end <= F.upper, then=accept()),
        Clause("ahead-of-upper", when=F.upper < F.snap_start, then=rollback(F.upper), reason=AHEAD),
        Clause("snapshot-mismatch", when=otherwise, then=rollback(F.snap_start), reason=AHEAD),
    ),
)
