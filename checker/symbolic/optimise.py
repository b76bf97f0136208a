"""The most readable model of a condition: Z3's Optimize over ``spec.expr`` expressions.

``Minimiser.solve(condition, soft=[(expr, weight), ...], minimise=[expr, ...])``
finds values satisfying every asserted expression and ``condition``, keeping
as many soft preferences as possible (heavier first), then making the sum of
``minimise`` as small as possible. Used to turn a coverage goal into a small,
readable regression vector. Like ``Session``, an ``unknown`` stays unknown.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

import z3

from checker.symbolic.session import Answer, Outcome
from checker.symbolic.z3expr import Translator
from spec.expr import Expr

__all__ = ["Minimiser"]


class Minimiser:
    def __init__(
        self, timeout_s: float | None = None, seed: int = 0, rlimit: int | None = None
    ) -> None:
        # A context of its own: terms other solvers created in the process would
        # change Z3's choices, and the same question must get the same model.
        self.translator = Translator(z3.Context())
        self.optimize = z3.Optimize(ctx=self.translator.ctx)
        self.optimize.set("random_seed", seed)
        if rlimit is not None:  # deterministic, unlike the timeout (see Session)
            self.optimize.set("rlimit", rlimit)
        self.deadline = None if timeout_s is None else time.monotonic() + timeout_s

    def add(self, *exprs: Expr) -> None:
        for expr in exprs:
            self.optimize.add(self.translator.translate(expr))

    def solve(
        self,
        condition: Expr,
        soft: Sequence[tuple[Expr, int]] = (),
        minimise: Sequence[Expr] = (),
        want: Iterable[str] = (),
    ) -> Outcome:
        t = self.translator
        opt = self.optimize
        opt.push()
        try:
            opt.add(t.translate(condition))
            for expr, weight in soft:
                opt.add_soft(t.translate(expr), weight)
            if minimise:
                opt.minimize(z3.Sum(*(t.translate(e) for e in minimise)))
            opt.add(*t.domain)
            if self.deadline is not None:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0:
                    return Outcome(Answer.UNKNOWN, reason="timeout")
                opt.set("timeout", max(1, int(remaining * 1000)))
            started = time.perf_counter()
            result = opt.check()
            seconds = time.perf_counter() - started
            if result == z3.sat:
                model = opt.model()
                values = {n: t.value(model, n) for n in want if n in t.consts}
                return Outcome(Answer.SAT, values, seconds=seconds)
            if result == z3.unsat:
                return Outcome(Answer.UNSAT, seconds=seconds)
            return Outcome(Answer.UNKNOWN, reason=opt.reason_unknown(), seconds=seconds)
        finally:
            opt.pop()
