"""The failover table: ``(uuid, seqno)`` branch points, newest first.

Behaviour follows kv_engine's ``FailoverTable`` (engines/ep/src/failover-table.cc),
learnt from its code and unit tests and written here as a value type: every
operation returns a new table.

* ``create_entry(seqno, uuid)`` drops the entries above ``seqno`` (branches this
  node diverged from), pushes ``(uuid, seqno)`` at the head and caps the length
  by dropping the oldest entries.
* ``prune(seqno)`` drops the entries above ``seqno`` (after a rollback); if that
  empties the table, one entry at ``seqno`` is created.
* ``sanitized(...)`` is what kv_engine does when it loads a table from disk or
  JSON: entries with uuid 0 are dropped, and so is any entry whose seqno is
  above the (kept) entry before it; an emptied table gets one entry at the
  high seqno.
* ``upper(uuid, high_seqno)``: the seqno up to which a consumer holding
  ``uuid`` shares this table's history: the seqno of the next newer entry, or
  the high seqno if ``uuid`` is the newest. kv_engine walks the table from the
  oldest entry and stops at the first match, so if a uuid appears twice the
  oldest entry wins.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

UINT64_MAX = 2**64 - 1
DEFAULT_MAX_ENTRIES = 25  # kv_engine's max_failover_entries default

__all__ = ["DEFAULT_MAX_ENTRIES", "UINT64_MAX", "FailoverEntry", "FailoverTable"]


@dataclass(frozen=True, order=True)
class FailoverEntry:
    uuid: int
    seqno: int

    def to_json(self) -> dict[str, int]:
        return {"id": self.uuid, "seq": self.seqno}


@dataclass(frozen=True)
class FailoverTable:
    entries: tuple[FailoverEntry, ...]
    max_entries: int = DEFAULT_MAX_ENTRIES

    def __post_init__(self) -> None:
        if not self.entries:
            raise ValueError("a failover table always has at least one entry")
        if self.max_entries < 1:
            raise ValueError("max_entries must be at least 1")

    @classmethod
    def of(cls, *pairs: tuple[int, int], max_entries: int = DEFAULT_MAX_ENTRIES) -> FailoverTable:
        """``FailoverTable.of((3333, 30), (2222, 20), (1111, 0))``, newest first."""
        return cls(tuple(FailoverEntry(u, s) for u, s in pairs), max_entries)

    @classmethod
    def sanitized(
        cls,
        entries: Sequence[FailoverEntry],
        high_seqno: int,
        uuid_if_empty: int,
        max_entries: int = DEFAULT_MAX_ENTRIES,
    ) -> tuple[FailoverTable, tuple[FailoverEntry, ...]]:
        """Load ``entries`` as kv_engine does; return the table and the entries dropped."""
        kept: list[FailoverEntry] = []
        dropped: list[FailoverEntry] = []
        for entry in entries:
            if entry.uuid == 0 or (kept and entry.seqno > kept[-1].seqno):
                dropped.append(entry)
            else:
                kept.append(entry)
        if not kept:
            kept = [FailoverEntry(uuid_if_empty, high_seqno)]
        return cls(tuple(kept), max_entries), tuple(dropped)

    def __hash__(self) -> int:
        # Computed once: a model checker hashes the table with every state that holds one.
        # (Ints and tuples of ints hash alike in every process, so a pickled copy may keep it.)
        cached: int | None = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.entries, self.max_entries))
            object.__setattr__(self, "_hash", cached)
        return cached

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[FailoverEntry]:
        return iter(self.entries)

    @property
    def latest(self) -> FailoverEntry:
        return self.entries[0]

    @property
    def uuids(self) -> tuple[int, ...]:
        return tuple(e.uuid for e in self.entries)

    def create_entry(self, seqno: int, uuid: int) -> FailoverTable:
        if uuid == 0:
            raise ValueError("kv_engine never creates an entry with uuid 0")
        kept = tuple(e for e in self.entries if e.seqno <= seqno)
        entries = ((FailoverEntry(uuid, seqno), *kept))[: self.max_entries]
        return FailoverTable(entries, self.max_entries)

    def prune(self, seqno: int, uuid_if_empty: int) -> FailoverTable:
        if seqno == 0:
            raise ValueError("cannot prune entry zero")
        kept = tuple(e for e in self.entries if e.seqno <= seqno)
        if not kept:
            kept = (FailoverEntry(uuid_if_empty, seqno),)
        return FailoverTable(kept, self.max_entries)

    def upper(self, uuid: int, high_seqno: int) -> int | None:
        """Shared-history bound for a consumer on ``uuid``; None if ``uuid`` is unknown."""
        for index in range(len(self.entries) - 1, -1, -1):
            if self.entries[index].uuid == uuid:
                return high_seqno if index == 0 else self.entries[index - 1].seqno
        return None

    def entry_covering(self, seqno: int) -> FailoverEntry:
        """The newest entry at or below ``seqno``: the branch that ``seqno`` lies on."""
        for entry in self.entries:
            if entry.seqno <= seqno:
                return entry
        return self.entries[-1]

    def to_json(self) -> list[dict[str, int]]:
        return [e.to_json() for e in self.entries]
