"""The cluster model's symmetry: nodes are interchangeable by what they hold, not by name.

Nothing in the model depends on a node's number but its identity: every guard
and effect treats the nodes alike (``PromoteReplica`` offers every most
up-to-date survivor, ``Commit`` counts acks, a rollback to 0 gives node ``i``
the uuid ``reset_uuid(i)``). So renaming the nodes by a permutation ``p``
(node ``i`` becomes node ``p[i]``) maps reachable states to reachable states
and runs to runs, and every property judges a state and its renaming alike.
``permute`` is that renaming: it moves what ``ClusterState.PER_NODE`` declares
(one value per node), maps what ``ClusterState.NODE_INDEX`` declares (a node's
index) and renames the node ids inside the data (the ``reset_uuid`` uuids in
every node's failover table).

``representative`` picks one state of a state's orbit (all its renamings): it
sorts the node slots by a key (the slot's node's part of ``spec.cluster.encode``'s
bytes, or, if its table holds a reset uuid, its bytes with reset uuids masked as
"its own" or "another's"; then its other per-node values, then whether it is
the active); slots with equal keys are ordered by trying their arrangements
and keeping the least encoding, when some table holds a reset uuid (otherwise
equal keys are equal slots). ``encode_representative`` gives the
representative's bytes, for most states without making it: the head of the
reordered state (remembered per head and order) and the nodes' parts sorted.
The key is the same for a slot and its renamed copy, so the
representative is the same for every state of an orbit (canonical): two
states are one state of the reduced search exactly when one is a renaming of
the other, the full reduction the symmetric group allows.

The client's keys are interchangeable as well (``spec.cluster.keys``):
``representative`` and ``encode_representative`` take, of the key renamings
that sort a state's keys, the one whose nodes' representative encodes least;
renamings of keys and of nodes commute, so that is canonical for both.

The proof obligation (tests/test_cluster_symmetry.py): on reachable states of
several presets and random permutations, ``permute`` commutes with the
model's successors (the successors of ``permute(s, p)`` are the renamings of
those of ``s``), every property's ``holds`` is unchanged, and
``representative(permute(s, p)) == representative(s)``, whose bytes
``encode_representative(permute(s, p))`` are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from operator import attrgetter
from typing import Any

from spec.cluster.arrangements import tied_orders, where
from spec.cluster.encode import encode, head_key, head_part, node_bytes, node_part
from spec.cluster.keys import Places, key_renamings, node_places, rename_keys
from spec.cluster.state import ClusterState, NodeState, reset_uuid
from spec.failover_table import FailoverEntry, FailoverTable

__all__ = ["RENAMED", "encode_representative", "permute", "representative"]

# What a representative is canonical under (a stored search names it: one made when
# only nodes were renamed keeps other representatives and is not resumed).
RENAMED = ("nodes", "keys")
_RESET = reset_uuid(0)  # reset uuids: reset_uuid(0) .. reset_uuid(255); epoch uuids are above
_RESETS = 0x100
_OWN, _OTHERS = 1, 2  # what a masked key writes for the node's own / another node's reset uuid
_MEMORY = 50_000  # node keys remembered before the memory is cleared

_PER_NODE = ClusterState.PER_NODE
_NODE_INDEX = ClusterState.NODE_INDEX


def _getter(names: tuple[str, ...]) -> Callable[[ClusterState], tuple[Any, ...]]:
    """The values of the fields ``names`` as a tuple (one name: a tuple of one)."""
    if len(names) > 1:
        return attrgetter(*names)
    one = attrgetter(*names)
    return lambda state: (one(state),)


_per_node = _getter(_PER_NODE)
_indices = _getter(_NODE_INDEX)
_SLOTS = [list(range(n)) for n in range(257)]
# every field a state is made from, in ``ClusterState.make``'s order, and where in it
# the per-node fields (the nodes first apart), the node indices are
_FIELDS = tuple(f.name for f in fields(ClusterState) if f.init)
_fields: Callable[[ClusterState], tuple[Any, ...]] = attrgetter(*_FIELDS)
_make: Callable[..., ClusterState] = ClusterState.make
_NODES_AT = _FIELDS.index("nodes")
_PER_NODE_AT = tuple(_FIELDS.index(name) for name in _PER_NODE)
_OTHERS_AT = tuple(j for j in _PER_NODE_AT if j != _NODES_AT)
_INDEX_AT = tuple(_FIELDS.index(name) for name in _NODE_INDEX)

# A node's rank, kept on the node object (``NodeState._rank``): (its part of ``encode``'s
# bytes, or None if its table holds a reset uuid; the number of client keys; where its
# items of each stand, ``spec.cluster.keys.node_places``), the one description of it
# that both the nodes' and the keys' canonical order read.
Rank = tuple[bytes | None, int, Places]
_set_rank = NodeState.__dict__["_rank"].__set__
# (a node's id, its index) -> (the node, kept alive; its masked key), for the nodes whose
# table holds a reset uuid
_masked_keys: dict[tuple[int, int], tuple[NodeState, bytes]] = {}
# (a node's id, its renamed uuids (old, new)...) -> (the node, kept alive; the node renamed)
_renamed_nodes: dict[tuple[object, ...], tuple[NodeState, NodeState]] = {}
# (a state's head_key, an order of its slots) -> the head of the state reordered so
_moved_heads: dict[tuple[tuple[object, ...], tuple[int, ...]], bytes] = {}


def _is_reset(uuid: int) -> bool:
    return _RESET <= uuid < _RESET + _RESETS


def _ranked(node: NodeState, keys: int) -> Rank:
    """The node's rank for ``keys`` client keys, made and kept on the node (its part
    kept from a rank for another number of keys)."""
    rank = node._rank
    if rank is not None and rank[1] == keys:
        return rank
    if rank is None:
        resets = any(_is_reset(e.uuid) for e in node.table.entries)
        part = None if resets else node_part(node)
    else:
        part = rank[0]
    rank = (part, keys, node_places(node, keys) if keys >= 2 else ())
    _set_rank(node, rank)
    return rank


def _ranks(state: ClusterState, keys: int) -> list[Rank]:
    """Each node's rank for ``keys`` client keys (``_ranked`` reads it from the node when
    it has it)."""
    return [_ranked(node, keys) for node in state.nodes]


def _part(node: NodeState) -> bytes | None:
    """The node's part of ``encode``'s bytes (its key), or None if its table holds a
    reset uuid (its key depends on its index: ``_key``)."""
    rank: Rank | None = node._rank
    return (_ranked(node, 1) if rank is None else rank)[0]


def _key(node: NodeState, index: int) -> tuple[bool, bytes]:
    """The node's sort key at ``index``, the same for the node renamed: (False, its part
    of the bytes), or (True, its bytes with its reset uuids masked)."""
    part = _part(node)
    if part is not None:
        return False, part
    known = _masked_keys.get((id(node), index))
    if known is None:
        if len(_masked_keys) >= _MEMORY:
            _masked_keys.clear()
        known = _masked_keys[id(node), index] = (node, _masked_key(node, index))
    return True, known[1]


def _masked_key(node: NodeState, index: int) -> bytes:
    mine = reset_uuid(index)
    masked = tuple(
        FailoverEntry(
            (_OWN if e.uuid == mine else _OTHERS) if _is_reset(e.uuid) else e.uuid, e.seqno
        )
        for e in node.table.entries
    )
    table = FailoverTable(masked, node.table.max_entries)
    return node_bytes(node.but(table=table))


def permute(
    state: ClusterState,
    where: Sequence[int],
    shared: Callable[[NodeState], NodeState] | None = None,
) -> ClusterState:
    """``state`` with node ``i`` renamed ``where[i]`` (``where``: a permutation of the
    node indices); ``shared`` maps a renamed node to the object to keep for it."""
    renamed = {reset_uuid(old): reset_uuid(new) for old, new in enumerate(where) if old != new}
    return _moved(state, where, renamed, shared)


def _moved(
    state: ClusterState,
    where: Sequence[int],
    renamed: dict[int, int],
    shared: Callable[[NodeState], NodeState] | None,
) -> ClusterState:
    order = [0] * len(where)  # order[new] = old
    for old, new in enumerate(where):
        order[new] = old
    changes: dict[str, object] = {}
    for name, values in zip(_PER_NODE, _per_node(state), strict=True):
        moved = [values[old] for old in order]
        if renamed:
            moved = [_renamed(v, renamed, shared) if type(v) is NodeState else v for v in moved]
        changes[name] = tuple(moved)
    for name, index in zip(_NODE_INDEX, _indices(state), strict=True):
        changes[name] = None if index is None else where[index]
    return state.but(**changes)


def _renamed(
    node: NodeState, renamed: dict[int, int], shared: Callable[[NodeState], NodeState] | None
) -> NodeState:
    if _part(node) is not None:  # no reset uuid: nothing to rename
        return node
    key = (id(node), *renamed.items())
    known = _renamed_nodes.get(key)
    if known is None:
        if len(_renamed_nodes) >= _MEMORY:
            _renamed_nodes.clear()
        known = _renamed_nodes[key] = (node, _rename(node, renamed, shared))
    return known[1]


def _rename(
    node: NodeState, renamed: dict[int, int], shared: Callable[[NodeState], NodeState] | None
) -> NodeState:
    entries = node.table.entries
    if not any(e.uuid in renamed for e in entries):
        return node
    table = FailoverTable(
        tuple(FailoverEntry(renamed.get(e.uuid, e.uuid), e.seqno) for e in entries),
        node.table.max_entries,
    )
    node = node.but(table=table)
    return node if shared is None else shared(node)


def representative(
    state: ClusterState,
    shared: Callable[[NodeState], NodeState] | None = None,
    keys: int = 1,
) -> ClusterState:
    """The one state of ``state``'s orbit that the reduced search keeps (canonical:
    the same for every renaming of its nodes and, of ``keys`` client keys
    (``spec.cluster.keys``), of its keys): of the key renamings that sort its keys,
    the one whose nodes' representative encodes least."""
    renamings = key_renamings(state, keys, [rank[2] for rank in _ranks(state, keys)])
    if not renamings:
        return _nodes_representative(state, shared)
    candidates = [_nodes_representative(rename_keys(state, w, shared), shared) for w in renamings]
    return min(candidates, key=encode)


def _nodes_representative(
    state: ClusterState, shared: Callable[[NodeState], NodeState] | None
) -> ClusterState:
    """The representative of ``state``'s orbit under renaming its nodes."""
    values = _fields(state)
    nodes = values[_NODES_AT]
    node_keys = [_key(node, i) for i, node in enumerate(nodes)]
    masked = any(m for m, _ in node_keys)
    slots = _SLOTS[len(nodes)]
    keys = _slot_keys(values, node_keys, slots)
    order = sorted(slots, key=keys.__getitem__)
    if not masked:  # no reset uuid: slots with equal keys are equal, no uuid to rename
        if order == slots:
            return state
        return _reordered(values, order)
    # equal keys: try each arrangement of the tied slots, keep the least encoding
    orders = tied_orders(slots, keys)
    if len(orders) == 1:  # no tie: one arrangement
        return permute(state, where(order), shared)
    best: tuple[bytes, ClusterState] | None = None
    for arrangement in orders:
        candidate = permute(state, where(arrangement), shared)
        data = encode(candidate)
        if best is None or data < best[0]:
            best = (data, candidate)
    assert best is not None
    return best[1]


def encode_representative(
    state: ClusterState,
    shared: Callable[[NodeState], NodeState] | None = None,
    keys: int = 1,
) -> bytes:
    """``encode(representative(state, shared, keys))``, most often without making the
    representative (``_encode_sorted``). Each node's rank is read once, for the keys'
    order and the nodes'."""
    ranks = _ranks(state, keys)
    renamings = key_renamings(state, keys, [rank[2] for rank in ranks]) if keys >= 2 else None
    if not renamings:
        return _encode_sorted(state, [rank[0] for rank in ranks], shared)
    return min(
        _encode_nodes_representative(rename_keys(state, w, shared), shared, keys) for w in renamings
    )


def _encode_nodes_representative(
    state: ClusterState, shared: Callable[[NodeState], NodeState] | None, keys: int = 1
) -> bytes:
    """``encode(_nodes_representative(state, shared))``."""
    return _encode_sorted(state, [rank[0] for rank in _ranks(state, keys)], shared)


def _encode_sorted(
    state: ClusterState,
    parts: list[bytes | None],
    shared: Callable[[NodeState], NodeState] | None,
) -> bytes:
    """``encode(_nodes_representative(state, shared))`` given its nodes' ``parts``, without
    making it when no node's table holds a reset uuid (most states): the node slots
    sorted by their parts of the bytes (then, between equal nodes, by their other
    per-node values), the head of the reordered state and the parts in that order."""
    if not all(parts):  # a reset uuid (a part is never empty: it starts with its length)
        return encode(_nodes_representative(state, shared))
    known: list[bytes] = parts  # type: ignore[assignment]  # all(parts): no None in it
    ordered = sorted(known)
    if len(set(known)) == len(known):  # no two nodes alike: their parts decide
        if ordered == known:
            return head_part(state) + b"".join(ordered)
        order = sorted(_SLOTS[len(known)], key=known.__getitem__)
        values = None
    else:  # equal nodes: their other per-node values decide
        values = _fields(state)
        slots = _SLOTS[len(known)]
        keys = _slot_keys(values, [(False, p) for p in known], slots)
        order = sorted(slots, key=keys.__getitem__)
        if order == slots:
            return head_part(state) + b"".join(known)
        ordered = [known[i] for i in order]
    return _moved_head(state, tuple(order), values) + b"".join(ordered)


def _moved_head(
    state: ClusterState, order: tuple[int, ...], values: tuple[Any, ...] | None = None
) -> bytes:
    """The head of ``state`` reordered so (old slot ``order[k]`` at ``k``; ``values``: its
    fields, if known), remembered per head and order."""
    moved = (head_key(state), order)
    head = _moved_heads.get(moved)
    if head is None:
        if len(_moved_heads) >= _MEMORY:
            _moved_heads.clear()
        if values is None:
            values = _fields(state)
        head = _moved_heads[moved] = head_part(_reordered(values, order))
    return head


def _slot_keys(
    values: tuple[Any, ...], node_keys: list[tuple[bool, bytes]], slots: list[int]
) -> list[tuple[Any, ...]]:
    """Each slot's sort key: its node's key, its other per-node values, and whether each
    node index (the active) names it."""
    return list(
        zip(
            node_keys,
            *[values[j] for j in _OTHERS_AT],
            *[[values[j] == i for i in slots] for j in _INDEX_AT],
            strict=True,
        )
    )


def _reordered(values: tuple[Any, ...], order: Sequence[int]) -> ClusterState:
    """The state of ``values`` (every field, in order) with old slot ``order[k]`` at
    ``k`` and no uuid renamed: ``_moved`` without a keyword call or a rename."""
    new = list(values)
    for j in _PER_NODE_AT:
        column: Sequence[object] = values[j]
        new[j] = tuple([column[old] for old in order])
    if _INDEX_AT:
        renamed = where(order)
        for j in _INDEX_AT:
            index = values[j]
            new[j] = None if index is None else renamed[index]
    return _make(*new)
