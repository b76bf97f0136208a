"""``collapse-snapshot``: the mistake seed 001 warns about.

Mid-snapshot, this consumer reports ``{start, start}`` as its snapshot range
(as if the snapshot it is in were complete at its last item). Otherwise, and
on rollback, it behaves as ``correct``.
"""

from spec.consumers.api import ConsumerView, ResumeRequest
from spec.consumers.correct import Correct
from spec.expr import ite


class CollapseSnapshot(Correct):
    name = "collapse-snapshot"
    summary = "reports {start,start} as its snapshot mid-snapshot (seed 001's mistake)"

    def request(self, view: ConsumerView) -> ResumeRequest:
        last = view.last
        snap_start, snap_end = view.snapshot_of(last)
        mid_snapshot = last < snap_end
        return ResumeRequest(
            view.log.latest_uuid,
            last,
            ite(mid_snapshot, last, snap_start),
            ite(mid_snapshot, last, snap_end),
        )


VARIANT = CollapseSnapshot()
