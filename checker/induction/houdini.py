"""Houdini over resumes: the largest set of library lemmas that, with the property, is
inductive for one more session.

The invariant is ``domain /\\ P /\\ lemmas`` over a boundary state
(``spec.model.boundary``), where ``P`` is "the property holds on the resume from this
state". Three kinds of query, each an ordinary Z3 check under one ``Budget``:

1. *initiation*: every boundary state before the first resume (a one-session model's
   scenarios) satisfies it: lemmas false in some such state are dropped; ``P`` or the
   domain false there is not an invariant failure but a violation at one session;
2. *consecution*: from any state satisfying it, a resume, its stream accepted and cut,
   failovers and a compaction lead to a state that satisfies it: a lemma false after
   some step is dropped and the query asked again (Houdini), until none is;
3. the domain (every value within the ranges the boundary variables are declared with,
   the producer's table well formed) is never dropped: a step leaving it means the
   boundary state is not general enough, and the answer is ``unknown``, never a proof.

``P`` false after a step (relative to every lemma left) is a counterexample to
induction: the state before the step is returned as the CTI.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum

from checker.induction.lemmas import Lemma, library
from checker.symbolic.budget import Budget
from checker.symbolic.session import Session, SolverAnswer, SolverReply
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.errors import HarnessBug
from spec.expr import BOOL, Expr, Value, all_of, evaluate_many, implies, substitute, var
from spec.model.boundary import BoundaryVars, SessionStep, initial
from spec.model.build import ScenarioModel
from spec.properties import Property
from spec.rules.language import RuleSet

__all__ = ["Consecution", "Induction", "InductionOutcome", "induct", "one_step"]

log = logging.getLogger(__name__)

# From how many seqnos consecution is asked target by target (docs/findings.md, one run
# each, kv-current): at 3 seqnos the 20 stored certificates check in 84.1M units, 36.1
# CPU s as one query each, 156.0M, 60.8 s by target; at 4, Houdini from the library
# (correct, no-missed-item) 48.3M, 18.5 s as one query, 39.7M, 16.1 s by target; at 6,
# 156.7M, 150.8 s against 111.4M, 50.4 s; at 8 only by target finished (270 CPU s).
BY_TARGET_FROM = 4


class InductionOutcome(StrEnum):
    PROVED = "proved"  # the invariant is inductive and implies the property
    FIRST = "first"  # the property fails on the first resume (a violation at K = 1)
    CTI = "cti"  # the property is not inductive relative to the lemmas left
    DOMAIN = "domain"  # a step leaves the boundary domain (the model is not general enough)
    UNKNOWN = "unknown"  # the solver gave up (budget, timeout)
    REJECTED = "rejected"  # strict: a given lemma is not inductive (nothing dropped)


@dataclass
class Induction:
    outcome: InductionOutcome
    lemmas: list[Lemma] = field(default_factory=list)  # those left (the invariant's)
    dropped: int = 0
    cti: dict[str, Value] = field(default_factory=dict)  # the boundary state, unprefixed
    # the boundary state one session later, from which the property fails
    cti_next: dict[str, Value] = field(default_factory=dict)
    reason: str = ""
    queries: int = 0


def induct(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    budget: Budget,
    deadline: float | None = None,
    lemmas: list[Lemma] | None = None,
    strict: bool = False,
    by_target: bool | None = None,
) -> Induction:
    """Houdini from ``lemmas`` (default the whole library). ``strict``: drop nothing: the
    lemmas are an invariant to check (a certificate), and one that fails initiation or
    consecution ends it with ``REJECTED``. ``by_target``: consecution asked for ``P`` and
    each lemma on its own (``_by_target``); False: one query over all of them at once;
    None: by target from ``BY_TARGET_FROM`` seqnos on."""
    bv = BoundaryVars(bounds)
    candidates = list(lemmas) if lemmas is not None else library(bv)
    step, holds_here, ranges = one_step(rules, variant, prop, bv)
    domain = all_of(*ranges.values())

    # 1. initiation, over the one-session model's scenarios.
    first = ScenarioModel(bounds, rules, variant)
    start = {bv.prefix + n: e for n, e in initial(first).fields().items()}
    at_start = substitute([c.formula for c in candidates], start)
    fixed_start = [*substitute([domain], start), first.holds(prop)]
    queries = 0
    session = Session(budget=budget, deadline=deadline)
    session.declare(first.variables, first.ranges, [first.constraints, *at_start, *fixed_start])
    session.add(first.constraints)
    alive = list(range(len(candidates)))
    while True:
        queries += 1
        goal = ~all_of(*fixed_start, *(at_start[i] for i in alive))
        answer = session.check(goal, want=first.variables)
        if answer.answer is SolverAnswer.UNKNOWN:
            return Induction(
                InductionOutcome.UNKNOWN, reason=f"solver: {answer.reason}", queries=queries
            )
        if answer.answer is SolverAnswer.UNSAT:
            break
        domain_ok, first_ok = evaluate_many(fixed_start, answer.values)
        if not domain_ok:
            return Induction(
                InductionOutcome.DOMAIN,
                reason="a state before the first resume is outside the boundary domain",
                queries=queries,
            )
        if not first_ok:
            return Induction(InductionOutcome.FIRST, queries=queries)
        values = evaluate_many([at_start[i] for i in alive], answer.values)
        _dropped("initiation", candidates, alive, values, answer.units)
        if strict:
            return _rejected(candidates, alive, values, "initiation", queries)
        alive = [i for i, ok in zip(alive, values, strict=True) if ok]

    # 2. consecution, over an arbitrary boundary state and the step's choices.
    step_check = Consecution(bv, step, candidates, domain, holds_here, budget, deadline)
    if by_target is None:
        by_target = bounds.seqnos >= BY_TARGET_FROM
    if by_target:
        return _by_target(step_check, ranges, alive, strict, queries)
    while True:
        queries += 1
        answer = step_check.ask(alive)
        if answer.answer is SolverAnswer.UNKNOWN:
            return Induction(
                InductionOutcome.UNKNOWN, reason=f"solver: {answer.reason}", queries=queries
            )
        if answer.answer is SolverAnswer.UNSAT:
            kept = [candidates[i] for i in alive]
            return Induction(
                InductionOutcome.PROVED, kept, len(candidates) - len(kept), queries=queries
            )
        kept_now = _survivors(step_check, ranges, alive, answer, strict, queries)
        if isinstance(kept_now, Induction):
            return kept_now
        _log_step(step_check, step, answer.values)
        alive = kept_now


def _by_target(
    step_check: Consecution,
    ranges: dict[str, Expr],
    alive: list[int],
    strict: bool,
    queries: int,
) -> Induction:
    """Consecution one target at a time (``P`` with the domain first, then each lemma), in
    one incremental solver, every lemma left asserted through an assumption literal.

    Unsat: the target follows, after one step, from the lemmas its unsat core names (a
    subset of those left). Sat: every lemma the model breaks after the step is dropped
    (Houdini; ``strict``: ``REJECTED``), and each target whose core named one of them is
    asked again. At the end every target left, ``P`` among them, has a core within the
    lemmas left: the conjunction is inductive, as the one query over all of them would
    show (what that query costs grows faster: docs/findings.md)."""
    candidates = step_check.candidates
    left = set(alive)
    cores: dict[int | None, set[int]] = {}
    todo: deque[int | None] = deque([None, *alive])
    while todo:
        target = todo.popleft()
        if target is not None and target not in left:
            continue
        queries += 1
        answer, core = step_check.needed(sorted(left), target)
        if answer.answer is SolverAnswer.UNKNOWN:
            return Induction(
                InductionOutcome.UNKNOWN, reason=f"solver: {answer.reason}", queries=queries
            )
        if answer.answer is SolverAnswer.UNSAT:
            cores[target] = set(core)
            continue
        now = sorted(left)
        kept_now = _survivors(step_check, ranges, now, answer, strict, queries)
        if isinstance(kept_now, Induction):
            return kept_now
        gone = set(now) - set(kept_now)
        if not gone:
            broken = "the property" if target is None else candidates[target].name
            raise HarnessBug(f"a step breaks {broken} but the model keeps it")
        left -= gone
        for asked, needs in list(cores.items()):
            if needs & gone:
                del cores[asked]
                todo.append(asked)
    kept = [candidates[i] for i in sorted(left)]
    return Induction(InductionOutcome.PROVED, kept, len(candidates) - len(kept), queries=queries)


def _survivors(
    step_check: Consecution,
    ranges: dict[str, Expr],
    alive: list[int],
    answer: SolverReply,
    strict: bool,
    queries: int,
) -> Induction | list[int]:
    """After a step that breaks something (a sat consecution ``answer``): how the
    induction ends (``DOMAIN``, ``CTI``; ``REJECTED`` when ``strict``), else the lemmas of
    ``alive`` the step keeps (the others are dropped, and logged)."""
    broken = _broken(step_check, ranges, alive, answer.values, queries)
    if broken is not None:
        return broken
    values = evaluate_many([step_check.nexts[i] for i in alive], answer.values)
    _dropped("consecution", step_check.candidates, alive, values, answer.units)
    if strict:
        return _rejected(step_check.candidates, alive, values, "consecution", queries)
    return [i for i, ok in zip(alive, values, strict=True) if ok]


def _broken(
    step_check: Consecution,
    ranges: dict[str, Expr],
    alive: list[int],
    values: dict[str, Value],
    queries: int,
) -> Induction | None:
    """A step (``values``) from a state with the lemmas ``alive`` that leaves the domain
    (``DOMAIN``) or breaks ``P`` (``CTI``); None when it keeps both."""
    bv, candidates = step_check.bv, step_check.candidates
    domain_ok, holds_ok = evaluate_many(step_check.fixed_next, values)
    state = {n[len(bv.prefix) :]: v for n, v in values.items() if n in bv.sorts}
    if not domain_ok:
        names = list(ranges)
        outside = substitute([ranges[n] for n in names], step_check.after)
        inside = evaluate_many(outside, values)
        left = [n for n, ok in zip(names, inside, strict=True) if not ok]
        return Induction(
            InductionOutcome.DOMAIN,
            reason=f"a step leaves the boundary domain ({', '.join(left)} out of range)",
            cti=state,
            queries=queries,
        )
    if not holds_ok:
        kept = [candidates[i] for i in alive]
        return Induction(
            InductionOutcome.CTI,
            kept,
            len(candidates) - len(kept),
            state,
            cti_next=step_check.later(values),
            queries=queries,
        )
    return None


def _log_step(step_check: Consecution, step: SessionStep, values: dict[str, Value]) -> None:
    if log.isEnabledFor(logging.DEBUG):
        bv = step_check.bv
        log.debug("  from %s", {n[len(bv.prefix) :]: v for n, v in values.items() if n in bv.sorts})
        log.debug("  to %s", step_check.later(values))
        log.debug("  choices %s", {n: v for n, v in values.items() if n in step.choices})


def one_step(
    rules: RuleSet, variant: ConsumerVariant, prop: Property, bv: BoundaryVars
) -> tuple[SessionStep, Expr, dict[str, Expr]]:
    """One session from ``bv``'s state, ``P`` on its resume, and the domain's ranges."""
    step = SessionStep(bv.bounds, rules, variant, bv.prefix)
    holds_here = substitute([prop.holds(step.model.fields)], step.trace)[0]
    return step, holds_here, bv.domain(bv.state)


class Consecution:
    """The consecution queries over one solver: an arbitrary boundary state that satisfies
    the domain, ``P`` and a set of lemmas (given per query, by index into ``candidates``),
    one step, and what must hold after it."""

    TRACK = "h.lemma."  # a Boolean per lemma: asserted, it asserts the lemma before the step

    def __init__(
        self,
        bv: BoundaryVars,
        step: SessionStep,
        candidates: list[Lemma],
        domain: Expr,
        holds_here: Expr,
        budget: Budget,
        deadline: float | None,
    ) -> None:
        self.bv, self.candidates = bv, candidates
        self.after = {bv.prefix + n: e for n, e in step.after.fields().items()}
        self.nexts = substitute([c.formula for c in candidates], self.after)
        self.fixed_next = substitute([domain, holds_here], self.after)
        self.names = {**bv.sorts, **step.choices}
        self.session = Session(budget=budget, deadline=deadline)
        self.session.declare(
            self.names,
            {**bv.prefixed_ranges, **step.choice_ranges},
            [
                domain,
                holds_here,
                step.constraints,
                *self.nexts,
                *self.fixed_next,
                *(c.formula for c in candidates),
            ],
        )
        self.session.add(domain, holds_here, step.constraints)
        self._tracked = False

    def ask(self, alive: list[int]) -> SolverReply:
        """A step from a state satisfying the lemmas ``alive`` to one that breaks the
        domain, ``P`` or one of them (unsat: the invariant is inductive)."""
        here = all_of(*(self.candidates[i].formula for i in alive))
        there = ~all_of(*self.fixed_next, *(self.nexts[i] for i in alive))
        return self.session.check(here, there, want=self.names)

    def needed(self, alive: list[int], target: int | None) -> tuple[SolverReply, list[int]]:
        """Is lemma ``target`` (None: the domain and ``P``) true after every step from a
        state satisfying the lemmas ``alive``? Unsat: also the lemmas Z3's unsat core names
        (a subset of ``alive`` that is enough)."""
        if not self._tracked:
            self.session.add(
                *(
                    implies(var(f"{self.TRACK}{i}", BOOL), c.formula)
                    for i, c in enumerate(self.candidates)
                )
            )
            self._tracked = True
        goal = all_of(*self.fixed_next) if target is None else self.nexts[target]
        tracks = [var(f"{self.TRACK}{i}", BOOL) for i in alive]
        answer = self.session.check(~goal, *tracks, want=self.names)
        if answer.answer is not SolverAnswer.UNSAT:
            return answer, []
        core = [int(n[len(self.TRACK) :]) for n in self.session.core() if n.startswith(self.TRACK)]
        return answer, sorted(core)

    def later(self, values: dict[str, Value]) -> dict[str, Value]:
        """The boundary state after the step of a model (unprefixed names)."""
        fields = list(self.after)
        return dict(
            zip(
                (n[len(self.bv.prefix) :] for n in fields),
                evaluate_many([self.after[n] for n in fields], values),
                strict=True,
            )
        )


def _rejected(
    candidates: list[Lemma], alive: list[int], values: list[Value], phase: str, queries: int
) -> Induction:
    gone = [candidates[i].name for i, ok in zip(alive, values, strict=True) if not ok]
    return Induction(
        InductionOutcome.REJECTED,
        [candidates[i] for i in alive],
        reason=f"{phase} breaks {', '.join(gone)}",
        queries=queries,
    )


def _dropped(
    phase: str, candidates: list[Lemma], alive: list[int], values: list[Value], units: int
) -> None:
    if log.isEnabledFor(logging.DEBUG):
        gone = [candidates[i].name for i, ok in zip(alive, values, strict=True) if not ok]
        log.debug("%s: %.1fM units, drops %s", phase, units / 1e6, ", ".join(gone))
