"""Reference simulation of SyncWrite durability over several nodes, as ordinary code.

An imperative, mutable simulation of what docs/durability.md describes: an
active node writing PREPAREs, SETs and COMMITs into snapshots, replicas
receiving them over PassiveStreams and acking their high prepared seqno under
an ack rule, flushers, replica restarts, the active's crash and ns_server's
promotion of a most up-to-date replica at a branch point, reconnects answered
by the reference producer (``spec.reference.producer``) and replica rollback.

It is deliberately written apart from the explicit-state model
(``spec.cluster``) and imports nothing from it or from ``checker``: the tests
(tests/test_durability_reference.py) replay the model's runs here and compare
``observe()`` with ``observe_model_state`` (``spec.reference.cluster_observe``)
of the model's state after every step, so neither encoding can drift alone.
``spec.reference.cluster_replay.replay_on_reference`` does this for a stored
counterexample file.

Each action is a method named as the JSON action (``ReplicateItem(node="N1")``);
an action that is not enabled raises ``ActionNotEnabled``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from spec.failover_table import FailoverTable
from spec.reference.cluster_hps import active_acks, move_hps_6_0, move_hps_at_snapshot_ends
from spec.reference.cluster_node import (
    ActiveDurabilityMonitor,
    ClusterItem,
    Node,
    PassiveStream,
    first_uuid,
    uuid_of_epoch,
    uuid_of_reset,
)
from spec.reference.cluster_observe import node_summary
from spec.reference.producer import REFERENCE_DECISIONS, stream_request
from spec.types import Outcome, ProducerState, StreamRequest

__all__ = [
    "ACK_RULES",
    "ACTION_NAMES",
    "BRANCH_RULES",
    "ActionNotEnabled",
    "Cluster",
]

ACK_RULES = ("ack-on-prepare", "ack-at-snapshot-end", "ack-at-snapshot-end+restart-fix")
BRANCH_RULES = ("persisted-snapshot", "highest-snapshot")
ACTION_NAMES = (
    "ClientPrepare",
    "ClientSet",
    "CloseSnapshot",
    "Commit",
    "ReplicateItem",
    "PersistReplica",
    "AckPrepare",
    "CrashActive",
    "PromoteReplica",
    "ReconnectReplica",
    "RestartReplica",
    "PersistActive",
    "PersistNextItem",
    "BackfillReplica",
)
LEVELS = ("majority", "majority_and_persist_on_master", "persist_to_majority")


class ActionNotEnabled(Exception):
    """An action the current state does not allow (its guard is false)."""


def key_label(index: int) -> str:
    return chr(ord("A") + index) if 0 <= index < 26 else f"K{index}"


class Cluster:
    """One vbucket on N0..N(n-1): N0 starts active with the prefix, replicas streaming."""

    def __init__(
        self, bounds: Mapping[str, int], ack_rule: str, branch_rule: str, rules: str = "kv-current"
    ) -> None:
        if ack_rule not in ACK_RULES:
            raise ValueError(f"unknown ack rule {ack_rule!r}")
        if branch_rule not in BRANCH_RULES:
            raise ValueError(f"unknown branch rule {branch_rule!r}")
        if rules not in REFERENCE_DECISIONS:
            raise ValueError(f"no reference producer for rule set {rules!r}")
        self.ack_rule = ack_rule
        self.branch_rule = branch_rule
        self.needs_rollback = REFERENCE_DECISIONS[rules]
        self.size = int(bounds["nodes"])
        self.majority = int(bounds.get("majority", 0)) or self.size // 2 + 1
        self.keys = [key_label(k) for k in range(int(bounds.get("keys", 1)))]
        self.max_items = int(bounds.get("items", 4))
        self.max_prepares = int(bounds.get("prepares", 1))
        self.max_sets = int(bounds.get("sets", 0))
        self.max_failovers = int(bounds.get("failovers", 2))
        self.max_restarts = int(bounds.get("restarts", 0))
        # couchstore_midpoint_rollback_optimisation (kv_engine's default: on)
        self.midpoint_rollback = bool(int(bounds.get("midpoint_rollback", 1)))
        # the level of the 1st, 2nd, ... SyncWrite: one digit each (1 majority, 2
        # majority_and_persist_on_master, 3 persist_to_majority), the last repeating
        digits = str(int(bounds.get("levels", 0)) or 1)
        self.levels = [LEVELS[int(d) - 1] for d in digits]
        self.partial_flush = bool(int(bounds.get("partial_flush", 0)))
        # the active may backfill a replica from disk where a marker is due
        self.disk_snapshots = bool(int(bounds.get("disk_snapshots", 0)))
        prefix = int(bounds.get("prefix", 0))
        prefix_replicas = int(bounds.get("prefix_replicas", 0))

        self.epoch = 0  # failovers so far
        self.restarts = 0
        self.prepares = 0
        self.sets = 0
        # (seqno, epoch, key, failures its level counts, level)
        self.acknowledged: list[tuple[int, int, str, int, str]] = []
        self.in_flight: list[tuple[int, int, str, int, str]] = []

        start = [ClusterItem("SET", key_label(len(self.keys) + i), 0) for i in range(prefix)]
        self.nodes = [Node(i, FailoverTable.of((first_uuid(), 0))) for i in range(self.size)]
        for node in self.nodes:
            if node.index == 0 or node.index <= prefix_replicas:
                node.items = list(start)
                node.markers = [[1, prefix]] if prefix else []
            if node.index == 0:
                node.role = "active"
                node.adm = ActiveDurabilityMonitor()
            else:
                node.stream = PassiveStream()
                if node.index <= prefix_replicas:
                    node.disk.seqno = prefix
                    node.disk.markers = [list(m) for m in node.markers]
                    node.disk.headers = [prefix]
        self.active: Node | None = self.nodes[0]

    # -- helpers ---------------------------------------------------------------------

    @property
    def failures(self) -> int:
        return self.epoch + self.restarts

    def failures_for(self, level: str) -> int:
        """Failures a SyncWrite of ``level`` promises to survive fewer than a majority of:
        restarts keep what was persisted, so persist_to_majority counts failovers only."""
        return self.epoch if level == "persist_to_majority" else self.failures

    @property
    def acks_at_snapshot_end(self) -> bool:
        return self.ack_rule != "ack-on-prepare"

    def replicas(self) -> list[Node]:
        return [n for n in self.nodes if n.role == "replica"]

    def _node(self, name: str) -> Node:
        if not (name.startswith("N") and name[1:].isdigit()) or int(name[1:]) >= self.size:
            raise ActionNotEnabled(f"{name!r} is not a node of this cluster")
        return self.nodes[int(name[1:])]

    def _replica(self, action: str, name: str) -> Node:
        node = self._node(name)
        if node.role != "replica":
            raise ActionNotEnabled(f"{action}({name}): {name} is {node.role}, not a replica")
        return node

    def _the_active(self, action: str) -> Node:
        if self.active is None:
            raise ActionNotEnabled(f"{action}: there is no active (failed over, not promoted)")
        return self.active

    def _key(self, action: str, key: str) -> str:
        if key not in self.keys:
            raise ActionNotEnabled(f"{action}({key}): key not in {self.keys}")
        return key

    def next_message(self, node: Node) -> tuple[str, int, int] | None:
        """What the active's stream would send ``node`` now: a marker, an item or nothing."""
        active = self.active
        if active is None or node.stream is None:
            return None
        if node.stream.awaiting_marker:
            closed = active.snapshot_holding(node.high_seqno + 1)
            return None if closed is None else ("marker", closed[0], closed[1])
        end = node.markers[-1][1]
        if node.high_seqno < end and node.high_seqno < active.high_seqno:
            return ("item", node.high_seqno + 1, end)
        return None

    def acked_by(self, seqno: int) -> int:
        """The active plus every replica whose recorded ack covers ``seqno``; nobody while
        the active itself has not acked it (its fence: ``active_acks``)."""
        assert self.active is not None and self.active.adm is not None
        if not active_acks(self.active, seqno):
            return 0
        adm = self.active.adm
        return 1 + sum(1 for r in self.replicas() if adm.acked(r.index) >= seqno)

    # -- the active's actions ------------------------------------------------------------

    def _client_write(self, action: str, key: str, done: int, allowed: int, items: int) -> Node:
        """The active, if a client's write ``action(key)`` of ``items`` items (a SET, or a
        PREPARE and its COMMIT) is enabled: fewer than ``allowed`` such writes ``done``, room
        for the items, and no SyncWrite on ``key`` in progress."""
        active = self._the_active(action)
        key = self._key(action, key)
        if done >= allowed:
            raise ActionNotEnabled(f"{action}({key}): the {allowed} allowed done")
        if active.high_seqno + items > self.max_items:
            raise ActionNotEnabled(f"{action}({key}): {items} more items pass max_items")
        if key in active.pending_keys():
            raise ActionNotEnabled(f"{action}({key}): a SyncWrite on {key} is in progress")
        return active

    def ClientPrepare(self, key: str) -> None:
        active = self._client_write("ClientPrepare", key, self.prepares, self.max_prepares, 2)
        if sum(1 for n in self.nodes if n.alive) < self.majority:
            raise ActionNotEnabled(f"ClientPrepare({key}): fewer than a majority of nodes left")
        level = self.levels[min(self.prepares, len(self.levels) - 1)]
        active.items.append(ClusterItem("PREPARE", key, self.epoch, 0, level))
        self.prepares += 1
        self.in_flight.append((active.high_seqno, self.epoch, key, self.failures_for(level), level))

    def ClientSet(self, key: str) -> None:
        active = self._client_write("ClientSet", key, self.sets, self.max_sets, 1)
        active.items.append(ClusterItem("SET", key, self.epoch))
        self.sets += 1

    def CloseSnapshot(self) -> None:
        active = self._the_active("CloseSnapshot")
        if active.high_seqno < active.open_snapshot_start():
            raise ActionNotEnabled("CloseSnapshot: the open snapshot is empty")
        active.close_open_snapshot()

    def Commit(self) -> None:
        active = self._the_active("Commit")
        pending = active.pending_prepares()
        if not pending:
            raise ActionNotEnabled("Commit: no PREPARE is pending")
        if active.high_seqno + 1 > self.max_items:
            raise ActionNotEnabled("Commit: the history is full")
        lowest = pending[0]
        if self.acked_by(lowest) < self.majority:
            raise ActionNotEnabled(
                f"Commit: PREPARE {lowest} is acked by {self.acked_by(lowest)} nodes, "
                f"majority is {self.majority}"
            )
        prepare = active.items[lowest - 1]
        opened = active.items[active.open_snapshot_start() - 1 :]
        if any(i.op == "PREPARE" and i.key == prepare.key for i in opened):
            active.close_open_snapshot()  # kv_engine puts the COMMIT in a new checkpoint
        active.items.append(ClusterItem("COMMIT", prepare.key, self.epoch, lowest))
        for write in self.in_flight:
            if write[0] == lowest and write[1] == prepare.epoch:
                self.in_flight.remove(write)
                self.acknowledged.append(write)
                break

    # -- the replicas' actions --------------------------------------------------------

    def ReplicateItem(self, node: str) -> None:
        replica = self._replica("ReplicateItem", node)
        message = self.next_message(replica)
        if message is None:
            why = "has no stream" if replica.stream is None else "has nothing to receive"
            raise ActionNotEnabled(f"ReplicateItem({node}): {node} {why}")
        assert self.active is not None and replica.stream is not None
        stream = replica.stream
        kind, first, last = message
        if kind == "marker":
            # the new marker replaces any it overlaps and any snapshot left unfinished
            replica.markers = [
                m for m in replica.markers if m[1] <= replica.high_seqno and m[1] < first
            ]
            replica.markers.append([first, last])
            stream.awaiting_marker = False
            return
        item = self.active.items[first - 1]
        replica.items.append(item)
        if item.op == "PREPARE":
            if self.acks_at_snapshot_end:
                stream.cur_snapshot_prepare = True
            else:
                move_hps_6_0(replica)
        if first == last:  # the snapshot's last item: PassiveStream::handleSnapshotEnd
            # a disk snapshot's end is told to the PDM even without a PREPARE in it
            from_disk = stream.cur_snapshot_disk and self.acks_at_snapshot_end
            if stream.cur_snapshot_prepare or from_disk:
                replica.snapshot_ends.append(first)
                if from_disk:
                    replica.disk_snapshot_hps[first] = self._marker_hps(replica, first)
                move_hps_at_snapshot_ends(replica)
            stream.cur_snapshot_prepare = False
            stream.cur_snapshot_disk = False
            stream.awaiting_marker = True

    @staticmethod
    def _marker_hps(replica: Node, end: int) -> int:
        """What a disk snapshot ending at ``end`` moves the HPS to once persisted: its
        marker carries the active's last PREPARE up to ``end``; one below the snapshot's
        start is dropped, and the end is taken instead."""
        start = replica.markers[-1][0]
        carried = replica.last_prepare_up_to(end)
        return carried if carried >= start else end

    def BackfillReplica(self, node: str) -> None:
        replica = self._replica("BackfillReplica", node)
        if not self.disk_snapshots:
            raise ActionNotEnabled(f"BackfillReplica({node}): disk snapshots are off")
        message = self.next_message(replica)
        if message is None or message[0] != "marker":
            raise ActionNotEnabled(f"BackfillReplica({node}): no snapshot marker is due")
        assert self.active is not None and replica.stream is not None
        high = replica.high_seqno
        replica.markers = [m for m in replica.markers if m[1] <= high]
        replica.markers.append([high + 1, self.active.markers[-1][1]])
        replica.stream.awaiting_marker = False
        replica.stream.cur_snapshot_disk = True

    def PersistReplica(self, node: str) -> None:
        replica = self._replica("PersistReplica", node)
        if replica.disk.seqno >= replica.high_seqno:
            raise ActionNotEnabled(f"PersistReplica({node}): nothing new to persist")
        self._flush(replica, replica.high_seqno)

    def PersistNextItem(self, node: str) -> None:
        replica = self._replica("PersistNextItem", node)
        if not self.partial_flush:
            raise ActionNotEnabled(f"PersistNextItem({node}): flushes persist all (no partial)")
        if replica.disk.seqno + 1 >= replica.high_seqno:
            raise ActionNotEnabled(
                f"PersistNextItem({node}): not two items to persist (PersistReplica does it)"
            )
        self._flush(replica, replica.disk.seqno + 1)

    def _flush(self, replica: Node, upto: int) -> None:
        """The flusher writes the items up to ``upto`` and a header, then tells the PDM."""
        replica.disk.seqno = upto
        replica.disk.markers = replica.markers_up_to(upto)
        replica.disk.headers.append(upto)  # the flush commits a header
        if self.acks_at_snapshot_end:
            move_hps_at_snapshot_ends(replica)
        else:
            move_hps_6_0(replica)
        replica.disk.hps = replica.last_prepare_up_to(min(replica.hps, upto))

    def PersistActive(self) -> None:
        active = self._the_active("PersistActive")
        fenced = [
            x
            for x in active.pending_prepares()
            if x > active.disk.seqno and active.items[x - 1].level != "majority"
        ]
        if not fenced:
            raise ActionNotEnabled("PersistActive: no PREPARE waits for the active's disk")
        active.disk.seqno = active.high_seqno

    def AckPrepare(self, node: str) -> None:
        replica = self._replica("AckPrepare", node)
        active = self._the_active(f"AckPrepare({node})")
        assert active.adm is not None
        if replica.stream is None:
            raise ActionNotEnabled(f"AckPrepare({node}): {node} has no stream to the active")
        if replica.hps <= active.adm.acked(replica.index):
            raise ActionNotEnabled(f"AckPrepare({node}): HPS {replica.hps} already acked")
        active.adm.acks[replica.index] = replica.hps

    def RestartReplica(self, node: str) -> None:
        replica = self._replica("RestartReplica", node)
        if self.restarts >= self.max_restarts:
            raise ActionNotEnabled(f"RestartReplica({node}): the restart budget is spent")
        disk = replica.disk
        replica.items = replica.items[: disk.seqno]
        replica.markers = [list(m) for m in disk.markers]
        replica.hps = disk.hps
        replica.snapshot_ends = []
        replica.disk_snapshot_hps = {}
        replica.stream = None
        self.restarts += 1

    def ReconnectReplica(self, node: str) -> None:
        replica = self._replica("ReconnectReplica", node)
        active = self._the_active(f"ReconnectReplica({node})")
        if replica.stream is not None:
            raise ActionNotEnabled(f"ReconnectReplica({node}): {node} already streams")
        snap_start, snap_end = replica.snapshot_for_request()
        request = StreamRequest(replica.table.latest.uuid, replica.high_seqno, snap_start, snap_end)
        producer = ProducerState(active.table, active.high_seqno, 0)
        answer = stream_request(request, producer, self.needs_rollback)
        if answer.outcome is Outcome.ACCEPT:
            replica.table = active.table
            replica.stream = PassiveStream(
                cur_snapshot_prepare=self.ack_rule == "ack-at-snapshot-end+restart-fix"
            )
            return
        if answer.outcome is not Outcome.ROLLBACK or answer.rollback_seqno is None:
            raise RuntimeError(f"the producer refused a valid request {request}: {answer}")
        self._roll_back(replica, answer.rollback_seqno)

    def rollback_point(self, replica: Node, seqno: int) -> int:
        """Where ``KVBucket::rollback(seqno)`` leaves ``replica`` on couchstore (0: reset).

        ``CouchKVStore::rollback`` (kv_engine eba4298): count the entries of the file at
        its newest header, step back one header at a time while the header's seqno is
        above ``seqno`` (none left: reset); with the midpoint optimisation, reset when
        the entries from that header to the newest, both included, are at least half
        (integer division) of the file's. A landing at 0 is a reset too."""
        if seqno == 0:
            return 0
        headers = replica.disk.headers
        if not headers:
            return 0
        newest = headers[-1]
        position = len(headers) - 1
        while headers[position] > seqno:
            position -= 1
            if position < 0:
                return 0
        header = headers[position]
        if self.midpoint_rollback:
            index = replica.by_seqno_index(newest)
            total = len(index)
            discarded = len([x for x in index.values() if header <= x <= newest])
            if discarded >= total // 2:
                return 0
        return header

    def _roll_back(self, replica: Node, seqno: int) -> None:
        """KVBucket::rollback: back to a disk header (``rollback_point``), memory above
        dropped; at 0 the vbucket is reset."""
        landing = self.rollback_point(replica, seqno)
        if landing == 0:
            replica.items = []
            replica.markers = []
            replica.table = FailoverTable.of((uuid_of_reset(replica.index), 0))
            replica.disk.seqno, replica.disk.markers, replica.disk.hps = 0, [], 0
            replica.disk.headers = []
            replica.hps = 0
            replica.snapshot_ends = []
            replica.disk_snapshot_hps = {}
            return
        replica.markers = replica.markers_up_to(landing)
        replica.items = replica.items[:landing]
        hps = replica.disk.hps
        if hps > landing:
            hps = replica.last_prepare_up_to(landing)
        replica.hps = hps
        replica.disk.seqno, replica.disk.hps = landing, hps
        replica.disk.headers = [h for h in replica.disk.headers if h <= landing]
        replica.disk.markers = [list(m) for m in replica.markers]
        replica.table = replica.table.prune(landing, uuid_of_reset(replica.index))
        replica.snapshot_ends = []
        replica.disk_snapshot_hps = {}

    # -- failover ------------------------------------------------------------------------

    def CrashActive(self) -> None:
        active = self._the_active("CrashActive")
        if self.epoch >= self.max_failovers:
            raise ActionNotEnabled("CrashActive: the failover budget is spent")
        if not self.replicas():
            raise ActionNotEnabled("CrashActive: no other node is alive")
        active.role = "dead"
        active.adm = None
        self.active = None
        for replica in self.replicas():
            replica.stream = None
        self.in_flight = []

    def PromoteReplica(self, node: str) -> None:
        if self.active is not None:
            raise ActionNotEnabled(f"PromoteReplica({node}): {self.active.name} is active")
        chosen = self._replica("PromoteReplica", node)
        best = max(r.high_seqno for r in self.replicas())
        if chosen.high_seqno < best:
            raise ActionNotEnabled(
                f"PromoteReplica({node}): high seqno {chosen.high_seqno}, another has {best}"
            )
        if self.branch_rule == "persisted-snapshot":
            branch = chosen.highest_persisted_snapshot_end()
        else:
            branch = chosen.highest_snapshot_end()
        self.epoch += 1
        high = chosen.high_seqno
        closed = []
        for start, end in chosen.markers:
            if end <= high:
                closed.append([start, end])
            elif start <= high:
                closed.append([start, high])  # the snapshot it was receiving ends here
        chosen.markers = closed
        chosen.table = chosen.table.create_entry(branch, uuid_of_epoch(self.epoch))
        chosen.role = "active"
        chosen.snapshot_ends = []
        chosen.disk_snapshot_hps = {}
        chosen.stream = None
        chosen.adm = ActiveDurabilityMonitor()
        self.active = chosen

    # -- what is enabled -----------------------------------------------------------------

    def candidate_actions(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for name in ACTION_NAMES:
            if name in ("ClientPrepare", "ClientSet"):
                out.extend({"name": name, "key": k} for k in self.keys)
            elif name in ("CloseSnapshot", "Commit", "CrashActive", "PersistActive"):
                out.append({"name": name})
            else:
                out.extend({"name": name, "node": n.name} for n in self.nodes)
        return out

    def apply(self, action: Mapping[str, str]) -> None:
        """Take one action, given as its JSON form."""
        name = action.get("name")
        if name not in ACTION_NAMES:
            raise ActionNotEnabled(f"unknown action {name!r}")
        args = {k: v for k, v in action.items() if k != "name"}
        getattr(self, name)(**args)

    def enabled(self) -> list[dict[str, str]]:
        """Every action allowed now (each tried on a copy)."""
        import pickle

        # One pickle, a copy read back from it per action: the copies deepcopy made, for a
        # fraction of its CPU (deepcopy was nine tenths of a random walk's in the tests).
        state = pickle.dumps(self, pickle.HIGHEST_PROTOCOL)
        out = []
        for action in self.candidate_actions():
            trial = pickle.loads(state)
            try:
                trial.apply(action)
            except ActionNotEnabled:
                continue
            out.append(action)
        return out

    # -- properties ---------------------------------------------------------------------

    def lost_syncwrites(self) -> list[tuple[int, int, str, int, str]]:
        """Acknowledged SyncWrites the active lacks with fewer than majority failures since
        (of those their level promises to survive: ``failures_for``)."""
        active = self.active
        if active is None:
            return []
        lost = []
        for seqno, epoch, key, failures, level in self.acknowledged:
            if self.failures_for(level) - failures >= self.majority:
                continue
            if active.item_at(seqno) != ClusterItem("PREPARE", key, epoch, 0, level):
                lost.append((seqno, epoch, key, failures, level))
        return lost

    def stalled_prepares(self) -> list[tuple[str, int]]:
        """(replica, seqno): a quiescent replica holds a pending PREPARE it has not acked."""
        active = self.active
        if active is None:
            return []
        assert active.adm is not None
        pending = set(active.pending_prepares())
        out = []
        for replica in self.replicas():
            if replica.stream is None or self.next_message(replica) is not None:
                continue
            acked = active.adm.acked(replica.index)
            if replica.hps > acked:
                continue  # it still has an ack to send
            if self._a_flush_would_move(replica):
                continue  # a PersistToMajority PREPARE waits for a flush still to come
            for seqno, item in enumerate(replica.items, start=1):
                if (
                    seqno > acked
                    and seqno in pending
                    and item.op == "PREPARE"
                    and active.item_at(seqno) == item
                ):
                    out.append((replica.name, seqno))
        return out

    def _a_flush_would_move(self, replica: Node) -> bool:
        if replica.disk.seqno >= replica.high_seqno:
            return False
        import copy

        trial = copy.deepcopy(replica)
        self._flush(trial, trial.high_seqno)
        return trial.hps > replica.hps

    @staticmethod
    def _self_acked(active: Node) -> list[int]:
        """The pending PREPAREs the active acks itself (those its fence lets through)."""
        return [x for x in active.pending_prepares() if active_acks(active, x)]

    def holds(self, prop: str) -> bool:
        if prop not in PROPERTIES:
            raise ValueError(f"the reference has no property {prop!r}")
        return PROPERTIES[prop].holds(self)

    # -- observation ---------------------------------------------------------------------

    def observe(self) -> dict[str, Any]:
        """A plain, comparable summary (see ``observe_model_state`` for the same from JSON)."""
        nodes = {}
        for node in self.nodes:
            replica = node.role == "replica"
            nodes[node.name] = node_summary(
                node.alive,
                node.role,
                [
                    (x, i.op, i.key, i.epoch, i.level if i.op == "PREPARE" else "")
                    for x, i in enumerate(node.items, start=1)
                ],
                node.disk.seqno if replica else None,
                list(node.disk.headers) if replica else None,
                node.hps if replica else None,
                [(e.uuid, e.seqno) for e in node.table],
                node.stream is not None if replica else None,
                list(node.snapshot_ends) if replica else None,
                self._self_acked(node) if node.role == "active" else None,
                sorted([e, h] for e, h in node.disk_snapshot_hps.items()) if replica else None,
                bool(node.stream and node.stream.cur_snapshot_disk) if replica else None,
            )
        acks = None
        if self.active is not None and self.active.adm is not None:
            acks = {r.name: self.active.adm.acked(r.index) for r in self.replicas()}
        return {
            "active": None if self.active is None else self.active.name,
            "epoch": self.epoch,
            "acks": acks,
            "acknowledged": sorted(self.acknowledged),
            "nodes": nodes,
        }


@dataclass(frozen=True)
class ReferenceProperty:
    """The reference's own reading of a property of the catalogue (written apart from
    ``spec.cluster.properties``): where it holds, and what it sees where it does not."""

    expectation: str  # "always" | "sometimes"
    holds: Callable[[Cluster], bool]
    evidence: Callable[[Cluster], str]


PROPERTIES: dict[str, ReferenceProperty] = {
    "no-lost-syncwrite": ReferenceProperty(
        "always",
        lambda c: not c.lost_syncwrites(),
        lambda c: f"the reference's active lacks acknowledged {c.lost_syncwrites()}",
    ),
    "prepare-ack-progress": ReferenceProperty(
        "always",
        lambda c: not c.stalled_prepares(),
        lambda c: f"on the reference, quiescent replicas leave unacked {c.stalled_prepares()}",
    ),
    "syncwrite-acknowledged": ReferenceProperty(
        "sometimes",
        lambda c: bool(c.acknowledged),
        lambda c: f"the reference acknowledges {c.acknowledged}",
    ),
}
