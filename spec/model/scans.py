"""The scans over seqnos that give the consumer its markers and its answers, one step each.

The model walks the seqnos to know, for each seqno x the consumer may hold, the
snapshot marker x lies in: ``end_of[x]`` by a scan down from the highest seqno
(the next snapshot end at or above x, 0 if none: ``end_step``, ``marker_ends``)
and ``start_of[x]`` by a scan up (one past the last end below x, else the
stream's first marker start: ``start_step``, ``marker_starts``). The
consumer's view answers ``last``, ``held_at_or_below`` and
``consistent_at_or_below`` by picking the highest marked seqno within a bound
(``pick_step``) and ``snapshot_of`` by finding the marker of one seqno
(``snapshot_step``).

Each step is written once, here: the two marker scans are written here whole
(the initial stream's markers, spec/model/history.py, and a resumed stream's,
held.py, call them) and view.py's scans call the steps. ``SCAN_FACTS`` states, for each
scan, an invariant and the fact it gives, as a base and a step over symbolic
values: Z3 proves them (checker/unbounded.py), so the facts hold after a scan of
any length, whatever the number of seqnos. They are the premises of the abstract
consumer view (spec/model/abstract_view.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from spec.expr import (
    BOOL,
    INT,
    UINT64_MAX,
    Expr,
    Sort,
    all_of,
    any_of,
    const,
    implies,
    ite,
    lift,
    var,
)

__all__ = [
    "SCAN_FACTS",
    "ScanFact",
    "end_step",
    "marker_ends",
    "marker_starts",
    "pick_step",
    "snapshot_step",
    "start_step",
]


def end_step(following: Expr, is_end: Expr, x: Expr | int) -> Expr:
    """Scanning down: the next snapshot end at or above ``x`` (0: none yet)."""
    return ite(is_end, lift(x), following)


def start_step(current: Expr, is_end: Expr, x: Expr | int) -> Expr:
    """Scanning up, past ``x``: where the marker of the seqno above ``x`` starts."""
    after = const(x + 1) if isinstance(x, int) else x + 1
    return ite(is_end, after, current)


def marker_ends(is_end: Mapping[int, Expr], seqnos: range) -> dict[int, Expr]:
    """``end_of[x]`` for every seqno: the scan down, ``end_step`` at each (``is_end[x]``: a
    snapshot of the stream ends at x)."""
    ends: dict[int, Expr] = {}
    following: Expr = const(0)
    for x in reversed(seqnos):
        following = end_step(following, is_end[x], x)
        ends[x] = following
    return ends


def marker_starts(first: Expr, is_end: Mapping[int, Expr], seqnos: range) -> dict[int, Expr]:
    """``start_of[x]`` for every seqno: the scan up from the stream's ``first`` marker
    start, ``start_step`` past each seqno."""
    starts: dict[int, Expr] = {}
    current = first
    for x in seqnos:
        starts[x] = current
        current = start_step(current, is_end[x], x)
    return starts


def pick_step(point: Expr, here: Expr, x: Expr | int) -> Expr:
    """Scanning up: ``x`` if it is marked and within the bound (``here``), else the
    highest one so far (0: none)."""
    return ite(here, lift(x), point)


def snapshot_step(
    found: tuple[Expr, Expr], here: Expr, start_x: Expr, end_x: Expr
) -> tuple[Expr, Expr]:
    """Scanning for one seqno's marker: ``x``'s (``start_x``, ``end_x``) if ``here`` (x is
    the seqno asked about and lies in a marker), else what was found so far."""
    return ite(here, start_x, found[0]), ite(here, end_x, found[1])


@dataclass(frozen=True)
class ScanFact:
    """What a scan of any length gives: the ``fact``, proved by induction over its step.

    ``base`` and ``step`` are (premise, conclusion) pairs over ``sorts``: Z3 proves each
    premise implies its conclusion (unsat of premise and not conclusion)."""

    name: str
    fact: str
    sorts: dict[str, Sort]
    base: tuple[Expr, Expr]
    step: tuple[Expr, Expr]


def _ints(*names: str) -> tuple[dict[str, Sort], list[Expr]]:
    return {n: INT for n in names}, [var(n, INT) for n in names]


def _end_fact() -> ScanFact:
    sorts, (following, x) = _ints("following", "x")
    is_end = var("is_end", BOOL)
    sorts["is_end"] = BOOL

    def inv(f: Expr, at: Expr) -> Expr:
        return any_of(f == 0, f >= at)

    # going down from x + 1 to x (x >= 1: a seqno; x + 1 a seqno too, so no wrap)
    premise = all_of(x >= 1, x < const(UINT64_MAX), inv(following, x + 1))
    return ScanFact(
        "marker end",
        "end_of[x] is 0 (x in no marker) or at least x",
        sorts,
        (const(True), inv(const(0), x)),  # before the scan: no end yet
        (premise, inv(end_step(following, is_end, x), x)),
    )


def _start_fact() -> ScanFact:
    # ``low``: the bound the scan's first value keeps (the initial stream's first marker
    # starts at 0 or 1; a resumed stream's at most start + 1): start_of[x] <= max(x, low).
    sorts, (current, x, low) = _ints("current", "x", "low")
    is_end = var("is_end", BOOL)
    sorts["is_end"] = BOOL

    def inv(c: Expr, at: Expr) -> Expr:
        return any_of(c <= at, c <= low)

    premise = all_of(x >= 1, x < const(UINT64_MAX), inv(current, x))
    return ScanFact(
        "marker start",
        "start_of[x] <= x for every x at or above the first marker's bound",
        sorts,
        (current <= low, inv(current, x)),
        (premise, inv(start_step(current, is_end, x), x + 1)),
    )


def _pick_fact() -> ScanFact:
    sorts, (point, x, bound, keep) = _ints("point", "x", "bound", "keep")
    marked = var("marked", BOOL)
    sorts["marked"] = BOOL

    def inv(p: Expr) -> Expr:
        return all_of(p <= bound, p <= keep)

    here = all_of(marked, x <= bound, x <= keep)  # the model's condition for picking x
    return ScanFact(
        "highest marked",
        "last <= keep; held_at_or_below(q) and consistent_at_or_below(q) are <= q and <= keep",
        sorts,
        (const(True), inv(const(0))),
        (inv(point), inv(pick_step(point, here, x))),
    )


def _snapshot_fact() -> ScanFact:
    sorts, (start, end, q, x, start_x, end_x) = _ints("start", "end", "q", "x", "sx", "ex")
    inside = var("inside", BOOL)
    sorts["inside"] = BOOL

    def inv(s: Expr, e: Expr) -> Expr:
        return all_of(s <= q, q <= e)

    # the model's condition, and the marker facts above for x in a marker
    here = all_of(q == x, inside)
    marker = implies(inside, all_of(start_x <= x, x <= end_x))
    found = snapshot_step((start, end), here, start_x, end_x)
    return ScanFact(
        "snapshot of a seqno",
        "snapshot_of(q) = (s, e) with s <= q <= e",
        sorts,
        (const(True), inv(q, q)),  # before the scan: (q, q)
        (all_of(inv(start, end), marker), inv(*found)),
    )


# Built lazily: a fact's expressions are only needed when they are proved.
SCAN_FACTS: tuple[Callable[[], ScanFact], ...] = (
    _end_fact,
    _start_fact,
    _pick_fact,
    _snapshot_fact,
)
