"""Random search with hypothesis over the same model.

Draws scenarios within bounds (``scenario_strategy``) and evaluates the
model's "property violated" formula concretely, like the exhaustive search,
until it finds a violation or runs out of examples. Used by the benchmark
(Z3 vs random vs exhaustive, time to first counterexample) and by the tests
(the strategy also feeds the model-vs-reference cross-check).
"""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from checker.engines.exhaustive import Violates, sent_seqnos
from checker.engines.finding import Finding
from checker.result import Verdict
from spec.bounds import Bounds
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.properties import Property
from spec.scenario import Failover, Mutation, Scenario

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
    final = list(history)
    for failover in failovers:
        final = final[: failover.branch] + list(failover.mutations)
    tombstones = [x for x, m in enumerate(final, start=1) if m.deleted]
    return Scenario(
        history=history,
        table=table,
        first_snapshot_start=draw(st.sampled_from([0, 1])),
        snapshot_ends=ends,
        received=received,
        failovers=tuple(failovers),
        purge_seqno=draw(st.sampled_from([0, *tombstones])),
        max_entries=bounds.max_entries,
    )


class _Found(Exception):
    pass


def search(
    model: ScenarioModel, prop: Property, max_examples: int = 10_000, rng_seed: int = 0
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
