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

from checker.symbolic.budget import Budget
from checker.symbolic.call import held_interrupts, run_check
from checker.symbolic.session import Answer, Outcome, answer_of
from checker.symbolic.z3expr import Translator
from checker.timing import deadline_after
from spec.expr import Expr

__all__ = ["Minimiser"]


class Minimiser:
    def __init__(
        self,
        timeout_s: float | None = None,
        seed: int = 0,
        budget: Budget | None = None,
        deadline: float | None = None,
    ) -> None:
        # A context of its own: terms other solvers created in the process would
        # change Z3's choices, and the same question must get the same model.
        with held_interrupts():
            self.translator = Translator(z3.Context())
            self.optimize = z3.Optimize(ctx=self.translator.ctx)
            self.optimize.set("random_seed", seed)
        self.budget = budget if budget is not None else Budget()
        self.deadline = deadline if deadline is not None else deadline_after(timeout_s)

    def add(self, *exprs: Expr) -> None:
        with held_interrupts():
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
        with held_interrupts():
            opt.push()
        try:
            with held_interrupts():
                opt.add(t.translate(condition))
                for expr, weight in soft:
                    opt.add_soft(t.translate(expr), weight)
                if minimise:
                    opt.minimize(z3.Sum(*(t.translate(e) for e in minimise)))
                opt.add(*t.domain)
            call = run_check(opt, t.ctx, [], self.budget, self.deadline)
            answer = answer_of(call.result)
            if answer is not Answer.SAT:
                return Outcome(answer, reason=call.reason, units=call.spent)
            with held_interrupts():
                model = opt.model()
                values = {n: t.value(model, n) for n in want if n in t.consts}
            return Outcome(Answer.SAT, values, units=call.spent)
        finally:
            with held_interrupts():
                opt.pop()
