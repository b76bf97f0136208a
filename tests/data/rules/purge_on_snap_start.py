"""``purge-on-snap-start``: kv-current, but the purge clause tests the snapshot start.

rollback.md says the producer rolls a consumer back to 0 when its
*snapshot start* is below the purge seqno; kv_engine tests the start seqno.
kv-current's steps, the purge clause changed to the document's choice
(docs/authoring-rules.md walks through the change; its other steps are kv-current's).
"""

from spec.rules import Clause, F, RuleSet, rollback
from spec.rules.kv_current import RULES as KV_CURRENT
from spec.rules.kv_current import collection_stream_done

assert KV_CURRENT.steps[1].name == "purge"

RULES = RuleSet(
    name="purge-on-snap-start",
    summary="kv-current, with the purge test on snap_start as rollback.md says",
    steps=(
        KV_CURRENT.steps[0],  # start-zero
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
        *KV_CURRENT.steps[2:],  # uuid-not-found and on, as kv-current
    ),
)
