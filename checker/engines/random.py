"""Random search with hypothesis over the same model.

Draws scenarios within bounds (``scenario_strategy``) and evaluates the
model's "property violated" formula concretely, like the exhaustive search,
until it finds a violation or runs out of examples. Used by the benchmark
(Z3 vs random vs exhaustive, time to first counterexample) and by the tests
(the strategy also feeds the model-vs-reference cross-check).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from checker.engines.exhaustive import Violates, sent_seqnos
from checker.engines.finding import Finding
from checker.result import Verdict
from spec.bounds import Bounds
from spec.failover_table import FailoverTable
from spec.model.protocol import ScenarioModelInterface
from spec.properties import Property
from spec.scenario import Cut, Failover, Mutation, Scenario

__all__ = ["scenario_strategy", "search"]


def mutations(keys: int, n: int) -> st.SearchStrategy[tuple[Mutation, ...]]:
    one = st.builds(Mutation, st.integers(0, keys - 1), st.booleans())
    return st.lists(one, min_size=n, max_size=n).map(tuple)


@st.composite
def scenario_strategy(draw: st.DrawFn, bounds: Bounds) -> Scenario:
    """Any well-formed scenario within ``bounds``."""
    n = draw(st.integers(0, bounds.seqnos))
    history = draw(mutations(bounds.keys, n))
    entries = draw(st.integers(1, bounds.first_table_entries))
    seqs = sorted((draw(st.integers(0, n)) for _ in range(entries)), reverse=True)
    table = FailoverTable.of(
        *((1111 * (entries - i), s) for i, s in enumerate(seqs)), max_entries=bounds.max_entries
    )
    ends = tuple(sorted(draw(st.sets(st.integers(1, n), max_size=n)))) if n else ()
    received = draw(st.sampled_from([0, *sent_seqnos(history, ends)]))
    failovers, high = [], n
    for f in range(draw(st.integers(0, bounds.failovers))):
        branch = draw(st.integers(0, high))
        new_high = draw(st.integers(branch, bounds.seqnos))
        uuid = 1111 * (entries + f + 1)
        failovers.append(Failover(branch, uuid, draw(mutations(bounds.keys, new_high - branch))))
        high = new_high
    before = len(failovers)
    if bounds.sessions > 1:
        before = draw(st.integers(0, len(failovers)))
    final = _after(list(history), failovers[:before])
    tombstones = [x for x, m in enumerate(final, start=1) if m.deleted]
    purge = draw(st.sampled_from([0, *tombstones]))
    later = draw(_cuts(bounds, final, tuple(failovers[before:]), purge))
    return Scenario(
        history=history,
        table=table,
        first_snapshot_start=draw(st.sampled_from([0, 1])),
        snapshot_ends=ends,
        received=received,
        failovers=tuple(failovers[:before]),
        purge_seqno=purge,
        max_entries=bounds.max_entries,
        later=later,
    )


def _after(history: list[Mutation], failovers: Sequence[Failover]) -> list[Mutation]:
    for failover in failovers:
        history = history[: failover.branch] + list(failover.mutations)
    return history


@st.composite
def _cuts(
    draw: st.DrawFn,
    bounds: Bounds,
    streamed: list[Mutation],
    rest: tuple[Failover, ...],
    purge: int,
) -> tuple[Cut, ...]:
    """Cuts after the first resume (``bounds.sessions`` - 1 at most), the failovers
    ``rest`` shared out between them."""
    if bounds.sessions == 1:
        return ()
    count = draw(st.integers(1 if rest else 0, bounds.sessions - 1))
    cuts: list[Cut] = []
    for j in range(count):
        taken = len(rest) if j == count - 1 else draw(st.integers(0, len(rest)))
        n = len(streamed)
        ends = tuple(sorted(draw(st.sets(st.integers(1, n), max_size=n)))) if n else ()
        received = draw(st.integers(0, n))
        streamed = _after(streamed, rest[:taken])
        tombstones = [x for x, m in enumerate(streamed, start=1) if m.deleted]
        if not taken:
            tombstones = [x for x in tombstones if x >= purge]
        purge = draw(st.sampled_from([0, *tombstones] if taken or purge == 0 else tombstones))
        cuts.append(Cut(draw(st.booleans()), ends, received, rest[:taken], purge))
        rest = rest[taken:]
    return tuple(cuts)


class _Found(Exception):
    pass


def search(
    model: ScenarioModelInterface, prop: Property, max_examples: int = 10_000, rng_seed: int = 0
) -> Finding:
    """Violated with the first violating scenario drawn; otherwise unknown: random
    search never proves that a property holds."""
    violates = Violates(model, prop)
    examined = 0
    found: list[Scenario] = []

    @seed(rng_seed)
    @settings(
        max_examples=max_examples,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(scenario_strategy(model.bounds))
    def probe(scenario: Scenario) -> None:
        nonlocal examined
        examined += 1
        if violates(scenario):
            found.append(scenario)
            raise _Found

    with contextlib.suppress(_Found):
        probe()
    if found:
        return Finding(Verdict.VIOLATED, found[0], examined=examined)
    return Finding(
        Verdict.UNKNOWN,
        reason=f"no violation in {examined} random scenarios; random search proves nothing",
        examined=examined,
    )
