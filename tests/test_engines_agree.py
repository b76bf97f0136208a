"""Z3 and exhaustive enumeration agree on every verdict at small bounds.

Enumeration evaluates the model's formulas concretely (``spec.expr.Compiled``)
on every scenario within the bounds; Z3 reasons about the same formulas
through ``checker.symbolic``. Agreement on every combination below checks the
translation to Z3 (uint64 arithmetic, ite chains, the domain constraints)
and the solver's "holds" answers against brute force.
"""

from __future__ import annotations

import pytest
from broken_variants import BROKEN

from checker.engines.exhaustive import scenarios
from checker.engines.options import Options
from checker.scenario_check import Verdict, check
from spec.bounds import Bounds
from spec.consumers import CATALOGUE, CONSUMERS, TEXTBOOK
from spec.expr import Compiled, all_of, substitute
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS
from spec.rules.mutation.operators import mutants

TINY = Bounds(seqnos=2, keys=2, entries=2, failovers=1)
SCENARIOS = list(scenarios(TINY))


def test_the_enumeration_is_big_enough_to_mean_something() -> None:
    assert len(SCENARIOS) > 40_000


def enumerated_verdicts(model: ScenarioModel) -> dict[str, Verdict]:
    props = list(PROPERTIES)
    holds = substitute([p.holds(model.fields) for p in props], model.trace)
    program = Compiled([all_of(model.constraints, ~h) for h in holds])
    violated = [False] * len(props)
    for scenario in SCENARIOS:
        for i, bad in enumerate(program(model.vars.encode(scenario))):
            violated[i] = violated[i] or bool(bad)
    return {
        p.id: Verdict.VIOLATED if v else Verdict.HOLDS for p, v in zip(props, violated, strict=True)
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


DROPS = [m for m in mutants(RULE_SETS.get("kv-current")) if m.operator == "drop"]


@pytest.mark.parametrize("mutant", DROPS, ids=lambda m: m.id)
def test_z3_and_enumeration_agree_on_rule_sets_missing_a_step(mutant) -> None:
    model = ScenarioModel(TINY, mutant.rules, CONSUMERS.get("correct"))
    assert z3_verdicts(model) == enumerated_verdicts(model)


@pytest.mark.parametrize("variant", BROKEN, ids=lambda v: v.name)
def test_z3_and_enumeration_agree_on_broken_consumers(variant) -> None:
    model = ScenarioModel(TINY, RULE_SETS.get("kv-current"), variant)
    assert z3_verdicts(model) == enumerated_verdicts(model)


def test_the_broken_definitions_do_break_every_safety_property() -> None:
    seen = set()
    for mutant in DROPS:
        model = ScenarioModel(TINY, mutant.rules, CONSUMERS.get("correct"))
        seen |= {p for p, v in z3_verdicts(model).items() if v is Verdict.VIOLATED}
    for variant in BROKEN:
        model = ScenarioModel(TINY, RULE_SETS.get("kv-current"), variant)
        seen |= {p for p, v in z3_verdicts(model).items() if v is Verdict.VIOLATED}
    assert seen == set(PROPERTIES.names())
