"""Exhaustive enumeration: every scenario within bounds, smallest first.

The concrete counterpart of the Z3 search, over the *same* model: each
scenario is encoded into the model's variables and the model's formula for
"the property is violated" is evaluated with ``spec.expr.Compiled``. Because
it never touches Z3, agreement between the two (tests/test_engines_agree.py)
checks the symbolic translation itself.

Scenarios come in breadth-first order of size (first-history length, then
failovers, then new mutations), so the first violation found is a small one,
as in stateright's BFS checker. ``partitions`` splits the space by first
history so that Spark (``checker.spark.exhaustive``) can share it out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from checker.engines.finding import Finding
from checker.result import Verdict
from spec.bounds import Bounds
from spec.expr import Compiled, all_of
from spec.failover_table import FailoverTable
from spec.model.protocol import ScenarioModelInterface
from spec.properties import Property
from spec.scenario import Cut, Failover, Mutation, Scenario

__all__ = [
    "Violates",
    "history_at",
    "history_count",
    "partitions",
    "scenarios",
    "search",
    "sent_seqnos",
]


def _ops(keys: int) -> list[Mutation]:
    return [Mutation(k, d) for k in range(keys) for d in (False, True)]


def _histories(keys: int, length: int) -> Iterator[tuple[Mutation, ...]]:
    return (tuple(h) for h in itertools.product(_ops(keys), repeat=length))


def sent_seqnos(history: tuple[Mutation, ...], ends: tuple[int, ...]) -> list[int]:
    """Seqnos that survive deduplication in snapshots ending at ``ends``."""
    out, start = [], 1
    for end in ends:
        for x in range(start, end + 1):
            if all(history[y - 1].key != history[x - 1].key for y in range(x + 1, end + 1)):
                out.append(x)
        start = end + 1
    return out


def _tables(length_bound: int, top: int, max_entries: int) -> Iterator[FailoverTable]:
    for length in range(1, length_bound + 1):
        for seqs in itertools.combinations_with_replacement(range(top, -1, -1), length):
            yield FailoverTable.of(
                *((1111 * (length - i), s) for i, s in enumerate(seqs)), max_entries=max_entries
            )


def _failover_chains(
    bounds: Bounds, high: int, count: int, first_uuid: int
) -> Iterator[tuple[Failover, ...]]:
    if count == 0:
        yield ()
        return
    for branch in range(high + 1):
        for new_high in range(branch, bounds.seqnos + 1):
            for mutations in _histories(bounds.keys, new_high - branch):
                head = Failover(branch, first_uuid, mutations)
                for rest in _failover_chains(bounds, new_high, count - 1, first_uuid + 1111):
                    yield (head, *rest)


def partitions(bounds: Bounds) -> list[tuple[Mutation, ...]]:
    """The first histories, smallest first: one unit of work each."""
    return [h for n in range(bounds.seqnos + 1) for h in _histories(bounds.keys, n)]


def history_count(bounds: Bounds) -> int:
    """How many first histories ``partitions`` lists."""
    ops = 2 * bounds.keys
    return sum(ops**n for n in range(bounds.seqnos + 1))


def history_at(bounds: Bounds, index: int) -> tuple[Mutation, ...]:
    """``partitions(bounds)[index]`` without listing the others (executors make their own)."""
    ops = _ops(bounds.keys)
    for length in range(bounds.seqnos + 1):
        size = len(ops) ** length
        if index < size:
            digits = []
            for _ in range(length):
                index, digit = divmod(index, len(ops))
                digits.append(ops[digit])
            return tuple(reversed(digits))
        index -= size
    raise IndexError(f"only {history_count(bounds)} first histories within these bounds")


def scenarios(bounds: Bounds, history: tuple[Mutation, ...] | None = None) -> Iterator[Scenario]:
    """Every well-formed scenario within ``bounds`` (with this first history, if given)."""
    histories = [history] if history is not None else partitions(bounds)
    for h in histories:
        n = len(h)
        for table in _tables(bounds.first_table_entries, n, bounds.max_entries):
            for ends in _subsets(n):
                for received in (0, *sent_seqnos(h, ends)):
                    for disk in (True, False):
                        yield from _with_failovers(bounds, h, table, ends, received, disk)


def _with_failovers(
    bounds: Bounds,
    history: tuple[Mutation, ...],
    table: FailoverTable,
    ends: tuple[int, ...],
    received: int,
    disk: bool,
) -> Iterator[Scenario]:
    first_uuid = 1111 * (len(table) + 1)
    for count in range(bounds.failovers + 1):
        for chain in _failover_chains(bounds, len(history), count, first_uuid):
            for before in range(len(chain) + 1) if bounds.sessions > 1 else (len(chain),):
                final = _after(list(history), chain[:before])
                for purge in _purges(final, 0, True):
                    for later in _cuts(final, chain[before:], purge, bounds.sessions - 1):
                        yield Scenario(
                            history=history,
                            table=table,
                            first_snapshot_start=0 if disk else 1,
                            snapshot_ends=ends,
                            received=received,
                            failovers=chain[:before],
                            purge_seqno=purge,
                            max_entries=bounds.max_entries,
                            later=later,
                        )


def _after(history: list[Mutation], failovers: tuple[Failover, ...]) -> list[Mutation]:
    for f in failovers:
        history = history[: f.branch] + list(f.mutations)
    return history


def _purges(history: list[Mutation], lowest: int, failed_over: bool) -> Iterator[int]:
    """Purge seqnos of ``history``: 0 or a tombstone's; not below ``lowest`` unless a
    failover came between."""
    for purge in (0, *(x for x, m in enumerate(history, start=1) if m.deleted)):
        if failed_over or purge >= lowest:
            yield purge


def _cuts(
    streamed: list[Mutation], rest: tuple[Failover, ...], purge: int, cuts: int
) -> Iterator[tuple[Cut, ...]]:
    """The cuts that can follow a resume whose producer has history ``streamed``, the
    failovers ``rest`` all coming between later resumes."""
    if not rest:
        yield ()
    if cuts == 0:
        return
    n = len(streamed)
    for taken in range(len(rest) + 1):
        following = _after(streamed, rest[:taken])
        for disk in (True, False):
            for ends in _subsets(n):
                for received in range(n + 1):
                    for next_purge in _purges(following, purge, taken > 0):
                        for tail in _cuts(following, rest[taken:], next_purge, cuts - 1):
                            cut = Cut(disk, ends, received, rest[:taken], next_purge)
                            yield (cut, *tail)


def _subsets(n: int) -> Iterator[tuple[int, ...]]:
    for size in range(n + 1):
        yield from itertools.combinations(range(1, n + 1), size)


class Violates:
    """``violates(scenario)``: the model's "property violated" formula, compiled once."""

    def __init__(self, model: ScenarioModelInterface, prop: Property) -> None:
        self.model = model
        self._program = Compiled([all_of(model.constraints, ~model.holds(prop))])

    def __call__(self, scenario: Scenario) -> bool:
        return bool(self._program(self.model.encode(scenario))[0])


def search(
    model: ScenarioModelInterface,
    prop: Property,
    history: tuple[Mutation, ...] | None = None,
    limit: int | None = None,
) -> Finding:
    """Examine scenarios in order: violated at the first violation, holds when every
    scenario was examined, unknown when ``limit`` scenarios were examined first."""
    violates = Violates(model, prop)
    examined = 0
    for scenario in scenarios(model.bounds, history):
        if limit is not None and examined >= limit:
            return Finding(
                Verdict.UNKNOWN,
                reason=f"stopped after {examined} scenarios (limit)",
                examined=examined,
            )
        examined += 1
        if violates(scenario):
            return Finding(Verdict.VIOLATED, scenario, examined=examined)
    return Finding(Verdict.HOLDS, examined=examined, note=f"all {examined} scenarios enumerated")
