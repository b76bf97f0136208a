"""``rollback-doc``: kv_engine's docs/dcp/documentation/rollback.md exactly as written.

Source: seed ``002_`` (the same text as ``000_``). Where the document and the
code differ, this rule set follows the document:

* both snapshot adjustments come first, before any case (so the purge test
  sees the adjusted snapshot start);
* 1a/1b: start 0 with uuid 0 needs no rollback; start 0 with any other uuid
  goes on to the uuid and upper checks (no STRICT_VBUUID flag);
* 2: the purge wild card tests SnapStartSeqno < PurgeSeqno (the code tests
  the start seqno), and knows nothing of remote purge seqnos or collections;
* the CB 7.2 note: IgnorePurgedTombstones opts out of the purge case (the
  producer passes purge seqno 0, as for kv-current).

The reason texts are those kv_engine printed when its code matched the document.
"""

from spec.rules.kv_current import AHEAD, UUID_NOT_FOUND
from spec.rules.language import Adjust, Clause, F, RuleSet, accept, otherwise, rollback

RULES = RuleSet(
    name="rollback-doc",
    summary="rollback.md as written (purge test on snap_start, start 0 with a uuid checked)",
    source="kv_engine docs/dcp/documentation/rollback.md (seed 002)",
    steps=(
        Adjust("snapshot-complete", when=F.start == F.snap_end, field="snap_start", to=F.snap_end),
        Adjust("no-item-received", when=F.start == F.snap_start, field="snap_end", to=F.snap_start),
        Clause("start-zero", when=(F.start == 0) & (F.uuid == 0), then=accept()),
        Clause(
            "purge",
            when=(F.snap_start < F.purge_seqno) & (F.start != 0),
            then=rollback(0),
            reason="purge seqno ({purge_seqno}) is greater than snapshot start - "
            "could miss purged deletions",
        ),
        UUID_NOT_FOUND,
        Clause("lagging", when=F.snap_end <= F.upper, then=accept()),
        Clause("ahead-of-upper", when=F.snap_start > F.upper, then=rollback(F.upper), reason=AHEAD),
        Clause("snapshot-mismatch", when=otherwise, then=rollback(F.snap_start), reason=AHEAD),
    ),
)
