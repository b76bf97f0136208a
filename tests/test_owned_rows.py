"""What a level's partitions send each other and what the owner writes of it
(checker/spark/owned.py), without Spark: rows packed as columns by their senders,
settled by their owner into the level file, the least order per state, less the
states visited before."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.spark import owned
from checker.spark.owned import Where, least, packed, part_file, settle

# A row as successors makes it: (model, the parent's order, action, fp, parent's fp, state)
_WIDTH = 3  # the parents' orders of one level: one length
_orders = st.binary(min_size=_WIDTH, max_size=_WIDTH).map(
    lambda b: bytes(x % 3 if x < 200 else 255 for x in b)  # zeros and 255s are common
)
_rows = st.lists(
    st.tuples(
        st.integers(0, 2),
        _orders,
        st.sampled_from([0, 1, 2, 255]),
        st.integers(-4, 3).map(lambda k: k * (2**61)),  # few fingerprints: duplicates
        st.integers(-(2**63), 2**63 - 1),
        st.binary(max_size=5),
    ),
    max_size=40,
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where each example's level files go: below pytest's own temporary directory, which
    it removes in later runs (a directory of tempfile's own per example was left in /tmp)."""
    return tmp_path_factory.mktemp("levels")


def _where(scratch: Path, partitions: int) -> Where:
    return Where(tempfile.mkdtemp(dir=scratch), partitions)


def _level(root: str, level_dir: str, q: int = 0) -> list[dict]:
    return pq.read_table(part_file(f"{root}/{level_dir}", q)).to_pylist()


@given(
    before=st.lists(st.tuples(st.integers(0, 2), st.integers(-4, 3)), max_size=6),
    rows=_rows,
    cuts=st.lists(st.integers(0, 40), max_size=3),
)
def test_the_owner_keeps_each_new_states_least_order_in_order(
    before: list[tuple[int, int]],
    rows: list[tuple],
    cuts: list[int],
    scratch: Path,
) -> None:
    """Whatever records the rows come in, the level file holds, per model, the rows of the
    states not visited before, each with its least order, sorted by (model, order); the
    orders compare as bytes (a zero byte is not an end)."""
    where = _where(scratch, 1)
    # level 0: the visited states (no parent, no action)
    zero = [(m, b"", i % 256, k * (2**61), 0, b"s") for i, (m, k) in enumerate(before)]
    settle(where, None, "level=0", 0, [r for _, r in packed([[zero]])], 3)
    seen = {(m, k * (2**61)) for m, k in before}
    assert len(_level(where.root, "level=0")) == len(seen)
    # level 1: the rows cut into records as senders would send them
    bounds = sorted({0, len(rows), *(c for c in cuts if c <= len(rows))})
    batches = [[rows[a:b]] for a, b in itertools.pairwise(bounds)]
    part = settle(where, "level=0", "level=1", 0, [r for _, r in packed(batches)], 3)

    want, kept = [], set()
    for m, prefix, action, fp, parent, state in sorted(rows, key=lambda r: (r[0], r[1], r[2])):
        if (m, fp) not in seen and (m, fp) not in kept:
            kept.add((m, fp))
            want.append((m, fp, parent, action, prefix + bytes((action,)), state))
    got = [tuple(r.values()) for r in _level(where.root, "level=1")]
    assert got == want
    assert part.states == [sum(1 for r in want if r[0] == m) for m in range(3)]


def test_level_zero_has_no_parent_and_no_action(scratch: Path) -> None:
    where = _where(scratch, 2)
    rows = [(0, b"", 0, 8, 0, b"a"), (0, b"", 1, 9, 0, b"b")]
    owned = [[r for r in rows if r[3] % 2 == q] for q in range(2)]
    records = list(packed([owned]))
    assert [q for q, _ in records] == [0, 1]
    for q, record in records:
        settle(where, None, "level=0", q, [record], 1)
    got = _level(where.root, "level=0", 0) + _level(where.root, "level=0", 1)
    assert [(r["fp"], r["parent"], r["action"], r["order"]) for r in got] == [
        (8, None, None, b"\x00"),
        (9, None, None, b"\x01"),
    ]


def test_the_least_deciding_order_is_kept_per_model_and_property() -> None:
    a = [[b"\x01\x02", None], [None, None]]
    b = [[b"\x01\x01", b"\x00"], [None, b"\x05"]]
    assert least(a, b) == [[b"\x01\x01", b"\x00"], [None, b"\x05"]]
    assert least(b, a) == least(a, b)
    assert least(a, a) == a


def test_states_beyond_a_binary_arrays_bytes_are_written_in_chunks(
    monkeypatch, scratch: Path
) -> None:
    """A level part whose states pass a binary array's 2 GiB is written in chunks, each
    within it, the rows as they would be in one (the limit made small here)."""
    monkeypatch.setattr(owned, "CHUNK_BYTES", 12)
    rows = [(0, bytes([i]), i % 4, 100 + i, 1, bytes([i]) * (6 if i % 2 else 1)) for i in range(40)]
    records = [r for _, r in packed([[rows[25:]], [rows[:25]]])]  # out of order
    sent = owned._Sent.of(records)
    taken = np.arange(40)[::-1]
    column = sent.table(taken, level_zero=False).column("state")
    assert column.num_chunks > 1
    assert all(sum(len(v) for v in chunk.to_pylist()) <= 12 for chunk in column.chunks)
    assert column.to_pylist() == [(rows[25:] + rows[:25])[i][5] for i in taken]
    where = _where(scratch, 1)
    settle(where, None, "level=0", 0, [], 1)
    settle(where, "level=0", "level=1", 0, records, 1)
    assert [r["state"] for r in _level(where.root, "level=1")] == [r[5] for r in rows]


@given(
    sent=st.lists(
        st.lists(st.tuples(st.integers(0, 2), st.binary(max_size=9)), max_size=6),
        min_size=3,
        max_size=3,
    )
)
def test_each_owner_receives_what_every_partition_sent_it_once_in_order(
    scratch: Path, sent: list[list[tuple[int, bytes]]]
) -> None:
    where = _where(scratch, 3)
    for q, records in enumerate(sent):
        owned.send(where, "incoming/level=1", q, iter([(0, b"stale"), (1, b"stale")]))
        owned.send(where, "incoming/level=1", q, iter(records))  # a task run again
    for r in range(3):
        expected = [record for records in sent for owner, record in records if owner == r]
        assert list(owned.received(where, "incoming/level=1", r)) == expected
