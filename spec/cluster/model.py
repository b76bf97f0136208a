"""The cluster model: init states, actions (guards), next state (effects), properties.

The shape of stateright's ``Model``: a checker (``checker.engines.explore``) calls
``init_states``, ``actions(state)``, ``next_state(state, action)`` and the
``properties()`` and never looks inside a state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from spec.cluster import actions as act
from spec.cluster import active, failover, replica, symmetry
from spec.cluster.actions import Action
from spec.cluster.encode import decode, encode
from spec.cluster.properties import CLUSTER_PROPERTIES, BoundProperty, ClusterProperty
from spec.cluster.setup import Setup
from spec.cluster.state import SET, ClusterItem, ClusterState, NodeState, epoch_uuid
from spec.failover_table import FailoverTable

__all__ = ["ClusterModel"]

_GUARDS = (
    active.client_prepare_enabled,
    active.client_set_enabled,
    active.close_snapshot_enabled,
    active.commit_enabled,
    replica.replicate_item_enabled,
    replica.persist_replica_enabled,
    replica.ack_prepare_enabled,
    failover.crash_active_enabled,
    failover.promote_replica_enabled,
    replica.reconnect_replica_enabled,
    replica.restart_replica_enabled,
    active.persist_active_enabled,
    replica.persist_next_item_enabled,
    replica.backfill_replica_enabled,
)
# guards that offer nothing unless a bound is on (they check it first themselves): a
# model whose bounds leave it off does not ask them
_OFF_UNLESS = {
    replica.persist_next_item_enabled: "partial_flush",
    replica.backfill_replica_enabled: "disk_snapshots",
}

# Each effect takes its own action class (the key): a Callable type cannot say that, so the
# action is Any here and each effect's own signature types it.
_EFFECTS: dict[type[Action], Callable[[Setup, ClusterState, Any], ClusterState]] = {
    act.ClientPrepare: active.apply_client_prepare,
    act.ClientSet: active.apply_client_set,
    act.CloseSnapshot: active.apply_close_snapshot,
    act.Commit: active.apply_commit,
    act.ReplicateItem: replica.apply_replicate_item,
    act.PersistReplica: replica.apply_persist_replica,
    act.AckPrepare: replica.apply_ack_prepare,
    act.CrashActive: failover.apply_crash_active,
    act.PromoteReplica: failover.apply_promote_replica,
    act.ReconnectReplica: replica.apply_reconnect_replica,
    act.RestartReplica: replica.apply_restart_replica,
    act.PersistActive: active.apply_persist_active,
    act.PersistNextItem: replica.apply_persist_next_item,
    act.BackfillReplica: replica.apply_backfill_replica,
}


class ClusterModel:
    """One vbucket on ``bounds.nodes`` nodes, under one ack rule, branch rule and rule set.

    ``extra``: properties besides the registered ones (a user's, from a file).
    """

    def __init__(self, setup: Setup, extra: Sequence[ClusterProperty] = ()) -> None:
        self.setup = setup
        self.extra = tuple(p for p in extra if p.id not in CLUSTER_PROPERTIES)
        b = setup.bounds
        self._guards = tuple(
            g for g in _GUARDS if g not in _OFF_UNLESS or getattr(b, _OFF_UNLESS[g])
        )
        self._canonical, self._keys = setup.canonical, b.keys

    def init_states(self) -> list[ClusterState]:
        """N0 active with the prefix snapshot; every replica streaming from it."""
        b = self.setup.bounds
        table = FailoverTable.of((epoch_uuid(0), 0))
        prefix = tuple(ClusterItem(SET, b.keys + i, 0) for i in range(b.prefix))
        snapshots = ((1, b.prefix),) if b.prefix else ()
        first = NodeState(True, prefix, snapshots, table, marker_due=False)
        with_prefix = NodeState(
            True,
            prefix,
            snapshots,
            table,
            persisted_seqno=b.prefix,
            headers=(b.prefix,) if b.prefix else (),
            connected=True,
        )
        empty = NodeState(True, (), (), table, connected=True)
        replicas = tuple(
            with_prefix if r <= b.prefix_replicas else empty for r in range(1, b.nodes)
        )
        nodes = tuple([self.setup.canonical(n) for n in (first, *replicas)])
        return [ClusterState(nodes, 0, 0, (0,) * b.nodes)]

    def decode(self, data: bytes) -> ClusterState:
        """The state ``spec.cluster.encode.encode`` made ``data`` from, its nodes the ones
        this model's states share (so that the model's memories find them by identity,
        as they find the nodes of the states it made itself)."""
        return decode(data, self.setup.canonical)

    def encode(self, state: ClusterState) -> bytes:
        """The state's bytes (``spec.cluster.encode``): what a search keeps instead of it."""
        return encode(state)

    def representative(self, state: ClusterState) -> ClusterState:
        """The state of ``state``'s orbit under renaming the nodes and the client's keys
        that a reduced search keeps (``spec.cluster.symmetry``: nodes are
        interchangeable, and so are keys, ``spec.cluster.keys``)."""
        return symmetry.representative(state, self._canonical, self._keys)

    def encode_representative(self, state: ClusterState) -> bytes:
        """``encode(representative(state))``, most often without making the representative."""
        return symmetry.encode_representative(state, self._canonical, self._keys)

    def actions(self, state: ClusterState) -> list[Action]:
        out: list[Action] = []
        setup = self.setup
        for guard in self._guards:
            out.extend(guard(setup, state))
        return out

    def next_state(self, state: ClusterState, action: Action) -> ClusterState:
        return _EFFECTS[type(action)](self.setup, state, action)

    def properties(self) -> Sequence[BoundProperty]:
        return [p.bind(self.setup) for p in (*CLUSTER_PROPERTIES, *self.extra)]
