"""The consumer as a variant sees it, symbolically (the ``ConsumerView`` protocol).

Semantics as docs/model.md, "The resume": the same questions the reference
consumer answers with plain ints, answered here with expressions over the
scenario's variables. ``ConsumerState`` is what the resume loop threads from
round to round; ``SymbolicView`` presents it (with the data the consumer
received) to a variant.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter

from spec.consumers.api import ResumeRequest
from spec.expr import Expr, any_of, const, ite, lift, max_of
from spec.model.held import HeldData, highest_whole
from spec.model.scans import pick_step, snapshot_step
from spec.table_exprs import TableExprs

__all__ = ["ConsumerState", "SymbolicView", "first_offset", "offset_after_cut"]

ZERO = const(0)


@dataclass(frozen=True)
class ConsumerState:
    """Everything a consumer carries from one round to the next."""

    keep: Expr
    log: TableExprs
    claim: ResumeRequest | None  # None only while ``remembered`` computes it
    filter: Expr
    rolled_back: Expr
    rollback_seqno: Expr
    offset: tuple[Expr, Expr, Expr] = (ZERO, ZERO, ZERO)  # ConsumerView.offset


@dataclass(frozen=True)
class SymbolicView:
    stream: HeldData  # what the consumer holds (the initial stream's, or after a cut)
    state: ConsumerState
    producer_log: TableExprs

    # The state's fields, as ConsumerView names them (Expr; log: TableExprs).
    keep = property(attrgetter("state.keep"))
    log = property(attrgetter("state.log"))
    filter = property(attrgetter("state.filter"))
    rolled_back = property(attrgetter("state.rolled_back"))
    rollback_seqno = property(attrgetter("state.rollback_seqno"))
    offset = property(attrgetter("state.offset"))

    @property
    def claim(self) -> ResumeRequest:
        if self.state.claim is None:
            raise ValueError("the claim is not known yet: remembered() is computing it")
        return self.state.claim

    @cached_property
    def last(self) -> Expr:
        last: Expr = const(0)
        for x in self.stream.seqnos:
            last = pick_step(last, self.stream.held[x] & (const(x) <= self.keep), x)
        return last

    def held_at_or_below(self, seqno: Expr | int) -> Expr:
        return self._highest(self.stream.held, seqno)

    def snapshot_of(self, seqno: Expr | int) -> tuple[Expr, Expr]:
        return _marker_of(self.stream, seqno)

    def consistent_at_or_below(self, seqno: Expr | int) -> Expr:
        return self._highest(self.stream.boundary, seqno)

    def entries_between(self, low: Expr | int, high: Expr | int) -> Expr:
        low, high = lift(low), lift(high)
        data, xs = self.stream, self.stream.seqnos
        kept = {x: data.held[x] & (const(x) <= self.keep) & (const(x) <= high) for x in xs}
        count: Expr = const(0)
        for x in xs:
            newer = [kept[y] & (data.key[y] == data.key[x]) for y in xs if y > x]
            version = kept[x] & ~any_of(*newer)
            count = count + ite(version & (low <= x), const(1), const(0))
        return count

    def _highest(self, marked: dict[int, Expr], seqno: Expr | int) -> Expr:
        """The highest seqno x that is ``marked``, at most ``seqno`` and kept; 0 if none."""
        bound = lift(seqno)
        point: Expr = const(0)
        for x in self.stream.seqnos:
            here = marked[x] & (const(x) <= bound) & (const(x) <= self.keep)
            point = pick_step(point, here, x)
        return point


def _marker_of(data: HeldData, seqno: Expr | int) -> tuple[Expr, Expr]:
    """The marker ``data`` knows for ``seqno``; ``(seqno, seqno)`` if none covers it."""
    seqno = lift(seqno)
    start, end = seqno, seqno
    for x in reversed(data.seqnos):
        here = (seqno == x) & data.inside(x)
        start, end = snapshot_step((start, end), here, data.start_of[x], data.end_of[x])
    return start, end


def first_offset(data: HeldData, keep: Expr) -> tuple[Expr, Expr, Expr]:
    """The offset after the initial stream (from 0): its last item, which is the last
    held one (nothing was dropped yet), and that item's marker; (0, 0, 0) if none."""
    last: Expr = ZERO
    for x in data.seqnos:
        last = pick_step(last, data.held[x] & (const(x) <= keep), x)
    return (last, *_marker_of(data, last))


def offset_after_cut(
    data: HeldData, last_got: Expr, opened: tuple[Expr, Expr, Expr], seqno_advanced: bool
) -> tuple[Expr, Expr, Expr]:
    """The offset after a stream opened at ``opened`` (start, snap_start, snap_end) was
    cut: its last delivered item ``last_got`` and that item's marker (the stream's, in
    ``data``), or ``opened`` when it delivered none (``last_got`` 0). With
    ``seqno_advanced`` (``ConsumerVariant.seqno_advanced``) the end of the stream's last
    snapshot received whole counts as an event too (SeqnoAdvanced when its last item was
    not sent)."""
    if seqno_advanced:
        above = {x: w & (const(x) > opened[0]) for x, w in data.boundary.items()}
        last_got = max_of(last_got, highest_whole(above))
    start, end = _marker_of(data, last_got)
    event = last_got > 0
    return (
        ite(event, last_got, opened[0]),
        ite(event, start, opened[1]),
        ite(event, end, opened[2]),
    )
