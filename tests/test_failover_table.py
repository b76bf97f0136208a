"""The reference failover table: the behaviours kv_engine's own unit tests pin."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import tables

from spec.failover_table import FailoverEntry, FailoverTable


def test_create_entry_pushes_newest_first() -> None:
    table = FailoverTable.of((1111, 0)).create_entry(100, 2222).create_entry(200, 3333)
    assert table.to_json() == [
        {"id": 3333, "seq": 200},
        {"id": 2222, "seq": 100},
        {"id": 1111, "seq": 0},
    ]


def test_create_entry_drops_the_branches_above_the_new_branch_point() -> None:
    # kv_engine test_add_entry: entries 0,100..500 then one at 199 keeps 0, 100, 199.
    table = FailoverTable.of((1, 0))
    for i, seqno in enumerate(range(100, 600, 100), start=2):
        table = table.create_entry(seqno, i)
    assert len(table) == 6
    table = table.create_entry(199, 99)
    assert [e.seqno for e in table] == [199, 100, 0]


def test_create_entry_caps_the_table_dropping_the_oldest() -> None:
    # kv_engine test_max_capacity: 5 entries max, 7 created after the initial one.
    table = FailoverTable.of((1, 0), max_entries=5)
    for i in range(7):
        table = table.create_entry(100 + i * 100, 10 + i)
    assert len(table) == 5
    assert table.latest.seqno == 700
    assert [e.seqno for e in table] == [700, 600, 500, 400, 300]


def test_create_entry_refuses_uuid_zero() -> None:
    with pytest.raises(ValueError):
        FailoverTable.of((1, 0)).create_entry(5, 0)


def test_sanitize_drops_uuid_zero_and_out_of_order_entries() -> None:
    # kv_engine test_sanitize_failover_table: 4 erroneous entries, 2 kept.
    raw = [
        FailoverEntry(0, 0),
        FailoverEntry(1356861809263, 100),
        FailoverEntry(227813077095126, 200),
        FailoverEntry(227813077095128, 300),
        FailoverEntry(0, 50),
        FailoverEntry(160260368866392, 0),
    ]
    table, dropped = FailoverTable.sanitized(raw, high_seqno=0, uuid_if_empty=7)
    assert [e.uuid for e in table] == [1356861809263, 160260368866392]
    assert len(dropped) == 4


def test_sanitize_never_leaves_the_table_empty() -> None:
    # kv_engine test_sanitize_failover_table_all: everything erroneous -> one entry at high.
    table, dropped = FailoverTable.sanitized(
        [FailoverEntry(0, 0), FailoverEntry(0, 50)], high_seqno=42, uuid_if_empty=7
    )
    assert table.entries == (FailoverEntry(7, 42),)
    assert len(dropped) == 2


def test_sanitize_keeps_equal_seqnos() -> None:
    entries = [FailoverEntry(2, 0), FailoverEntry(1, 0)]
    table, dropped = FailoverTable.sanitized(entries, 0, 7)
    assert table.entries == tuple(entries) and not dropped


def test_prune_drops_entries_above_and_refills_an_empty_table() -> None:
    table = FailoverTable.of((3, 30), (2, 20), (1, 10))
    assert [e.seqno for e in table.prune(25, 9)] == [20, 10]
    assert table.prune(5, 9).entries == (FailoverEntry(9, 5),)
    with pytest.raises(ValueError):
        table.prune(0, 9)


def test_upper_is_the_next_newer_entry_or_the_high_seqno() -> None:
    table = FailoverTable.of((3333, 30), (2222, 20), (1111, 0))
    assert table.upper(3333, 100) == 100
    assert table.upper(2222, 100) == 30
    assert table.upper(1111, 100) == 20
    assert table.upper(5555, 100) is None


def test_upper_uses_the_oldest_entry_when_a_uuid_repeats() -> None:
    table = FailoverTable.of((7, 30), (9, 20), (7, 10), (1, 0))
    assert table.upper(7, 100) == 20


def test_entry_covering_a_seqno_is_the_newest_at_or_below_it() -> None:
    table = FailoverTable.of((3, 30), (2, 20), (1, 0))
    assert table.entry_covering(25).uuid == 2
    assert table.entry_covering(30).uuid == 3
    assert table.entry_covering(0).uuid == 1


@given(tables(max_entries=5), st.integers(0, 20), st.integers(1, 10**6))
def test_create_entry_keeps_seqnos_non_increasing(
    table: FailoverTable, seqno: int, uuid: int
) -> None:
    new = table.create_entry(seqno, uuid)
    seqs = [e.seqno for e in new]
    assert seqs == sorted(seqs, reverse=True)
    assert new.latest == FailoverEntry(uuid, seqno)
    assert len(new) <= new.max_entries
