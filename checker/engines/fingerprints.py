"""A set of 64-bit fingerprints, and a search's trace: what it keeps per visited state.

``FingerprintSet`` is an open-addressing table (linear probing) over a NumPy
``int64`` array, read and written through a ``memoryview`` (a Python int per
access, no NumPy scalar): 8 bytes a slot, at most two thirds full, so 12 to
24 bytes a fingerprint. 0 marks an empty slot (the fingerprint 0 is kept
aside). When it fills, the table doubles and is rebuilt from its own
fingerprints with NumPy (a round per probe distance, each over the keys not
placed yet).

``Queue``: a breadth-first frontier of encoded states, first in first out,
kept as zlib-compressed chunks of 4,096 states (neighbouring states share most
of their bytes): a few bytes a state where a list of ``bytes`` takes 40 more
than the state's own bytes.

``Trace``: per state in the order the search found it, its fingerprint, its
parent's number (-1: an initial state) and the index of the action that led
to it among its parent's actions: 8 + 4 + 2 bytes (``array`` columns). A run
to a state is rebuilt from it by re-running the model (TLC's trace file).

Two different states with one fingerprint are one state to the search (the
second is never explored): ``collision_probability`` is TLC's optimistic
estimate of that, n^2 / 2^65 for n states (n(n-1)/2 pairs, each colliding
with probability 2^-64).
"""

from __future__ import annotations

import zlib
from array import array
from collections import deque

import numpy as np

__all__ = ["FingerprintSet", "Queue", "Trace", "collision_probability"]

_CHUNK = 4096  # states a sealed chunk of a queue holds

_FIRST = 1 << 16  # slots of a new table


def collision_probability(states: int) -> float:
    """TLC's optimistic estimate that a fingerprint collision hid a state: n^2 / 2^65."""
    return states * states / 2.0**65


class Trace:
    """The states a search found, in order: fingerprint, parent, action index."""

    __slots__ = ("actions", "fingerprints", "parents")

    def __init__(self) -> None:
        self.fingerprints = array("q")
        self.parents = array("i")
        self.actions = array("H")

    def __len__(self) -> int:
        return len(self.fingerprints)

    def add(self, fp: int, parent: int, action: int) -> int:
        """Record a new state; its number."""
        self.fingerprints.append(fp)
        self.parents.append(parent)
        self.actions.append(action)
        return len(self.fingerprints) - 1

    def lineage(self, number: int) -> list[int]:
        """The fingerprints from an initial state to state ``number``, in order."""
        out = []
        while number >= 0:
            out.append(self.fingerprints[number])
            number = self.parents[number]
        return out[::-1]

    def nbytes(self) -> int:
        return sum(a.itemsize * len(a) for a in (self.fingerprints, self.parents, self.actions))


class FingerprintSet:
    """64-bit fingerprints, each kept once; ``add`` says whether it was new."""

    __slots__ = ("_count", "_limit", "_mask", "_slots", "_table", "_zero")

    def __init__(self, capacity: int = _FIRST) -> None:
        self._count = 0
        self._zero = False
        self._allocate(capacity)

    def _allocate(self, capacity: int) -> None:
        size = 1 << max(capacity - 1, 1).bit_length()
        self._table = np.zeros(size, dtype=np.int64)
        self._slots = memoryview(self._table)  # type: ignore[arg-type]
        self._mask = size - 1
        self._limit = size * 2 // 3

    def __len__(self) -> int:
        return self._count

    def nbytes(self) -> int:
        return int(self._table.nbytes)

    def add(self, fp: int) -> bool:
        """Put ``fp`` in the set; False if it was there."""
        if fp == 0:
            new = not self._zero
            self._zero = True
            self._count += new
            return new
        slots, mask = self._slots, self._mask
        at = fp & mask
        while True:
            held = slots[at]
            if held == fp:
                return False
            if held == 0:
                slots[at] = fp
                self._count += 1
                if self._count > self._limit:
                    self._grow()
                return True
            at = (at + 1) & mask

    def __contains__(self, fp: int) -> bool:
        if fp == 0:
            return self._zero
        slots, mask = self._slots, self._mask
        at = fp & mask
        while True:
            held = slots[at]
            if held == fp:
                return True
            if held == 0:
                return False
            at = (at + 1) & mask

    def _grow(self) -> None:
        keys = self._table[self._table != 0]
        self._slots.release()
        self._allocate(2 * (self._mask + 1))
        _place(self._table, keys)


def _place(table: np.ndarray, keys: np.ndarray) -> None:  # type: ignore[type-arg]
    """Put distinct nonzero ``keys`` in an empty table by linear probing, a round per
    probe distance: each key takes its slot unless it is taken or another key claims
    it first; the others probe the next slot."""
    mask = len(table) - 1
    where = keys & mask
    pending = keys
    while len(pending):
        free = table[where] == 0
        claim = np.flatnonzero(free)
        _, first = np.unique(where[claim], return_index=True)
        won = claim[first]
        table[where[won]] = pending[won]
        left = np.ones(len(pending), dtype=bool)
        left[won] = False
        pending = pending[left]
        where = (where[left] + 1) & mask


class Queue:
    """Byte strings, first in first out, compressed in chunks."""

    __slots__ = ("_chunks", "_length", "_out", "_tail")

    def __init__(self) -> None:
        self._chunks: deque[tuple[array, bytes]] = deque()  # type: ignore[type-arg]
        self._tail: list[bytes] = []  # the newest, not sealed yet
        self._out: deque[bytes] = deque()  # the oldest, unpacked
        self._length = 0

    def __len__(self) -> int:
        return self._length

    def append(self, data: bytes) -> None:
        self._tail.append(data)
        self._length += 1
        if len(self._tail) >= _CHUNK:
            tail = self._tail
            self._chunks.append((array("I", map(len, tail)), zlib.compress(b"".join(tail), 1)))
            self._tail = []

    def popleft(self) -> bytes:
        out = self._out
        if not out:
            if self._chunks:
                sizes, packed = self._chunks.popleft()
                data = zlib.decompress(packed)
                at = 0
                for size in sizes:
                    out.append(data[at : at + size])
                    at += size
            else:
                out.extend(self._tail)
                self._tail = []
        self._length -= 1
        return out.popleft()
