"""``correct``: the consumer kv_engine's documents ask for.

On resume it reports the range of the snapshot its last item came from
(rollback.md: "The consumer should store those values"). On ROLLBACK(R) it
replaces its failover log with the producer's, drops everything above the
highest point at or below R where its data is consistent (0 or the end of a
snapshot received whole), and resumes from there with the uuid of the
producer's branch that covers that point.
"""

from spec.consumers.api import ConsumerVariant, ConsumerView, LogView, ResumeRequest, Truncation
from spec.expr import Expr


class Correct(ConsumerVariant):
    name = "correct"
    summary = "reports the snapshot its last item came from; truncates to a consistent point"

    def request(self, view: ConsumerView) -> ResumeRequest:
        snap_start, snap_end = view.snapshot_of(view.last)
        return ResumeRequest(view.log.latest_uuid, view.last, snap_start, snap_end)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Truncation:
        keep = view.consistent_at_or_below(rollback_seqno)
        return Truncation(keep, producer_log.pruned(keep))


VARIANT = Correct()
