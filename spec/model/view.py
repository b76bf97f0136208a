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
from spec.expr import Expr, any_of, const, ite, lift
from spec.model.held import HeldData
from spec.model.scans import pick_step, snapshot_step
from spec.table_exprs import TableExprs

__all__ = ["ConsumerState", "SymbolicView"]


@dataclass(frozen=True)
class ConsumerState:
    """Everything a consumer carries from one round to the next."""

    keep: Expr
    log: TableExprs
    claim: ResumeRequest | None  # None only while ``remembered`` computes it
    filter: Expr
    rolled_back: Expr
    rollback_seqno: Expr


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
        seqno = lift(seqno)
        start, end = seqno, seqno
        for x in reversed(self.stream.seqnos):
            here = (seqno == x) & self.stream.inside(x)
            start, end = snapshot_step(
                (start, end), here, self.stream.start_of[x], self.stream.end_of[x]
            )
        return start, end

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
