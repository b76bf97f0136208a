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
from dataclasses import dataclass, field

from checker.engines.finding import Finding
from checker.result import Verdict
from checker.symbolic.budget import Budget
from checker.symbolic.session import Session, SolverAnswer, SolverReply
from spec.expr import BOOL, Expr, Value, evaluate, var
from spec.model.protocol import ScenarioModelInterface
from spec.properties import Property
from spec.scenario import Scenario

__all__ = ["SMALL_SCOPE", "Minimisation", "minimise", "minimised_from", "open_session", "search"]

# Seqnos of the small model searched before the whole one: violations are usually small
# (a proof pays for this one small model; a violation is found on a small formula).
SMALL_SCOPE = 4


@dataclass
class Minimisation:
    """How far a minimisation got: the smallest values so far, the measures proved minimal."""

    values: dict[str, Value]
    size: dict[str, int] = field(default_factory=dict)
    note: str = ""


def open_session(
    model: ScenarioModelInterface,
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
    model: ScenarioModelInterface, prop: Property, budget: Budget, deadline: float | None
) -> Session:
    """A session over every violation (any key), keys in order of first use."""
    return open_session(model, ~model.holds(prop), model.symmetry, budget, deadline)


def minimise(
    session: Session, model: ScenarioModelInterface, values: Mapping[str, Value]
) -> tuple[dict[str, Value], dict[str, int], str]:
    """Greedy lexicographic minimisation; stops (keeping what it has) on unknown."""
    progress = Minimisation(dict(values))
    shrink(session, model, progress)
    return progress.values, progress.size, progress.note


def shrink(session: Session, model: ScenarioModelInterface, progress: Minimisation) -> None:
    """Minimise ``progress.values`` measure by measure, recording each step in ``progress``
    (so that an interrupted minimisation still says how far it got)."""
    want = model.variables
    for name, measure in model.measures():
        current = int(evaluate(measure, progress.values))
        best = current
        for candidate in range(0, current):
            outcome = session.check(measure <= candidate, want=want)
            if outcome.answer is SolverAnswer.UNKNOWN:
                progress.note = (
                    f"minimisation stopped at {name} ({outcome.reason}): not minimal in {name} "
                    "or the measures after it"
                )
                return
            if outcome.answer is SolverAnswer.SAT:
                best, progress.values = candidate, outcome.values
                break
        session.add(measure <= best)
        progress.size[name] = best
    settle(session, model, progress)


def settle(session: Session, model: ScenarioModelInterface, progress: Minimisation) -> None:
    """Among the minimal scenarios, the least assignment in the order of ``model.variables``
    (false before true, smaller numbers first): one scenario, whatever Z3 found first, so
    the counterexample (and its id) depends on the model alone."""
    for name, sort in model.variables.items():
        current = progress.values[name]
        v = var(name, sort)
        if not current:  # false, or 0: already the least; held there for the names after it
            session.add(v == current)
            continue
        if sort is BOOL:
            outcome = session.check(~v, want=model.variables)
            candidates: list[tuple[SolverReply, int | bool]] = [(outcome, False)]
        else:
            candidates = []
            for candidate in range(0, int(current)):
                outcome = session.check(v <= candidate, want=model.variables)
                candidates.append((outcome, candidate))
                if outcome.answer is not SolverAnswer.UNSAT:
                    break
        outcome, value = candidates[-1]
        if outcome.answer is SolverAnswer.UNKNOWN:
            progress.note = f"the last tie-break stopped at {name} ({outcome.reason})"
            return
        if outcome.answer is SolverAnswer.SAT:
            progress.values = outcome.values
            current = value
        session.add(v == current)


def search(
    model: ScenarioModelInterface,
    prop: Property,
    *,
    budget: Budget | None = None,
    deadline: float | None = None,
    minimised: bool = True,
    assume: Sequence[Expr] = (),
) -> Finding:
    budget = budget if budget is not None else Budget()
    before = budget.spent
    found = None
    small = None if assume else model.with_seqnos(SMALL_SCOPE)
    if small is not None and small is not model:  # small scope first: most violations are small
        found = _solve(small, prop, budget, deadline)
        if found.verdict is not Verdict.VIOLATED:
            found = None
    if found is None:
        found = _solve(model, prop, budget, deadline, assume)
    if found.verdict is Verdict.VIOLATED and minimised and found.scenario is not None:
        found = minimised_from(model, prop, found.scenario, budget, deadline)
    return Finding(
        found.verdict,
        found.scenario,
        reason=found.reason,
        note=found.note,
        size=found.size,
        units=budget.spent - before,
        interrupted=found.interrupted,
    )


@dataclass(frozen=True)
class _Solved:
    """One solver call on a model: its verdict, and the violating assignment if any."""

    verdict: Verdict
    values: dict[str, Value] = field(default_factory=dict)
    scenario: Scenario | None = None
    reason: str = ""
    note: str = ""
    size: dict[str, int] = field(default_factory=dict)
    interrupted: bool = False


def _solve(
    model: ScenarioModelInterface,
    prop: Property,
    budget: Budget,
    deadline: float | None,
    assume: Sequence[Expr] = (),
) -> _Solved:
    """One check of ``model`` for a violation (at key 0 when the property is per key)."""
    goal, canonical = model.violation(prop)
    session = open_session(model, goal, canonical, budget, deadline, assume)
    outcome = session.check(want=model.variables)
    if outcome.answer is SolverAnswer.UNSAT:
        return _Solved(Verdict.HOLDS)
    if outcome.answer is SolverAnswer.UNKNOWN:
        return _Solved(Verdict.UNKNOWN, reason=f"solver: {outcome.reason}")
    scenario = model.decode(outcome.values)
    return _Solved(Verdict.VIOLATED, outcome.values, scenario)


def minimised_from(
    model: ScenarioModelInterface,
    prop: Property,
    scenario: Scenario,
    budget: Budget,
    deadline: float | None = None,
) -> _Solved:
    """The least violation of ``prop`` in the order of ``model.measures()`` (any key, keys
    in order of first use), starting from the violating ``scenario``.

    The fewest seqnos come first: models of 1, 2, ... seqnos are asked in turn, each a
    fresh one-shot solve, until one has a violation; the other measures are minimised
    in that small model."""
    small = model.within(model.encode(scenario))
    seqnos = small.bounds.seqnos
    progress = Minimisation(small.encode(scenario))  # decoded: keys in order of first use
    interrupted = False
    try:
        for fewer in range(1, seqnos):
            attempt = _solve(model.with_seqnos(fewer), prop, budget, deadline)
            if attempt.verdict is Verdict.VIOLATED and attempt.scenario is not None:
                small = model.with_seqnos(fewer)
                progress = Minimisation(small.encode(attempt.scenario))
                break
            if attempt.verdict is Verdict.UNKNOWN:
                break  # minimise in the model of the violation found
        shrink(_minimising(small, prop, budget, deadline), small, progress)
    except KeyboardInterrupt:
        interrupted = True
        progress.note = "minimisation interrupted (Ctrl-C): this counterexample is not minimal"
    return _Solved(
        Verdict.VIOLATED,
        progress.values,
        small.decode(progress.values),
        note=progress.note,
        size=progress.size,
        interrupted=interrupted,
    )
