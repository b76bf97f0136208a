"""The explicit-state engines behind one interface (checker/engines/registry.py)."""

from __future__ import annotations

from typing import Any

import pytest

from checker.cluster_check import SANITY, model_for
from checker.engines.explore import explore
from checker.engines.options import DEFAULT, Options
from checker.engines.registry import CLUSTER_ENGINES, EXPLORE, Checks, ClusterSession
from spec.cluster import ACK_RULES, BRANCH_RULES, CLUSTER_PROPERTIES, PRESETS
from spec.rules import RULE_SETS

PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")
BOUNDS = PRESETS["mb-34150"].bounds
ACKS = ("ack-on-prepare", "ack-at-snapshot-end")


def _models() -> list[Any]:
    props = tuple(CLUSTER_PROPERTIES.get(p) for p in PROPERTIES)
    return [
        model_for(
            ACK_RULES.get(ack),
            BRANCH_RULES.get("persisted-snapshot"),
            RULE_SETS.get("kv-current"),
            PRESETS["mb-34150"].bounds,
            props,
        )
        for ack in ACKS
    ]


def test_explore_gives_each_model_and_property_the_search_of_its_own_in_order() -> None:
    models, few = _models(), Options(max_states=3_000)  # ack-on-prepare's violation: 2,599
    found = EXPLORE.search(Checks(models, PROPERTIES, [SANITY]), few)
    how = {"max_states": few.max_states, "symmetry": True, "exact": False}
    alone = [explore(m, [p, SANITY], **how) for m in models for p in PROPERTIES]
    assert len(found) == len(alone) == 4
    checked = [p for _ in models for p in PROPERTIES]
    verdicts = [f.outcomes[p].verdict.value for f, p in zip(found, checked, strict=True)]
    assert verdicts[:2] == ["violated", "unknown"]  # ack-on-prepare's, in the given order
    for got, want in zip(found, alone, strict=True):
        assert set(got.outcomes) == set(want.outcomes)
        assert {p: o.verdict for p, o in got.outcomes.items()} == {
            p: o.verdict for p, o in want.outcomes.items()
        }
        assert (got.states, got.max_depth) == (want.states, want.max_depth)


def test_each_engine_says_where_the_checks_run_and_what_its_visited_set_keeps() -> None:
    explore, spark = CLUSTER_ENGINES["explore"], CLUSTER_ENGINES["bfs-spark"]
    assert explore.workers(Options(workers=3)) == 3
    assert spark.workers(Options()) == 1  # one search of every check, here
    assert explore.fingerprints(Options()) and not explore.fingerprints(Options(exact=True))
    assert spark.fingerprints(Options())


def test_the_spark_search_runs_once_for_every_check_when_the_first_is_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import checker.spark.cluster_search as cluster_search

    calls: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = []

    def searched(session, checks, options):
        calls.append((len(checks.models), tuple(checks.properties), tuple(checks.watched)))
        return [f"exploration {n}" for n in range(checks.count)]

    monkeypatch.setattr(cluster_search, "explorations_on_spark", searched)
    session = cluster_search.SparkSearches(ClusterSession("local[1]", {}))
    assert CLUSTER_ENGINES["explore"].on_spark(session) is CLUSTER_ENGINES["explore"]
    with pytest.raises(ValueError, match="on_spark"):
        CLUSTER_ENGINES["bfs-spark"].search(Checks(_models(), PROPERTIES), DEFAULT)
    engine = CLUSTER_ENGINES["bfs-spark"].on_spark(session)
    runs = engine.runs(Checks(_models(), PROPERTIES, [SANITY]), DEFAULT)
    assert len(runs) == 4 and not calls  # nothing searched before the runner asks
    assert [run(None) for run in runs] == [f"exploration {n}" for n in range(4)]
    assert calls == [(2, PROPERTIES, (SANITY,))]


def test_explore_runs_each_check_alone_when_asked_and_a_group_task_searches_a_model_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import checker.engines.explore as explore_module
    from checker.tasks import ClusterGroupTask

    searched: list[tuple[str, ...]] = []

    def each(model, checked, watched, options, progress):
        searched.append(tuple(checked))
        return [f"{model.setup.ack_rule.id}: {p}" for p in checked]

    monkeypatch.setattr(explore_module, "explore_each", each)
    runs = EXPLORE.runs(Checks(_models(), PROPERTIES, [SANITY]), DEFAULT)
    assert not searched  # nothing searched before the runner asks
    assert [run(None) for run in runs] == [f"{a}: {p}" for a in ACKS for p in PROPERTIES]
    assert searched == [(p,) for _ in ACKS for p in PROPERTIES]  # each reported when decided
    searched.clear()
    task = ClusterGroupTask("ack-on-prepare", "persisted-snapshot", PROPERTIES, BOUNDS, "mb-34150")
    with pytest.raises(AttributeError):  # the fake's strings are no explorations
        task.run()
    assert searched == [PROPERTIES]  # verify's task: one search of the model for both
