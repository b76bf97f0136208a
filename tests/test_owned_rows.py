"""The rows a level's partitions send each other (checker/spark/owned.py), without Spark:
what an expanding task packs for an owner is what the owner's task unpacks."""

from __future__ import annotations

from checker.spark.owned import least, packed, unpacked


def _row(model: int, order: bytes, fp: int) -> tuple:  # type: ignore[type-arg]
    return (
        model,
        order,
        fp,
        None if len(order) == 1 else fp ^ 1,
        order[-1],
        b"state",
    )


def test_packed_rows_reach_their_owner_whole_and_in_order() -> None:
    first = [[_row(0, b"\x00\x01", 5), _row(1, b"\x00\x02", -7)], [], [_row(0, b"\x01", 9)]]
    second = [[], [_row(0, b"\x02\x00", 2**63 - 1)], [_row(1, b"\x03\x04", -(2**63))]]
    want = [[*first[q], *second[q]] for q in range(3)]
    records = list(packed([[list(r) for r in first], [list(r) for r in second]]))
    assert [owner for owner, _ in records] == [0, 2, 1, 2]  # an empty list sends nothing
    for q in range(3):
        assert list(unpacked(data for owner, data in records if owner == q)) == want[q]


def test_the_least_deciding_order_is_kept_per_model_and_property() -> None:
    a = [[b"\x01\x02", None], [None, None]]
    b = [[b"\x01\x01", b"\x00"], [None, b"\x05"]]
    assert least(a, b) == [[b"\x01\x01", b"\x00"], [None, b"\x05"]]
    assert least(b, a) == least(a, b)
    assert least(a, a) == a
