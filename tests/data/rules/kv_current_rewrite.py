"""kv-current rewritten: the same answers, different clauses.

* start-zero's guard is De Morgan'd;
* the uuid check comes before the purge check (both roll back to 0), and the
  purge guard's terms are in another order;
* the two snapshot adjustments are folded into the guards that read them;
* the last two clauses are one: rollback to min(upper, adjusted snap_start)...
  written as a choice between upper and the adjusted snapshot start.
"""

from spec.expr import ite
from spec.rules import Clause, F, RuleSet, accept, otherwise, rollback
from spec.rules.kv_current import AHEAD, collection_stream_done

snap_end = ite(F.start == F.snap_start, F.start, F.snap_end)
snap_start = ite(F.start == snap_end, F.start, F.snap_start)

RULES = RuleSet(
    name="kv-current-rewrite",
    summary="kv-current with folded adjustments and a merged last clause",
    steps=(
        Clause("start-zero", when=(F.start == 0) & ~(F.strict & (F.uuid != 0)), then=accept()),
        Clause(
            "uuid-not-found",
            when=~F.uuid_found & ((F.start != 0) | F.strict),
            then=rollback(0),
        ),
        Clause(
            "purge",
            when=(F.start != 0)
            & (F.remote_purge != F.purge_seqno)
            & (F.start < F.purge_seqno)
            & ~collection_stream_done,
            then=rollback(0),
        ),
        Clause("lagging", when=snap_end <= F.upper, then=accept()),
        Clause(
            "ahead",
            when=otherwise,
            then=rollback(ite(F.upper < snap_start, F.upper, snap_start)),
            reason=AHEAD,
        ),
    ),
)
