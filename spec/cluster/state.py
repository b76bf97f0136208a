"""The state of a vbucket replicated over N0..N(n-1): immutable, hashable values.

State variables grouped by owner, as in the TLA+ replication specs:

* every node (``NodeState``): its history of items (seqno i is ``items[i-1]``),
  the snapshot markers it received (the active: the snapshots it closed), its
  failover table, what survives a restart (``persisted_seqno``,
  ``persisted_hps``, and ``headers``: the seqno of every couchstore header
  its flusher wrote, where a rollback can land), its PassiveDurabilityMonitor position
  (``high_prepared_seqno``) and the PassiveStream's in-memory flag
  ``snapshot_has_prepare`` (kv_engine's ``cur_snapshot_prepare``);
* the cluster (``ClusterState``): which node is active, the epoch (failovers
  so far), the active's ActiveDurabilityMonitor positions (``acks``: the HPS
  each replica acked to the *current* active), the SyncWrites acknowledged to
  a client and those still in flight (history variables for the properties),
  and the budgets the bounds cap (prepares, sets, restarts).

An item carries the epoch that wrote it: two items at one seqno written by
different actives are different items (as in docs/model.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Self, TypeVar

from spec.failover_table import FailoverTable
from spec.scenario import key_name

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "COMMIT",
    "DEAD",
    "LEVEL_NAMES",
    "MAJORITY",
    "MAJORITY_AND_PERSIST_ON_MASTER",
    "PERSIST_TO_MAJORITY",
    "PREPARE",
    "SET",
    "ClusterItem",
    "ClusterState",
    "NodeState",
    "SyncWrite",
    "epoch_uuid",
    "highest_prepare_at_or_below",
    "node_name",
    "reset_uuid",
    "uuid_name",
]

PREPARE = "PREPARE"
COMMIT = "COMMIT"
SET = "SET"

Snapshot = tuple[int, int]  # (snap_start, snap_end)

# Durability levels, ordered as kv_engine's cb::durability::Level (a SyncWrite's level
# compares with ``<=`` as in PassiveDurabilityMonitor::State::updateHighPreparedSeqno);
# named as utilities/durability_spec.cc to_string(Level) names them (kv_engine eba4298).
MAJORITY = 0
MAJORITY_AND_PERSIST_ON_MASTER = 1
PERSIST_TO_MAJORITY = 2
LEVEL_NAMES = ("majority", "majority_and_persist_on_master", "persist_to_majority")
_LEVEL_MARKS = ("", ",majorityAndPersistOnMaster", ",persistToMajority")


def node_name(index: int) -> str:
    return f"N{index}"


def epoch_uuid(epoch: int) -> int:
    """The vbucket uuid the active of ``epoch`` creates: AAAA, BBBB, CCCC, ..."""
    return 0xAAAA + 0x1111 * epoch


def reset_uuid(node: int) -> int:
    """The uuid of a vbucket a rollback to 0 recreated on ``node`` (kv_engine: random)."""
    return 0xF00 + node


def uuid_name(uuid: int) -> str:
    return f"{uuid:X}"


def _epoch_mark(epoch: int) -> str:
    return "'" * epoch


class ClusterItem(NamedTuple):
    """One mutation: ``PREPARE(key)`` (of durability ``level``), ``COMMIT(key)`` (of the
    prepare at ``prepare_seqno``) or ``SET(key)``, written by the active of ``epoch``.

    A named tuple (as ``SyncWrite``): built, hashed and compared without a Python call.
    """

    op: str
    key: int
    epoch: int
    prepare_seqno: int = 0
    level: int = MAJORITY

    def label(self, seqno: int) -> str:
        """``3:PREPARE(A)``; items of later epochs get primes: ``5':SET(B)``; a PREPARE of
        another level than Majority names it: ``4:PREPARE(B,persistToMajority)``."""
        mark = _LEVEL_MARKS[self.level]
        return f"{seqno}{_epoch_mark(self.epoch)}:{self.op}({key_name(self.key)}{mark})"

    def to_json(self, seqno: int) -> dict[str, object]:
        out: dict[str, object] = {
            "seqno": seqno,
            "op": self.op,
            "key": key_name(self.key),
            "epoch": self.epoch,
            "prepare_seqno": self.prepare_seqno,
        }
        if self.op == PREPARE:
            out["level"] = LEVEL_NAMES[self.level]
        return out


class SyncWrite(NamedTuple):
    """A client's SyncWrite, named by its prepare (seqno, the epoch of the active that
    wrote it, key), with the failures that had happened when the PREPARE was written
    (those its level's promise counts: failovers + restarts for Majority and
    MajorityAndPersistOnMaster, failovers for PersistToMajority;
    ``spec.cluster.properties``), and its durability level. Ordered by those fields,
    in that order."""

    seqno: int
    epoch: int
    key: int
    faults_before: int = 0
    level: int = MAJORITY

    @property
    def prepare(self) -> ClusterItem:
        return ClusterItem(PREPARE, self.key, self.epoch, 0, self.level)

    def label(self) -> str:
        return self.prepare.label(self.seqno)

    def to_json(self) -> dict[str, object]:
        return {
            "seqno": self.seqno,
            "epoch": self.epoch,
            "key": key_name(self.key),
            "faults_before": self.faults_before,
            "level": LEVEL_NAMES[self.level],
        }


def highest_prepare_at_or_below(items: tuple[ClusterItem, ...], seqno: int) -> int:
    """The seqno of the last PREPARE at or below ``seqno`` (0 if none)."""
    for x in range(min(seqno, len(items)), 0, -1):
        if items[x - 1].op == PREPARE:
            return x
    return 0


_S = TypeVar("_S", bound="DataclassInstance")
_SAME = object()  # an argument of ``but`` not given: the field is kept


if TYPE_CHECKING:

    class _StateValue:
        """What ``_state_value`` makes for a class, as the type checker sees it."""

        def but(self, **changes: Any) -> Self: ...

        @classmethod  # a staticmethod of the class itself, called the same way
        def make(cls, *values: Any) -> Self: ...

else:
    _StateValue = object  # nothing at run time: the methods are the class's own


def _state_value(cls: type[_S]) -> type[_S]:
    """Make a frozen slots dataclass a state value a search can afford to make and hash.

    * ``but(**changes)``: a copy with ``changes``, generated for the class (as
      ``dataclasses`` generates ``__init__``): a search makes one new state per
      transition, and a loop over the fields costs several times more;
    * ``make(*fields)``: a new value from every field, in order, without the
      checks of a frozen ``__init__`` (what ``spec.cluster.encode`` decodes);
    * ``__hash__``: the hash of the compared fields, computed once and kept in
      ``_hash`` (0: not computed yet; a computed 0 is kept as 1), since the
      search's visited set hashes states again and again and nodes are shared
      between neighbouring states; ``__eq__`` compares the same fields, one by one;
    * fields with ``init=False`` are caches of values derived from the others
      (the hash, ``replicas``, ``pending_prepares``, a node's bytes and rank):
      never compared, empty in every copy, and not pickled (a hash may differ in
      another process).
    """
    kept = [f.name for f in fields(cls) if f.init]
    caches = {f.name: f.default for f in fields(cls) if not f.init}
    compared = [f.name for f in fields(cls) if f.compare]
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_SAME": _SAME}
    for name in (*kept, *caches):
        env[f"_set_{name}"] = cls.__dict__[name].__set__
    lines = [
        f"def but(self, *, {', '.join(f'{n}=_SAME' for n in kept)}):",
        "    new = _new(_cls)",
        *(f"    _set_{n}(new, self.{n} if {n} is _SAME else {n})" for n in kept),
        *(f"    _set_{n}(new, {default!r})" for n, default in caches.items()),
        "    return new",
        f"def make({', '.join(kept)}):",
        "    new = _new(_cls)",
        *(f"    _set_{n}(new, {n})" for n in kept),
        *(f"    _set_{n}(new, {default!r})" for n, default in caches.items()),
        "    return new",
        "def __eq__(self, other):",
        "    if other.__class__ is not _cls:",
        "        return NotImplemented",
        "    return self is other or (",
        *(f"        self.{n} == other.{n} and" for n in compared),
        "        True",
        "    )",
    ]
    exec("\n".join(lines), env)  # the source is made above from the class's own fields
    key = attrgetter(*compared)
    set_hash = cls.__dict__["_hash"].__set__

    def __hash__(self: _S) -> int:
        cached: int = self._hash  # type: ignore[attr-defined]  # _S is any decorated class
        if not cached:
            cached = hash(key(self)) or 1
            set_hash(self, cached)
        return cached

    def __reduce__(self: _S) -> tuple[type[_S], tuple[object, ...]]:
        return cls, tuple(getattr(self, name) for name in kept)

    cls.but = env["but"]  # type: ignore[attr-defined]  # made by exec; declared on _StateValue
    cls.make = staticmethod(env["make"])  # type: ignore[attr-defined]  # as but
    cls.__hash__ = __hash__  # type: ignore[method-assign,assignment]  # replaces the dataclass's
    cls.__eq__ = env["__eq__"]  # type: ignore[method-assign]  # replaces the dataclass's
    cls.__reduce__ = __reduce__  # type: ignore[method-assign,assignment]  # pickles kept fields
    return cls


@_state_value
@dataclass(frozen=True, slots=True)
class NodeState(_StateValue):
    """One node's copy of the vbucket.

    ``snapshots``: for a replica, the markers received, oldest first (the last
    one may be partial: its end above the high seqno); for the active, the
    snapshots it closed (items above the last one are its open snapshot).
    ``connected``: a stream from the current active is open (accepted);
    ``marker_due``: that stream's next message is a snapshot marker.
    ``headers``: for a replica, the high seqno of every disk header its flusher
    wrote (one per flush, oldest first; the newest is ``persisted_seqno``), the
    points ``CouchKVStore::rollback`` can rewind to; empty for the active (whose
    ``persisted_seqno`` only its durability fence reads: ``PersistActive``).
    ``snapshot_ends``: the PassiveDurabilityMonitor's ``receivedSnapshotEnds``, the
    ends of snapshots notified to it that its HPS has not passed yet: empty but
    behind a durability fence (a PersistToMajority PREPARE not yet persisted), or
    the end of a disk snapshot not yet persisted whole.
    ``snapshot_is_disk``: the snapshot being received is a disk snapshot (a backfill,
    ``BackfillReplica``; kv_engine's PassiveStream ``cur_snapshot_type``), cleared at
    its end. ``disk_ends``: those of ``snapshot_ends`` that end a disk snapshot, each
    with the HPS it moves to once persisted whole (``(end, hps)``: the HPS its marker
    carries; kv_engine's ``SnapshotEnd{seqno, type, hps}``). Both stay empty unless
    the bounds allow disk snapshots (``disk_snapshots``).
    """

    alive: bool
    items: tuple[ClusterItem, ...]
    snapshots: tuple[Snapshot, ...]
    table: FailoverTable
    persisted_seqno: int = 0
    persisted_hps: int = 0
    headers: tuple[int, ...] = ()
    high_prepared_seqno: int = 0
    snapshot_has_prepare: bool = False
    connected: bool = False
    marker_due: bool = True
    snapshot_ends: tuple[int, ...] = ()
    snapshot_is_disk: bool = False
    disk_ends: tuple[tuple[int, int], ...] = ()
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _pending: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)
    # what the search derives from a node, once per node object: its part of
    # ``spec.cluster.encode``'s bytes, and how ``spec.cluster.symmetry`` ranks it
    _bytes: bytes | None = field(default=None, init=False, repr=False, compare=False)
    _rank: tuple[Any, ...] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def high_seqno(self) -> int:
        return len(self.items)

    @property
    def last_snapshot_end(self) -> int:
        """End of the highest snapshot received whole (kv_engine's failover seqno)."""
        high = len(self.items)
        for _, end in reversed(self.snapshots):
            if end <= high:
                return end
        return 0

    @property
    def last_persisted_snapshot_end(self) -> int:
        """End of the highest snapshot persisted whole."""
        for _, end in reversed(self.snapshots):
            if end <= self.persisted_seqno:
                return end
        return 0

    def pending_prepares(self) -> tuple[int, ...]:
        """Seqnos of the PREPAREs in this history with no COMMIT after them."""
        pending = self._pending
        if pending is None:
            committed = {item.prepare_seqno for item in self.items if item.op == COMMIT}
            pending = tuple(
                x
                for x, item in enumerate(self.items, start=1)
                if item.op == PREPARE and x not in committed
            )
            object.__setattr__(self, "_pending", pending)
        return pending

    @property
    def current_marker(self) -> Snapshot | None:
        return self.snapshots[-1] if self.snapshots else None

    def request_snapshot(self) -> Snapshot:
        """The snapshot range a stream request reports (kv_engine's getSnapshotInfo):
        the marker holding the last item, or ``{high, high}`` if no item of the
        last marker has arrived."""
        high = len(self.items)
        marker = self.current_marker
        if marker is not None and marker[0] <= high <= marker[1]:
            return marker
        return (high, high)

    def truncated(self, seqno: int) -> tuple[tuple[ClusterItem, ...], tuple[Snapshot, ...]]:
        """Items and markers a copy truncated to ``seqno`` keeps: the markers up to
        ``seqno`` and the one ``seqno`` lies in (it is then partial)."""
        kept = tuple([m for m in self.snapshots if m[1] <= seqno])
        partial = tuple([m for m in self.snapshots if m[0] <= seqno < m[1]])[:1]
        return self.items[:seqno], kept + partial

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "alive": self.alive,
            "high_seqno": self.high_seqno,
            "items": [item.to_json(x) for x, item in enumerate(self.items, start=1)],
            "snapshots": [list(m) for m in self.snapshots],
            "table": self.table.to_json(),
            "persisted_seqno": self.persisted_seqno,
            "persisted_hps": self.persisted_hps,
            "headers": list(self.headers),
            "high_prepared_seqno": self.high_prepared_seqno,
            "snapshot_has_prepare": self.snapshot_has_prepare,
            "connected": self.connected,
            "marker_due": self.marker_due,
            "snapshot_ends": list(self.snapshot_ends),
        }
        if self.snapshot_is_disk or self.disk_ends:  # only where disk snapshots are on
            out["snapshot_is_disk"] = self.snapshot_is_disk
            out["disk_ends"] = [list(d) for d in self.disk_ends]
        return out


DEAD = NodeState(False, (), (), FailoverTable.of((epoch_uuid(0), 0)), marker_due=False)
"""What a crashed (failed-over) node is: it never comes back, its contents do not matter."""


@_state_value
@dataclass(frozen=True, slots=True)
class ClusterState(_StateValue):
    # What a permutation of the nodes moves (``spec.cluster.symmetry``): the fields
    # holding one value per node, in node order, and those holding a node's index.
    PER_NODE: ClassVar[tuple[str, ...]] = ("nodes", "acks")
    NODE_INDEX: ClassVar[tuple[str, ...]] = ("active",)
    # What a renaming of the client's keys touches (``spec.cluster.keys``) besides every
    # node's items: the fields holding SyncWrites.
    KEYED: ClassVar[tuple[str, ...]] = ("acknowledged", "in_flight")

    nodes: tuple[NodeState, ...]
    active: int | None  # None between CrashActive and PromoteReplica
    epoch: int  # failovers so far; the active of epoch e writes items of epoch e
    acks: tuple[int, ...]  # per node: the HPS it acked to the current active
    acknowledged: tuple[SyncWrite, ...] = ()  # SyncWrites acknowledged to a client
    in_flight: tuple[SyncWrite, ...] = ()  # written by this active, not yet acknowledged
    prepares: int = 0  # client prepares written so far (all epochs)
    sets: int = 0
    restarts: int = 0
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _replicas: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def faults(self) -> int:
        """Failures so far that cost a node its memory: failovers and restarts."""
        return self.epoch + self.restarts

    @property
    def active_node(self) -> NodeState | None:
        return None if self.active is None else self.nodes[self.active]

    def replicas(self) -> tuple[int, ...]:
        """Living nodes that are not the active."""
        replicas = self._replicas
        if replicas is None:
            active = self.active
            replicas = tuple([i for i, n in enumerate(self.nodes) if n.alive and i != active])
            object.__setattr__(self, "_replicas", replicas)
        return replicas

    def with_node(self, index: int, node: NodeState, **changes: object) -> ClusterState:
        """A copy with ``node`` at ``index`` (and the other ``changes``)."""
        nodes = (*self.nodes[:index], node, *self.nodes[index + 1 :])
        return self.but(nodes=nodes, **changes)

    def to_json(self) -> dict[str, object]:
        return {
            "active": None if self.active is None else node_name(self.active),
            "epoch": self.epoch,
            "acks": {node_name(i): a for i, a in enumerate(self.acks)},
            "acknowledged": [w.to_json() for w in self.acknowledged],
            "in_flight": [w.to_json() for w in self.in_flight],
            "nodes": {node_name(i): n.to_json() for i, n in enumerate(self.nodes)},
            "budget_used": {
                "prepares": self.prepares,
                "sets": self.sets,
                "restarts": self.restarts,
                "failovers": self.epoch,
            },
        }
