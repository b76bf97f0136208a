"""A Z3 proof cut into cubes: the model's ``split()``, each part solved on its own.

``solve_cube(model, prop, cube, budget)`` is one part: a fresh solver with
the cube asserted (Z3 then takes its one-shot path, as for a whole proof),
``holds`` meaning no violation lies in that cube. ``search(model, prop, options)``
has every cube of ``model.split(options.split)`` solved by a ``SolveCubes``: in this
process (``in_processes(1)``), on ``options.workers`` processes side by side, or on
Spark executors (``checker.spark.cubes``). The findings are combined
(``combine``): ``holds`` when every cube holds, ``violated`` when one has a
violation (minimised over the whole model, not the cube: the least
counterexample is global, so it is the same whichever cube found one
first), ``unknown`` when none is violated and some cube is unknown (the
reason names them). Once a cube is violated the others are not needed: a
solver may stop them.

Budgets stay deterministic: each cube gets the check's whole budget of its
own (what one cube spends never depends on what another spent before it),
and the units reported are the sum over the cubes solved.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from checker.engines import z3 as z3_engine
from checker.engines.finding import Finding
from checker.engines.options import DEFAULT, Options
from checker.engines.processes import ignore_interrupts
from checker.result import Verdict
from checker.symbolic.budget import Budget
from spec.errors import HarnessBug
from spec.expr import Expr
from spec.model.protocol import ScenarioModelInterface
from spec.properties import Property

__all__ = ["SolveCubes", "Split", "combine", "in_processes", "search", "solve_cube"]

NAMED_UNKNOWN = 5  # cubes named in an unknown's reason; the rest are counted


@dataclass(frozen=True)
class Split:
    """A proof cut into ``model.split(depth)``: what each cube is solved under."""

    model: ScenarioModelInterface
    prop: Property
    depth: int
    limit: int | None  # each cube's budget: the check's whole budget (None: no limit)
    deadline: float | None  # monotonic time, an outer guard (this machine's clock)

    def cube(self, n: int) -> Expr:
        return self.model.split(self.depth)[n]

    def solve(self, n: int) -> Finding:
        """Cube ``n``, unminimised, under a budget of its own."""
        return solve_cube(self.model, self.prop, self.cube(n), Budget(self.limit), self.deadline)


# Solves the cubes of a split: the findings by cube number, every cube's, or once one is
# violated at least that one (the others may be stopped).
SolveCubes = Callable[[Split], Mapping[int, Finding]]


def solve_cube(
    model: ScenarioModelInterface,
    prop: Property,
    cube: Expr,
    budget: Budget,
    deadline: float | None = None,
) -> Finding:
    """One cube, unminimised: a violation in it, or a proof that it has none."""
    return z3_engine.search(
        model, prop, budget=budget, deadline=deadline, minimised=False, assume=[cube]
    )


def combine(findings: Mapping[int, Finding], labels: list[str]) -> Finding:
    """The verdict of the whole proof from its cubes' findings (``labels``: every cube's
    description, in cube order). A violation wins; else every cube must have been
    solved."""
    units = sum(f.units or 0 for f in findings.values())
    elsewhere = sum(f.cpu_elsewhere for f in findings.values())
    total = len(labels)
    common: dict[str, Any] = {"units": units, "cubes": total, "cpu_elsewhere": elsewhere}
    for n in sorted(findings):
        if findings[n].verdict is Verdict.VIOLATED:
            stopped = total - len(findings)
            note = f"{stopped} of {total} cubes left unsolved once a violation was found"
            note = note if stopped else ""
            return Finding(Verdict.VIOLATED, findings[n].scenario, note=note, **common)
    missing = [labels[n] for n in range(total) if n not in findings]
    if missing:
        raise HarnessBug(f"cubes {', '.join(missing)} were not solved, and none is violated")
    unknown = [n for n in range(total) if findings[n].verdict is Verdict.UNKNOWN]
    if unknown:
        named = "; ".join(labels[n] for n in unknown[:NAMED_UNKNOWN])
        more = f"; and {len(unknown) - NAMED_UNKNOWN} more" if len(unknown) > NAMED_UNKNOWN else ""
        reason = (
            f"{len(unknown)} of {total} cubes unknown ({named}{more}): "
            f"{findings[unknown[0]].reason}"
        )
        return Finding(Verdict.UNKNOWN, reason=reason, **common)
    return Finding(Verdict.HOLDS, note=f"proved in {total} cubes", **common)


# What a worker process solves: set before the pool forks, so the model (rule sets and
# variants may come from user files) is inherited rather than pickled.
_WORK: Split | None = None


def _solve_nth(n: int) -> tuple[int, Finding]:
    assert _WORK is not None
    return n, _WORK.solve(n)


def in_processes(workers: int = 1) -> SolveCubes:
    """Cubes solved in this process (``workers`` 1: in cube order, stopping at the first
    violation) or on ``workers`` forked processes side by side, the cubes with the most
    failovers (the costliest) first; leaving the pool stops the processes still solving
    once a cube is violated."""

    def solve(split: Split) -> dict[int, Finding]:
        count = len(split.model.split(split.depth))
        done: dict[int, Finding] = {}
        if workers <= 1:
            for n in range(count):
                done[n] = split.solve(n)
                if done[n].verdict is Verdict.VIOLATED:
                    break
            return done
        global _WORK
        _WORK = split
        try:
            context = multiprocessing.get_context("fork")
            with context.Pool(workers, initializer=ignore_interrupts) as pool:
                for n, found in pool.imap_unordered(_solve_nth, reversed(range(count))):
                    done[n] = found
                    if found.verdict is Verdict.VIOLATED:
                        break
        finally:
            _WORK = None
        return done

    return solve


def search(
    model: ScenarioModelInterface,
    prop: Property,
    options: Options = DEFAULT,
    solver: SolveCubes | None = None,
) -> Finding:
    """The proof cut into ``model.split(options.split)``, solved by ``solver`` (default: on
    ``options.workers`` processes); a violation is minimised here (``options.minimise``),
    under a budget of its own."""
    budget, deadline, depth = options.new_budget(), options.deadline(), options.split
    before = budget.spent
    split = Split(model, prop, depth, budget.limit, deadline)
    findings = (solver or in_processes(options.workers))(split)
    budget.charge(sum(f.units or 0 for f in findings.values()))
    result = combine(findings, [label for label, _ in model.cubes(depth)])
    if result.verdict is Verdict.VIOLATED and options.minimise and result.scenario is not None:
        own = Budget(budget.limit)
        least = z3_engine.minimised_from(model, prop, result.scenario, own, deadline)
        budget.charge(own.spent)
        result = replace(
            result,
            scenario=least.scenario,
            note="; ".join(n for n in (least.note, result.note) if n),
            size=least.size,
            interrupted=least.interrupted,
        )
    return replace(result, units=budget.spent - before)
