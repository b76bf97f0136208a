"""The consumer as a variant sees it, symbolically (the ``ConsumerView`` protocol).

Semantics as docs/model.md, "The resume": the same questions the reference
consumer answers with plain ints, answered here with expressions over the
scenario's variables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from spec.expr import Expr, const, ite, lift
from spec.model.history import InitialStream
from spec.model.table import TableExprs

__all__ = ["SymbolicView"]


@dataclass(frozen=True)
class SymbolicView:
    stream: InitialStream
    keep: Expr
    log: TableExprs

    @cached_property
    def last(self) -> Expr:
        last: Expr = const(0)
        for x in self.stream.seqnos:
            last = ite(self.stream.held[x] & (const(x) <= self.keep), const(x), last)
        return last

    def snapshot_of(self, seqno: Expr) -> tuple[Expr, Expr]:
        seqno = lift(seqno)
        start, end = seqno, seqno
        for x in reversed(self.stream.seqnos):
            here = (seqno == x) & self.stream.inside(x)
            start = ite(here, self.stream.start_of[x], start)
            end = ite(here, self.stream.end_of[x], end)
        return start, end

    def consistent_at_or_below(self, seqno: Expr) -> Expr:
        seqno = lift(seqno)
        point: Expr = const(0)
        for x in self.stream.seqnos:
            ok = self.stream.boundary[x] & (const(x) <= seqno) & (const(x) <= self.keep)
            point = ite(ok, const(x), point)
        return point
