"""A failover table of bounded length, in the expression language.

``TableExprs`` is the symbolic twin of ``spec.failover_table.FailoverTable``:
``slots`` positions, newest first, the first ``length`` of them live (the rest
pinned to 0). Its operations are kv_engine's, written as expressions:
``lookup`` (uuid found, upper), ``create_entry``, ``pruned``, ``covering``.
It is also the ``LogView`` a consumer variant sees in the symbolic model.

Tables are assumed sorted (seqnos non-increasing), as every table kv_engine
keeps is: entries above a seqno are then a prefix of the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spec.expr import Expr, all_of, any_of, const, ite, lift, min_of

__all__ = ["TableExprs", "count", "lookup_step", "select"]


def select(values: Sequence[Expr], index: Expr, default: Expr | int = 0) -> Expr:
    """``values[index]`` for a symbolic index; ``default`` when out of range."""
    result = lift(default)
    for i in range(len(values) - 1, -1, -1):
        result = ite(index == i, values[i], result)
    return result


def lookup_step(
    found: Expr, upper: Expr, live: Expr, entry_uuid: Expr, uuid: Expr, newer_seqno: Expr
) -> tuple[Expr, Expr]:
    """One entry of kv_engine's lookup walk (newest to oldest): a live entry with the
    consumer's uuid is a match, and ``upper`` becomes the seqno of the entry newer than
    it (the high seqno for the newest)."""
    match = all_of(live, entry_uuid == uuid)
    return any_of(found, match), ite(match, newer_seqno, upper)


def count(conditions: Sequence[Expr]) -> Expr:
    total: Expr = const(0)
    for condition in conditions:
        total = total + ite(condition, const(1), const(0))
    return total


@dataclass(frozen=True)
class TableExprs:
    length: Expr
    uuid: tuple[Expr, ...]
    seq: tuple[Expr, ...]

    @property
    def slots(self) -> int:
        return len(self.uuid)

    def live(self, i: int) -> Expr:
        return const(i) < self.length

    # -- the producer's lookup (kv_engine walks from the oldest entry) -----------------
    def lookup(self, uuid: Expr, high_seqno: Expr) -> tuple[Expr, Expr]:
        """(uuid is in the table, upper); the oldest matching entry wins."""
        found: Expr = const(False)
        upper: Expr = high_seqno
        for i in range(self.slots):
            newer = high_seqno if i == 0 else self.seq[i - 1]
            found, upper = lookup_step(found, upper, self.live(i), self.uuid[i], uuid, newer)
        return found, upper

    # -- LogView (spec.consumers.api) -----------------------------------------------------
    @property
    def latest_uuid(self) -> Expr:
        return ite(self.length > 0, self.uuid[0], const(0))

    def _above(self, seqno: Expr) -> Expr:
        """How many live entries lie above ``seqno`` (a prefix of a sorted table)."""
        return count([all_of(self.live(i), self.seq[i] > seqno) for i in range(self.slots)])

    def _at_or_below(self, seqno: Expr) -> Expr:
        """How many live entries lie at or below ``seqno``: ``length - _above(seqno)``,
        counted rather than subtracted, so it is plainly within ``[0, slots]``."""
        return count([all_of(self.live(i), self.seq[i] <= seqno) for i in range(self.slots)])

    @property
    def oldest_uuid(self) -> Expr:
        return self.uuid_at(self.length - 1)

    def uuid_at(self, position: Expr | int) -> Expr:
        """The uuid at ``position`` (0 is the newest); 0 past the end."""
        index = lift(position)
        return ite(index < self.length, select(self.uuid, index), const(0))

    def seqno_at(self, position: Expr | int) -> Expr:
        """The seqno at ``position`` (0 is the newest); 0 past the end."""
        index = lift(position)
        return ite(index < self.length, select(self.seq, index), const(0))

    def covering(self, seqno: Expr | int) -> Expr:
        return self.uuid_at(self._above(lift(seqno)))

    def dropped(self, how_many: Expr | int) -> TableExprs:
        """The log without its ``how_many`` newest entries."""
        drop = lift(how_many)
        kept = count([all_of(self.live(i), drop <= i) for i in range(self.slots)])
        return self._shifted(ite(drop < self.length, drop, self.length), kept, self.slots)

    def single(self, uuid: Expr | int, seqno: Expr | int = 0) -> TableExprs:
        """A one-entry log ``(uuid, seqno)`` with as many slots as this one."""
        zeros = (const(0),) * (self.slots - 1)
        return TableExprs(const(1), (lift(uuid), *zeros), (lift(seqno), *zeros))

    def pruned(self, seqno: Expr | int) -> TableExprs:
        """The entries at or below ``seqno`` (kv_engine's prune, without refilling)."""
        seqno = lift(seqno)
        return self._shifted(self._above(seqno), self._at_or_below(seqno), self.slots)

    def _shifted(self, drop: Expr, length: Expr, slots: int, offset: int = 0) -> TableExprs:
        """Drop the first ``drop`` entries, keeping ``length`` (the rest); the kept ones
        start at position ``offset``."""
        uuids, seqs = [], []
        for j in range(offset, slots):
            source = drop + (j - offset)
            live = const(j - offset) < length
            uuids.append(ite(live, select(self.uuid, source), const(0)))
            seqs.append(ite(live, select(self.seq, source), const(0)))
        return TableExprs(length, tuple(uuids), tuple(seqs))

    # -- the producer's table operations --------------------------------------------------
    def create_entry(self, seqno: Expr, uuid: Expr, slots: int, max_entries: int) -> TableExprs:
        """Drop entries above ``seqno``, push ``(uuid, seqno)``, cap at ``max_entries``."""
        kept = self._shifted(self._above(seqno), self._at_or_below(seqno), slots, offset=1)
        length = min_of(kept.length + 1, const(min(max_entries, slots)))
        uuids = [uuid, *kept.uuid[: slots - 1]]
        seqs = [seqno, *kept.seq[: slots - 1]]
        for j in range(1, slots):
            live = const(j) < length
            uuids[j] = ite(live, uuids[j], const(0))
            seqs[j] = ite(live, seqs[j], const(0))
        return TableExprs(length, tuple(uuids), tuple(seqs))

    def choose(self, condition: Expr, other: TableExprs) -> TableExprs:
        """``self`` if ``condition`` else ``other`` (same number of slots)."""
        slots = max(self.slots, other.slots)
        a, b = self.padded(slots), other.padded(slots)
        return TableExprs(
            ite(condition, a.length, b.length),
            tuple(ite(condition, x, y) for x, y in zip(a.uuid, b.uuid, strict=True)),
            tuple(ite(condition, x, y) for x, y in zip(a.seq, b.seq, strict=True)),
        )

    def padded(self, slots: int) -> TableExprs:
        extra = slots - self.slots
        if extra <= 0:
            return self
        zeros = (const(0),) * extra
        return TableExprs(self.length, self.uuid + zeros, self.seq + zeros)

    def well_formed(self, distinct_uuids: bool = True) -> Expr:
        """Length within the slots, live uuids non-zero (and distinct), seqnos non-increasing."""
        parts = [const(1) <= self.length, self.length <= self.slots]
        for i in range(self.slots):
            live = self.live(i)
            parts.append(~live | (self.uuid[i] != 0))
            parts.append(live | ((self.uuid[i] == 0) & (self.seq[i] == 0)))
            if i > 0:
                parts.append(~live | (self.seq[i] <= self.seq[i - 1]))
            if distinct_uuids:
                parts.extend(~live | (self.uuid[i] != self.uuid[j]) for j in range(i))
        return all_of(*parts)
