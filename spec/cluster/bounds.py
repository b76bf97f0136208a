"""Bounds of the cluster model, kept apart from it (TLA+'s ``MC*.cfg``), and named presets.

A verdict of ``dcpcheck durability`` holds *within* these bounds: every
interleaving of the model's actions that stays inside them was explored.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from spec.cluster.state import LEVEL_NAMES
from spec.errors import InvalidInput

__all__ = ["LIMITS", "PRESETS", "ClusterBounds", "Preset", "preset"]

# The largest cluster dcpcheck explores: beyond these a search cannot finish.
LIMITS = {
    "nodes": 8,
    "majority": 8,
    "keys": 8,
    "prepares": 16,
    "sets": 16,
    "items": 32,
    "failovers": 8,
    "restarts": 8,
    "prefix": 32,
    "prefix_replicas": 7,
}


_LATER = ("levels", "partial_flush", "disk_snapshots")  # fields added after runs were stored


@dataclass(frozen=True)
class ClusterBounds:
    """How big a cluster run may get.

    * ``nodes``: N0..N(nodes-1); N0 is the first active. ``replicas`` must be
      ``nodes - 1`` (the vbucket has one copy per node); 0 means that.
    * ``majority``: acks (the active's included) a Majority SyncWrite needs;
      0 means kv_engine's ``chain size / 2 + 1``. The chain keeps its size
      after a failover (the failed node's slot is undefined, not removed).
    * ``keys``: keys the client's SyncWrites and SETs use.
    * ``prepares`` / ``sets``: client SyncWrites / plain SETs, in all epochs.
    * ``items``: the longest history any node may hold (COMMITs count); a
      prepare is only accepted while its commit still fits.
    * ``failovers``: active crashes (each followed by a promotion).
    * ``restarts``: replica restarts.
    * ``prefix``: SETs N0 holds at the start, in one closed snapshot
      ``[1, prefix]``; ``prefix_replicas``: how many replicas (N1, N2, ...)
      start with that snapshot received and persisted.

    * ``levels``: the durability level of the client's SyncWrites, one decimal digit
      each, the first SyncWrite's first: 1 majority, 2 majority_and_persist_on_master,
      3 persist_to_majority; past the last digit the last one repeats; 0 (the
      default) means every SyncWrite is Majority. ``13``: a Majority SyncWrite,
      then PersistToMajority ones. A SyncWrite's level is fixed by its place, not
      chosen by the search, so a preset's state space does not multiply by levels.
    * ``partial_flush``: 1 lets a replica's flusher also persist only its next
      unpersisted item (``PersistNextItem``: a flush that stops mid-way, as the
      seed's "[1]" with seqno 2 already received); 0 (the default): every flush
      persists everything received.
    * ``disk_snapshots``: 1 lets the active's stream send a replica a disk snapshot
      where a marker is due (``BackfillReplica``: the replica's next seqno is below the
      active's checkpoints, which kv_engine dropped or removed, so it is backfilled
      from disk), with the PassiveDurabilityMonitor's rule (5) for it; 0 (the
      default): every snapshot is a memory snapshot.

    And one storage setting, which decides verdicts (so it is named with the run):

    * ``midpoint_rollback``: 1 (kv_engine's default) or 0, couchstore's
      ``couchstore_midpoint_rollback_optimisation``: a replica whose rollback
      would discard at least half of the seqnos on its disk resets the
      vbucket to 0 instead (``CouchKVStore::rollback``; docs/durability.md).
    """

    nodes: int = 3
    replicas: int = 0
    majority: int = 0
    keys: int = 1
    prepares: int = 1
    sets: int = 0
    items: int = 4
    failovers: int = 2
    restarts: int = 0
    prefix: int = 0
    prefix_replicas: int = 0
    midpoint_rollback: int = 1
    levels: int = 0
    partial_flush: int = 0
    disk_snapshots: int = 0

    def __post_init__(self) -> None:
        if self.nodes < 2:
            raise ValueError("nodes must be at least 2 (an active and a replica)")
        if self.replicas == 0:
            object.__setattr__(self, "replicas", self.nodes - 1)
        if self.replicas != self.nodes - 1:
            raise ValueError(
                f"replicas must be nodes - 1 = {self.nodes - 1} (one copy of the vbucket per node)"
            )
        if self.majority == 0:
            object.__setattr__(self, "majority", self.nodes // 2 + 1)
        if not 1 <= self.majority <= self.nodes:
            raise ValueError(f"majority must be between 1 and nodes ({self.nodes})")
        for name in ("keys",):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        for name in ("prepares", "sets", "failovers", "restarts", "prefix", "prefix_replicas"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0")
        for name, most in LIMITS.items():
            if getattr(self, name) > most:
                raise ValueError(
                    f"{name} must be at most {most} (got {getattr(self, name)}); the "
                    "presets' state spaces already reach millions of states"
                )
        if (
            self.levels < 0
            or len(str(self.levels)) > LIMITS["prepares"]
            or any(d not in "123" for d in str(self.levels or 1))
        ):
            raise ValueError(
                "levels must be digits 1 (majority), 2 (majority_and_persist_on_master) "
                f"or 3 (persist_to_majority), first SyncWrite first, at most "
                f"{LIMITS['prepares']} (got {self.levels})"
            )
        if self.partial_flush not in (0, 1):
            raise ValueError("partial_flush must be 0 (a flush persists all) or 1")
        if self.disk_snapshots not in (0, 1):
            raise ValueError("disk_snapshots must be 0 (memory snapshots only) or 1")
        if self.midpoint_rollback not in (0, 1):
            raise ValueError("midpoint_rollback must be 1 (on, kv_engine's default) or 0 (off)")
        if self.items < self.prefix:
            raise ValueError(f"items ({self.items}) must be at least prefix ({self.prefix})")
        if self.prefix_replicas > self.replicas:
            raise ValueError(f"prefix_replicas must be at most replicas ({self.replicas})")
        if self.prefix_replicas and not self.prefix:
            raise ValueError("prefix_replicas needs a prefix")

    def describe(self) -> str:
        text = (
            f"{self.nodes} nodes ({self.replicas} replica{'s' if self.replicas > 1 else ''}, "
            f"majority {self.majority}), "
            f"items<={self.items}, prepares<={self.prepares}, sets<={self.sets}, "
            f"keys<={self.keys}, failovers<={self.failovers}, restarts<={self.restarts}"
        )
        if self.prefix:
            text += f", prefix {self.prefix} SETs on N0..N{self.prefix_replicas}"
        if not self.midpoint_rollback:
            text += ", couchstore midpoint rollback off"
        if self.levels:
            text += f", levels {'/'.join(LEVEL_NAMES[d] for d in self.level_sequence())}"
        if self.partial_flush:
            text += ", partial flushes"
        if self.disk_snapshots:
            text += ", disk snapshots"
        return text

    def level_sequence(self) -> tuple[int, ...]:
        """The levels (``spec.cluster.state.MAJORITY`` ...) of the 1st, 2nd, ... SyncWrite;
        past the end the last one repeats."""
        return tuple(int(d) - 1 for d in str(self.levels)) if self.levels else (0,)

    def level_of(self, prepare: int) -> int:
        """The level of the client's SyncWrite number ``prepare`` (0: the first)."""
        sequence = self.level_sequence()
        return sequence[min(prepare, len(sequence) - 1)]

    def to_json(self) -> dict[str, int]:
        """The fields; ``levels``, ``partial_flush`` and ``disk_snapshots`` only when set
        (so the bounds of a run written before they existed, and its id, are what they
        were)."""
        out = asdict(self)
        for name in _LATER:
            if not out[name]:
                del out[name]
        return out

    def but(self, **changes: int) -> ClusterBounds:
        return replace(self, **changes)


@dataclass(frozen=True)
class Preset:
    """Named bounds. ``recorded``: whether ``spec.cluster.expected`` records a verdict for
    every check of the preset (False for the level presets: of these it records the
    checks run so far)."""

    name: str
    summary: str
    bounds: ClusterBounds
    recorded: bool = True


_MB_34150 = ClusterBounds(
    nodes=4, majority=3, keys=1, prepares=1, items=4, failovers=2, prefix=2, prefix_replicas=2
)

# two SyncWrites of different levels (``levels``), each with its COMMIT: 4 items
_LEVELS_4 = ClusterBounds(nodes=4, majority=3, keys=2, prepares=2, items=4, failovers=2)
_LEVELS_3 = ClusterBounds(nodes=3, keys=2, prepares=2, items=4, failovers=2, restarts=1)


def _both_orders(name: str, summary: str, bounds: ClusterBounds) -> tuple[Preset, Preset]:
    """``name`` (levels-mp...): Majority then PersistToMajority, and its twin in the other
    order (levels-pm...)."""
    twin = f"as {name}, PersistToMajority then Majority"
    return (
        Preset(name, summary, bounds.but(levels=13), recorded=False),
        Preset(name.replace("-mp", "-pm", 1), twin, bounds.but(levels=31), recorded=False),
    )


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "mb-34150",
            "MB-34150's setup: 4 nodes, 3 replicas, majority 3; N0 holds "
            "[1:SET(B), 2:SET(C)], received and persisted by N1 and N2, not by N3; "
            "one SyncWrite, two failovers",
            _MB_34150,
        ),
        Preset(
            "mb-34150-wide",
            "MB-34150's setup with room for one more item: a SET may share the "
            "SyncWrite's snapshot (keys A and B, 5 items)",
            _MB_34150.but(keys=2, sets=1, items=5),
        ),
        Preset(
            "mb-34150-wider",
            "mb-34150-wide with room for two SETs (keys A and B, 6 items): its four "
            "prepare-ack-progress holds take hours of two cores (benchmarks/RESULTS.md)",
            _MB_34150.but(keys=2, sets=2, items=6),
        ),
        Preset(
            "mb-51805",
            "MB-51805's setup: 2 nodes, 1 replica, majority 2; a PREPARE(A) and a "
            "SET(B), one replica restart",
            ClusterBounds(nodes=2, keys=2, prepares=1, sets=1, items=3, failovers=0, restarts=1),
        ),
        Preset(
            "small",
            "from an empty vbucket: 3 nodes, 2 replicas, majority 2; one SyncWrite "
            "and one SET (keys A, B), two failovers, one restart",
            ClusterBounds(nodes=3, keys=2, prepares=1, sets=1, items=4, failovers=2, restarts=1),
        ),
        Preset(
            "mb-34150-5",
            "MB-34150's setup on 5 nodes: 4 replicas, majority 3; N0 holds "
            "[1:SET(B), 2:SET(C)], received and persisted by N1 and N2, not by N3 and N4; "
            "one SyncWrite, two failovers (a model for the symmetry reduction: N1 and N2 are "
            "interchangeable, and so are N3 and N4)",
            _MB_34150.but(nodes=5, replicas=4),
        ),
        *_both_orders(
            "levels-mp",
            "two SyncWrites in one vbucket, Majority then PersistToMajority (keys A, B): "
            "4 nodes, 3 replicas, majority 3, from an empty vbucket; two failovers",
            _LEVELS_4,
        ),
        *_both_orders(
            "levels-mp-small",
            "two SyncWrites, Majority then PersistToMajority (keys A, B): 3 nodes, "
            "2 replicas, majority 2 (sync_writes_max_allowed_replicas = 2); two "
            "failovers, one restart",
            _LEVELS_3,
        ),
        Preset(
            "mb-34150-on-master",
            "MB-34150's setup, tighter, with a MajorityAndPersistOnMaster SyncWrite: 4 nodes, "
            "3 replicas, majority 3; N0 holds [1:SET(B)], received and persisted by every "
            "replica; one SyncWrite, two failovers (decides in seconds: in verify)",
            _MB_34150.but(prefix=1, prefix_replicas=3, items=3, levels=2),
        ),
        Preset(
            "mb-34150-persist",
            "as mb-34150-on-master with a PersistToMajority SyncWrite",
            _MB_34150.but(prefix=1, prefix_replicas=3, items=3, levels=3),
        ),
        Preset(
            "mb-34150-backfill",
            "MB-34150's setup where the active may backfill a replica with a disk snapshot "
            "(disk_snapshots 1: BackfillReplica, the PassiveDurabilityMonitor's rule (5))",
            _MB_34150.but(disk_snapshots=1),
            recorded=False,
        ),
        Preset(
            "mb-34150-wide-persist",
            "mb-34150-wide with a PersistToMajority SyncWrite: does MB-34453's loss with "
            "3 replicas reach a write persisted on a majority?",
            _MB_34150.but(keys=2, sets=1, items=5, levels=3),
            recorded=False,
        ),
    )
}


def preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise InvalidInput("--preset", f"unknown preset '{name}'; known: {known}") from None
