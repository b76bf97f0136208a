"""A Z3 proof cut into cubes: the model's ``split()``, each part solved on its own.

``solve_cube(model, prop, cube, budget)`` is one part: a fresh solver with
the cube asserted (Z3 then takes its one-shot path, as for a whole proof),
``holds`` meaning no violation lies in that cube. ``search(model, prop)``
solves every cube in order in this process: ``holds`` when every cube
holds, ``violated`` as soon as one has a violation (minimised over the whole
model, not the cube: the least counterexample is global), ``unknown`` when
none is violated and some cube is unknown. The cubes are independent, so a
cluster can solve them side by side (``checker.spark``) and combine the
findings the same way (``combine``).
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.engines import z3 as z3_engine
from checker.engines.finding import Finding
from checker.result import Verdict
from checker.symbolic.budget import Budget
from spec.expr import Expr
from spec.model.build import ScenarioModel
from spec.properties import Property

__all__ = ["combine", "search", "solve_cube"]


def solve_cube(
    model: ScenarioModel,
    prop: Property,
    cube: Expr,
    budget: Budget,
    deadline: float | None = None,
) -> Finding:
    """One cube, unminimised: a violation in it, or a proof that it has none."""
    return z3_engine.search(
        model, prop, budget=budget, deadline=deadline, minimised=False, assume=[cube]
    )


def combine(findings: Sequence[Finding]) -> Finding:
    """The verdict of the whole proof from its cubes' findings (in cube order)."""
    units = sum(f.units or 0 for f in findings)
    for found in findings:
        if found.verdict is Verdict.VIOLATED:
            return Finding(Verdict.VIOLATED, found.scenario, units=units)
    unknown = [f.reason for f in findings if f.verdict is Verdict.UNKNOWN]
    if unknown:
        return Finding(
            Verdict.UNKNOWN, reason=f"{len(unknown)} cubes unknown: {unknown[0]}", units=units
        )
    return Finding(Verdict.HOLDS, units=units, note=f"proved in {len(findings)} cubes")


def search(
    model: ScenarioModel,
    prop: Property,
    *,
    budget: Budget | None = None,
    deadline: float | None = None,
    minimised: bool = True,
    depth: int = 1,
) -> Finding:
    budget = budget if budget is not None else Budget()
    before = budget.spent
    findings = []
    for cube in model.split(depth):
        found = solve_cube(model, prop, cube, budget, deadline)
        findings.append(found)
        if found.verdict is Verdict.VIOLATED:
            break
    result = combine(findings)
    if result.verdict is Verdict.VIOLATED and minimised and result.scenario is not None:
        values = model.encode(result.scenario)
        result = z3_engine.minimised_from(model, prop, values, budget, deadline)
    return Finding(
        result.verdict,
        result.scenario,
        reason=result.reason,
        note=result.note,
        size=result.size,
        units=budget.spent - before,
        interrupted=result.interrupted,
    )
