"""What the consumer holds, seqno by seqno, as expressions: after the initial stream,
and after each resumed stream that was cut short (docs/model.md, "Several sessions").

``HeldData`` has, for every seqno x: whether the consumer holds an item there
(``held``) and that item's key, deletion flag and epoch; the range of the
snapshot marker it knows for x (``start_of``, ``end_of``; ``end_of`` 0 when no
marker covers x); whether a snapshot it received whole ends at x
(``boundary``). ``after_cut`` is the data once the stream of an accepted
request ran up to the cut, and how far the consumer got that stream whole (the
received prefix, a ghost of the induction over resumes); the reference consumer
(``spec.reference.consumer``) does the same with plain ints.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec.expr import Expr, any_of, const, ite, max_of, min_of
from spec.model.history import History, InitialStream
from spec.model.scans import marker_ends, marker_starts

__all__ = ["CutVars", "HeldData", "highest_whole"]


def highest_whole(boundary: dict[int, Expr]) -> Expr:
    """The end of the highest snapshot held whole (``HeldData.boundary``), 0 if none."""
    return max_of(const(0), *(ite(ends, const(x), const(0)) for x, ends in boundary.items()))


@dataclass(frozen=True)
class CutVars:
    """A resumed stream cut short: its first marker is a backfill's (``disk``), its
    snapshots end at ``ends[x]``, the consumer received its items <= ``received``."""

    disk: Expr
    ends: dict[int, Expr]
    received: Expr


@dataclass(frozen=True)
class HeldData:
    """What the consumer holds at each seqno of ``seqnos`` (the module's docstring says
    what each field is)."""

    seqnos: range
    held: dict[int, Expr]
    key: dict[int, Expr]
    deleted: dict[int, Expr]
    epoch: dict[int, Expr]
    start_of: dict[int, Expr]
    end_of: dict[int, Expr]
    boundary: dict[int, Expr]

    @classmethod
    def initial(cls, stream: InitialStream) -> HeldData:
        """What the consumer holds when the initial stream ends."""
        zero = {x: const(0) for x in stream.seqnos}
        return cls(
            stream.seqnos,
            stream.held,
            stream.history.key,
            stream.history.deleted,
            zero,
            stream.start_of,
            stream.end_of,
            stream.boundary,
        )

    def inside(self, x: int) -> Expr:
        return self.end_of[x] != 0

    def after_cut(
        self,
        keep: Expr,
        drop_upto: Expr,
        start: Expr,
        snap_start: Expr,
        snap_end: Expr,
        producer: History,
        purge: Expr,
        cut: CutVars,
    ) -> tuple[HeldData, Expr, Expr, Expr]:
        """(data, keep, upto, last_got) once the stream of a request (``start``, ``snap_start``,
        ``snap_end``), accepted while the consumer kept items <= ``keep`` and filtered
        re-streamed items <= ``drop_upto``, ran up to the cut. A stored item takes its
        seqno's place and supersedes the consumer's items of its key above it; markers and
        whole snapshots above ``start`` are the stream's. ``upto``: the received prefix,
        the seqno (at least ``start``) up to which the consumer got every item the
        stream sent (the cut, or the stream's last snapshot end if lower); it changes
        nothing the consumer does. ``last_got``: the last item the stream delivered (0
        if none), filtered or not: what a client's own offset moves to."""
        xs = self.seqnos
        p = producer
        # Memory cannot serve seqnos at or below the purge seqno: from a start below it the
        # stream is a backfill that runs at least to the purge seqno.
        backfill = cut.disk | (purge > start)
        # The snapshot the request resumes was sent whole to the end it claims: the stream's
        # first snapshot runs at least that far (within the history).
        lowest = max_of(purge, min_of(snap_end, p.high))
        ends = {
            x: cut.ends[x] & (const(x) > start) & (const(x) >= lowest) & p.present(x) for x in xs
        }
        new_end = marker_ends(ends, xs)
        # kv_engine's first marker starts no later than the request's snap_start
        # (ActiveStream::adjustStartIfFirstSnapshot: the stream may resume a snapshot).
        new_start = marker_starts(min_of(ite(backfill, start, start + 1), snap_start), ends, xs)
        sent: dict[int, Expr] = {}
        for x in xs:
            superseded: list[Expr] = []
            same_snapshot: Expr = const(True)
            for y in xs:
                if y <= x:
                    continue
                same_snapshot = same_snapshot & ~ends[y - 1]
                superseded.append(same_snapshot & p.present(y) & (p.key[y] == p.key[x]))
            purged = p.deleted[x] & (const(x) <= purge)
            streamed = (const(x) > start) & (new_end[x] != 0)
            sent[x] = streamed & ~any_of(*superseded) & ~purged
        got = {x: sent[x] & (const(x) <= cut.received) for x in xs}
        stored = {x: got[x] & (const(x) > drop_upto) for x in xs}
        held: dict[int, Expr] = {}
        for x in xs:
            newer = [stored[y] & (p.key[y] == self.key[x]) for y in xs if y < x]
            kept = self.held[x] & (const(x) <= keep) & ~stored[x] & ~any_of(*newer)
            held[x] = stored[x] | kept
        above = {x: const(x) > start for x in xs}
        data = HeldData(
            xs,
            held,
            {x: ite(stored[x], p.key[x], self.key[x]) for x in xs},
            {x: ite(stored[x], p.deleted[x], self.deleted[x]) for x in xs},
            {x: ite(stored[x], p.epoch[x], self.epoch[x]) for x in xs},
            {x: ite(above[x], new_start[x], self.start_of[x]) for x in xs},
            {x: ite(above[x], new_end[x], self.end_of[x]) for x in xs},
            {
                x: ite(
                    above[x],
                    ends[x] & (const(x) <= cut.received),
                    self.boundary[x] & (const(x) <= keep),
                )
                for x in xs
            },
        )
        last_got = max_of(const(0), *(ite(got[x], const(x), const(0)) for x in xs))
        last_end = max_of(const(0), *(ite(ends[x], const(x), const(0)) for x in xs))
        upto = max_of(start, min_of(cut.received, last_end))
        return data, max_of(keep, last_got), upto, last_got
