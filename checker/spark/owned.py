"""The states a partition owns: one level of the distributed search, per partition.

A state belongs to partition ``fp mod P`` (``fp`` its 64-bit fingerprint), in every
level. Level ``d`` of partition ``q`` is one Parquet file,
``level=d/part-q.parquet``, of rows ``(model, fp, parent, action, order, state)``
sorted by ``(model, order)``; beside it ``_visited-q.arrow`` holds the
``(model, fp)`` of every state partition ``q`` owns in levels ``0..d``, sorted
(an Arrow IPC file: read back as NumPy arrays without a copy per row). Files
whose names start with ``_`` are not rows of the level for Spark or pyarrow.

A level is two steps, each a plain function of files so that it runs alike in a
Spark task and, for a small level, in the driver's own process:

* ``successors``: partition ``q``'s frontier expanded in queue order, each new
  successor with the partition that owns it (a successor met twice in one
  partition is sent once: the first copy has the least order; one equal to a
  state of the frontier is not sent: it is visited; both are dropped by the
  representative's bytes under symmetry, else by the state's own hash and
  equality before it is encoded). The watched properties
  are evaluated here, on the frontier's states as they are decoded: once per
  state, as one process evaluates them, not once per successor sent (a state
  is sent by each partition that makes it). So what a level decides is known
  when the next level is made;
* ``settle``: everything sent to partition ``q``, reduced to the least order per
  state, less the states ``q`` visited before (a merge of sorted fingerprints,
  ``np.searchsorted``), written as ``q``'s part of the next level with its new
  visited file. What is sent is columns, not rows (``packed``): a frontier
  batch's successors for one owner are a few byte strings (the models, the
  orders, the fingerprints, ... and the states' bytes one after another), so
  the owner sorts, reduces and writes them with NumPy and Arrow without a
  Python object per row; the states per model it returns, with the first order deciding
  each property in the frontier that the expanding tasks found, are all the
  driver learns of the level.

``evaluate`` decides the properties on a level without expanding it (the last
level of a search stopped by its state limit).

Between the two steps the records go through files, not through Spark's
shuffle: ``send`` writes what partition ``q``'s expansion made for owner ``r``
as ``_sent/to-r/from-q`` in the level being written, and ``received`` reads back
everything sent to ``r`` (the JVM would only have moved these bytes, on the
cores the tasks need; the search's directory is one every executor reaches
already).

Both are deterministic, so a task Spark runs again writes the same files.
Files are written under a temporary name and renamed.
"""

from __future__ import annotations

import marshal
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from checker.spark.expand import CANDIDATE_COLUMNS, MAX_ACTIONS, Watched
from spec.cluster.encode import encode, fingerprint
from spec.errors import HarnessBug

__all__ = [
    "Decided",
    "SettledPartition",
    "Where",
    "evaluate",
    "least",
    "nothing_decided",
    "packed",
    "part_file",
    "received",
    "send",
    "sent_dir",
    "settle",
    "successors",
]

# a successor as ``successors`` makes it: (model, its parent's order, its action, fp,
# its parent's fp, state); its own order is the parent's and one byte, the action. The
# level files hold (model, fp, parent, action, order, state): CANDIDATE_COLUMNS
Row = tuple[int, bytes, int, int, int, bytes]
CHUNK_BYTES = 2**31 - 1  # a binary array's most bytes (32-bit offsets)
BATCH = 8192  # frontier rows read at a time: a task's memory is one batch and its successors
# a level file's writer: a dictionary only for the columns of few values (the states, the
# fingerprints and the orders are all distinct, so a dictionary is built and thrown away:
# 0.3 us a row less to write, 0.1 less to read, 8% smaller, timed alone on 213,891 rows)
_PARQUET = {"compression": "lz4", "use_dictionary": ["model", "action"]}


@dataclass(frozen=True)
class Where:
    """The search's directory (a URI or a path) and its number of partitions."""

    root: str
    partitions: int

    def filesystem(self) -> tuple[Any, str]:  # pyarrow's, untyped
        """(pyarrow filesystem, the root's path on it)."""
        from pyarrow import fs

        root = self.root
        if "://" not in root:
            return fs.LocalFileSystem(), root
        return fs.FileSystem.from_uri(root.replace("s3a://", "s3://", 1))


@dataclass
class SettledPartition:
    """What settling one partition of a level found: its new states per model."""

    states: list[int]


Decided = list[list[bytes | None]]  # per model and watched property: the least order deciding it


def nothing_decided(watched: Sequence[Watched]) -> Decided:
    """No order yet for any model and property."""
    return [[None] * len(w.properties) for w in watched]


def least(a: Decided, b: Decided) -> Decided:
    """Per model and property, the lesser order of ``a`` and ``b`` (None: none)."""
    return [
        [x if y is None or (x is not None and x <= y) else y for x, y in zip(p, r, strict=True)]
        for p, r in zip(a, b, strict=True)
    ]


def part_file(level_dir: str, q: int) -> str:
    return f"{level_dir}/part-{q:05d}.parquet"


def _visited_file(level_dir: str, q: int) -> str:
    return f"{level_dir}/_visited-{q:05d}.arrow"


def successors(
    watched: Sequence[Watched],
    where: Where,
    frontier_dir: str,
    q: int,
    models: Sequence[int],
    transitions: list[int],
    decided: Decided,
) -> Iterator[list[list[Row]]]:
    """The successors of partition ``q``'s frontier in ``models``, a frontier batch at
    a time: per owning partition, the rows of that batch's successors it owns (the
    lists are emptied for the next batch: take their rows before asking for it).
    ``transitions[m]`` counts the transitions made in model ``m``; ``decided[m][j]``
    becomes the least order of a frontier state deciding property ``j``, if it has
    none yet. A partition's rows come in ``(model, order)`` order."""
    partitions = where.partitions
    # states met in this partition this level, per model: the frontier's (visited) and
    # the successors already sent; a state met again is dropped before it is encoded
    met: list[set[Any]] = [set() for _ in watched]
    owned: list[list[Row]] = [[] for _ in range(partitions)]
    for batch in _frontier(where, frontier_dir, q, models):
        for m, parent, order, data in batch:
            w = watched[m]
            model = w.model
            next_state = model.next_state
            # under symmetry a state is known by its representative's bytes, made from
            # its nodes' parts without making the representative (encode_representative)
            keep = model.encode_representative if w.symmetry else None
            state = model.decode(data)
            bits = w.decides(state)
            if bits:
                _note(decided[m], bits, order)
            seen = met[m]
            seen.add(state if keep is None else data)
            actions = model.actions(state)
            if len(actions) > MAX_ACTIONS:
                raise HarnessBug(f"a state has {len(actions)} actions; the search orders 256")
            made = 0
            for index, action in enumerate(actions):
                after = next_state(state, action)
                if after is None:
                    continue
                made += 1
                if keep is not None:
                    blob = keep(after)
                    if blob in seen:
                        continue
                    seen.add(blob)
                else:
                    if after in seen:
                        continue
                    seen.add(after)
                    blob = encode(after)
                fp = fingerprint(blob)
                owned[fp % partitions].append((m, order, index, fp, parent, blob))
            transitions[m] += made
        yield owned
        for rows in owned:
            rows.clear()


def evaluate(
    watched: Sequence[Watched], where: Where, level_dir: str, q: int, models: Sequence[int]
) -> Decided:
    """Per model and property, the least order of a state of partition ``q``'s part of
    a level deciding it (``models`` only), the level not expanded."""
    decided = nothing_decided(watched)
    for batch in _frontier(where, level_dir, q, models):
        for m, _parent, order, data in batch:
            w = watched[m]
            bits = w.decides(w.model.decode(data))
            if bits:
                _note(decided[m], bits, order)
    return decided


def _frontier(
    where: Where, level_dir: str, q: int, models: Sequence[int]
) -> Iterator[list[tuple[int, int, bytes, bytes]]]:
    """Partition ``q``'s part of a level as ``(model, fp, order, state)`` rows of
    ``models``, in order, ``BATCH`` rows (or fewer) at a time."""
    import pyarrow.parquet as pq

    fs, root = where.filesystem()
    running = set(models)
    with fs.open_input_file(part_file(f"{root}/{level_dir}", q)) as stream:
        batches = pq.ParquetFile(stream).iter_batches(
            BATCH, columns=["model", "fp", "order", "state"]
        )
        for batch in batches:
            columns = (batch.column(i).to_pylist() for i in range(4))
            yield [row for row in zip(*columns, strict=True) if row[0] in running]


def _note(first: list[bytes | None], bits: int, order: bytes) -> None:
    """``order`` decides the properties of ``bits`` that nothing earlier decided (the
    rows come in order: the first is the least)."""
    for j in range(len(first)):
        if bits >> j & 1 and first[j] is None:
            first[j] = order


def packed(batches: Iterable[list[list[Row]]]) -> Iterator[tuple[int, bytes]]:
    """The rows ``successors`` makes as ``(owner, record)``: a batch's rows for one owner
    in one record of columns (``marshal``'d byte strings: a few large records to write
    and read, and ``settle`` reads them as NumPy arrays; driver and executors run one
    Python version, as PySpark requires)."""
    for owned in batches:
        for owner, rows in enumerate(owned):
            if rows:
                yield owner, _columns(rows)


def sent_dir(level_dir: str) -> str:
    """Where the records of a level in the making wait for their owners (removed before
    the level is published)."""
    return f"{level_dir}/_sent"


def send(where: Where, level_dir: str, q: int, records: Iterable[tuple[int, bytes]]) -> None:
    """Write ``records`` (``packed``'s, made by partition ``q``) to their owners' files:
    each a run of records, each preceded by its length (8 bytes, little-endian). Every
    owner gets a file, empty if nothing is sent to it, so that ``received`` can tell a
    partition that sent nothing from one that has not run. Written under temporary names
    and renamed after the last record: a task run again writes the same files."""
    fs, root = where.filesystem()
    folder = f"{root}/{sent_dir(level_dir)}"
    final = [f"{folder}/to-{r:05d}/from-{q:05d}" for r in range(where.partitions)]
    temps = [_temporary(path) for path in final]
    for path in final:
        fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
    streams = [fs.open_output_stream(temp) for temp in temps]
    try:
        for owner, record in records:
            stream = streams[owner]
            stream.write(len(record).to_bytes(8, "little"))
            stream.write(record)
    finally:
        for stream in streams:
            stream.close()
    for temp, path in zip(temps, final, strict=True):
        fs.move(temp, path)


def received(where: Where, level_dir: str, r: int) -> Iterator[bytes]:
    """The records every partition sent to ``r`` (``send``), partition by partition."""
    fs, root = where.filesystem()
    folder = f"{root}/{sent_dir(level_dir)}/to-{r:05d}"
    for q in range(where.partitions):
        with fs.open_input_stream(f"{folder}/from-{q:05d}") as stream:
            data = stream.readall()
        view, at = memoryview(data), 0
        while at < len(data):
            size = int.from_bytes(view[at : at + 8], "little")
            yield bytes(view[at + 8 : at + 8 + size])
            at += 8 + size


def _columns(rows: Sequence[Row]) -> bytes:
    models, orders, actions, fps, parents, states = zip(*rows, strict=True)
    return marshal.dumps(
        (
            array("i", models).tobytes(),
            b"".join(orders),  # all of one level: one width
            bytes(actions),
            array("q", fps).tobytes(),
            array("q", parents).tobytes(),
            array("q", map(len, states)).tobytes(),
            b"".join(states),
        )
    )


def settle(
    where: Where,
    visited_dir: str | None,
    level_dir: str,
    q: int,
    records: Iterable[bytes],
    models: int,
) -> SettledPartition:
    """Write partition ``q`` of a level from the ``records`` (``packed``) sent to it:
    the least order per ``(model, fp)``, less what ``visited_dir`` (the level
    before; None for level 0, whose states have no parent and no action) says
    ``q`` has visited."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    sent = _Sent.of(records)
    # rows sorted by (model, order); no two rows share both, so a state's first row
    # in this order has its least order
    by_order = np.lexsort((sent.orders, sent.models))
    fps = sent.fps[by_order]
    bounds = np.searchsorted(sent.models[by_order], np.arange(models + 1, dtype=np.int32))
    fs, root = where.filesystem()
    before = _read_visited(fs, f"{root}/{visited_dir}", q) if visited_dir is not None else None
    part = SettledPartition([0] * models)
    keep, visited = [], []
    for m in range(models):
        low, high = int(bounds[m]), int(bounds[m + 1])
        old = before[m] if before is not None else np.empty(0, dtype=np.int64)
        if low == high:
            visited.append(old)
            continue
        unique, first = np.unique(fps[low:high], return_index=True)  # stable: least order
        if len(old):
            at = np.searchsorted(old, unique).clip(0, len(old) - 1)
            new = old[at] != unique
            unique, first = unique[new], first[new]
        visited.append(np.insert(old, np.searchsorted(old, unique), unique))
        first.sort()
        keep.append(first + low)
        part.states[m] = len(first)
    taken = by_order[np.concatenate(keep)] if keep else np.empty(0, dtype=np.int64)
    table = sent.table(taken, level_zero=visited_dir is None)
    target = f"{root}/{level_dir}"
    fs.create_dir(target, recursive=True)
    _atomic(fs, part_file(target, q), lambda s: pq.write_table(table, s, **_PARQUET))
    vis = pa.table(
        {
            "model": pa.array(
                np.repeat(np.arange(models, dtype=np.int32), [len(v) for v in visited])
            ),
            "fp": pa.array(np.concatenate(visited) if visited else np.empty(0, dtype=np.int64)),
        }
    )
    _atomic(fs, _visited_file(target, q), lambda s: _write_ipc(s, vis))
    return part


@dataclass
class _Sent:
    """The rows of some records as columns (NumPy arrays; the states one byte string).
    ``orders``: each row's whole order, as fixed-width byte strings that NumPy sorts as
    bytes (a level's orders are all one length)."""

    models: Any
    orders: Any
    actions: Any
    fps: Any
    parents: Any
    offsets: Any  # where each state's bytes start in ``states``, and the end
    states: bytes

    @classmethod
    def of(cls, records: Iterable[bytes]) -> _Sent:
        import numpy as np

        columns = list(zip(*map(marshal.loads, records), strict=True)) or [()] * 7
        models = np.frombuffer(b"".join(columns[0]), dtype=np.int32)
        actions = np.frombuffer(b"".join(columns[2]), dtype=np.uint8)
        prefixes = np.frombuffer(b"".join(columns[1]), dtype=np.uint8)
        rows = len(models)
        width = len(prefixes) // rows + 1 if rows else 1
        if rows and len(prefixes) != rows * (width - 1):
            raise HarnessBug("the rows sent to a partition have orders of several lengths")
        orders = np.empty((rows, width), dtype=np.uint8)
        orders[:, : width - 1] = prefixes.reshape(rows, width - 1)
        orders[:, width - 1] = actions
        return cls(
            models,
            orders.view(f"S{width}").reshape(rows),
            actions,
            np.frombuffer(b"".join(columns[3]), dtype=np.int64),
            np.frombuffer(b"".join(columns[4]), dtype=np.int64),
            # the lengths after a zero length: their running sums are the offsets
            np.cumsum(np.frombuffer(b"".join([bytes(8), *columns[5]]), dtype=np.int64)),
            b"".join(columns[6]),
        )

    def table(self, taken: Any, level_zero: bool) -> Any:
        """The rows at ``taken``, in that order, as a level file's table."""
        import numpy as np
        import pyarrow as pa

        schema = pa.schema([(name, getattr(pa, kind)()) for name, kind in CANDIDATE_COLUMNS])
        rows = len(taken)
        width = self.orders.dtype.itemsize
        columns = {
            "model": pa.array(self.models[taken]),
            "fp": pa.array(self.fps[taken]),
            "parent": pa.nulls(rows, pa.int64()) if level_zero else pa.array(self.parents[taken]),
            "action": (
                pa.nulls(rows, pa.int32())
                if level_zero
                else pa.array(self.actions[taken].astype(np.int32))
            ),
            "order": pa.Array.from_buffers(
                pa.binary(),
                rows,
                [
                    None,
                    pa.py_buffer(np.arange(rows + 1, dtype=np.int32) * width),
                    pa.py_buffer(self.orders[taken].tobytes()),
                ],
            ),
            "state": self._states(taken),
        }
        return pa.Table.from_arrays([columns[f.name] for f in schema], schema=schema)

    def _states(self, taken: Any) -> Any:
        """The states at ``taken`` as binary chunks of at most ``CHUNK_BYTES`` bytes each
        (a binary array's offsets are 32-bit): a chunk is cut where its bytes pass half
        of it, and one state is far smaller than the other half."""
        import numpy as np
        import pyarrow as pa

        states = pa.Array.from_buffers(
            pa.large_binary(),
            len(self.offsets) - 1,
            [None, pa.py_buffer(self.offsets), pa.py_buffer(self.states)],
        )
        ends = np.cumsum(np.diff(self.offsets)[taken])
        half = CHUNK_BYTES // 2
        total = int(ends[-1]) if len(ends) else 0
        cuts = np.searchsorted(ends, np.arange(half, total, half), side="right")
        pieces = np.split(np.asarray(taken), cuts)
        return pa.chunked_array(
            [states.take(pa.array(p, type=pa.int64())).cast(pa.binary()) for p in pieces],
            type=pa.binary(),
        )


def _write_ipc(stream: Any, table: Any) -> None:  # pyarrow's (untyped)
    import pyarrow as pa

    with pa.ipc.new_file(stream, table.schema) as writer:
        writer.write_table(table)


def _read_visited(fs: Any, level_dir: str, q: int) -> dict[int, Any]:
    """Model -> its sorted fingerprints that partition ``q`` visited."""
    import numpy as np
    import pyarrow as pa

    with fs.open_input_file(_visited_file(level_dir, q)) as stream:
        table = pa.ipc.open_file(stream).read_all()
    models = table.column("model").to_numpy()
    fps = table.column("fp").to_numpy()
    bounds = np.searchsorted(models, np.arange(int(models.max()) + 2 if len(models) else 1))
    out = _Empty()
    out.update((m, fps[bounds[m] : bounds[m + 1]]) for m in range(len(bounds) - 1))
    return out


class _Empty(dict[int, Any]):
    """No fingerprints for a model the file does not list."""

    def __missing__(self, key: int) -> Any:  # an empty numpy array
        import numpy as np

        return np.empty(0, dtype=np.int64)


def _temporary(path: str) -> str:
    folder, name = path.rsplit("/", 1)
    return f"{folder}/.{name}.tmp"  # a name no reader of the level lists


def _atomic(fs: Any, path: str, write: Callable[[Any], None]) -> None:
    temp = _temporary(path)
    with fs.open_output_stream(temp) as stream:
        write(stream)
    fs.move(temp, path)
