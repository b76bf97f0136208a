"""Work a run shares instead of doing twice: correct's verdicts across Spark workers, and a
property's formula over a reference trace."""

from __future__ import annotations

import pytest

from checker import cell
from checker.cell import check_cells, remember_textbook
from checker.engines.options import DEFAULT
from checker.result import Verdict, interrupted
from checker.spark.tasks import _Textbook
from checker.tasks import ScenarioGroupTask
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.expr import Expr, walk
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS
from spec.trace import TraceFields

SMALL = Bounds(seqnos=3, keys=2, entries=2, failovers=1)
QUICK = DEFAULT.but(minimise=False)  # the comparison asks for the verdict only
PROPS = ("no-missed-item", "no-foreign-snapshot")


def _task(consumer: str, bounds: Bounds = SMALL, rules: str = "kv-current") -> ScenarioGroupTask:
    return ScenarioGroupTask(rules, consumer, PROPS, bounds, DEFAULT)


def test_a_task_started_after_corrects_is_given_its_decided_verdicts_and_no_others() -> None:
    textbook = _Textbook()
    correct = _task("correct")
    holds, unknown = correct.planned()
    textbook.learn(correct, [holds.but(verdict=Verdict.HOLDS), interrupted(unknown)])
    given = textbook.given(_task("go-dcp"))
    assert given.textbook == (("kv-current", "no-missed-item", "holds"),)
    assert textbook.given(_task("go-dcp", Bounds(seqnos=4, keys=2, entries=2, failovers=1))) == (
        _task("go-dcp", Bounds(seqnos=4, keys=2, entries=2, failovers=1))
    )  # other bounds: another question
    assert textbook.given(_task("go-dcp", rules="rollback-doc")).textbook == ()
    assert textbook.given(correct) == correct
    assert _Textbook.teaches(correct) and not _Textbook.teaches(_task("go-dcp"))


def test_a_remembered_verdict_of_correct_is_the_one_the_comparison_takes(monkeypatch) -> None:
    # collapse-snapshot violates no-missed-item at SMALL and correct holds it: told (as a
    # test can, falsely) that correct violates it too, the comparison says so, unchecked
    monkeypatch.setattr(cell, "_SEEN", {})
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot")
    prop = [PROPERTIES.get("no-missed-item")]
    (alone,) = check_cells(rules, variant, prop, SMALL, QUICK)
    assert alone.verdict is Verdict.VIOLATED and not alone.also_by
    monkeypatch.setattr(cell, "_SEEN", {})
    remember_textbook(SMALL, QUICK, [("kv-current", "no-missed-item", "violated")])
    (told,) = check_cells(rules, variant, prop, SMALL, QUICK)
    assert told.also_by == "correct"


@pytest.mark.parametrize("prop", ["no-missed-item", "no-needless-rollback"])
def test_a_property_over_a_reference_trace_is_built_once_and_is_the_formula(prop) -> None:
    p = PROPERTIES.get(prop)
    assert p.on_trace(SMALL) is p.on_trace(SMALL)
    built = p.holds(TraceFields(SMALL))
    assert _nodes(p.on_trace(SMALL)) == _nodes(built)


def _nodes(formula: Expr) -> list[tuple[object, ...]]:
    return [(n.op, n.sort, n.value, n.name, len(n.args)) for n in walk([formula])]
