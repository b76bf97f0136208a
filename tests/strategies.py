"""Hypothesis strategies for domain values: seqnos, tables, requests, producers."""

from __future__ import annotations

from hypothesis import strategies as st

from spec.expr import BOOL, INT, const, implies, ite, max_of, min_of, var
from spec.failover_table import UINT64_MAX, FailoverEntry, FailoverTable
from spec.types import ProducerState, StreamRequest

# Mostly small seqnos (where the interesting coincidences are), sometimes huge ones.
small = st.integers(0, 12)
seqnos = st.one_of(
    small, small, small, st.integers(UINT64_MAX - 12, UINT64_MAX), st.integers(0, UINT64_MAX)
)
uuids = st.sampled_from([0, 1111, 2222, 3333, 4444, 5555, UINT64_MAX])


@st.composite
def tables(draw: st.DrawFn, max_entries: int = 4, max_seqno: int | None = None) -> FailoverTable:
    n = draw(st.integers(1, max_entries))
    ids = draw(
        st.lists(
            st.sampled_from([1111, 2222, 3333, 4444, 5555, 6666]),
            min_size=n,
            max_size=n,
            unique=True,
        )
    )
    top = max_seqno if max_seqno is not None else draw(seqnos)
    seqs = sorted((draw(st.integers(0, top)) for _ in range(n)), reverse=True)
    return FailoverTable(tuple(FailoverEntry(u, s) for u, s in zip(ids, seqs, strict=True)))


@st.composite
def producers(draw: st.DrawFn, max_entries: int = 4) -> ProducerState:
    table = draw(tables(max_entries))
    high = draw(
        st.one_of(
            st.integers(table.latest.seqno, table.latest.seqno + 12),
            st.integers(table.latest.seqno, UINT64_MAX),
        )
    )
    purge = draw(st.one_of(st.just(0), st.integers(0, high)))
    return ProducerState(table, high, purge)


@st.composite
def requests(
    draw: st.DrawFn, producer: ProducerState | None = None, valid: bool | None = None
) -> StreamRequest:
    known = list(producer.table.uuids) if producer else []
    uuid = draw(st.one_of(uuids, st.sampled_from(known))) if known else draw(uuids)
    points = (
        [e.seqno for e in producer.table] + [producer.high_seqno, producer.purge_seqno]
        if producer
        else []
    )
    near = (
        st.sampled_from(
            sorted({max(0, min(UINT64_MAX, p + d)) for p in points for d in (-1, 0, 1)})
        )
        if points
        else seqnos
    )
    value = st.one_of(near, seqnos)
    a, b, c = sorted(draw(value) for _ in range(3))
    if valid is None:
        valid = draw(st.booleans())
    snap_start, start, snap_end = (a, b, c) if valid else draw(st.permutations([a, b, c]))
    if draw(st.booleans()):
        snap_start = start if draw(st.booleans()) else snap_start
        snap_end = start if draw(st.booleans()) else snap_end
    coll = draw(st.one_of(st.none(), value))
    return StreamRequest(
        uuid=uuid,
        start=start,
        snap_start=snap_start,
        snap_end=snap_end,
        end=draw(st.one_of(st.just(UINT64_MAX), value)),
        strict=draw(st.booleans()),
        ignore_purged=draw(st.booleans()),
        remote_purge=draw(st.one_of(st.just(0), value)),
        collection_high=coll,
    )


@st.composite
def decision_inputs(draw: st.DrawFn, max_entries: int = 4) -> tuple[StreamRequest, ProducerState]:
    producer = draw(producers(max_entries))
    return draw(requests(producer)), producer


# -- expressions of spec.expr: every operator, values at both ends of uint64 ----------------------

X, Y, Z = var("x", INT), var("y", INT), var("z", INT)
B = var("b", BOOL)


def expressions(depth: int = 3) -> st.SearchStrategy:
    """Integer or boolean expressions over ``X, Y, Z, B`` and the constants 0, 1, 2^64-1."""
    ints = st.sampled_from([X, Y, Z, const(0), const(1), const(UINT64_MAX)])
    bools = st.sampled_from([B, const(True), const(False)])

    def extend(children):
        i, b = children
        return st.one_of(
            st.builds(lambda a, c: a + c, i, i),
            st.builds(lambda a, c: a - c, i, i),
            st.builds(max_of, i, i),
            st.builds(min_of, i, i),
            st.builds(ite, b, i, i),
        ), st.one_of(
            st.builds(lambda a, c: a < c, i, i),
            st.builds(lambda a, c: a <= c, i, i),
            st.builds(lambda a, c: a > c, i, i),
            st.builds(lambda a, c: a >= c, i, i),
            st.builds(lambda a, c: a == c, i, i),
            st.builds(lambda a, c: a != c, i, i),
            st.builds(lambda a, c: a & c, b, b),
            st.builds(lambda a, c: a | c, b, b),
            st.builds(lambda a: ~a, b),
            st.builds(implies, b, b),
        )

    pair = (ints, bools)
    for _ in range(depth):
        pair = extend(pair)
    return st.one_of(*pair)


# Small values and values just below 2^64, where + and - wrap.
expression_values = st.one_of(st.integers(0, 3), st.integers(UINT64_MAX - 2, UINT64_MAX))
expression_envs = st.fixed_dictionaries(
    {"x": expression_values, "y": expression_values, "z": expression_values, "b": st.booleans()}
)


# -- scenarios: the package's own strategy (checker/engines/random.py) -------------------------

from checker.engines.random import scenario_strategy as scenarios  # noqa: E402, F401
