"""Properties of the cluster model, by stable id, written as conditions on one state.

* ``no-lost-syncwrite`` (safety, *always*): every SyncWrite acknowledged to a
  client is in the history of the active, at its seqno, in every state that
  has an active (so in every active from the acknowledgement on), as long as
  fewer than ``majority`` of the failures *its level promises to survive*
  happened since its PREPARE was written (``promised_failures``). The negated
  bad state: an active without an acknowledged PREPARE within that budget.
  Each level's promise, as Couchbase documents it ("Durability", Couchbase
  Server docs, docs.couchbase.com/server/current/learn/data/durability.html;
  kv_engine's include/memcached/durability_spec.h names the levels):

  - Majority: "the mutation must be replicated to (that is, held in the memory
    allocated to the bucket on) a majority of the Data Service nodes": it
    survives fewer than ``majority`` failures of any kind, a failover (the
    active lost) or a restart (a node's memory lost) alike;
  - MajorityAndPersistOnMaster: as Majority, and "persisted ... on the active
    node": that adds the active's own restart, which this model does not have
    (a crashed active is failed over for good), so here it promises what
    Majority does;
  - PersistToMajority: "persisted to disk on a majority of the Data Service
    nodes": a restart loses no copy, so it survives any number of restarts and
    fewer than ``majority`` failovers.
* ``prepare-ack-progress`` (progress, *always*, over quiescent replicas): a
  replica connected to the active that has received everything the stream
  can send it (every closed snapshot, so every snapshot it holds is
  complete), has nothing left to ack (its HPS is what the active
  recorded) and no flush to come that would move its durability fence has
  acked every PREPARE it holds that is still pending on the active. In such
  a state only a new PREPARE (a new snapshot) or a failure can move the
  replica, so a violation is exactly a replica that "does not
  ack a satisfied prepare until another prepare arrives" (MB-51805). This is
  the bounded form of "eventually acks": no fairness assumption is needed.
* ``syncwrite-acknowledged`` (reachability, *sometimes*): some state has an
  acknowledged SyncWrite; checked alongside the others so that a ``holds``
  of no-lost-syncwrite is not vacuous (bounds too small to commit anything).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from spec.cluster.protocol import Expectation
from spec.cluster.replica import next_message, persisted
from spec.cluster.setup import Setup
from spec.cluster.state import (
    PERSIST_TO_MAJORITY,
    PREPARE,
    ClusterState,
    NodeState,
    SyncWrite,
    node_name,
)
from spec.registry import Registry

__all__ = [
    "CLUSTER_PROPERTIES",
    "BoundProperty",
    "ClusterProperty",
    "lost_syncwrites",
    "promised_failures",
    "unacked_prepares",
]


@dataclass(frozen=True)
class ClusterProperty:
    """A property of the cluster model; ``condition(setup, state)`` is true where it holds."""

    id: str
    kind: Literal["safety", "progress", "reachability"]
    expectation: Expectation  # given as "always" or "sometimes" in a user's file
    summary: str
    condition: Callable[[Setup, ClusterState], bool]
    explain: Callable[[Setup, ClusterState], str]

    def __post_init__(self) -> None:
        if self.expectation in set(Expectation):
            object.__setattr__(self, "expectation", Expectation(self.expectation))

    @property
    def name(self) -> str:
        return self.id

    def bind(self, setup: Setup) -> BoundProperty:
        return BoundProperty(self, setup)


@dataclass(frozen=True)
class BoundProperty:
    """A property for one setup: what a checker evaluates (``name``, ``expectation``,
    ``holds(state)``)."""

    property: ClusterProperty
    setup: Setup

    @builtins.property  # the field named property shadows the builtin here (for mypy)
    def name(self) -> str:
        return self.property.id

    @builtins.property
    def expectation(self) -> Expectation:
        return self.property.expectation

    def holds(self, state: ClusterState) -> bool:
        return self.property.condition(self.setup, state)

    def explain(self, state: ClusterState) -> str:
        return self.property.explain(self.setup, state)


def promised_failures(state: ClusterState, level: int) -> int:
    """The failures so far that a SyncWrite of ``level`` promises to survive (fewer than
    a majority of them): failovers and restarts, or failovers only for
    PersistToMajority (a restart keeps what a node persisted). ``SyncWrite.faults_before``
    is this count when the PREPARE was written."""
    return state.epoch if level == PERSIST_TO_MAJORITY else state.faults


def lost_syncwrites(setup: Setup, state: ClusterState) -> list[SyncWrite]:
    """Acknowledged SyncWrites the active does not hold although fewer than a majority
    of the failures their level promises to survive happened since they were written
    (empty without an active)."""
    active = state.active_node
    if active is None:
        return []
    lost = []
    for write in state.acknowledged:
        if promised_failures(state, write.level) - write.faults_before >= setup.bounds.majority:
            continue
        held = active.items[write.seqno - 1] if write.seqno <= active.high_seqno else None
        if held != write.prepare:
            lost.append(write)
    return lost


def _flush_moves_hps(setup: Setup, node: NodeState) -> bool:
    """Whether persisting what ``node`` received would move its HPS (a PersistToMajority
    PREPARE behind its durability fence, or a disk snapshot not persisted whole): then
    it is not quiescent. Never so with Majority SyncWrites and memory snapshots alone."""
    if node.persisted_seqno >= node.high_seqno:
        return False
    above = node.items[node.high_prepared_seqno :]
    if not node.disk_ends and not any(item.level == PERSIST_TO_MAJORITY for item in above):
        return False  # only a PersistToMajority PREPARE or a disk snapshot waits for a flush
    return persisted(setup, node).high_prepared_seqno > node.high_prepared_seqno


def unacked_prepares(setup: Setup, state: ClusterState) -> list[tuple[int, int]]:
    """(replica, seqno): pending PREPAREs a quiescent replica holds but did not ack."""
    active = state.active_node
    if active is None:
        return []
    pending = active.pending_prepares()
    if not pending:
        return []
    out = []
    for r in state.replicas():
        node = state.nodes[r]
        if not node.connected or next_message(active, node) is not None:
            continue
        if node.high_prepared_seqno > state.acks[r]:
            continue  # an AckPrepare is still to come
        if _flush_moves_hps(setup, node):
            continue  # a flush is still to come that moves its durability fence
        for x, item in enumerate(node.items, start=1):
            if (
                item.op == PREPARE
                and x in pending
                and x > state.acks[r]
                and x <= active.high_seqno
                and active.items[x - 1] == item
            ):
                out.append((r, x))
    return out


def _explain_lost(setup: Setup, state: ClusterState) -> str:
    assert state.active is not None
    parts = []
    for write in lost_syncwrites(setup, state):
        faults = promised_failures(state, write.level) - write.faults_before
        kind = "failover" if write.level == PERSIST_TO_MAJORITY else "failure"
        parts.append(
            f"the client was acknowledged {write.label()}; the active "
            f"{node_name(state.active)} does not hold it, {faults} {kind}"
            f"{'s' if faults != 1 else ''} after it was written (majority "
            f"{setup.bounds.majority})"
        )
    return "; ".join(parts)


def _explain_unacked(setup: Setup, state: ClusterState) -> str:
    active = state.active_node
    assert active is not None
    parts = []
    for r, x in unacked_prepares(setup, state):
        node = state.nodes[r]
        parts.append(
            f"{node_name(r)} holds {active.items[x - 1].label(x)} in a complete snapshot, "
            f"has received all the stream can send and its HPS is {node.high_prepared_seqno}: "
            f"it never acks it unless another PREPARE arrives"
        )
    return "; ".join(parts)


def _builtins() -> None:
    for prop in (
        ClusterProperty(
            "no-lost-syncwrite",
            "safety",
            Expectation.ALWAYS,
            "a SyncWrite acknowledged to the client is in the history of every active "
            "from then on (MB-34150)",
            lambda setup, state: not lost_syncwrites(setup, state),
            _explain_lost,
        ),
        ClusterProperty(
            "prepare-ack-progress",
            "progress",
            Expectation.ALWAYS,
            "a replica holding a complete snapshot with a pending PREPARE acks it without "
            "needing another PREPARE (MB-51805); checked in quiescent states",
            lambda setup, state: not unacked_prepares(setup, state),
            _explain_unacked,
        ),
        ClusterProperty(
            "syncwrite-acknowledged",
            "reachability",
            Expectation.SOMETIMES,
            "some SyncWrite gets acknowledged (so a 'holds' above is not vacuous)",
            lambda setup, state: bool(state.acknowledged),
            lambda setup, state: f"acknowledged {', '.join(w.label() for w in state.acknowledged)}",
        ),
    ):
        CLUSTER_PROPERTIES.register(prop.id, prop)


CLUSTER_PROPERTIES: Registry[ClusterProperty] = Registry("property", _builtins)
