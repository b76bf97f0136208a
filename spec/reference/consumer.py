"""The consumer side of the reference implementation, and the view variants read.

``ReferenceConsumer`` is a DCP consumer as docs/model.md describes it: it
receives snapshot markers and items, holds every item it received (several
versions of a key may be held; the consumer's version of a key is its
highest held item of that key at or below ``keep``), knows which snapshots it
received whole (their ends are its consistent points, with 0), keeps a
failover log, and truncates on rollback.

It also carries what a client remembers between rounds (interface v2): the
request it will claim, the catch-up filter, whether and where it was rolled
back in this resume; ``react`` applies a variant's ``Reaction`` to all of it.

``ReferenceView`` and ``ReferenceLog`` present that state to a consumer
variant through the ``ConsumerView`` and ``LogView`` protocols of
``spec.consumers.api``. Every answer is computed by plain code and returned
as a constant expression (``spec.expr.const``); arguments must be constant
expressions (or plain ints).

What it does not model: persistence (a held item is simply kept), collections,
several streams, and anything a real consumer does between disconnect and
resume other than what the variant decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from spec.consumers.api import Reaction, ResumeRequest
from spec.expr import INT, Expr, const, evaluate, lift
from spec.failover_table import FailoverEntry, FailoverTable
from spec.reference.vbucket import Snapshot
from spec.scenario import Item

__all__ = ["Marker", "Memory", "ReferenceConsumer", "ReferenceLog", "ReferenceView", "int_value"]


def int_value(value: Expr | int, what: str = "value") -> int:
    """The integer a constant expression (or plain int) stands for."""
    expr = lift(value)
    if expr.sort is not INT:
        raise TypeError(f"{what} must be an integer expression, got `{expr}`")
    result = evaluate(expr, {})
    assert isinstance(result, int)
    return result


@dataclass(frozen=True)
class Marker:
    """A snapshot marker: the snapshot ``[snap_start, snap_end]``, known for the seqnos
    in ``(above, upto]`` (a later stream from ``s`` replaces what the consumer knew above
    ``s``; a stream from ``s`` covers only seqnos above ``s``)."""

    snap_start: int
    snap_end: int
    above: int = -1
    upto: int | None = None

    def contains(self, seqno: int) -> bool:
        """True if an item at ``seqno`` belongs to this snapshot (seqno 0 is no item's)."""
        if seqno <= self.above or (self.upto is not None and seqno > self.upto):
            return False
        return seqno >= 1 and self.snap_start <= seqno <= self.snap_end

    def below(self, seqno: int) -> Marker:
        """This marker, known only at or below ``seqno``."""
        upto = seqno if self.upto is None else min(self.upto, seqno)
        return Marker(self.snap_start, self.snap_end, self.above, upto)


class ReferenceLog:
    """A failover log, newest entry first; unlike a ``FailoverTable`` it may be empty."""

    def __init__(self, entries: Iterable[FailoverEntry]) -> None:
        self.entries = tuple(entries)

    @classmethod
    def of_table(cls, table: FailoverTable) -> ReferenceLog:
        return cls(table.entries)

    @property
    def length(self) -> Expr:
        return const(len(self.entries))

    @property
    def latest_uuid(self) -> Expr:
        """The newest entry's uuid; 0 for an empty log."""
        return const(self.entries[0].uuid if self.entries else 0)

    @property
    def oldest_uuid(self) -> Expr:
        """The oldest entry's uuid; 0 for an empty log."""
        return const(self.entries[-1].uuid if self.entries else 0)

    def uuid_at(self, position: Expr | int) -> Expr:
        """The uuid at ``position`` (0 is the newest); 0 past the end."""
        i = int_value(position, "uuid_at(position)")
        return const(self.entries[i].uuid if i < len(self.entries) else 0)

    def seqno_at(self, position: Expr | int) -> Expr:
        """The seqno at ``position`` (0 is the newest); 0 past the end."""
        i = int_value(position, "seqno_at(position)")
        return const(self.entries[i].seqno if i < len(self.entries) else 0)

    def dropped(self, count: Expr | int) -> ReferenceLog:
        """The log without its ``count`` newest entries."""
        return ReferenceLog(self.entries[int_value(count, "dropped(count)") :])

    def choose(self, condition: Expr | bool, other: ReferenceLog) -> ReferenceLog:
        """This log if ``condition`` holds, else ``other``."""
        return self if evaluate(lift(condition), {}) else other

    def single(self, uuid: Expr | int, seqno: Expr | int = 0) -> ReferenceLog:
        """A log of one entry ``(uuid, seqno)``."""
        return ReferenceLog([FailoverEntry(int_value(uuid, "uuid"), int_value(seqno, "seqno"))])

    def covering(self, seqno: Expr | int) -> Expr:
        """The uuid of the newest entry with seqno <= ``seqno``; 0 if there is none."""
        x = int_value(seqno, "covering(seqno)")
        for entry in self.entries:
            if entry.seqno <= x:
                return const(entry.uuid)
        return const(0)

    def pruned(self, seqno: Expr | int) -> ReferenceLog:
        """The log without its entries above ``seqno`` (possibly empty)."""
        x = int_value(seqno, "pruned(seqno)")
        return ReferenceLog(entry for entry in self.entries if entry.seqno <= x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReferenceLog) and self.entries == other.entries

    def __hash__(self) -> int:
        return hash(self.entries)

    def __repr__(self) -> str:
        pairs = ", ".join(f"({e.uuid}, {e.seqno})" for e in self.entries)
        return f"ReferenceLog([{pairs}])"


@dataclass(frozen=True)
class Memory:
    """What a client remembers between rounds, apart from its data and log."""

    claim: ResumeRequest
    filter: int = 0
    rolled_back: bool = False
    rollback_seqno: int = 0


class ReferenceView:
    """The consumer's state when it resumes, as a variant sees it (a frozen copy)."""

    def __init__(
        self,
        keep: int,
        held: Iterable[int],
        markers: Iterable[Marker],
        consistent_points: Iterable[int],
        log: ReferenceLog,
        producer_log: ReferenceLog,
        memory: Memory | None = None,
        keys: Mapping[int, int] | None = None,
        offset: tuple[int, int, int] = (0, 0, 0),
    ) -> None:
        self._offset = offset
        self._keep = keep
        self._held = tuple(sorted(x for x in held if x <= keep))
        self._keys = dict(keys or {})  # seqno -> key of each held item
        self._markers = tuple(markers)
        self._consistent_points = tuple(sorted(set(consistent_points) | {0}))
        self._log = log
        self._producer_log = producer_log
        self._memory = memory

    @property
    def last(self) -> Expr:
        """The highest seqno of a held item at or below keep (0 if none)."""
        return self.held_at_or_below(self._keep)

    @property
    def keep(self) -> Expr:
        """The consumer holds no item above this seqno."""
        return const(self._keep)

    def held_at_or_below(self, seqno: Expr | int) -> Expr:
        """The highest seqno of a held item at or below ``seqno`` (0 if none)."""
        bound = int_value(seqno, "held_at_or_below(seqno)")
        return const(max((x for x in self._held if x <= bound), default=0))

    def snapshot_of(self, seqno: Expr | int) -> tuple[Expr, Expr]:
        """The range of the snapshot containing ``seqno``; ``(seqno, seqno)`` if none does."""
        x = int_value(seqno, "snapshot_of(seqno)")
        for marker in self._markers:
            if marker.contains(x):
                return const(marker.snap_start), const(marker.snap_end)
        return const(x), const(x)

    def consistent_at_or_below(self, seqno: Expr | int) -> Expr:
        """The largest consistent point (0 or a whole snapshot's end) <= min(seqno, keep)."""
        bound = min(int_value(seqno, "consistent_at_or_below(seqno)"), self._keep)
        return const(max(point for point in self._consistent_points if point <= bound))

    def entries_between(self, low: Expr | int, high: Expr | int) -> Expr:
        """Entries in [low, high] of a file holding the held items <= high (and <= keep):
        keys whose newest such item has its seqno in [low, high]."""
        lo = int_value(low, "entries_between(low)")
        hi = int_value(high, "entries_between(high)")
        newest: dict[int, int] = {}  # key -> seqno of its version in that file
        for seqno in self._held:
            if seqno > hi:
                continue
            if seqno not in self._keys:
                raise ValueError(f"the view does not know the key of held seqno {seqno}")
            newest[self._keys[seqno]] = max(seqno, newest.get(self._keys[seqno], 0))
        return const(sum(1 for seqno in newest.values() if lo <= seqno <= hi))

    @property
    def log(self) -> ReferenceLog:
        return self._log

    @property
    def producer_log(self) -> ReferenceLog:
        return self._producer_log

    @property
    def claim(self) -> ResumeRequest:
        """What the client remembers it will ask for."""
        if self._memory is None:
            raise ValueError("the claim is not known yet: remembered() is computing it")
        return self._memory.claim

    @property
    def offset(self) -> tuple[Expr, Expr, Expr]:
        """Where the last stream left the consumer, moved only by the items it delivered."""
        start, snap_start, snap_end = self._offset
        return const(start), const(snap_start), const(snap_end)

    @property
    def filter(self) -> Expr:
        return const(self._memory.filter if self._memory else 0)

    @property
    def rolled_back(self) -> Expr:
        return const(bool(self._memory and self._memory.rolled_back))

    @property
    def rollback_seqno(self) -> Expr:
        return const(self._memory.rollback_seqno if self._memory else 0)


class ReferenceConsumer:
    """A consumer: markers and items received, snapshots received whole, log, keep."""

    def __init__(self, log: ReferenceLog) -> None:
        self.log = log
        self.markers: list[Marker] = []
        self.whole_snapshot_ends: list[int] = []
        self._held: dict[int, Item] = {}  # seqno -> item
        self.keep = 0
        self.memory: Memory | None = None  # set by remember(), once the stream ended
        self.offset = (0, 0, 0)  # ConsumerView.offset: the last stream's last item and marker

    # -- the stream ---------------------------------------------------------------------

    def receive_marker(self, snap_start: int, snap_end: int) -> None:
        """A snapshot marker: the items that follow belong to ``[snap_start, snap_end]``."""
        if self.markers and snap_start <= self.markers[-1].snap_end:
            raise ValueError(f"marker [{snap_start}, {snap_end}] overlaps the previous snapshot")
        self.markers.append(Marker(snap_start, snap_end))

    def receive_item(self, item: Item) -> None:
        """An item of the current snapshot; the item at the snapshot's end completes it."""
        if not self.markers or not self.markers[-1].contains(item.seqno):
            raise ValueError(f"item {item} arrived outside its snapshot marker")
        if item.seqno <= max(self._held, default=0):
            raise ValueError(f"item {item} arrived out of seqno order")
        self._held[item.seqno] = item
        if item.seqno == self.markers[-1].snap_end:
            self.whole_snapshot_ends.append(item.seqno)

    def disconnect(self, received: int) -> None:
        """The stream ends: the consumer received every item sent at or below ``received``."""
        if received < max(self._held, default=0):
            raise ValueError(f"the consumer holds items above received = {received}")
        self.keep = received
        last = self.last()
        marker = next((m for m in self.markers if m.contains(last)), Marker(last, last))
        self.offset = (last, marker.snap_start, marker.snap_end)

    # -- what the consumer holds ----------------------------------------------------------

    def held(self) -> tuple[Item, ...]:
        """The items held (all at or below keep), by seqno."""
        return tuple(sorted(self._held.values()))

    def last(self) -> int:
        """The highest seqno of a held item at or below keep (0 if none)."""
        return max((seqno for seqno in self._held if seqno <= self.keep), default=0)

    def versions(self) -> dict[int, Item]:
        """Per key, the consumer's version: its highest held item of that key <= keep."""
        out: dict[int, Item] = {}
        for item in self.held():
            if item.seqno <= self.keep:
                out[item.key] = item
        return out

    def view(self, producer_log: ReferenceLog | None = None) -> ReferenceView:
        """A frozen view of the current state, for a consumer variant."""
        return ReferenceView(
            self.keep,
            self._held,
            self.markers,
            self.whole_snapshot_ends,
            self.log,
            self.log if producer_log is None else producer_log,
            self.memory,
            {seqno: item.key for seqno, item in self._held.items()},
            self.offset,
        )

    # -- the resume -----------------------------------------------------------------------

    def remember(self, claim: ResumeRequest) -> None:
        """The stream ended: the client remembers ``claim`` (its variant's ``remembered``);
        its catch-up filter stays as it was (0 after the initial stream)."""
        self.memory = Memory(claim, filter=self.filter)

    def cut_stream(
        self,
        start: int,
        snapshots: Sequence[Snapshot],
        received: int,
        snapshot: tuple[int, int],
        seqno_advanced: bool = False,
    ) -> None:
        """An accepted stream from ``start`` (with the request's ``snapshot`` range) ran
        until the consumer had every item sent at or below ``received``; then it
        disconnected (docs/model.md, "Several sessions"). Its offset moves to the last
        item the stream delivered and that item's marker (with ``seqno_advanced``, to the
        end of a later snapshot received whole); it stays the request's if none.

        Markers and whole snapshots above ``start`` are the stream's (the consumer's older
        ones there are forgotten, and items above ``keep`` were already dropped); a stored
        item (one the catch-up filter lets through) takes its seqno's place and supersedes
        the consumer's items of its key above it."""
        self.markers = [m.below(start) for m in self.markers if m.snap_start <= start]
        self.whole_snapshot_ends = [
            e for e in self.whole_snapshot_ends if e <= min(start, self.keep)
        ]
        last_got, self.offset = 0, (start, *snapshot)
        for sent in snapshots:
            self.markers.append(Marker(sent.snap_start, sent.snap_end, above=start))
            for item in sent.items:
                if item.seqno > received:
                    break
                last_got = item.seqno
                self.offset = (item.seqno, sent.snap_start, sent.snap_end)
                if item.seqno > self.filter:
                    self._held = {
                        x: held
                        for x, held in self._held.items()
                        if not (x > item.seqno and held.key == item.key)
                    }
                    self._held[item.seqno] = item
            if sent.snap_end <= received:
                self.whole_snapshot_ends.append(sent.snap_end)
                if seqno_advanced:  # SeqnoAdvanced(snap_end) when its last item was not sent
                    self.offset = (sent.snap_end, sent.snap_start, sent.snap_end)
        self.keep = max(self.keep, last_got)

    def react(self, reaction: Reaction, rollback_seqno: int) -> None:
        """Apply a variant's reaction to ``ROLLBACK(rollback_seqno)``: every field it sets."""
        assert self.memory is not None, "remember() comes before any rollback"
        if reaction.keep is not None:
            self.truncate(int_value(reaction.keep, "Reaction.keep"))
        if reaction.log is not None:
            self.adopt_log(reaction.log)
        self.memory = Memory(
            claim=self.memory.claim if reaction.claim is None else reaction.claim,
            filter=(
                self.memory.filter
                if reaction.filter is None
                else int_value(reaction.filter, "Reaction.filter")
            ),
            rolled_back=True,
            rollback_seqno=rollback_seqno,
        )

    def truncate(self, to: int) -> None:
        """Drop every item above ``min(keep, to)``; keep only goes down."""
        self.keep = min(self.keep, to)
        self._held = {seqno: item for seqno, item in self._held.items() if seqno <= self.keep}

    def adopt_log(self, log: object) -> None:
        """Use ``log`` (as a variant's reaction returns it) as the failover log."""
        if not isinstance(log, ReferenceLog):
            raise TypeError(
                f"a reaction's log must be obtained from the view or the producer's log "
                f"(a ReferenceLog), got {type(log).__name__}"
            )
        self.log = log

    @property
    def filter(self) -> int:
        return self.memory.filter if self.memory else 0

    def after_stream(self, streamed: Mapping[int, Item]) -> dict[int, Item]:
        """Key -> the version the consumer ends with once the accepted stream ran: each
        streamed item replaces its key's version, unless the catch-up filter drops it."""
        applied = {key: item for key, item in streamed.items() if item.seqno > self.filter}
        return self.versions() | applied
