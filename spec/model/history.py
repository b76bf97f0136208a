"""Histories, failovers and the consumer's snapshots, as expressions.

``History``: a producer's mutations by seqno (key, deletion, epoch) and its
high seqno. ``producer_after_failovers`` applies the scenario's failovers to
the first history and table. ``InitialStream``: the snapshots the first
producer sent, which items survived deduplication, what the consumer holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from spec.expr import Expr, all_of, any_of, const, ite
from spec.model.scans import marker_ends, marker_starts
from spec.model.variables import ScenarioVars, failover_uuid
from spec.table_exprs import TableExprs

__all__ = ["History", "InitialStream", "producer_after_failovers"]


@dataclass(frozen=True)
class History:
    high: Expr
    key: dict[int, Expr]
    deleted: dict[int, Expr]
    epoch: dict[int, Expr]

    @property
    def seqnos(self) -> range:
        return range(1, len(self.key) + 1)

    def present(self, x: int) -> Expr:
        return const(x) <= self.high

    def last_of_key(self, key: Expr, above: Expr, upto: Expr) -> tuple[Expr, Expr]:
        """(exists, seqno) of the last mutation of ``key`` in ``(above, upto]``."""
        exists: Expr = const(False)
        seqno: Expr = const(0)
        for x in self.seqnos:
            hit = all_of(const(x) > above, const(x) <= upto, self.present(x), self.key[x] == key)
            exists = any_of(exists, hit)
            seqno = ite(hit, const(x), seqno)
        return exists, seqno

    def at(self, x: Expr) -> tuple[Expr, Expr, Expr]:
        """(key, deleted, epoch) of the mutation at a symbolic seqno ``x``."""
        key: Expr = const(0)
        deleted: Expr = const(False)
        epoch: Expr = const(0)
        for y in self.seqnos:
            here = x == y
            key, deleted, epoch = (
                ite(here, self.key[y], key),
                ite(here, self.deleted[y], deleted),
                ite(here, self.epoch[y], epoch),
            )
        return key, deleted, epoch


def first_history(v: ScenarioVars) -> History:
    return History(
        v["h0.high"],
        {x: v[f"h0.key.{x}"] for x in v.seqnos},
        {x: v[f"h0.del.{x}"] for x in v.seqnos},
        {x: const(0) for x in v.seqnos},
    )


def producer_after_failovers(v: ScenarioVars, resume: int = 0) -> tuple[History, TableExprs]:
    """The producer's history and failover table when the consumer resumes for the
    ``resume``-th time (from 0): after every failover before it."""
    history = first_history(v)
    slots = v.bounds.entries
    table = v.first_table.padded(slots)
    for f in v.failover_ids:
        on, branch = v[f"f{f}.on"], v[f"f{f}.branch"]
        if v.bounds.sessions > 1:
            on = on & (v.gap(f) <= resume)
        written = {x: on & (const(x) > branch) for x in history.seqnos}
        history = History(
            ite(on, v[f"f{f}.high"], history.high),
            {x: ite(written[x], v[f"f{f}.key.{x}"], history.key[x]) for x in history.seqnos},
            {x: ite(written[x], v[f"f{f}.del.{x}"], history.deleted[x]) for x in history.seqnos},
            {x: ite(written[x], const(f), history.epoch[x]) for x in history.seqnos},
        )
        created = table.create_entry(branch, const(failover_uuid(f)), slots, v.bounds.max_entries)
        table = created.choose(on, table)
    return history, table


class InitialStream:
    """The first producer's snapshots and what the consumer received of them."""

    def __init__(self, v: ScenarioVars) -> None:
        self.v = v
        self.history = first_history(v)
        self.seqnos = v.seqnos
        self.received = v["received"]

    def end(self, x: int) -> Expr:
        return self.v[f"snap.end.{x}"]

    @cached_property
    def first_start(self) -> Expr:
        return ite(self.v["snap.disk"], const(0), const(1))

    @cached_property
    def end_of(self) -> dict[int, Expr]:
        """The end of the snapshot containing x (0 if x is in none)."""
        return marker_ends({x: self.end(x) for x in self.seqnos}, self.seqnos)

    @cached_property
    def start_of(self) -> dict[int, Expr]:
        """The marker start of the snapshot containing x."""
        return marker_starts(self.first_start, {x: self.end(x) for x in self.seqnos}, self.seqnos)

    def inside(self, x: int) -> Expr:
        return self.end_of[x] != 0

    @cached_property
    def sent(self) -> dict[int, Expr]:
        """x survives deduplication: no later mutation of its key in its snapshot."""
        key = self.history.key
        sent: dict[int, Expr] = {}
        for x in self.seqnos:
            superseded: list[Expr] = []
            same_snapshot: Expr = const(True)
            for y in self.seqnos:
                if y <= x:
                    continue
                same_snapshot = same_snapshot & ~self.end(y - 1)
                superseded.append(same_snapshot & self.history.present(y) & (key[y] == key[x]))
            sent[x] = self.inside(x) & ~any_of(*superseded)
        return sent

    @cached_property
    def held(self) -> dict[int, Expr]:
        return {x: self.sent[x] & (const(x) <= self.received) for x in self.seqnos}

    @cached_property
    def boundary(self) -> dict[int, Expr]:
        """A snapshot ending at x was received whole: x is a consistent point."""
        return {x: self.end(x) & (const(x) <= self.received) for x in self.seqnos}

    def well_formed(self) -> Expr:
        """``received`` names a held item (or 0), so each scenario has one assignment."""
        names_item = [(self.received == x) & self.sent[x] for x in self.seqnos]
        return any_of(self.received == 0, *names_item)
