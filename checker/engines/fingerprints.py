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
than the state's own bytes (14 at 1,000,000 states of mb-34150-wide); past
32 MiB of chunks, the newer ones wait in a temporary file.

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

import tempfile
import zlib
from array import array
from collections import deque
from typing import BinaryIO

import numpy as np

__all__ = ["FingerprintSet", "Queue", "Trace", "collision_probability"]

_CHUNK = 4096  # states a sealed chunk of a queue holds

_FIRST = 1 << 16  # slots of a new table
_BATCH = 1 << 18  # keys put back into a grown table at a time
_HELD = 32 << 20  # bytes of a queue's chunks kept in memory; the rest wait on disk


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
        self._slots = memoryview(self._table)  # type: ignore[arg-type]  # ndarray is a buffer
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
        at = self._probe(fp)
        if self._slots[at] == fp:
            return False
        self._slots[at] = fp
        self._count += 1
        if self._count > self._limit:
            self._grow()
        return True

    def __contains__(self, fp: int) -> bool:
        if fp == 0:
            return self._zero
        return bool(self._slots[self._probe(fp)] == fp)

    def _probe(self, fp: int) -> int:
        """The slot that holds ``fp``, or the empty one where it would go (open
        addressing, linear probing)."""
        slots, mask = self._slots, self._mask
        at = fp & mask
        while True:
            held = slots[at]
            if held == fp or held == 0:
                return at
            at = (at + 1) & mask

    def _grow(self) -> None:
        """Double the table: its keys taken out, the old table freed before the new one is
        made, the keys put back a batch at a time (so that growing holds 4 bytes a slot
        of the new table besides it, not the 6-8 copies NumPy's temporaries would make)."""
        size = 2 * (self._mask + 1)
        keys = self._table[self._table != 0]
        self._slots.release()
        del self._table, self._slots
        self._allocate(size)
        for start in range(0, len(keys), _BATCH):
            _place(self._table, keys[start : start + _BATCH])


def _place(table: np.ndarray, keys: np.ndarray) -> None:
    """Put distinct nonzero ``keys``, none in the table yet, in it by linear probing, a
    round per probe distance: each key takes its slot unless it is taken or another
    key claims it first; the others probe the next slot."""
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
    """Byte strings, first in first out, compressed in chunks; past ``held`` bytes of
    chunks in memory, the newer chunks wait in a temporary file (unlinked when made,
    so it goes with the process; emptied whenever the queue has read it all)."""

    __slots__ = ("_chunks", "_file", "_held", "_length", "_limit", "_out", "_tail")

    def __init__(self, held: int = _HELD) -> None:
        # a sealed chunk: (its sizes, its compressed bytes) in memory, or (its number of
        # states, where it starts in the file, its length) on disk
        self._chunks: deque[tuple[array[int], bytes] | tuple[int, int, int]] = deque()
        self._tail: list[bytes] = []  # the newest, not sealed yet
        self._out: deque[bytes] = deque()  # the oldest, unpacked
        self._length = 0
        self._held = 0  # bytes of the chunks in memory
        self._limit = held
        self._file: BinaryIO | None = None

    def __len__(self) -> int:
        return self._length

    def on_disk(self) -> int:
        """Bytes of the chunks waiting in the file."""
        return sum(c[2] for c in self._chunks if len(c) == 3)

    def append(self, data: bytes) -> None:
        self._tail.append(data)
        self._length += 1
        if len(self._tail) >= _CHUNK:
            tail = self._tail
            self._tail = []
            sizes = array("I", map(len, tail))
            packed = zlib.compress(b"".join(tail), 1)
            if self._held + len(packed) <= self._limit:
                self._chunks.append((sizes, packed))
                self._held += len(packed)
                return
            if self._file is None:
                # closed by ``close`` or with the queue
                self._file = tempfile.TemporaryFile(prefix="dcpcheck-queue-")  # noqa: SIM115
            at = self._file.seek(0, 2)
            self._file.write(sizes.tobytes())
            self._file.write(packed)
            self._chunks.append((len(sizes), at, len(packed)))

    def popleft(self) -> bytes:
        out = self._out
        if not out:
            if self._chunks:
                sizes, data = self._unpack(self._chunks.popleft())
                at = 0
                for size in sizes:
                    out.append(data[at : at + size])
                    at += size
            else:
                out.extend(self._tail)
                self._tail = []
        self._length -= 1
        return out.popleft()

    def _unpack(
        self, chunk: tuple[array[int], bytes] | tuple[int, int, int]
    ) -> tuple[array[int], bytes]:
        if len(chunk) == 2:
            sizes, packed = chunk
            self._held -= len(packed)
            return sizes, zlib.decompress(packed)
        count, at, length = chunk
        assert self._file is not None
        self._file.seek(at)
        sizes = array("I")
        sizes.frombytes(self._file.read(count * sizes.itemsize))
        data = zlib.decompress(self._file.read(length))
        if not any(len(c) == 3 for c in self._chunks):  # read it all: start the file again
            self._file.seek(0)
            self._file.truncate()
        return sizes, data

    def close(self) -> None:
        """Drop the temporary file (if any); the queue is empty of what it held there."""
        if self._file is not None:
            self._file.close()
            self._file = None
            self._chunks = deque(c for c in self._chunks if len(c) == 2)
