"""The producer side of the reference implementation: one vbucket, as plain data.

A ``VBucket`` is what docs/model.md calls a producer: a history of mutations
at seqnos ``1..high_seqno`` (each an ``Item`` that remembers the epoch that
wrote it), a failover table and a purge seqno. Its operations are the steps of
a scenario, written as ordinary code:

* ``VBucket.first``: the first producer (epoch 0, nothing purged);
* ``snapshots``: the snapshots of the initial stream, each with its marker
  range and the deduplicated items it sends;
* ``failover``: keep the history up to a branch seqno, append the new
  producer's mutations, add the branch to the failover table;
* ``compact``: set the purge seqno (tombstones at or below it are gone);
* ``stream_after``: what the producer sends after accepting a request;
* ``state``: the key -> last mutation map of the history.

What it does not model: collections, SyncWrites, persistence, checkpoints and
cursors, and in-stream backfills. Compaction does not remove items from the
history kept here: the history is the producer's sequence of mutations (the
trace reads it seqno by seqno), and the purge seqno is applied where it
matters, when the producer streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spec.failover_table import FailoverTable
from spec.scenario import Item, Mutation
from spec.types import ProducerState

__all__ = ["Snapshot", "VBucket", "last_per_key"]


@dataclass(frozen=True)
class Snapshot:
    """A snapshot of the stream: its marker range and the items it sends, by seqno."""

    snap_start: int
    snap_end: int
    items: tuple[Item, ...]


def last_per_key(items: Sequence[Item]) -> dict[int, Item]:
    """For each key, the item with the highest seqno among ``items``."""
    last: dict[int, Item] = {}
    for item in sorted(items):
        last[item.key] = item
    return last


class VBucket:
    """A producer: history ``items`` (seqno 1..high), failover ``table``, ``purge_seqno``."""

    def __init__(self, items: Sequence[Item], table: FailoverTable, purge_seqno: int = 0) -> None:
        for position, item in enumerate(items, start=1):
            if item.seqno != position:
                raise ValueError(
                    f"history must hold seqnos 1..n in order; got {item} at {position}"
                )
        self._items = list(items)
        self.table = table
        self.purge_seqno = purge_seqno

    @classmethod
    def first(cls, history: Sequence[Mutation], table: FailoverTable) -> VBucket:
        """The first producer: ``history`` written by epoch 0, nothing purged."""
        return cls(_write(history, first_seqno=1, epoch=0), table)

    @property
    def items(self) -> tuple[Item, ...]:
        """The whole history, in seqno order."""
        return tuple(self._items)

    @property
    def high_seqno(self) -> int:
        return len(self._items)

    def item_at(self, seqno: int) -> Item:
        if not 1 <= seqno <= self.high_seqno:
            raise ValueError(f"no mutation at seqno {seqno} (high seqno {self.high_seqno})")
        return self._items[seqno - 1]

    def items_between(self, low: int, high: int) -> list[Item]:
        """The mutations with ``low <= seqno <= high``, in seqno order."""
        return [item for item in self._items if low <= item.seqno <= high]

    # -- the initial stream --------------------------------------------------------

    def snapshot(self, snap_start: int, snap_end: int) -> Snapshot:
        """The snapshot ``[snap_start, snap_end]``: per key, its last mutation in the range."""
        deduplicated = last_per_key(self.items_between(snap_start, snap_end))
        return Snapshot(snap_start, snap_end, tuple(sorted(deduplicated.values())))

    def snapshots(self, first_snapshot_start: int, snapshot_ends: Sequence[int]) -> list[Snapshot]:
        """The snapshots of a stream from 0: the first starts at ``first_snapshot_start``,
        each later one at the previous end + 1."""
        out: list[Snapshot] = []
        snap_start = first_snapshot_start
        for snap_end in snapshot_ends:
            if not snap_start <= snap_end <= self.high_seqno:
                raise ValueError(f"snapshot [{snap_start}, {snap_end}] is not within the history")
            out.append(self.snapshot(snap_start, snap_end))
            snap_start = snap_end + 1
        return out

    def snapshots_after(
        self, start: int, snap_start: int, snap_end: int, disk: bool, ends: Sequence[int]
    ) -> list[Snapshot]:
        """The snapshots of an accepted stream from ``start``, as far as ``ends`` (those
        above ``start`` within the history) reach: the first marker starts at ``start``
        (``disk``: a backfill, always so from below the purge seqno, and then no snapshot
        ends below the purge seqno) or ``start + 1``, or at the request's ``snap_start`` if
        that is lower (kv_engine's ``ActiveStream::adjustStartIfFirstSnapshot``: the stream
        may resume a snapshot); each later one at the previous end + 1. The first ends no
        earlier than the request's ``snap_end`` (within the history): the snapshot the
        request resumes was sent whole to that end, so its rest comes in one snapshot.
        A snapshot sends, per key, its last mutation in the range above ``start``,
        unless that is a purged tombstone."""
        out: list[Snapshot] = []
        # Memory cannot serve seqnos at or below the purge seqno: from a start below it the
        # stream is a backfill that runs at least to the purge seqno.
        disk = disk or self.purge_seqno > start
        snap_start = min(start if disk else start + 1, snap_start)
        lowest_end = max(start + 1, self.purge_seqno, min(snap_end, self.high_seqno))
        for snap_end in (e for e in ends if lowest_end <= e <= self.high_seqno):
            last = last_per_key(self.items_between(max(snap_start, start + 1), snap_end))
            items = tuple(sorted(i for i in last.values() if not self.is_purged(i)))
            out.append(Snapshot(snap_start, snap_end, items))
            snap_start = snap_end + 1
        return out

    # -- what happens before the resume ----------------------------------------------

    def failover(self, branch: int, uuid: int, mutations: Sequence[Mutation], epoch: int) -> None:
        """The next producer: history up to ``branch``, then ``mutations`` written by ``epoch``."""
        if not 0 <= branch <= self.high_seqno:
            raise ValueError(f"branch {branch} is outside 0..{self.high_seqno}")
        kept = self._items[:branch]
        self._items = kept + _write(mutations, first_seqno=branch + 1, epoch=epoch)
        self.table = self.table.create_entry(branch, uuid)

    def compact(self, purge_seqno: int) -> None:
        """Purge every tombstone at or below ``purge_seqno``."""
        if not 0 <= purge_seqno <= self.high_seqno:
            raise ValueError(f"purge seqno {purge_seqno} is outside 0..{self.high_seqno}")
        self.purge_seqno = purge_seqno

    # -- serving a consumer ------------------------------------------------------------

    def producer_state(self) -> ProducerState:
        """What the producer's decision reads: table, high and purge seqnos."""
        return ProducerState(self.table, self.high_seqno, self.purge_seqno)

    def is_purged(self, item: Item) -> bool:
        """True for a tombstone that compaction removed."""
        return item.deleted and item.seqno <= self.purge_seqno

    def stream_after(self, start: int) -> dict[int, Item]:
        """What an accepted stream from ``start`` sends: key -> the key's last mutation in
        ``(start, high]``, leaving out keys whose last mutation there is a purged tombstone."""
        last = last_per_key(self.items_between(start + 1, self.high_seqno))
        return {key: item for key, item in last.items() if not self.is_purged(item)}

    def state(self, at: int | None = None) -> dict[int, Item]:
        """The history's state at seqno ``at`` (default: the high seqno): key -> last mutation."""
        upto = self.high_seqno if at is None else at
        return last_per_key(self.items_between(1, upto))

    def live_state(self) -> dict[int, Item]:
        """The keys whose last mutation is a SET, with that mutation."""
        return {key: item for key, item in self.state().items() if not item.deleted}


def _write(mutations: Sequence[Mutation], first_seqno: int, epoch: int) -> list[Item]:
    """``mutations`` as items at ``first_seqno, first_seqno + 1, ...`` written by ``epoch``."""
    return [
        Item(first_seqno + offset, epoch, mutation.key, mutation.deleted)
        for offset, mutation in enumerate(mutations)
    ]
