"""Proving several properties in one query gives each the verdict it gets alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from checker.result import Verdict
from checker.scenario_check import check
from checker.together import check_together
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

SMALL = Bounds(seqnos=3, keys=2, entries=2, failovers=1)
ALL = list(PROPERTIES)


@pytest.mark.parametrize("consumer", ["correct", "go-dcp"])
def test_together_every_property_gets_the_verdict_and_counterexample_of_checking_it_alone(
    consumer,
) -> None:
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get(consumer)
    together = check_together(ScenarioModel(SMALL, rules, variant), ALL)
    assert [r.property for r in together] == [p.id for p in ALL]
    for prop, joint in zip(ALL, together, strict=True):
        alone = check(rules, variant, prop, SMALL)
        assert (joint.verdict, joint.ident, joint.kind) == (alone.verdict, alone.ident, alone.kind)
        assert joint.command == alone.command
        if joint.verdict is Verdict.VIOLATED:
            assert joint.confirmed and joint.record == alone.record


def test_properties_proved_together_share_one_query_and_say_so() -> None:
    safety = [p for p in ALL if p.kind == "safety"]
    model = ScenarioModel(SMALL, RULE_SETS.get("kv-current"), CONSUMERS.get("correct"))
    results = check_together(model, safety)
    assert all(r.verdict is Verdict.HOLDS for r in results)
    assert all("one solver query with 3 other properties" in r.note for r in results)
    assert len({r.stats.cpu_seconds for r in results}) == 1


def test_properties_checked_apart_first_get_the_results_of_the_joint_queries() -> None:
    # collapse-snapshot violates two of these at SMALL; checking those on their own first (what
    # check_cells does for the violations spec/expected records) changes no result
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot")
    model = ScenarioModel(SMALL, rules, variant)
    joint = check_together(model, ALL)
    violated = [p for p, r in zip(ALL, joint, strict=True) if r.verdict is Verdict.VIOLATED]
    assert violated and len(violated) < len(ALL) - 1
    first = check_together(model, ALL, apart=violated)

    def kept(r):  # all but the time, which differs from run to run
        return r.but(stats=replace(r.stats, seconds=0.0, cpu_seconds=0.0))

    assert [kept(r) for r in first] == [kept(r) for r in joint]
