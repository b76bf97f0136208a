"""The sweep's input space: enumerated exactly as its constraint (the one Z3 sees) describes."""

from __future__ import annotations

import numpy as np
import pytest

from checker.columns.expr import Vectorised
from checker.sweep.space import LABEL, SweepSpace, uuid_patterns
from spec.expr import UINT64_MAX
from spec.rules.inputs import REQUEST_VARS, DecisionSpace

SPACES = [SweepSpace(2, 1), SweepSpace(2, 1, duplicate_uuids=True), SweepSpace(3, 1, True)]


def box(domains: dict[str, list[int]], fixed: dict[str, int] | None = None):
    """Every combination of the domains' values, as columns (plus ``fixed`` values)."""
    grids = np.meshgrid(*(np.array(v, dtype=np.uint64) for v in domains.values()), indexing="ij")
    columns = dict(zip(domains, (g.ravel() for g in grids), strict=True))
    size = len(next(iter(columns.values())))
    for name, value in (fixed or {}).items():
        columns[name] = np.full(size, value, dtype=np.uint64)
    return columns, size


def typed(space: SweepSpace, columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    bools = {n for n, sort in space.decision_space.sorts.items() if sort.value == "bool"}
    return {n: (c.astype(bool) if n in bools else c) for n, c in columns.items()}


def rows(columns: dict[str, np.ndarray], names: list[str], where=None) -> set[tuple[int, ...]]:
    picked = [columns[n].astype(np.uint64) for n in names]
    keep = np.ones(len(picked[0]), dtype=bool) if where is None else where
    return set(zip(*(p[keep].tolist() for p in picked), strict=True))


@pytest.mark.parametrize("space", SPACES, ids=lambda s: s.describe())
def test_the_enumeration_is_exactly_the_set_its_constraint_describes(space: SweepSpace) -> None:
    n, e = space.seqnos, space.entries
    constraint = Vectorised([space.constraint()])
    enumerated = space.columns(0, space.size)
    producer_vars = ["table_len", "high_seqno", "producer_purge_seqno"]
    producer_vars += [DecisionSpace.uuid_var(i) for i in range(e)]
    producer_vars += [DecisionSpace.seq_var(i) for i in range(e)]
    request_vars = list(REQUEST_VARS)
    # Every row once.
    assert len(rows(enumerated, producer_vars + request_vars)) == space.size

    # Producers: one step beyond every bound, with a request every producer accepts.
    near = list(range(n + 2))
    labels = [0, *(LABEL * k for k in range(1, e + 2))]
    domains = {"table_len": list(range(e + 2)), "high_seqno": near, "producer_purge_seqno": near}
    domains |= {DecisionSpace.uuid_var(i): labels for i in range(e)}
    domains |= {DecisionSpace.seq_var(i): near for i in range(e)}
    plain = dict.fromkeys(request_vars, 0) | {"end": UINT64_MAX}
    columns, size = box(domains, plain)
    (held,) = constraint(typed(space, columns), size)
    producers = rows(columns, producer_vars, held)
    assert producers == rows(enumerated, producer_vars)

    # Requests of each producer: every field one step beyond its bound.
    request_domains = {name: near for name in request_vars}
    request_domains |= {"uuid": [0, *(LABEL * k for k in range(1, e + 3))]}
    request_domains |= {"end": [*near, UINT64_MAX], "strict": [0, 1], "ignore_purged": [0, 1]}
    request_domains |= {"has_collection_high": [0, 1]}
    for producer in sorted(producers):
        fixed = dict(zip(producer_vars, producer, strict=True))
        columns, size = box(request_domains, fixed)
        (held,) = constraint(typed(space, columns), size)
        mine = np.ones(space.size, dtype=bool)
        for name, value in fixed.items():
            mine &= enumerated[name] == value
        assert rows(columns, request_vars, held) == rows(
            {k: v.astype(np.uint64) for k, v in enumerated.items()}, request_vars, mine
        ), producer


def test_the_space_sizes_are_pinned() -> None:
    assert SweepSpace(2, 2).size == 136_320
    assert SweepSpace(2, 2, duplicate_uuids=True).size == 208_320
    assert SweepSpace(3, 3).size == 3_024_000


def test_uuid_patterns_are_restricted_growth_strings() -> None:
    assert uuid_patterns(3, duplicates=False) == [(1, 2, 3)]
    assert uuid_patterns(3, duplicates=True) == [
        (1, 1, 1),
        (1, 1, 2),
        (1, 2, 1),
        (1, 2, 2),
        (1, 2, 3),
    ]
    assert len(uuid_patterns(4, duplicates=True)) == 15  # Bell(4): every way to share uuids


def test_any_range_of_inputs_is_the_same_slice_of_the_whole() -> None:
    space = SweepSpace(2, 2, duplicate_uuids=True)
    whole = space.columns(0, space.size)
    for lo, hi in [(0, 1), (1000, 1001), (4095, 70_000), (space.size - 3, space.size)]:
        part = space.columns(lo, hi)
        for name, column in whole.items():
            assert np.array_equal(part[name], column[lo:hi]), (name, lo, hi)


def test_inputs_decode_each_row_into_a_request_and_a_producer() -> None:
    space = SweepSpace(2, 2, duplicate_uuids=True)
    whole = space.columns(0, space.size)
    for index in (0, 7, 12_345, space.size - 1):
        ((request, producer),) = space.inputs(index, index + 1)
        assignment = space.decision_space.assignment(request, producer)
        assert request.range_ok
        assert assignment == {name: column[index].item() for name, column in whole.items()}


def test_a_range_outside_the_space_is_refused() -> None:
    space = SweepSpace(1, 0)
    with pytest.raises(ValueError, match="outside"):
        space.columns(0, space.size + 1)
