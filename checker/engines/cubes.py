"""A Z3 proof cut into cubes: the model's ``split()``, each part solved on its own.

``solve_cube(model, prop, cube, budget)`` is one part: a fresh solver with
the cube asserted (Z3 then takes its one-shot path, as for a whole proof),
``holds`` meaning no violation lies in that cube. ``search(model, prop)``
solves every cube, in this process or on ``workers`` processes side by
side: ``holds`` when every cube holds, ``violated`` when one has a violation
(minimised over the whole model, not the cube: the least counterexample is
global, so it is the same whichever cube found one first), ``unknown`` when
none is violated and some cube is unknown. The cubes are independent, so a
cluster can solve them the same way (``solve_cube`` on executors) and
combine the findings (``combine``).

Budgets stay deterministic: each cube gets the check's whole budget of its
own (what one cube spends never depends on what another spent before it),
and the units reported are the sum over the cubes solved.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Sequence
from dataclasses import replace

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
        reason = f"{len(unknown)} of {len(findings)} cubes unknown: {unknown[0]}"
        return Finding(Verdict.UNKNOWN, reason=reason, units=units)
    return Finding(Verdict.HOLDS, units=units, note=f"proved in {len(findings)} cubes")


# What a worker process solves: set before the pool forks, so the model (rule sets and
# variants may come from user files) is inherited rather than pickled.
_WORK: tuple[ScenarioModel, Property, list[Expr], int | None, float | None] | None = None


def _quiet() -> None:
    """Workers leave Ctrl-C to the parent, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _solve_nth(n: int) -> tuple[int, Finding]:
    assert _WORK is not None
    model, prop, cubes, limit, deadline = _WORK
    return n, solve_cube(model, prop, cubes[n], Budget(limit), deadline)


def _solve_all(
    model: ScenarioModel,
    prop: Property,
    cubes: list[Expr],
    limit: int | None,
    deadline: float | None,
    workers: int,
) -> list[Finding]:
    """The cubes' findings in cube order; once one is violated the rest are not needed
    (with workers, those still running are stopped)."""
    if workers <= 1:
        findings = []
        for cube in cubes:
            findings.append(solve_cube(model, prop, cube, Budget(limit), deadline))
            if findings[-1].verdict is Verdict.VIOLATED:
                break
        return findings
    global _WORK
    _WORK = (model, prop, cubes, limit, deadline)
    done: dict[int, Finding] = {}
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(workers, initializer=_quiet) as pool:  # leaving it stops them all
            for n, found in pool.imap_unordered(_solve_nth, range(len(cubes))):
                done[n] = found
                if found.verdict is Verdict.VIOLATED:
                    break
    finally:
        _WORK = None
    return [done[n] for n in sorted(done)]


def search(
    model: ScenarioModel,
    prop: Property,
    *,
    budget: Budget | None = None,
    deadline: float | None = None,
    minimised: bool = True,
    depth: int = 1,
    workers: int = 1,
) -> Finding:
    budget = budget if budget is not None else Budget()
    before = budget.spent
    limit = budget.limit
    findings = _solve_all(model, prop, model.split(depth), limit, deadline, workers)
    budget.charge(sum(f.units or 0 for f in findings))
    result = combine(findings)
    if result.verdict is Verdict.VIOLATED and minimised and result.scenario is not None:
        own = Budget(limit)
        least = z3_engine.minimised_from(model, prop, result.scenario, own, deadline)
        budget.charge(own.spent)
        result = Finding(
            Verdict.VIOLATED,
            least.scenario,
            note=least.note,
            size=least.size,
            interrupted=least.interrupted,
        )
    return replace(result, units=budget.spent - before)
