"""A solver session over ``spec.expr`` expressions: assert, check, read values.

``check`` answers ``Answer.SAT`` (with values for the variables asked for),
``Answer.UNSAT`` or ``Answer.UNKNOWN`` (with Z3's reason: a timeout, a
resource limit, an incomplete theory). Callers decide what an answer means
(a violation, a proof within bounds, an honest unknown); nothing here turns
an unknown into a proof.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

import z3

from checker.symbolic.z3expr import Translator
from spec.expr import Expr, Sort, Value, var

__all__ = ["Answer", "Outcome", "Session"]


class Answer(StrEnum):
    SAT = "sat"
    UNSAT = "unsat"
    UNKNOWN = "unknown"


@dataclass
class Outcome:
    answer: Answer
    values: dict[str, Value] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0


class Session:
    def __init__(
        self, timeout_s: float | None = None, seed: int = 0, rlimit: int | None = None
    ) -> None:
        # A context of its own: the models Z3 returns then do not depend on what
        # else ran in this process, so counterexamples are reproducible.
        self.translator = Translator(z3.Context())
        self.solver = z3.Solver(ctx=self.translator.ctx)
        self.solver.set("random_seed", seed)
        # rlimit: Z3's deterministic resource budget per check (the same work gives up
        # at the same point whatever the machine's load; a wall-clock timeout does not).
        if rlimit is not None:
            self.solver.set("rlimit", rlimit)
        self._domain_added = 0
        self._scopes: list[int] = []
        self.timeout_s = timeout_s
        self.deadline = None if timeout_s is None else time.monotonic() + timeout_s

    def declare(self, sorts: Mapping[str, Sort]) -> None:
        """Create every variable up front, so a model gives each a value (free ones too)."""
        for name, sort in sorts.items():
            self.translator.translate(var(name, sort))
        self._flush_domain()

    def add(self, *exprs: Expr) -> None:
        for expr in exprs:
            self.solver.add(self.translator.translate(expr))
        self._flush_domain()

    def add_instance(self, expr: Expr, values: Mapping[str, Value]) -> None:
        """Assert ``expr`` with the variables in ``values`` fixed to those values.

        The same as ``add(substitute(expr, consts))`` but done by Z3 on the term
        translated once, which is much faster when one expression is asserted for
        many concrete inputs (a regression vector each).
        """
        self.solver.add(self.translator.instance(expr, values))
        self._flush_domain()

    def _flush_domain(self) -> None:
        domain = self.translator.domain
        if self._domain_added < len(domain):
            self.solver.add(*domain[self._domain_added :])
            self._domain_added = len(domain)

    def push(self) -> None:
        self._flush_domain()
        self._scopes.append(self._domain_added)
        self.solver.push()

    def pop(self) -> None:
        self.solver.pop()
        # Range constraints of constants first met inside the scope went with it;
        # the next flush adds them again.
        self._domain_added = self._scopes.pop()

    def remaining(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def check(self, *assumptions: Expr, want: Iterable[str] = ()) -> Outcome:
        self._flush_domain()
        remaining = self.remaining()
        if remaining is not None:
            if remaining <= 0:
                return Outcome(Answer.UNKNOWN, reason="timeout")
            self.solver.set("timeout", max(1, int(remaining * 1000)))
        extra = [self.translator.translate(a) for a in assumptions]
        self._flush_domain()
        started = time.perf_counter()
        result = self.solver.check(*extra)
        seconds = time.perf_counter() - started
        if result == z3.sat:
            model = self.solver.model()
            values = {
                name: self.translator.value(model, name)
                for name in want
                if name in self.translator.consts
            }
            return Outcome(Answer.SAT, values, seconds=seconds)
        if result == z3.unsat:
            return Outcome(Answer.UNSAT, seconds=seconds)
        reason = self.solver.reason_unknown()
        if reason in ("canceled", "timeout") or (remaining is not None and self.remaining() == 0):
            reason = "timeout"
        return Outcome(Answer.UNKNOWN, reason=reason, seconds=seconds)

    def values(self, names: Iterable[str]) -> dict[str, Value]:
        model = self.solver.model()
        return {n: self.translator.value(model, n) for n in names if n in self.translator.consts}
