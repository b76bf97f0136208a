"""Mutation score: how many deliberate bugs a vector set catches.

Every mutant of a rule set (``spec.rules.mutations``) is replayed, in
process, on the inputs of every vector; it is *killed* when some vector gets
a different answer (decision or rollback seqno) from it than from the rule
set itself. A mutant no vector kills is handed to Z3: if no well-formed input
within ``DecisionSpace(T)`` tells it apart, it is *equivalent* (no vector set
can kill it); if one does, it *survived* and the most readable such input is
reported (the vector that would kill it); if Z3 cannot tell, it is *unknown*.
Kill rate = killed / (mutants - equivalent).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from checker.symbolic.budget import Budget
from checker.symbolic.optimise import Minimiser
from checker.symbolic.session import Answer as SolverAnswer
from checker.vectors.format import Answer, Vector
from checker.vectors.goals import differs
from checker.vectors.readable import humpty_expressible, preferences
from spec.expr import all_of
from spec.rules import Decider, DecisionSpace, RuleSet
from spec.rules.mutations import OPERATORS, Mutant, mutants
from spec.types import ProducerState, StreamRequest

__all__ = ["MutantVerdict", "Score", "score"]

VERDICTS = ("killed", "equivalent", "survived", "unknown")


@dataclass(frozen=True)
class MutantVerdict:
    mutant: Mutant
    verdict: str  # one of VERDICTS
    killer: str | None = None  # id of the first vector that kills it
    witness: tuple[StreamRequest, ProducerState] | None = None  # an input that would


@dataclass(frozen=True)
class Score:
    rules: str
    verdicts: tuple[MutantVerdict, ...]

    def count(self, verdict: str, operator: str | None = None) -> int:
        return sum(
            1
            for v in self.verdicts
            if v.verdict == verdict and (operator is None or v.mutant.operator == operator)
        )

    @property
    def killable(self) -> int:
        return len(self.verdicts) - self.count("equivalent")

    @property
    def kill_rate(self) -> float:
        return self.count("killed") / self.killable if self.killable else 1.0

    def by_operator(self) -> list[list[object]]:
        rows: list[list[object]] = []
        for operator in OPERATORS:
            total = sum(1 for v in self.verdicts if v.mutant.operator == operator)
            if total:
                rows.append([operator, total, *(self.count(k, operator) for k in VERDICTS)])
        return rows


def score(
    vectors: Sequence[Vector],
    rules: RuleSet,
    table_entries: int,
    timeout_s: float | None,
    humpty_only: bool = False,
    budget: int | None = None,
) -> Score:
    """``humpty_only``: what a humpty_dumpty target sees — only humpty-expressible vectors,
    and a mutant counts as equivalent when no humpty-expressible input tells it apart."""
    original = Decider(rules)
    if humpty_only:
        vectors = [v for v in vectors if v.request.humpty_expressible]
    inputs = [(v.id, v.request, v.producer) for v in vectors]
    expected = [Answer.of(original.decide(req, producer)) for _, req, producer in inputs]
    space = DecisionSpace(table_entries)
    minimiser: Minimiser | None = None
    soft, small = preferences(space)
    verdicts = []
    for mutant in mutants(rules):
        decider = Decider(mutant.rules)
        killer = next(
            (
                vid
                for (vid, req, producer), want in zip(inputs, expected, strict=True)
                if Answer.of(decider.decide(req, producer)) != want
            ),
            None,
        )
        if killer is not None:
            verdicts.append(MutantVerdict(mutant, "killed", killer))
            continue
        if minimiser is None:
            minimiser = Minimiser(timeout_s, seed=0, budget=Budget(budget))
            minimiser.add(space.well_formed())
        condition = differs(space.decision(rules), space.decision(mutant.rules))
        if humpty_only:
            condition = all_of(condition, humpty_expressible(space))
        outcome = minimiser.solve(condition, soft, small, want=list(space.sorts))
        if outcome.answer is SolverAnswer.UNSAT:
            verdicts.append(MutantVerdict(mutant, "equivalent"))
        elif outcome.answer is SolverAnswer.SAT:
            witness = space.decode(outcome.values)
            verdicts.append(MutantVerdict(mutant, "survived", witness=witness))
        else:
            verdicts.append(MutantVerdict(mutant, "unknown"))
    return Score(rules.name, tuple(verdicts))
