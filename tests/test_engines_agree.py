"""Z3 and exhaustive enumeration agree on every verdict at small bounds.

Enumeration evaluates the model's formulas concretely on every scenario
within the bounds; Z3 reasons about the same formulas through
``checker.symbolic``. Agreement on every combination below checks the
translation to Z3 (uint64 arithmetic, ite chains, the domain constraints)
and the solver's "holds" answers against brute force.

The scenarios are encoded once per test process into columns and each
model's formulas are evaluated over all of them at once
(``checker.columns.expr.Vectorised``, 0.1 s a model instead of 12 CPU s
scenario by scenario); ``spec.expr.Compiled``, the interpretation the
exhaustive engine runs, is checked against it on the same models and
scenarios below.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest
from broken_variants import BROKEN

from checker.columns.expr import Vectorised
from checker.engines.exhaustive import scenarios
from checker.engines.options import Options
from checker.scenario_check import Verdict, check
from spec.bounds import Bounds
from spec.consumers import CATALOGUE, CONSUMERS, TEXTBOOK
from spec.expr import BOOL, Compiled, Expr, all_of, substitute
from spec.model.build import ScenarioModel
from spec.model.variables import ScenarioVars
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

TINY = Bounds(seqnos=2, keys=2, entries=2, failovers=1)


@functools.cache
def scenario_columns() -> tuple[dict[str, np.ndarray], int]:
    """Every scenario within TINY, encoded into the model's variables: one column each."""
    variables = ScenarioVars(TINY)
    names = list(variables.sorts)
    rows = [tuple(int(v) for v in (e[n] for n in names)) for e in map(variables.encode, _all())]
    table = np.array(rows, dtype=np.uint64).T
    columns = {
        name: table[i].astype(np.bool_) if variables.sorts[name] is BOOL else table[i].copy()
        for i, name in enumerate(names)
    }
    return columns, len(rows)


@functools.cache
def _all() -> tuple:
    return tuple(scenarios(TINY))


def test_the_enumeration_is_big_enough_to_mean_something() -> None:
    assert scenario_columns()[1] > 40_000


def violation_formulas(model: ScenarioModel) -> list[Expr]:
    """Per property, in PROPERTIES order: a scenario of the model violates it."""
    holds = substitute([p.holds(model.fields) for p in PROPERTIES], model.trace)
    return [all_of(model.constraints, ~h) for h in holds]


def enumerated_verdicts(model: ScenarioModel) -> dict[str, Verdict]:
    program = Vectorised(violation_formulas(model))
    columns, size = scenario_columns()
    violated = program({name: columns[name] for name in program.inputs}, size)
    return {
        p.id: Verdict.VIOLATED if v.any() else Verdict.HOLDS
        for p, v in zip(PROPERTIES, violated, strict=True)
    }


_Z3: dict[tuple[int, int], dict[str, Verdict]] = {}


def z3_verdicts(model: ScenarioModel) -> dict[str, Verdict]:
    key = (id(model.rules), id(model.variant))
    if key not in _Z3:
        _Z3[key] = _solve(model)
    return _Z3[key]


def _solve(model: ScenarioModel) -> dict[str, Verdict]:
    return {
        p.id: check(model.rules, model.variant, p, TINY, Options(minimise=False)).verdict
        for p in PROPERTIES
    }


# The textbook consumers under both rule sets; each real client of the catalogue (between
# them they use every part of the v2 interface: claims, filters, log positions, one-entry
# and chosen logs) under kv-current. Their fixes use nothing the others do not.
BUILTINS = [(r, c) for r in sorted(RULE_SETS.names()) for c in TEXTBOOK]
BUILTINS += [("kv-current", client) for client, _ in CATALOGUE]


@pytest.mark.parametrize(("rules", "consumer"), BUILTINS)
def test_z3_and_enumeration_agree_on_the_builtins(rules: str, consumer: str) -> None:
    model = ScenarioModel(TINY, RULE_SETS.get(rules), CONSUMERS.get(consumer))
    assert z3_verdicts(model) == enumerated_verdicts(model)


# kv-current without one step (any but the last): the rule sets of the mutation operator
# ``drop`` (spec/rules/mutation/operators.py), built here from the steps, so that collection
# (in every worker) does not compute all of kv-current's mutants to pick these seven.
KV_CURRENT = RULE_SETS.get("kv-current")
DROPS = {
    f"drop:{step.name}:1": replace(
        KV_CURRENT, steps=KV_CURRENT.steps[:i] + KV_CURRENT.steps[i + 1 :]
    )
    for i, step in enumerate(KV_CURRENT.steps[:-1])
}


@pytest.mark.parametrize("mutant", DROPS)
def test_z3_and_enumeration_agree_on_rule_sets_missing_a_step(mutant: str) -> None:
    model = ScenarioModel(TINY, DROPS[mutant], CONSUMERS.get("correct"))
    assert z3_verdicts(model) == enumerated_verdicts(model)


@pytest.mark.parametrize("variant", BROKEN, ids=lambda v: v.name)
def test_z3_and_enumeration_agree_on_broken_consumers(variant) -> None:
    model = ScenarioModel(TINY, RULE_SETS.get("kv-current"), variant)
    assert z3_verdicts(model) == enumerated_verdicts(model)


def test_the_broken_definitions_do_break_every_safety_property() -> None:
    seen = set()
    for rules in DROPS.values():
        model = ScenarioModel(TINY, rules, CONSUMERS.get("correct"))
        seen |= {p for p, v in z3_verdicts(model).items() if v is Verdict.VIOLATED}
    for variant in BROKEN:
        model = ScenarioModel(TINY, RULE_SETS.get("kv-current"), variant)
        seen |= {p for p, v in z3_verdicts(model).items() if v is Verdict.VIOLATED}
    assert seen == set(PROPERTIES.names())


@pytest.mark.parametrize(
    ("rules", "consumer"), [("kv-current", "correct"), ("kv-current", "collapse-snapshot")]
)
def test_the_compiled_formulas_the_exhaustive_engine_runs_agree_with_the_columns(
    rules: str, consumer: str
) -> None:
    """Every 10th scenario, scenario by scenario through ``Compiled`` (the exhaustive
    engine's interpretation): the same violations as the columns above."""
    model = ScenarioModel(TINY, RULE_SETS.get(rules), CONSUMERS.get(consumer))
    formulas = violation_formulas(model)
    compiled = Compiled(formulas)
    sample = list(range(0, len(_all()), 10))
    one_by_one = [compiled(model.vars.encode(_all()[k])) for k in sample]
    columns, size = scenario_columns()
    program = Vectorised(formulas)
    at_once = program({name: columns[name] for name in program.inputs}, size)
    assert any(any(row) for row in one_by_one)  # the sample holds violations
    for i in range(len(formulas)):
        assert [bool(row[i]) for row in one_by_one] == at_once[i][sample].tolist()
