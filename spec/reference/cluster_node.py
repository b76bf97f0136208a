"""One node of the reference cluster (``spec.reference.cluster``), as plain mutable objects.

Written from docs/durability.md and the seeds (MB-34150, MB-51805), independently
of ``spec.cluster``: a node holds a history (seqno -> item), the snapshot markers
it received (an active: the snapshots it closed), a failover table, a disk (what
the flusher persisted), its PassiveDurabilityMonitor's high prepared seqno and,
while it streams from the active, a PassiveStream. The active additionally has
an ActiveDurabilityMonitor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.failover_table import FailoverTable

__all__ = [
    "ActiveDurabilityMonitor",
    "ClusterItem",
    "Disk",
    "Node",
    "PassiveStream",
    "first_uuid",
    "uuid_of_epoch",
    "uuid_of_reset",
]


def uuid_of_epoch(epoch: int) -> int:
    """The uuid the active of ``epoch`` puts in its failover table: AAAA, BBBB, CCCC, ..."""
    return 0xAAAA + epoch * 0x1111


def first_uuid() -> int:
    return uuid_of_epoch(0)


def uuid_of_reset(index: int) -> int:
    """The uuid a vbucket reset at seqno 0 gets on node ``index``: F00, F01, ..."""
    return 0xF00 + index


@dataclass(frozen=True)
class ClusterItem:
    """A mutation as the active of ``epoch`` wrote it; a COMMIT names its prepare's seqno."""

    op: str  # "PREPARE", "COMMIT" or "SET"
    key: str
    epoch: int
    prepare_seqno: int = 0
    # a PREPARE's durability level: majority, majority_and_persist_on_master, persist_to_majority
    level: str = "majority"


@dataclass
class Disk:
    """What the flusher wrote: a prefix of the history, the markers covering it, the HPS,
    and a couchstore file header per flush (``headers``: their seqnos, oldest first)."""

    seqno: int = 0
    markers: list[list[int]] = field(default_factory=list)
    hps: int = 0
    headers: list[int] = field(default_factory=list)


@dataclass
class PassiveStream:
    """A replica's stream from the active: waiting for a marker, or inside one."""

    cur_snapshot_prepare: bool = False
    awaiting_marker: bool = True
    # the snapshot being received came from a backfill (its marker had the Disk flag)
    cur_snapshot_disk: bool = False


@dataclass
class ActiveDurabilityMonitor:
    """The active's record of the HPS each replica acked to it."""

    acks: dict[int, int] = field(default_factory=dict)

    def acked(self, index: int) -> int:
        return self.acks.get(index, 0)


class Node:
    """One copy of the vbucket; ``role`` is "active", "replica" or "dead"."""

    def __init__(self, index: int, table: FailoverTable) -> None:
        self.index = index
        self.name = f"N{index}"
        self.role = "replica"
        self.items: list[ClusterItem] = []
        self.markers: list[list[int]] = []
        self.table = table
        self.disk = Disk()
        self.hps = 0
        # the PassiveDurabilityMonitor's receivedSnapshotEnds: notified ends not yet passed
        self.snapshot_ends: list[int] = []
        # of those, the ends of disk snapshots -> the HPS their marker lets the HPS take
        self.disk_snapshot_hps: dict[int, int] = {}
        self.stream: PassiveStream | None = None
        self.adm: ActiveDurabilityMonitor | None = None

    # -- reading the history ------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.role != "dead"

    @property
    def high_seqno(self) -> int:
        return len(self.items)

    def item_at(self, seqno: int) -> ClusterItem | None:
        return self.items[seqno - 1] if 1 <= seqno <= len(self.items) else None

    def last_prepare_up_to(self, seqno: int) -> int:
        for x in range(min(seqno, len(self.items)), 0, -1):
            if self.items[x - 1].op == "PREPARE":
                return x
        return 0

    def by_seqno_index(self, up_to: int) -> dict[tuple[str, str], int]:
        """A couchstore file holding the history up to ``up_to``: its by-seqno index, one
        entry per document at its newest seqno; a PREPARE lives in the prepare namespace,
        SETs and COMMITs update the key's committed document."""
        index: dict[tuple[str, str], int] = {}
        for x in range(1, min(up_to, len(self.items)) + 1):
            item = self.items[x - 1]
            namespace = "prepare" if item.op == "PREPARE" else "committed"
            index.pop((namespace, item.key), None)
            index[(namespace, item.key)] = x
        return index

    def complete_markers(self, up_to: int) -> list[list[int]]:
        return [m for m in self.markers if m[1] <= up_to]

    def highest_snapshot_end(self) -> int:
        """End of the newest snapshot whose every item arrived."""
        whole = self.complete_markers(self.high_seqno)
        return whole[-1][1] if whole else 0

    def highest_persisted_snapshot_end(self) -> int:
        whole = self.complete_markers(self.disk.seqno)
        return whole[-1][1] if whole else 0

    def markers_up_to(self, seqno: int) -> list[list[int]]:
        """The markers a copy cut at ``seqno`` still has: whole ones, and the one cut."""
        out = [list(m) for m in self.markers if m[1] <= seqno]
        for start, end in self.markers:
            if start <= seqno < end:
                out.append([start, end])
                break
        return out

    def snapshot_for_request(self) -> tuple[int, int]:
        """The snapshot range a stream request carries: the marker the last item is in,
        or ``{high, high}`` when the newest marker has no item yet."""
        high = self.high_seqno
        if self.markers:
            start, end = self.markers[-1]
            if start <= high <= end:
                return start, end
        return high, high

    # -- the active's side ---------------------------------------------------------

    def open_snapshot_start(self) -> int:
        return (self.markers[-1][1] if self.markers else 0) + 1

    def pending_prepares(self) -> list[int]:
        """PREPAREs in the history that no COMMIT names yet, lowest first."""
        committed = {i.prepare_seqno for i in self.items if i.op == "COMMIT"}
        return [
            x
            for x, item in enumerate(self.items, start=1)
            if item.op == "PREPARE" and x not in committed
        ]

    def pending_keys(self) -> set[str]:
        return {self.items[x - 1].key for x in self.pending_prepares()}

    def close_open_snapshot(self) -> None:
        self.markers.append([self.open_snapshot_start(), self.high_seqno])

    def snapshot_holding(self, seqno: int) -> list[int] | None:
        """The closed snapshot of this (active) node that ``seqno`` lies in."""
        for start, end in self.markers:
            if start <= seqno <= end:
                return [start, end]
        return None
