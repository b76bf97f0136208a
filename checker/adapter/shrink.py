"""Minimising a scenario a client mishandles, by moves that each make it smaller.

The black box has no formula to minimise over, so a violation (or a difference
between a client and a variant) is shrunk greedily, as property-based testers
shrink: every move below gives a scenario that is smaller by
``checker.adapter.search.size``; the first smaller scenario that still shows
the failure is taken, until no move does. Each move keeps the scenario well
formed (``Scenario.problems``), or is skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TypeVar

from checker.adapter.search import size
from spec.failover_table import FailoverTable
from spec.scenario import Cut, Failover, Scenario

__all__ = ["shrink"]

# What one session streams: the first (a scenario's own fields) or a later one (a cut).
Streamed = TypeVar("Streamed", Scenario, Cut)


def _moves(s: Scenario) -> Iterator[Scenario]:
    n = len(s.history)
    # drop the last later cut, then trim each cut
    if s.later:
        yield replace(s, later=s.later[:-1])
    for j, cut in enumerate(s.later):
        for other in _cut_moves(cut):
            yield replace(s, later=(*s.later[:j], other, *s.later[j + 1 :]))
    # fewer failovers, fewer new mutations
    for i in range(len(s.failovers)):
        yield replace(s, failovers=s.failovers[:i] + s.failovers[i + 1 :])
        f = s.failovers[i]
        if f.mutations:
            shorter = Failover(f.branch, f.uuid, f.mutations[:-1])
            yield replace(s, failovers=(*s.failovers[:i], shorter, *s.failovers[i + 1 :]))
    # a shorter first history (its last mutation gone)
    if n:
        ends = tuple(e for e in s.snapshot_ends if e < n)
        yield replace(
            s, history=s.history[:-1], snapshot_ends=ends, received=min(s.received, n - 1)
        )
    # a shorter first table, fewer snapshots, less received, nothing purged
    if len(s.table) > 1:
        entries = s.table.entries[:-1]
        yield replace(s, table=FailoverTable(entries, s.max_entries))
    yield from _session_moves(s)
    if s.first_snapshot_start:
        yield replace(s, first_snapshot_start=0)


def _cut_moves(cut: Cut) -> Iterator[Cut]:
    if cut.failovers:
        yield replace(cut, failovers=cut.failovers[:-1])
    yield from _session_moves(cut)


def _session_moves(session: Streamed) -> Iterator[Streamed]:
    """Fewer snapshots, less received, nothing purged: the moves the first session and
    a later cut share."""
    for e in session.snapshot_ends:
        yield replace(session, snapshot_ends=tuple(x for x in session.snapshot_ends if x != e))
    for r in range(session.received):
        yield replace(session, received=r)
    if session.purge_seqno:
        yield replace(session, purge_seqno=0)


def shrink(scenario: Scenario, fails: Callable[[Scenario], bool]) -> tuple[Scenario, int]:
    """The smallest scenario reached from ``scenario`` by moves that keep ``fails``;
    and how many moves were taken."""
    taken = 0
    while True:
        here = size(scenario)
        for smaller in _moves(scenario):
            if smaller.problems() or not size(smaller) < here:
                continue
            if fails(smaller):
                scenario, taken = smaller, taken + 1
                break
        else:
            return scenario, taken
