"""The reference producer decisions against the cases kv_engine's unit tests assert.

The cases are kv_engine's failover_table_test.cc, re-encoded (facts, not code).
Like those tests, they call the decision directly with whatever producer state
the case needs, including high seqnos below table entries.
"""

from __future__ import annotations

import pytest

from spec.failover_table import UINT64_MAX, FailoverTable
from spec.reference.producer import (
    needs_rollback_doc,
    needs_rollback_kv_current,
    stream_request,
)
from spec.types import Outcome, ProducerState, StreamRequest

FIVE = FailoverTable.of((5, 600), (4, 450), (3, 300), (2, 150), (1, 0))


def kv(
    table: FailoverTable,
    start: int,
    high: int,
    uuid: int,
    snap_start: int,
    snap_end: int,
    purge: int = 0,
    remote_purge: int = 0,
    strict: bool = False,
    collection_high: int | None = None,
):
    """needsRollback's argument order, as kv_engine's tests call it."""
    req = StreamRequest(
        uuid,
        start,
        snap_start,
        snap_end,
        strict=strict,
        remote_purge=remote_purge,
        collection_high=collection_high,
    )
    return needs_rollback_kv_current(req, ProducerState(table, high, purge))


def test_start_zero_never_rolls_back_without_strict() -> None:
    assert kv(FIVE, 0, 0, 0, 0, 0).case == "start-zero"
    assert kv(FIVE, 0, 0, 0xABCD, 0, 0).outcome is Outcome.ACCEPT


def test_start_zero_with_strict_checks_the_uuid() -> None:
    table = FailoverTable.of((2, 150), (1, 0))
    assert kv(table, 0, 0, 0, 0, 0, strict=True).case == "start-zero"
    assert kv(table, 0, 0, 2, 0, 0, strict=True).case == "lagging"
    decision = kv(table, 0, 0, 0xABCD, 0, 0, strict=True)
    assert (decision.case, decision.rollback_seqno) == ("uuid-not-found", 0)


def test_five_entry_table() -> None:
    high = 700
    assert kv(FIVE, 10, high, 5, 0, 20).case == "lagging"
    assert (kv(FIVE, 10, 0, 0, 0, 0).case, kv(FIVE, 10, 0, 0, 0, 0).rollback_seqno) == (
        "uuid-not-found",
        0,
    )
    decision = kv(FIVE, high - 80, high, 5, 0, high + 20)
    assert (decision.case, decision.rollback_seqno) == ("snapshot-mismatch", 0)


@pytest.mark.parametrize(
    ("start", "snap_start", "snap_end", "case", "seqno"),
    [
        (200, 200, 200, "lagging", None),  # whole snapshot below upper
        (200, 200, 301, "lagging", None),  # no item of the snapshot received: end moved back
        (300, 300, 301, "lagging", None),  # ... even when start == upper
        (400, 400, 400, "ahead-of-upper", 300),  # complete snapshot above upper -> upper
        (220, 210, 301, "snapshot-mismatch", 210),  # partial snapshot straddling upper -> start
        (310, 210, 320, "snapshot-mismatch", 210),
    ],
)
def test_edge_cases_at_upper(start, snap_start, snap_end, case, seqno) -> None:
    table = FailoverTable.of((5, 600), (4, 450), (3, 300), (2, 150), (1, 0))
    decision = kv(table, start, 300, 5, snap_start, snap_end)
    assert (decision.case, decision.rollback_seqno) == (case, seqno)


def test_seqnos_near_two_to_the_64() -> None:
    step = UINT64_MAX // (5 * 150)
    seqs = [i * 150 * step for i in range(4, -1, -1)]
    table = FailoverTable.of(*((10 + i, s) for i, s in enumerate(seqs)))
    newest, second = table.entries[0], table.entries[1]
    high = newest.seqno + 100
    assert high < 2**64
    assert kv(table, 10, high, newest.uuid, 0, 20).case == "lagging"
    assert kv(table, 10, high, 0, 0, 20).rollback_seqno == 0
    assert kv(table, high - 80, high, newest.uuid, high - 20, high + 20).rollback_seqno == high - 20
    decision = kv(table, high + 20, high, newest.uuid, high + 10, high + 40, collection_high=0)
    assert (decision.case, decision.rollback_seqno) == ("ahead-of-upper", high)
    decision = kv(table, newest.seqno - 5, high, second.uuid, newest.seqno - 10, newest.seqno + 40)
    assert (decision.case, decision.rollback_seqno) == ("snapshot-mismatch", newest.seqno - 10)
    decision = kv(table, newest.seqno + 20, high, second.uuid, newest.seqno + 10, newest.seqno + 40)
    assert (decision.case, decision.rollback_seqno) == ("ahead-of-upper", newest.seqno)


def test_purge_rolls_back_to_zero_with_kv_engines_reason() -> None:
    table = FailoverTable.of((5, 50), (1, 0))
    decision = kv(table, 10, 0, 0, 0, 0, purge=20)
    assert (decision.case, decision.rollback_seqno) == ("purge", 0)
    assert decision.reason == (
        "purge seqno (20) is greater than start seqno - could miss purged deletions"
    )


def test_purge_is_waived_when_the_client_already_saw_that_purge_seqno() -> None:
    table = FailoverTable.of((5, 50), (1, 0))
    assert kv(table, 10, 60, 5, 10, 10, purge=20, remote_purge=20).case == "lagging"


def test_purge_is_waived_for_a_collection_stream_past_its_collections() -> None:
    table = FailoverTable.of((5, 50), (1, 0))
    assert kv(table, 10, 60, 5, 10, 10, purge=20, collection_high=8).case == "lagging"
    assert kv(table, 10, 60, 5, 10, 10, purge=20, collection_high=12).case == "purge"


def test_every_case_is_reachable_in_both_rule_sets() -> None:
    table = FailoverTable.of((3333, 30), (2222, 20), (1111, 0))
    producer = ProducerState(table, 100, 0)
    purged = ProducerState(table, 100, 15)
    cases = {
        "start-zero": (StreamRequest(0, 0, 0, 0), producer),
        "purge": (StreamRequest(2222, 10, 10, 10), purged),
        "uuid-not-found": (StreamRequest(5555, 10, 10, 10), producer),
        "lagging": (StreamRequest(2222, 25, 20, 30), producer),
        "ahead-of-upper": (StreamRequest(2222, 45, 45, 45), producer),
        "snapshot-mismatch": (StreamRequest(1111, 22, 18, 25), producer),
        "erange": (StreamRequest(2222, 5, 10, 20), producer),
    }
    for decide in (needs_rollback_kv_current, needs_rollback_doc):
        for case, (req, state) in cases.items():
            assert stream_request(req, state, decide).case == case, (decide.__name__, case)


def test_doc_and_code_differ_on_start_zero_with_an_unknown_uuid() -> None:
    producer = ProducerState(FailoverTable.of((3333, 30), (1111, 0)), 100, 0)
    req = StreamRequest(5555, 0, 0, 0)
    assert needs_rollback_kv_current(req, producer).outcome is Outcome.ACCEPT
    assert needs_rollback_doc(req, producer).rollback_seqno == 0


def test_doc_and_code_differ_on_the_purge_test() -> None:
    producer = ProducerState(FailoverTable.of((3333, 30), (1111, 0)), 100, 15)
    mid_snapshot = StreamRequest(3333, 20, 10, 40)  # snap_start 10 < purge 15 <= start 20
    assert needs_rollback_kv_current(mid_snapshot, producer).case == "lagging"
    assert needs_rollback_doc(mid_snapshot, producer).case == "purge"


def test_ignore_purged_tombstones_reads_purge_as_zero() -> None:
    producer = ProducerState(FailoverTable.of((3333, 30), (1111, 0)), 100, 15)
    assert stream_request(StreamRequest(3333, 10, 10, 10), producer).case == "purge"
    req = StreamRequest(3333, 10, 10, 10, ignore_purged=True)
    assert stream_request(req, producer).case == "lagging"


@pytest.mark.parametrize(
    "req",
    [
        StreamRequest(1, 5, 6, 10),
        StreamRequest(1, 11, 6, 10),
        StreamRequest(1, 8, 6, 10, end=7),
    ],
)
def test_erange_when_the_invariant_fails(req: StreamRequest) -> None:
    producer = ProducerState(FailoverTable.of((1, 0)), 100, 0)
    assert stream_request(req, producer).outcome is Outcome.ERANGE
