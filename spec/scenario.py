"""A scenario: everything that happens before a consumer resumes.

A scenario is the input of one check (and of one counterexample). In words
(docs/model.md has the full semantics):

1. The first producer has ``history`` (mutations at seqnos 1..n) and failover
   table ``table``. It has purged nothing.
2. A consumer streams from seqno 0 and receives snapshots: the first marker
   starts at ``first_snapshot_start`` (0: a disk backfill, 1: memory), each
   later one at the previous end + 1, the ends are ``snapshot_ends``. A
   snapshot carries, for each key mutated inside its range, only the last
   mutation of that key in the range (deduplication). The consumer receives
   every item sent with seqno <= ``received``, then disconnects. It holds the
   first producer's failover table.
3. ``failovers`` happen, in order. Each keeps the current history up to its
   ``branch`` seqno, appends its ``mutations`` (seqnos branch+1, ...) and adds
   the entry ``(uuid, branch)`` to the failover table with ``create_entry``.
4. The final producer has purged tombstones: every deletion at or below
   ``purge_seqno`` is gone from its disk.
5. The consumer resumes (its consumer variant decides what it asks for); the
   final producer answers with its rule set; once a request is accepted the
   producer streams, for each key, its last mutation after the request's
   start, except tombstones at or below the purge seqno.

Every mutation is identified by its seqno and the *epoch* that wrote it
(0 for the first producer, i for the i-th failover): a mutation rewritten
after a branch is a different mutation even with the same key and op, as
its CAS and revision would differ in kv_engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec.failover_table import DEFAULT_MAX_ENTRIES, FailoverTable

__all__ = [
    "Cut",
    "Failover",
    "Item",
    "Mutation",
    "Scenario",
    "key_name",
    "live_versions",
    "version_text",
]


def key_name(key: int) -> str:
    """0 -> "A", 1 -> "B", ... 26 -> "K26"."""
    return chr(ord("A") + key) if 0 <= key < 26 else f"K{key}"


@dataclass(frozen=True)
class Mutation:
    key: int
    deleted: bool = False

    def __str__(self) -> str:
        return f"{'DEL' if self.deleted else 'SET'}({key_name(self.key)})"


@dataclass(frozen=True, order=True)
class Item:
    """A mutation as stored: at ``seqno``, written in ``epoch``."""

    seqno: int
    epoch: int
    key: int
    deleted: bool

    def __str__(self) -> str:
        mark = "'" * self.epoch
        return f"{self.seqno}{mark}:{'DEL' if self.deleted else 'SET'}({key_name(self.key)})"

    def to_json(self) -> dict[str, object]:
        return {
            "seqno": self.seqno,
            "epoch": self.epoch,
            "op": "del" if self.deleted else "set",
            "key": key_name(self.key),
        }


def version_text(item: Item | None) -> str:
    """A consumer's or producer's version of a key, in words."""
    if item is None:
        return "nothing"
    return str(item) + ("" if not item.deleted else " (a tombstone)")


def live_versions(items: tuple[Item, ...] | list[Item]) -> dict[int, Item]:
    """Key -> its last mutation among ``items``, for the keys that mutation leaves live."""
    last: dict[int, Item] = {}
    for item in items:
        last[item.key] = item
    return {k: i for k, i in sorted(last.items()) if not i.deleted}


@dataclass(frozen=True)
class Failover:
    """A failure: the next producer shares history up to ``branch``, then writes ``mutations``."""

    branch: int
    uuid: int
    mutations: tuple[Mutation, ...] = ()

    @property
    def high_seqno(self) -> int:
        return self.branch + len(self.mutations)


@dataclass(frozen=True)
class Cut:
    """A resume's accepted stream cut short, and what happens before the next resume.

    The producer that accepted the request streams snapshots from the request's
    start s: the first marker starts at s (``disk``: a backfill) or s + 1 (memory),
    each later one at the previous end + 1; the ends are the ``snapshot_ends``
    above s. Each snapshot sends, per key, its last mutation in the range, less
    purged tombstones. The consumer receives every item sent at or below
    ``received``, then disconnects; then ``failovers`` happen and the producer
    compacts up to ``purge_seqno``, and the consumer resumes again."""

    disk: bool
    snapshot_ends: tuple[int, ...]
    received: int
    failovers: tuple[Failover, ...] = ()
    purge_seqno: int = 0


@dataclass(frozen=True)
class Scenario:
    history: tuple[Mutation, ...]
    table: FailoverTable
    first_snapshot_start: int
    snapshot_ends: tuple[int, ...]
    received: int
    failovers: tuple[Failover, ...] = ()
    purge_seqno: int = 0
    max_entries: int = DEFAULT_MAX_ENTRIES
    later: tuple[Cut, ...] = ()  # one per resume after the first (--sessions K: K - 1)

    def problems(self) -> list[str]:
        """What makes this scenario impossible (empty when it is well formed)."""
        out: list[str] = []
        n = len(self.history)
        if self.first_snapshot_start not in (0, 1):
            out.append("first_snapshot_start must be 0 (disk) or 1 (memory)")
        ends = self.snapshot_ends
        if list(ends) != sorted(set(ends)) or any(not 1 <= e <= n for e in ends):
            out.append("snapshot_ends must be increasing seqnos within the first history")
        if not 0 <= self.received <= n:
            out.append("received must be within the first history")
        elif self.received > 0 and not any(e >= self.received for e in ends):
            out.append("the item at 'received' must lie in a snapshot that was sent")
        seqs = [e.seqno for e in self.table]
        if seqs != sorted(seqs, reverse=True) or 0 in self.table.uuids:
            out.append("the first table must have non-zero uuids and non-increasing seqnos")
        if len(set(self.table.uuids)) != len(self.table):
            out.append("the first table's uuids must be distinct")
        if self.table.latest.seqno > n:
            out.append("the first table's newest entry is above the first history")
        seen = set(self.table.uuids)
        high = _failover_problems(out, "failover", self.failovers, n, seen)
        if not 0 <= self.purge_seqno <= high:
            out.append(f"purge_seqno must be within 0..{high}")
        purge = self.purge_seqno
        for j, cut in enumerate(self.later, start=1):
            ends = cut.snapshot_ends
            if list(ends) != sorted(set(ends)) or any(not 1 <= e <= high for e in ends):
                out.append(f"cut {j}: snapshot_ends must be increasing seqnos within 1..{high}")
            if not 0 <= cut.received <= high:
                out.append(f"cut {j}: received must be within 0..{high}")
            high = _failover_problems(out, f"cut {j} failover", cut.failovers, high, seen)
            if not 0 <= cut.purge_seqno <= high:
                out.append(f"cut {j}: purge_seqno must be within 0..{high}")
            if not cut.failovers and cut.purge_seqno < purge:
                out.append(f"cut {j}: purge_seqno cannot go down without a failover")
            purge = cut.purge_seqno
        return out

    @property
    def all_failovers(self) -> tuple[Failover, ...]:
        """Every failover, in order: before the first resume, then between resumes."""
        return self.failovers + tuple(f for cut in self.later for f in cut.failovers)


def _failover_problems(
    out: list[str], what: str, failovers: tuple[Failover, ...], high: int, seen: set[int]
) -> int:
    """Append what makes ``failovers`` (after a history of ``high`` seqnos, with the uuids
    ``seen`` taken) impossible; the high seqno after them."""
    for i, failover in enumerate(failovers, start=1):
        if not 0 <= failover.branch <= high:
            out.append(f"{what} {i}: branch {failover.branch} is outside 0..{high}")
        if failover.uuid == 0 or failover.uuid in seen:
            out.append(f"{what} {i}: uuid {failover.uuid} must be non-zero and new")
        seen.add(failover.uuid)
        high = failover.high_seqno
    return high
