"""Each catalogued fix with one of its changes taken back: every one must be unsafe.

A fix is the smallest we found when each of its changes is needed: take any
one back and a safety property breaks again. docs/clients.md cites these
(``tests/test_client_fixes.py`` checks them).
"""

from __future__ import annotations

from spec.consumers import ConsumerVariant, ConsumerView, LogView, Reaction, ResumeRequest
from spec.consumers.clients.cbgt import CbgtFixed
from spec.consumers.clients.go_dcp import GoDcpFixed
from spec.consumers.clients.java_dcp_client import JavaDcpClient
from spec.expr import Expr, ite


class JavaDropsAboveR(JavaDcpClient):
    """java-dcp-client whose application drops its data above R, still claiming (R,R,R)."""

    name = "java-drops-above-r"

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        r = rollback_seqno
        return Reaction(keep=r, claim=view.claim.at(r), log=view.log.pruned(r))


class JavaResumesAtWholeSnapshotKeepingData(JavaDcpClient):
    """java-dcp-client resuming from a whole snapshot <= R, its application keeping its data."""

    name = "java-whole-snapshot-keeps-data"

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        point = view.consistent_at_or_below(rollback_seqno)
        return Reaction(claim=view.claim.at(point), log=view.log.pruned(point))


class GoFixedWithIgnorePurged(GoDcpFixed):
    """go-dcp-fixed, but still sending 0x80 (IgnorePurgedTombstones) on its checkpoint."""

    name = "go-fixed-ignore-purged"
    ignore_purged = True

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        reaction = super().on_rollback(view, rollback_seqno, log)
        assert reaction.claim is not None
        return Reaction(keep=reaction.keep, claim=reaction.claim.but(ignore_purged=False))


class GoFixedWithCatchUp(GoDcpFixed):
    """go-dcp-fixed, but still dropping re-streamed events up to its old checkpoint."""

    name = "go-fixed-catch-up"

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        reaction = super().on_rollback(view, rollback_seqno, log)
        return Reaction(keep=reaction.keep, claim=reaction.claim, filter=view.claim.start)


class GoFixedKeepingData(GoDcpFixed):
    """go-dcp-fixed, but the listener is not told: the application keeps its data."""

    name = "go-fixed-keeps-data"

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        return Reaction(claim=super().on_rollback(view, rollback_seqno, log).claim)


class GoFixedAtR(GoDcpFixed):
    """go-dcp-fixed, but resuming from (R,R,R) as openStreamWithRollback does."""

    name = "go-fixed-at-r"

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        r = rollback_seqno
        return Reaction(keep=r, claim=view.claim.at(r, uuid=log.covering(r)))


class CbgtFixedCollapsing(CbgtFixed):
    """cbgt-fixed, but still sending snapshot {start, start}."""

    name = "cbgt-fixed-collapsing"

    def request(self, view: ConsumerView) -> ResumeRequest:
        return view.claim.at(view.claim.start)


class CbgtFixedKeepingData(CbgtFixed):
    """cbgt-fixed, but Sync Gateway keeps what it derived above the resume point."""

    name = "cbgt-fixed-keeps-data"

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        reaction = super().on_rollback(view, rollback_seqno, log)
        return Reaction(claim=reaction.claim, log=reaction.log)


class CbgtFixedAtR(CbgtFixed):
    """cbgt-fixed, but resuming from (R,R,R) as Sync Gateway's RollbackEx writes it."""

    name = "cbgt-fixed-at-r"

    def on_rollback(self, view: ConsumerView, rollback_seqno: Expr, log: LogView) -> Reaction:
        r = rollback_seqno
        uuid = ite(r == 0, 0, view.log.covering(r))
        return Reaction(keep=r, claim=view.claim.at(r, uuid=uuid), log=view.log.single(uuid))


# fix -> (the change taken back, the variant without it)
ABLATIONS: dict[str, list[tuple[str, ConsumerVariant]]] = {
    "java-dcp-client-fixed": [
        ("resume from a whole snapshot, not R", JavaDropsAboveR()),
        ("drop the data above it", JavaResumesAtWholeSnapshotKeepingData()),
    ],
    "go-dcp-fixed": [
        ("no IgnorePurgedTombstones", GoFixedWithIgnorePurged()),
        ("no catch-up filter", GoFixedWithCatchUp()),
        ("drop the data above the resume point", GoFixedKeepingData()),
        ("resume from a whole snapshot, not R", GoFixedAtR()),
    ],
    "cbgt-fixed": [
        ("send the real snapshot", CbgtFixedCollapsing()),
        ("drop the data above the resume point", CbgtFixedKeepingData()),
        ("resume from a whole snapshot, not R", CbgtFixedAtR()),
    ],
}

__all__ = ["ABLATIONS"]
