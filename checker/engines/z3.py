"""The Z3 engine: a proof within bounds, or a minimised violating scenario.

1. *encode*: the model's constraints, its canonical form (``symmetry``) and
   the negated property, as expressions; integers as bit-vectors of the few
   bits the model's ``ranges`` need (``checker.symbolic``);
2. *solve*: Z3 looks for an assignment under a ``Budget`` of resource
   units; unsat is a proof within the bounds, unknown (budget spent, outer
   timeout) is reported as ``unknown``, never ``holds``;
3. *minimise*: lexicographically by the model's own ``measures()`` (fewest
   seqnos, keys, failovers, entries, rounds, ...); a minimisation cut short
   (budget, Ctrl-C) keeps the smaller scenario it has, claims minimal only
   the measures it finished, and says so;
4. *decode*: the assignment becomes a ``Scenario`` (``ScenarioModel.decode``).

``search(model, prop, assume=[...])`` solves under extra assumptions (a cube
of a split proof, ``checker.engines.cubes``): ``holds`` then means "no
violation satisfies the assumptions".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from checker.engines.finding import Finding
from checker.result import Verdict
from checker.symbolic.budget import Budget
from checker.symbolic.session import Answer, Session
from spec.expr import BOOL, Expr, Value, evaluate, var
from spec.model.build import ScenarioModel
from spec.properties import Property

__all__ = ["Minimisation", "minimise", "minimised_from", "open_session", "search"]


@dataclass
class Minimisation:
    """How far a minimisation got: the smallest values so far, the measures proved minimal."""

    values: dict[str, Value]
    size: dict[str, int] = field(default_factory=dict)
    note: str = ""


def open_session(
    model: ScenarioModel,
    goal: Expr,
    canonical: Expr,
    budget: Budget,
    deadline: float | None = None,
    assume: Sequence[Expr] = (),
) -> Session:
    """A session holding the model, ``goal``, a ``canonical`` form and ``assume``."""
    session = Session(budget=budget, deadline=deadline)
    measures = [m == m for _, m in model.measures()]
    terms = [model.constraints, canonical, goal, *assume, *measures]
    session.declare(model.variables, model.ranges, terms)
    session.add(model.constraints, canonical, goal, *assume)
    return session


def _minimising(
    model: ScenarioModel, prop: Property, budget: Budget, deadline: float | None
) -> Session:
    """A session over every violation (any key), keys in order of first use."""
    return open_session(model, ~model.holds(prop), model.symmetry, budget, deadline)


def minimise(
    session: Session, model: ScenarioModel, values: Mapping[str, Value]
) -> tuple[dict[str, Value], dict[str, int], str]:
    """Greedy lexicographic minimisation; stops (keeping what it has) on unknown."""
    progress = Minimisation(dict(values))
    shrink(session, model, progress)
    return progress.values, progress.size, progress.note


def shrink(session: Session, model: ScenarioModel, progress: Minimisation) -> None:
    """Minimise ``progress.values`` measure by measure, recording each step in ``progress``
    (so that an interrupted minimisation still says how far it got)."""
    want = model.variables
    for name, measure in model.measures():
        current = int(evaluate(measure, progress.values))
        best = current
        for candidate in range(0, current):
            outcome = session.check(measure <= candidate, want=want)
            if outcome.answer is Answer.UNKNOWN:
                progress.note = (
                    f"minimisation stopped at {name} ({outcome.reason}): not minimal in {name} "
                    "or the measures after it"
                )
                return
            if outcome.answer is Answer.SAT:
                best, progress.values = candidate, outcome.values
                break
        session.add(measure <= best)
        progress.size[name] = best
    settle(session, model, progress)


def settle(session: Session, model: ScenarioModel, progress: Minimisation) -> None:
    """Among the minimal scenarios, the least assignment in the order of ``model.variables``
    (false before true, smaller numbers first): one scenario, whatever Z3 found first, so
    the counterexample (and its id) depends on the model alone."""
    for name, sort in model.variables.items():
        current = progress.values[name]
        if not current:
            continue
        v = var(name, sort)
        if sort is BOOL:
            outcome = session.check(~v, want=model.variables)
            candidates = [(outcome, False)]
        else:
            candidates = []
            for candidate in range(0, int(current)):
                outcome = session.check(v <= candidate, want=model.variables)
                candidates.append((outcome, candidate))
                if outcome.answer is not Answer.UNSAT:
                    break
        outcome, value = candidates[-1]
        if outcome.answer is Answer.UNKNOWN:
            progress.note = f"the last tie-break stopped at {name} ({outcome.reason})"
            return
        if outcome.answer is Answer.SAT:
            progress.values = outcome.values
            current = value
        session.add(v == current)


def search(
    model: ScenarioModel,
    prop: Property,
    *,
    budget: Budget | None = None,
    deadline: float | None = None,
    minimised: bool = True,
    assume: Sequence[Expr] = (),
) -> Finding:
    budget = budget if budget is not None else Budget()
    before = budget.spent
    goal, canonical = model.violation(prop)
    session = open_session(model, goal, canonical, budget, deadline, assume)
    outcome = session.check(want=model.variables)
    if outcome.answer is Answer.UNSAT:
        return Finding(Verdict.HOLDS, units=budget.spent - before)
    if outcome.answer is Answer.UNKNOWN:
        return Finding(
            Verdict.UNKNOWN, reason=f"solver: {outcome.reason}", units=budget.spent - before
        )
    if not minimised:
        return Finding(Verdict.VIOLATED, model.decode(outcome.values), units=budget.spent - before)
    found = minimised_from(model, prop, outcome.values, budget, deadline)
    return replace(found, units=budget.spent - before)


def minimised_from(
    model: ScenarioModel,
    prop: Property,
    values: Mapping[str, Value],
    budget: Budget,
    deadline: float | None = None,
) -> Finding:
    """The least violation of ``prop`` in the order of ``model.measures()`` (any key, keys
    in order of first use), starting from the violating assignment ``values``."""
    before = budget.spent
    progress = Minimisation(dict(values))
    # Minimise in the smallest model that holds every scenario that can come first:
    # the same least scenario, found on a smaller formula.
    small = model.within(values)
    progress.values = small.encode(model.decode(values))  # keys in order of first use
    session = _minimising(small, prop, budget, deadline)
    interrupted = False
    try:
        shrink(session, small, progress)
    except KeyboardInterrupt:
        interrupted = True
        progress.note = "minimisation interrupted (Ctrl-C): this counterexample is not minimal"
    model = small
    return Finding(
        Verdict.VIOLATED,
        model.decode(progress.values),
        size=progress.size,
        note=progress.note,
        units=budget.spent - before,
        interrupted=interrupted,
    )
