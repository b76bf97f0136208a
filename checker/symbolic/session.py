"""A solver session over ``spec.expr`` expressions: assert, check, read values.

``check`` answers ``SolverAnswer.SAT`` (with values for the variables asked for),
``SolverAnswer.UNSAT`` or ``SolverAnswer.UNKNOWN`` (with a reason: ``budget`` when the
session's resource budget ran out, ``timeout`` when the outer wall-clock
guard did, or Z3's own reason). Callers decide what an answer means (a
violation, a proof within bounds, an honest unknown); nothing here turns an
unknown into a proof. Every call runs under the session's ``Budget``
(``checker.symbolic.budget``) and stops promptly on Ctrl-C
(``checker.symbolic.call``): the same questions in the same order get the
same answers and spend the same units on any machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import z3

from checker.symbolic.budget import Budget
from checker.symbolic.call import deferred_interrupts, run_check
from checker.symbolic.ranges import Span, width_for
from checker.symbolic.z3expr import Translator
from checker.timing import deadline_after
from spec.errors import HarnessBug
from spec.expr import Expr, Sort, Value, var

__all__ = ["Session", "SolverAnswer", "SolverReply", "answer_of"]


class SolverAnswer(StrEnum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


@dataclass
class SolverReply:
    answer: SolverAnswer
    values: dict[str, Value] = field(default_factory=dict)
    reason: str = ""
    units: int = 0  # resource units this call spent


def answer_of(result: z3.CheckSatResult) -> SolverAnswer:
    if result == z3.sat:
        return SolverAnswer.SAT
    if result == z3.unsat:
        return SolverAnswer.UNSAT
    return SolverAnswer.UNKNOWN


class Solving:
    """What a Session and a Minimiser hold: a Z3 context of its own (the models Z3
    returns then do not depend on what else ran in this process, so the same question
    gets the same answer), a solver of kind ``make`` made in it, a ``Budget`` and a
    deadline."""

    make = z3.Solver

    def __init__(
        self,
        timeout_s: float | None = None,
        seed: int = 0,
        budget: Budget | None = None,
        deadline: float | None = None,
    ) -> None:
        with deferred_interrupts():
            self.translator = Translator(z3.Context())
            self.engine = self.make(ctx=self.translator.ctx)
            self.engine.set("random_seed", seed)
        self.seed = seed
        self.budget = budget if budget is not None else Budget()
        self.deadline = deadline if deadline is not None else deadline_after(timeout_s)


class Session(Solving):
    _domain_added = 0  # how many of the translator's range constraints the solver has
    _scopes: tuple[int, ...] = ()  # _domain_added at each push still open

    def declare(
        self,
        sorts: Mapping[str, Sort],
        ranges: Mapping[str, Span] | None = None,
        terms: Iterable[Expr] = (),
    ) -> None:
        """Create every variable up front, so a model gives each a value (free ones too).

        ``ranges``: the values each integer variable takes (what the caller's
        constraints imply; default all of uint64). With ranges, when every
        integer term of ``terms`` (the formulas the session will see) fits a
        few bits, the session solves over bit-vectors of that width. A later
        term that does not fit is a ``HarnessBug``, never a wrapped-around number.
        """
        if ranges is not None:
            names = [var(n, s) for n, s in sorts.items()]
            self.translator.ranges.update(ranges)
            self.translator.width = width_for([*terms, *(v == v for v in names)], ranges)
            if self.translator.width is not None:
                self._bit_vector_solver()
        with deferred_interrupts():
            for name, sort in sorts.items():
                self.translator.translate(var(name, sort))
            self._flush_domain()

    def _bit_vector_solver(self) -> None:
        """Z3's solver for bit-vector logic: it bit-blasts to its SAT solver in incremental
        use too (assumptions, push/pop), where the general solver falls back to its SMT
        core (3x the work on a minimisation at 24 seqnos; the same on a single proof)."""
        if self._domain_added or self._scopes:
            raise HarnessBug("declare() must come before anything is added to a session")
        with deferred_interrupts():
            self.engine = z3.SolverFor("QF_BV", ctx=self.translator.ctx)
            self.engine.set("random_seed", self.seed)

    @property
    def width(self) -> int | None:
        """The bit-vector width integers are solved in (None: Z3's unbounded integers)."""
        return self.translator.width

    def add(self, *exprs: Expr) -> None:
        with deferred_interrupts():
            for expr in exprs:
                self.engine.add(self.translator.translate(expr))
            self._flush_domain()

    def add_instance(self, expr: Expr, values: Mapping[str, Value]) -> None:
        """Assert ``expr`` with the variables in ``values`` fixed to those values.

        The same as ``add(substitute(expr, consts))`` but done by Z3 on the term
        translated once, which is much faster when one expression is asserted for
        many concrete inputs (a regression vector each).
        """
        with deferred_interrupts():
            self.engine.add(self.translator.instance(expr, values))
            self._flush_domain()

    def _flush_domain(self) -> None:
        domain = self.translator.domain
        if self._domain_added < len(domain):
            self.engine.add(*domain[self._domain_added :])
            self._domain_added = len(domain)

    def push(self) -> None:
        with deferred_interrupts():
            self._flush_domain()
            self._scopes = (*self._scopes, self._domain_added)
            self.engine.push()

    def pop(self) -> None:
        with deferred_interrupts():
            self.engine.pop()
        # Range constraints of constants first met inside the scope went with it;
        # the next flush adds them again.
        self._domain_added, self._scopes = self._scopes[-1], self._scopes[:-1]

    def check(self, *assumptions: Expr, want: Iterable[str] = ()) -> SolverReply:
        with deferred_interrupts():
            extra = [self.translator.translate(a) for a in assumptions]
            self._flush_domain()
        call = run_check(self.engine, self.translator.ctx, extra, self.budget, self.deadline)
        answer = answer_of(call.result)
        if answer is SolverAnswer.SAT:
            return SolverReply(SolverAnswer.SAT, self.values(want), units=call.spent)
        return SolverReply(answer, reason=call.reason, units=call.spent)

    def core(self) -> list[str]:
        """After an unsat ``check``: the names of the Boolean variables among its
        assumptions that Z3's unsat core names (a subset that is unsat already)."""
        with deferred_interrupts():  # by name: printing a non-variable assumption is slow
            core = self.engine.unsat_core()
            return [c.decl().name() for c in core if z3.is_const(c) and c.num_args() == 0]

    def values(self, names: Iterable[str]) -> dict[str, Value]:
        with deferred_interrupts():
            model = self.engine.model()
            t = self.translator
            return {n: t.value(model, n) for n in names if n in t.consts}
