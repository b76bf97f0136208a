"""Deliberately broken consumer variants, for tests that must see violations."""

from __future__ import annotations

from spec.consumers import ConsumerView, LogView, ResumeRequest, Truncation
from spec.consumers.correct import Correct
from spec.expr import Expr, ite


class NeverTruncates(Correct):
    """Asks as ``correct`` does but ignores ROLLBACK: keeps everything and asks again
    (bounded-rollback breaks)."""

    name = "never-truncates"
    summary = "asks again without truncating"

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Truncation:
        return Truncation(view.keep, view.log)


class StartsFromZeroKeepingData(NeverTruncates):
    """Claims to start from 0 but keeps its items (no-foreign-snapshot breaks)."""

    name = "zero-keeps-data"
    summary = "reports start 0, keeps its data"

    def request(self, view: ConsumerView) -> ResumeRequest:
        return ResumeRequest(0, 0, 0, 0)


class SnapshotEndOffByOne(Correct):
    """Reports its snapshot's end minus one (valid-request breaks)."""

    name = "snap-end-off-by-one"
    summary = "reports snap_end - 1"

    def request(self, view: ConsumerView) -> ResumeRequest:
        start, end = view.snapshot_of(view.last)
        return ResumeRequest(view.log.latest_uuid, view.last, start, ite(end > 0, end - 1, end))


BROKEN = (NeverTruncates(), StartsFromZeroKeepingData(), SnapshotEndOffByOne())
