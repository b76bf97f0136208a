"""The most readable model of a condition: Z3's Optimize over ``spec.expr`` expressions.

``Minimiser.solve(condition, soft=[(expr, weight), ...], minimise=[expr, ...])``
finds values satisfying every asserted expression and ``condition``, keeping
as many soft preferences as possible (heavier first), then making the sum of
``minimise`` as small as possible. Used to turn a coverage goal into a small,
readable regression vector. Like ``Session``, every call runs under a
``Budget``, stops on Ctrl-C, and an ``unknown`` stays unknown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import z3

from checker.symbolic.call import deferred_interrupts, run_check
from checker.symbolic.session import SolverAnswer, SolverReply, Solving, answer_of
from spec.expr import Expr

__all__ = ["Minimiser"]


class Minimiser(Solving):
    make = z3.Optimize

    @property
    def optimize(self) -> z3.Optimize:
        return self.engine

    def add(self, *exprs: Expr) -> None:
        with deferred_interrupts():
            for expr in exprs:
                self.optimize.add(self.translator.translate(expr))

    def solve(
        self,
        condition: Expr,
        soft: Sequence[tuple[Expr, int]] = (),
        minimise: Sequence[Expr] = (),
        want: Iterable[str] = (),
    ) -> SolverReply:
        t = self.translator
        opt = self.optimize
        with deferred_interrupts():
            opt.push()
        try:
            with deferred_interrupts():
                opt.add(t.translate(condition))
                for expr, weight in soft:
                    opt.add_soft(t.translate(expr), weight)
                if minimise:
                    opt.minimize(z3.Sum(*(t.translate(e) for e in minimise)))
                opt.add(*t.domain)
            call = run_check(opt, t.ctx, [], self.budget, self.deadline)
            answer = answer_of(call.result)
            if answer is not SolverAnswer.SAT:
                return SolverReply(answer, reason=call.reason, units=call.spent)
            with deferred_interrupts():
                model = opt.model()
                values = {n: t.value(model, n) for n in want if n in t.consts}
            return SolverReply(SolverAnswer.SAT, values, units=call.spent)
        finally:
            with deferred_interrupts():
                opt.pop()
