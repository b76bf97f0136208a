"""A cluster state as compact bytes, and its 64-bit fingerprint.

What a search engine may use instead of looking inside a state: ``encode``
gives the same bytes for equal states in every process (no salted
``hash``), ``decode`` gives the state back, ``fingerprint`` is a stable
64-bit digest of the bytes (XXH3, 64 bits, less 2**63 so that it fits a signed
64-bit column; BLAKE2b's 8 bytes until 2026-11-28, ten times the cost). A
distributed search (``checker.spark.bfs``) keys its visited set by fingerprint
and ships states as these bytes.

Layout (format 4), every number an unsigned LEB128 varint (one byte below 128):

    state := active+1 epoch prepares sets restarts nodes acks[nodes]
             count write[count] count write[count]          (acknowledged, in flight)
             (length node)[nodes]
    write := seqno epoch key faults_before level
    node  := flags persisted_seqno persisted_hps high_prepared_seqno
             count item[count] count snapshot[count] max_entries count entry[count]
             count header[count] count snapshot_end[count]  (header, snapshot_end: a seqno)
             count disk_end[count]                          (disk_end := seqno hps)
    flags := alive | snapshot_has_prepare << 1 | connected << 2 | marker_due << 3
             | snapshot_is_disk << 4                        (bit i: _FLAGS[i])
    item  := op key epoch prepare_seqno level               (op: PREPARE 0, COMMIT 1, SET 2;
                                                             level: majority 0,
                                                             majority_and_persist_on_master 1,
                                                             persist_to_majority 2)
    snapshot := snap_start snap_end;  entry := uuid seqno

A node is encoded once per process and remembered (states share most of
their nodes with their neighbours), so encoding a successor costs its
header and the node that changed; a node object keeps its own bytes
(``NodeState._bytes``), found without a call to its ``__hash__``. The
memories are bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

from xxhash import xxh3_64_intdigest

from spec.cluster.state import COMMIT, PREPARE, SET, ClusterItem, ClusterState, NodeState, SyncWrite
from spec.failover_table import FailoverEntry, FailoverTable

__all__ = [
    "FORMAT",
    "decode",
    "encode",
    "fingerprint",
    "head_key",
    "head_part",
    "node_bytes",
    "node_part",
]

FORMAT = 4
_OPS = (PREPARE, COMMIT, SET)
_WRITE = len(SyncWrite._fields)  # the numbers of a SyncWrite
_OP_CODE = {op: code for code, op in enumerate(_OPS)}
_HALF = 1 << 63  # XXH3's unsigned 64 bits, moved into the signed range
_MEMORY = 50_000  # nodes remembered each way before the memory is cleared
# A node's fields after its table, in layout order: booleans (one bit each of ``flags``),
# tuples of seqnos, tuples of (seqno, seqno) pairs; each a count and its numbers.
_FLAGS = ("alive", "snapshot_has_prepare", "connected", "marker_due", "snapshot_is_disk")
_SEQNOS = ("headers", "snapshot_ends")
_PAIRS = ("disk_ends",)
_flags_of = attrgetter(*_FLAGS)

_node_bytes: dict[NodeState, bytes] = {}
_set_bytes = NodeState.__dict__["_bytes"].__set__  # the node object's own copy of them
_node_values: dict[bytes, NodeState] = {}
_head_bytes: dict[tuple[object, ...], bytes] = {}  # the state's fields but its nodes, encoded
_head_values: dict[bytes, tuple[object, ...]] = {}  # and decoded (in ``_state``'s order)


def fingerprint(data: bytes) -> int:
    """A stable 64-bit digest of ``encode``'s bytes (signed, for 64-bit columns)."""
    return xxh3_64_intdigest(data) - _HALF


def _put(out: list[int], value: int) -> None:
    if value < 0:
        raise ValueError(f"cannot encode a negative number ({value})")
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def _encode_node(node: NodeState) -> bytes:
    out: list[int] = [sum(flag << bit for bit, flag in enumerate(_flags_of(node)))]
    values = [node.persisted_seqno, node.persisted_hps, node.high_prepared_seqno, len(node.items)]
    for item in node.items:
        values += (_OP_CODE[item.op], item.key, item.epoch, item.prepare_seqno, item.level)
    values.append(len(node.snapshots))
    for start, end in node.snapshots:
        values += (start, end)
    table = node.table
    values += (table.max_entries, len(table.entries))
    for entry in table.entries:
        values += (entry.uuid, entry.seqno)
    for name in _SEQNOS:
        seqnos: tuple[int, ...] = getattr(node, name)
        values.append(len(seqnos))
        values += seqnos
    for name in _PAIRS:
        pairs: tuple[tuple[int, int], ...] = getattr(node, name)
        values.append(len(pairs))
        for pair in pairs:
            values += pair
    for value in values:
        if 0 <= value < 0x80:
            out.append(value)
        else:
            _put(out, value)
    return bytes(out)


_header_of = attrgetter(
    "active", "epoch", "prepares", "sets", "restarts", "acks", "acknowledged", "in_flight"
)


def encode(state: ClusterState) -> bytes:
    """The state's bytes: equal states, equal bytes, in any process."""
    parts = [head_part(state)]
    for node in state.nodes:
        sized = node._bytes  # the node's length and bytes
        parts.append(node_part(node) if sized is None else sized)
    return b"".join(parts)


def head_key(state: ClusterState) -> tuple[object, ...]:
    """What the state's head is made of: every field but its nodes."""
    return _header_of(state)


def head_part(state: ClusterState) -> bytes:
    """The state's bytes before its nodes' (remembered: few states' heads differ)."""
    key = _header_of(state)
    head = _head_bytes.get(key)  # few headers: 160 among 60,000 states of mb-34150-wider
    if head is None:
        head = _encode_head(state)
        if len(_head_bytes) >= _MEMORY:
            _head_bytes.clear()
        _head_bytes[key] = head
    return head


def node_part(node: NodeState) -> bytes:
    """The node's part of a state's bytes: its length, then its numbers (remembered)."""
    sized = node._bytes
    if sized is not None:
        return sized
    sized = _node_bytes.get(node)
    if sized is None:
        _remember(node, _encode_node(node))
        sized = _node_bytes[node]
    _set_bytes(node, sized)
    return sized


def _sized(data: bytes) -> bytes:
    """``data`` after its length (a varint), as a node's part of a state's bytes is."""
    size: list[int] = []
    _put(size, len(data))
    return bytes(size) + data


def node_bytes(node: NodeState) -> bytes:
    """The node's numbers (``node_part`` without the length), not remembered."""
    return _encode_node(node)


def _encode_head(state: ClusterState) -> bytes:
    active = state.active
    head = [
        0 if active is None else active + 1,
        state.epoch,
        state.prepares,
        state.sets,
        state.restarts,
        len(state.nodes),
        *state.acks,
    ]
    for writes in (state.acknowledged, state.in_flight):
        head.append(len(writes))
        for write in writes:
            head += write  # a SyncWrite is a tuple of its five numbers
    if min(head) >= 0 and max(head) < 0x80:
        return bytes(head)  # the common case: one byte each, no loop in Python
    out: list[int] = []
    for value in head:
        _put(out, value)
    return bytes(out)


def _remember(node: NodeState, data: bytes) -> NodeState:
    """Keep ``node`` and its bytes both ways: the node a later ``decode`` of these bytes
    gives is the object ``encode`` looks up (found by identity, not compared)."""
    if len(_node_bytes) >= _MEMORY or len(_node_values) >= _MEMORY:
        _node_bytes.clear()
        _node_values.clear()
    node = _node_values.setdefault(data, node)
    _node_bytes.setdefault(node, _sized(data))
    return node


class _Reader:
    __slots__ = ("at", "data")

    def __init__(self, data: bytes, at: int = 0) -> None:
        self.data = data
        self.at = at

    def next(self) -> int:
        data, at = self.data, self.at
        byte = data[at]
        if byte < 0x80:
            self.at = at + 1
            return byte
        value = shift = 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                self.at = at
                return value

    def take(self, count: int) -> list[int]:
        return [self.next() for _ in range(count)]


def _decode_node(data: bytes, shared: Callable[[NodeState], NodeState] | None) -> NodeState:
    r = _Reader(data)
    flags, persisted_seqno, persisted_hps, hps = r.take(4)
    items = []
    for _ in range(r.next()):
        op, key, epoch, prepare_seqno, level = r.take(5)
        items.append(ClusterItem(_OPS[op], key, epoch, prepare_seqno, level))
    snapshots = tuple((r.next(), r.next()) for _ in range(r.next()))
    max_entries = r.next()
    entries = tuple(FailoverEntry(r.next(), r.next()) for _ in range(r.next()))
    rest: dict[str, object] = {name: bool(flags >> bit & 1) for bit, name in enumerate(_FLAGS)}
    for name in _SEQNOS:
        rest[name] = tuple(r.take(r.next()))
    for name in _PAIRS:
        rest[name] = tuple((r.next(), r.next()) for _ in range(r.next()))
    if r.at != len(data):
        raise ValueError("trailing bytes after a node")
    node = NodeState(
        items=tuple(items),
        snapshots=snapshots,
        table=FailoverTable(entries, max_entries),
        persisted_seqno=persisted_seqno,
        persisted_hps=persisted_hps,
        high_prepared_seqno=hps,
        **rest,  # type: ignore[arg-type]  # the flags and tuples above, by name
    )
    return node if shared is None else shared(node)


def decode(data: bytes, shared: Callable[[NodeState], NodeState] | None = None) -> ClusterState:
    """The state ``encode`` made these bytes from (``ValueError`` for other bytes).

    ``shared`` maps a node decoded for the first time to the object to keep for it
    (a model's own node equal to it): a node met again is the object kept. The
    memory is the process's, not the model's: where several models decode, a node
    is the object the first one kept (equal, so only the memories' speed differs)."""
    try:
        return _decode(data, shared)
    except (IndexError, KeyError, TypeError) as exc:
        raise ValueError(f"not an encoded cluster state ({exc})") from None


def _decode(data: bytes, shared: Callable[[NodeState], NodeState] | None) -> ClusterState:
    # the common case first: every number of the header one byte (below 128), read by
    # slicing; any other bytes are read number by number. A number of several bytes
    # before ``start`` puts a byte >= 128 in ``data[:start]``, or, having shifted the
    # counts read here, a position past the end.
    try:
        count = data[5]
        at = 6 + count
        acknowledged = data[at]
        end = at + 1 + _WRITE * acknowledged
        in_flight = data[end]
    except IndexError:
        return _decode_varints(data, shared)
    start = end + 1 + _WRITE * in_flight
    head = _head_values.get(data[:start])
    if head is None:
        if max(data[:start]) >= 0x80:
            return _decode_varints(data, shared)
        writes = data[at + 1 : end]
        acked = tuple([SyncWrite(*writes[i : i + _WRITE]) for i in range(0, len(writes), _WRITE)])
        writes = data[end + 1 : start]
        flying = tuple([SyncWrite(*writes[i : i + _WRITE]) for i in range(0, len(writes), _WRITE)])
        active = data[0]
        head = (
            None if active == 0 else active - 1,
            data[1],
            tuple(data[6 : 6 + count]),
            acked,
            flying,
            data[2],
            data[3],
            data[4],
        )
        if len(_head_values) >= _MEMORY:
            _head_values.clear()
        _head_values[data[:start]] = head
    nodes = []
    known = _node_values.get
    for _ in range(count):
        size = data[start]
        if size >= 0x80:
            return _decode_varints(data, shared)
        start += 1
        part = data[start : start + size]
        start += size
        node = known(part)
        if node is None:
            node = _remember(_decode_node(part, shared), part)
        nodes.append(node)
    if start != len(data):
        raise ValueError("trailing bytes after a state")
    return _state(tuple(nodes), *head)


# (nodes, active, epoch, acks, acknowledged, in_flight, prepares, sets, restarts) -> the
# state, without the checks of a frozen dataclass's __init__
_state: Callable[..., ClusterState] = ClusterState.make


def _decode_varints(data: bytes, shared: Callable[[NodeState], NodeState] | None) -> ClusterState:
    r = _Reader(data)
    active, epoch, prepares, sets, restarts, count = r.take(6)
    acks = tuple(r.take(count))
    writes = []
    for _ in range(2):
        writes.append(tuple(SyncWrite(*r.take(_WRITE)) for _ in range(r.next())))
    nodes = []
    for _ in range(count):
        size = r.next()
        part = data[r.at : r.at + size]
        r.at += size
        node = _node_values.get(part)
        if node is None:
            node = _remember(_decode_node(part, shared), part)
        nodes.append(node)
    if r.at != len(data):
        raise ValueError("trailing bytes after a state")
    return _state(
        tuple(nodes),
        None if active == 0 else active - 1,
        epoch,
        acks,
        writes[0],
        writes[1],
        prepares,
        sets,
        restarts,
    )
