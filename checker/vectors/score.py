"""Mutation score: how many deliberate bugs a vector set catches.

Every mutant of a rule set (``spec.rules.mutation.operators``) is replayed, in
process, on the inputs of every vector; it is *killed* when some vector gets
a different answer (decision or rollback seqno) from it than from the rule
set itself. A mutant no vector kills is handed to Z3
(``checker.vectors.equivalence``): if no well-formed input of the decision
space tells it apart, it is *equivalent* (no vector set can kill it); if one
does, it *survived* and the most readable such input is reported (the vector
that would kill it); if Z3 cannot tell, it is *unknown*. Kill rate = killed /
(mutants - equivalent).

Z3 is asked with and without repeated uuids: a mutant that differs from the
rule set only on tables repeating a uuid is flagged (``repeated_uuids``); in
a space of distinct uuids it is equivalent, in the default space it must be
killed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from checker.symbolic.budget import Budget
from checker.vectors.equivalence import Equivalence
from checker.vectors.format import Vector
from spec.rules import DecisionSpace, RuleSet
from spec.rules.inputs import answers
from spec.rules.mutation.operators import OPERATORS, Mutant, mutants
from spec.types import ProducerState, StreamRequest

__all__ = ["VERDICTS", "WITNESSES", "MutantVerdict", "Score", "score"]

VERDICTS = ("killed", "equivalent", "survived", "unknown")
WITNESSES = 20  # survivors shown with the input that would kill them (each is a Z3 Optimize)


@dataclass(frozen=True)
class MutantVerdict:
    mutant: Mutant
    verdict: str  # one of VERDICTS
    killer: str | None = None  # id of the first vector that kills it
    witness: tuple[StreamRequest, ProducerState] | None = None  # an input that would
    repeated_uuids: bool = False  # it differs only on tables that repeat a uuid


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

    @property
    def repeated_uuids(self) -> list[MutantVerdict]:
        return [v for v in self.verdicts if v.repeated_uuids]

    def by_operator(self) -> list[list[object]]:
        rows: list[list[object]] = []
        for operator in OPERATORS:
            total = sum(1 for v in self.verdicts if v.mutant.operator == operator)
            if total:
                rows.append([operator, total, *(self.count(k, operator) for k in VERDICTS)])
        return rows


def _repeats_uuid(producer: ProducerState) -> bool:
    uuids = producer.table.uuids
    return len(set(uuids)) < len(uuids)


def score(
    vectors: Sequence[Vector],
    rules: RuleSet,
    space: DecisionSpace,
    budget: Budget,
    deadline: float | None = None,
    humpty_only: bool = False,
    witnesses: int = WITNESSES,
) -> Score:
    """``humpty_only``: what a humpty_dumpty target sees — only humpty-expressible vectors,
    and a mutant counts as equivalent when no humpty-expressible input tells it apart.
    ``space.distinct_uuids``: a mutant that differs only on tables repeating a uuid counts
    as equivalent. The first ``witnesses`` survivors get the input that would kill them.
    ``budget``: the Z3 resource units every proof together may spend (shared with the
    caller's); ``deadline`` (``time.monotonic()``): an outer wall-clock guard."""
    if humpty_only:
        vectors = [v for v in vectors if v.request.humpty_expressible]
    # One assignment per vector, in a space long enough for every table.
    longest = max([space.table_entries, *(len(v.producer.table) for v in vectors)])
    replay_space = DecisionSpace(longest)
    envs = [replay_space.assignment(v.request, v.producer) for v in vectors]
    expected = answers(rules, replay_space, envs)
    equivalence = Equivalence(rules, space.table_entries, humpty_only, budget, deadline)
    repeats_allowed = not space.distinct_uuids
    verdicts = []
    for mutant in mutants(rules):
        got = answers(mutant.rules, replay_space, envs)
        killers = [v for v, a, b in zip(vectors, expected, got, strict=True) if a != b]
        if killers:
            repeated = all(_repeats_uuid(v.producer) for v in killers) and (
                equivalence.check(mutant.rules).kind == "repeated-uuids"
            )
            verdicts.append(MutantVerdict(mutant, "killed", killers[0].id, None, repeated))
            continue
        kind = equivalence.check(mutant.rules).kind
        repeated = kind == "repeated-uuids"
        if kind == "equivalent" or (repeated and not repeats_allowed):
            verdicts.append(MutantVerdict(mutant, "equivalent", repeated_uuids=repeated))
        elif kind in ("repeated-uuids", "differs"):
            survivors = sum(1 for v in verdicts if v.verdict == "survived")
            witness = None
            if survivors < witnesses:
                witness = equivalence.witness(mutant.rules, repeats_allowed)
            verdicts.append(MutantVerdict(mutant, "survived", None, witness, repeated))
        else:
            verdicts.append(MutantVerdict(mutant, "unknown"))
    return Score(rules.name, tuple(verdicts))
