"""`check --engine exhaustive` on Spark: executors make and reduce the work themselves, and the
result is the in-process enumeration's (the same smallest violation, the same count examined)."""

from __future__ import annotations

import pytest

from checker.engines import exhaustive
from checker.engines.exhaustive import history_at, history_count, partitions
from checker.spark.exhaustive import exhaustive_on_spark
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

TINY = Bounds(seqnos=2, keys=2, entries=2, failovers=1)


@pytest.mark.parametrize("bounds", [TINY, Bounds(seqnos=3, keys=3, entries=2, failovers=1)])
def test_executors_number_the_first_histories_as_the_driver_lists_them(bounds: Bounds) -> None:
    listed = partitions(bounds)
    assert history_count(bounds) == len(listed)
    assert [history_at(bounds, i) for i in range(len(listed))] == listed
    with pytest.raises(IndexError):
        history_at(bounds, len(listed))


@pytest.mark.parametrize(
    "consumer, prop, verdict",
    [("correct", "no-needless-rollback", "violated"), ("correct", "no-missed-item", "holds")],
)
def test_the_spark_search_finds_what_one_process_finds(spark, consumer, prop, verdict) -> None:
    model = ScenarioModel(TINY, RULE_SETS.get("kv-current"), CONSUMERS.get(consumer))
    here = exhaustive.search(model, PROPERTIES.get(prop))
    there = exhaustive_on_spark(spark, "kv-current", consumer, prop)(model, PROPERTIES.get(prop))
    assert here.verdict.value == there.verdict.value == verdict
    assert there.scenario == here.scenario
    assert there.examined == here.examined
    # the executors' CPU travels with the finding (the driver's clock cannot see it)
    assert there.cpu_elsewhere > 0 and here.cpu_elsewhere == 0
