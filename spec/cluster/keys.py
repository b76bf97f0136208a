"""The client's keys are interchangeable: renaming them maps runs to runs.

The client writes keys ``0 .. bounds.keys - 1`` (``ClientPrepare(key)``,
``ClientSet(key)``, each offered for every key it may write), and the model
compares keys only for equality: a key with a pending SyncWrite refuses
writes (``active._writable_keys``), a COMMIT names its PREPARE's key, a
couchstore file keeps one entry per key (``disk._file_entries``), and no
property names a key. So renaming the client's keys by a permutation maps
reachable states to reachable states and runs to runs, and every property
judges a state and its renaming alike: the keys are a *scalarset*, as
Murphi and Rumur declare one. The prefix's keys (``keys``, ``keys + 1``,
...: one SET each, at a seqno of its own) are not renamed.

A renaming touches what ``ClusterState.KEYED`` declares (the SyncWrites the
client was acknowledged and those in flight) and every item of every node.

``key_renamings`` gives the renamings that put a state's keys in a canonical
order: keys sorted by where they stand in the state (for each node, the
seqno, op, epoch and level of each item of the key, the nodes' descriptions
sorted, so that renaming the nodes changes nothing; then the key's
SyncWrites). Keys that stand alike are tied, and every arrangement of the
tied keys is a candidate (``spec.cluster.symmetry`` keeps the least encoding
among them). The order
is the same for a state and any renaming of its keys or its nodes, which is
what makes the representative canonical.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import TypeVar

from spec.cluster.arrangements import tied_orders, where
from spec.cluster.state import COMMIT, PREPARE, SET, ClusterItem, ClusterState, NodeState, SyncWrite

__all__ = ["Places", "key_renamings", "node_places", "rename_keys"]

_MEMORY = 50_000  # nodes remembered before a memory is cleared

# per client key, where a node's items of it stand: each item's numbers, two bytes each
# (big-endian, so that the bytes compare as the numbers do, item by item)
Places = tuple[bytes, ...]
_PLACE = struct.Struct(">5H")
# (a node's id, a renaming) -> (the node, kept alive; the node with its keys renamed)
_renamed: dict[tuple[int, tuple[int, ...]], tuple[NodeState, NodeState]] = {}
_KEYED = ClusterState.KEYED
_OP_RANK = {PREPARE: 0, COMMIT: 1, SET: 2}
_SWAP = (1, 0)
_Keyed = TypeVar("_Keyed", ClusterItem, SyncWrite)  # what names a client's key


def node_places(node: NodeState, keys: int) -> Places:
    """Per client key (``0 .. keys - 1``), the (seqno, op, epoch, prepare_seqno, level)
    of each of the node's items of that key, packed so that two keys' places compare
    as those tuples would, as bytes do: without a Python call per number
    (``spec.cluster.symmetry`` keeps them on the node, with its rank)."""
    places: list[list[bytes]] = [[] for _ in range(keys)]
    for seqno, item in enumerate(node.items, start=1):
        if item.key < keys:
            places[item.key].append(
                _PLACE.pack(seqno, _OP_RANK[item.op], item.epoch, item.prepare_seqno, item.level)
            )
    return tuple([b"".join(p) for p in places])


def _writes(state: ClusterState, keys: int) -> list[tuple[tuple[int, ...], ...]]:
    """Per client key, its SyncWrites (which field, seqno, epoch, faults_before, level)."""
    writes: list[list[tuple[int, ...]]] = [[] for _ in range(keys)]
    for field, name in enumerate(_KEYED):
        for w in getattr(state, name):
            if w.key < keys:
                writes[w.key].append((field, w.seqno, w.epoch, w.faults_before, w.level))
    return [tuple(w) for w in writes]


def key_renamings(
    state: ClusterState, keys: int, per_node: Sequence[Places] | None = None
) -> list[tuple[int, ...]]:
    """The renamings (``where[k]``: key ``k``'s new name) that sort ``state``'s client keys
    canonically, one per arrangement of keys that stand alike; empty when that order is
    the keys' own (nothing to rename). ``per_node``: each node's ``node_places``, if
    known.

    A key stands where its items stand in the nodes (the nodes' descriptions
    sorted), then where its SyncWrites stand."""
    if keys < 2:
        return []
    if per_node is None:
        per_node = [node_places(node, keys) for node in state.nodes]
    if keys == 2:  # most often the nodes alone decide
        first = sorted([places[0] for places in per_node])
        second = sorted([places[1] for places in per_node])
        if first != second:
            return [] if first < second else [_SWAP]
    writes = _writes(state, keys)
    standing = [(tuple(sorted([places[k] for places in per_node])), writes[k]) for k in range(keys)]
    orders = tied_orders(range(keys), standing)
    if len(orders) == 1:  # no tie: one order
        return [] if orders[0] == list(range(keys)) else [tuple(where(orders[0]))]
    if not any(any(places) for places in per_node) and not any(writes):
        return []  # no key in the state: every renaming leaves it as it is
    return [tuple(where(order)) for order in orders]


def rename_keys(
    state: ClusterState,
    where: Sequence[int],
    shared: Callable[[NodeState], NodeState] | None = None,
) -> ClusterState:
    """``state`` with client key ``k`` renamed ``where[k]`` (``where``: a permutation of
    ``0 .. len(where) - 1``; keys from ``len(where)`` on keep their names); ``shared``
    maps a renamed node to the object to keep for it."""
    where = tuple(where)
    if where == tuple(range(len(where))):
        return state
    nodes = tuple([_renamed_node(node, where, shared) for node in state.nodes])
    changes: dict[str, object] = {
        name: tuple([_with_key(w, where) for w in getattr(state, name)]) for name in _KEYED
    }
    return state.but(nodes=nodes, **changes)


def _with_key(value: _Keyed, where: tuple[int, ...]) -> _Keyed:
    """``value`` (an item or a SyncWrite) with its key renamed, if it is a client's."""
    return value._replace(key=where[value.key]) if value.key < len(where) else value


def _renamed_node(
    node: NodeState, where: tuple[int, ...], shared: Callable[[NodeState], NodeState] | None
) -> NodeState:
    known = _renamed.get((id(node), where))
    if known is None:
        keys = len(where)
        if any(item.key < keys and where[item.key] != item.key for item in node.items):
            items = tuple([_with_key(item, where) for item in node.items])
            renamed = node.but(items=items)
            renamed = renamed if shared is None else shared(renamed)
        else:
            renamed = node
        if len(_renamed) >= _MEMORY:
            _renamed.clear()
        known = _renamed[id(node), where] = (node, renamed)
    return known[1]
