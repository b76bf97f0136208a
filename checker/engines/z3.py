"""The Z3 engine: a proof within bounds, or a minimised violating scenario.

1. *encode*: the model's constraints and the negated property, as
   expressions (``ScenarioModel.constraints``, ``ScenarioModel.holds``);
2. *solve*: Z3 looks for an assignment (``checker.symbolic``); unsat is a
   proof within the bounds, unknown is reported as ``unknown``, never
   ``holds``;
3. *minimise*: lexicographically by the model's own ``measures()`` (fewest
   seqnos, keys, failovers, entries, rounds, ...); a minimisation cut short
   keeps the smaller scenario it has and says so;
4. *decode*: the assignment becomes a ``Scenario`` (``ScenarioModel.decode``).
"""

from __future__ import annotations

from collections.abc import Mapping

from checker.engines.finding import Finding
from checker.result import Verdict
from checker.symbolic.session import Answer, Session
from spec.expr import Value, evaluate
from spec.model.build import ScenarioModel
from spec.properties import Property

__all__ = ["minimise", "search"]


def minimise(
    session: Session, model: ScenarioModel, values: Mapping[str, Value]
) -> tuple[dict[str, Value], dict[str, int], str]:
    """Greedy lexicographic minimisation; stops (keeping what it has) on unknown."""
    size: dict[str, int] = {}
    values = dict(values)
    want = model.variables
    for name, measure in model.measures():
        current = int(evaluate(measure, values))
        best = current
        for candidate in range(0, current):
            outcome = session.check(measure <= candidate, want=want)
            if outcome.answer is Answer.UNKNOWN:
                size[name] = best
                return values, size, f"minimisation stopped at {name}: {outcome.reason}"
            if outcome.answer is Answer.SAT:
                best, values = candidate, outcome.values
                break
        session.add(measure <= best)
        size[name] = best
    return values, size, ""


def search(
    model: ScenarioModel,
    prop: Property,
    *,
    timeout_s: float | None = None,
    minimised: bool = True,
) -> Finding:
    session = Session(timeout_s=timeout_s)
    session.declare(model.variables)
    session.add(model.constraints)
    session.add(~model.holds(prop))
    outcome = session.check(want=model.variables)
    if outcome.answer is Answer.UNSAT:
        return Finding(Verdict.HOLDS)
    if outcome.answer is Answer.UNKNOWN:
        return Finding(Verdict.UNKNOWN, reason=f"solver: {outcome.reason}")
    values, size, note = outcome.values, {}, ""
    if minimised:
        values, size, note = minimise(session, model, values)
    return Finding(Verdict.VIOLATED, model.decode(values), size=size, note=note)
