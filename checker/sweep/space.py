"""The sweep's input space: every producer decision within bounds, each with an index.

``SweepSpace(entries=E, seqnos=N, duplicate_uuids=False)`` is a finite part
of ``spec.rules.inputs.DecisionSpace(E, distinct_uuids=not duplicate_uuids)``
(the space ``dcpcheck diff`` searches with Z3, where uuids may repeat):

* **producer**: a failover table of 1..E entries, newest first, seqnos
  non-increasing and at most the high seqno; high seqno 0..N; purge seqno
  0..high seqno.
* **uuids** are labels 1111, 2222, ... given from the oldest entry on:
  distinct (kv_engine draws random 48-bit uuids for the tables it creates),
  or, with ``duplicate_uuids``, every pattern of repeats (each repeat pattern
  once: a restricted growth string), as a table kv_engine loads can have.
  ``dcpcheck sweep`` sweeps repeats unless told ``--distinct-uuids``, the
  same switch as ``dcpcheck vectors`` (``checker.arguments.decision_space``).
  Rule sets compare uuids with each other and with 0, so one labelling per
  pattern stands for every table with that pattern.
* **request**: uuid 0, each uuid of the table, or one it does not hold (the
  next label); ``snap_start <= start <= snap_end <= N`` (every request the
  producer does not refuse with ERANGE: the refusal comes before any rule
  set); end ``start`` or 2^64-1 (stream forever); ``strict`` and
  ``ignore_purged`` both ways; remote purge seqno 0..N; no collection
  filter, or a collection high seqno 0..N.

Index order: producer (table length, uuid pattern, high seqno, table
seqnos, purge seqno), then request uuid, seqno triple, end, strict,
ignore_purged, remote purge seqno, collection high seqno. ``columns(lo,
hi)`` builds inputs ``lo..hi-1`` as NumPy columns of the ``DecisionSpace``
variables, so a Spark executor generates its own share from two numbers;
``inputs`` gives them as ``StreamRequest`` and ``ProducerState`` values (for
loops over domain values, slower); ``constraint`` is the same set as an
expression (for Z3: the sweep's cross-check with ``dcpcheck diff``; the
tests check that the enumeration is exactly that set).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np

from spec.expr import UINT64_MAX, Expr, all_of, any_of, implies
from spec.rules.inputs import DecisionSpace
from spec.types import ProducerState, StreamRequest

__all__ = ["LABEL", "SweepSpace", "uuid_patterns"]

LABEL = 1111  # uuid of pattern label k is LABEL * k


def uuid_patterns(length: int, duplicates: bool) -> list[tuple[int, ...]]:
    """Labels of a table's entries, oldest first: (1, 2, ..., length), or with
    ``duplicates`` every restricted growth string (each label at most one above
    the largest before it)."""
    if not duplicates:
        return [tuple(range(1, length + 1))]
    patterns: list[tuple[int, ...]] = [(1,)]
    for _ in range(length - 1):
        patterns = [(*p, k) for p in patterns for k in range(1, max(p) + 2)]
    return patterns


@dataclass(frozen=True)
class _Producers:
    """Every producer state of a space, one row each, and where its inputs start."""

    table_len: np.ndarray  # (P,) uint64
    uuid: np.ndarray  # (P, E) uint64, newest first, 0 beyond table_len
    seq: np.ndarray  # (P, E) uint64
    high_seqno: np.ndarray  # (P,) uint64
    purge_seqno: np.ndarray  # (P,) uint64
    offsets: np.ndarray  # (P + 1,) int64: first index of each producer's inputs


@dataclass(frozen=True)
class SweepSpace:
    entries: int
    seqnos: int
    duplicate_uuids: bool = False

    def __post_init__(self) -> None:
        if self.entries < 1:
            raise ValueError("a failover table has at least one entry (entries >= 1)")
        if self.seqnos < 0:
            raise ValueError("seqnos must be 0 or more")

    def describe(self) -> str:
        uuids = "repeated uuids allowed" if self.duplicate_uuids else "distinct uuids"
        return f"tables of <= {self.entries} entries ({uuids}), seqnos <= {self.seqnos}"

    def to_json(self) -> dict[str, object]:
        return {
            "entries": self.entries,
            "seqnos": self.seqnos,
            "duplicate_uuids": self.duplicate_uuids,
            "inputs": self.size,
        }

    @property
    def decision_space(self) -> DecisionSpace:
        return _decision_space(self.entries, not self.duplicate_uuids)

    # -- sizes ---------------------------------------------------------------------------
    @property
    def triples(self) -> np.ndarray:
        """Every (snap_start, start, snap_end) with snap_start <= start <= snap_end <= N."""
        return _triples(self.seqnos)

    @property
    def requests_per_uuid(self) -> int:
        n = self.seqnos
        return len(self.triples) * 2 * 2 * 2 * (n + 1) * (n + 2)

    @property
    def size(self) -> int:
        return int(_producers(self).offsets[-1])

    # -- the inputs ------------------------------------------------------------------------
    def columns(self, lo: int, hi: int) -> dict[str, np.ndarray]:
        """Inputs ``lo..hi-1`` as columns of the ``DecisionSpace`` variables."""
        if not 0 <= lo <= hi <= self.size:
            raise ValueError(f"inputs {lo}..{hi} outside 0..{self.size}")
        return self.columns_of(np.arange(lo, hi, dtype=np.int64))

    def columns_of(self, index: np.ndarray) -> dict[str, np.ndarray]:
        """The inputs numbered ``index`` (int64, each in ``0..size-1``), as ``columns``."""
        n = self.seqnos
        producers = _producers(self)
        p = np.searchsorted(producers.offsets, index, side="right") - 1
        local = index - producers.offsets[p]
        uuid, rest = np.divmod(local, self.requests_per_uuid)
        rest, coll = np.divmod(rest, n + 2)
        rest, remote = np.divmod(rest, n + 1)
        rest, ignore = np.divmod(rest, 2)
        rest, strict = np.divmod(rest, 2)
        triple, forever = np.divmod(rest, 2)
        snap_start, start, snap_end = (self.triples[triple, k] for k in range(3))
        columns = {
            "uuid": (uuid * LABEL).astype(np.uint64),
            "start": start,
            "snap_start": snap_start,
            "snap_end": snap_end,
            "end": np.where(forever == 0, np.uint64(UINT64_MAX), start),
            "strict": strict == 1,
            "ignore_purged": ignore == 1,
            "remote_purge": remote.astype(np.uint64),
            "has_collection_high": coll > 0,
            "collection_high": np.where(coll > 0, coll - 1, 0).astype(np.uint64),
            "high_seqno": producers.high_seqno[p],
            "producer_purge_seqno": producers.purge_seqno[p],
            "table_len": producers.table_len[p],
        }
        for i in range(self.entries):
            columns[DecisionSpace.uuid_var(i)] = producers.uuid[p, i]
            columns[DecisionSpace.seq_var(i)] = producers.seq[p, i]
        return columns

    def inputs(
        self, lo: int = 0, hi: int | None = None, chunk: int = 1 << 16
    ) -> Iterator[tuple[StreamRequest, ProducerState]]:
        """Inputs ``lo..hi-1`` as domain values (``DecisionSpace.decode`` of each row)."""
        hi = self.size if hi is None else hi
        for start in range(lo, hi, chunk):
            columns = self.columns(start, min(hi, start + chunk))
            names = list(columns)
            for row in zip(*(columns[name].tolist() for name in names), strict=True):
                yield self.decision_space.decode(dict(zip(names, row, strict=True)))

    # -- the same set, as an expression -------------------------------------------------------
    def constraint(self) -> Expr:
        """The inputs of this space, as a condition on the ``DecisionSpace`` variables."""
        space = self.decision_space
        v, table, n = space.v, space.table, self.seqnos

        def labelled(i: int, k: int) -> Expr:
            return table.live(i) & (table.uuid[i] == LABEL * k)

        def label_used(k: int, entries: range) -> Expr:
            return any_of(*(labelled(i, k) for i in entries))

        parts = [
            space.well_formed(),
            v("high_seqno") <= n,
            v("snap_start") <= v("start"),
            v("start") <= v("snap_end"),
            v("snap_end") <= n,
            (v("end") == v("start")) | (v("end") == UINT64_MAX),
            v("remote_purge") <= n,
            v("collection_high") <= n,
        ]
        for j in range(self.entries):
            older = range(j + 1, self.entries)  # newest first: later slots are older
            parts.append(
                implies(
                    table.live(j), any_of(*(labelled(j, k) for k in range(1, self.entries + 1)))
                )
            )
            for k in range(2, self.entries + 1):
                parts.append(implies(labelled(j, k), label_used(k - 1, older)))
        request_uuid = [v("uuid") == 0, v("uuid") == LABEL]
        for k in range(2, self.entries + 2):
            request_uuid.append((v("uuid") == LABEL * k) & label_used(k - 1, range(self.entries)))
        parts.append(any_of(*request_uuid))
        return all_of(*parts)


@lru_cache(maxsize=8)
def _decision_space(entries: int, distinct_uuids: bool) -> DecisionSpace:
    return DecisionSpace(entries, distinct_uuids=distinct_uuids)


@lru_cache(maxsize=8)
def _triples(n: int) -> np.ndarray:
    rows = [(a, b, c) for a in range(n + 1) for b in range(a, n + 1) for c in range(b, n + 1)]
    return np.array(rows, dtype=np.uint64).reshape(-1, 3)


@lru_cache(maxsize=8)
def _producers(space: SweepSpace) -> _Producers:
    """Every producer state of ``space`` (computed where it is needed: on each executor)."""
    e, n = space.entries, space.seqnos
    lengths, uuids, seqs, highs, purges, rows = [], [], [], [], [], []
    for length in range(1, e + 1):
        for pattern in uuid_patterns(length, space.duplicate_uuids):
            labels = [LABEL * k for k in reversed(pattern)] + [0] * (e - length)
            per_producer = (max(pattern) + 2) * space.requests_per_uuid
            for high in range(n + 1):
                for table in combinations_with_replacement(range(high, -1, -1), length):
                    padded = list(table) + [0] * (e - length)
                    for purge in range(high + 1):
                        lengths.append(length)
                        uuids.append(labels)
                        seqs.append(padded)
                        highs.append(high)
                        purges.append(purge)
                        rows.append(per_producer)
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(rows, out=offsets[1:])
    return _Producers(
        table_len=np.array(lengths, dtype=np.uint64),
        uuid=np.array(uuids, dtype=np.uint64).reshape(-1, e),
        seq=np.array(seqs, dtype=np.uint64).reshape(-1, e),
        high_seqno=np.array(highs, dtype=np.uint64),
        purge_seqno=np.array(purges, dtype=np.uint64),
        offsets=offsets,
    )
