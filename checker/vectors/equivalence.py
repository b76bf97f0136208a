"""Is a mutant equivalent to its rule set? Z3, with and without repeated uuids.

``Equivalence(rules, table_entries, humpty_only, budget, deadline)`` answers, for a
mutant, whether some well-formed input tells it apart from the rule set, in
the decision space where tables may repeat a uuid and in the one where they
may not (``DecisionSpace.distinct_uuids``):

* ``equivalent``: no input in either space (the mutant cannot be killed);
* ``repeated-uuids``: only inputs whose table repeats a uuid tell it apart
  (equivalent if uuids are assumed distinct, as kv_engine's own tables are);
* ``differs``: an input with distinct uuids tells it apart;
* ``unknown``: Z3 gave up (never reported as equivalent).

With ``humpty_only`` the inputs are those a humpty_dumpty target can express.
Deciding uses a plain solver session per space (most mutants asked about are
equivalent: unsat is all there is to learn); ``witness`` then finds the most
readable input that tells a mutant apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.symbolic.budget import Budget
from checker.symbolic.optimise import Minimiser
from checker.symbolic.session import Session, SolverAnswer
from checker.vectors.goals import differs
from checker.vectors.readable import humpty_expressible, preferences
from spec.rules import DecisionSpace, RuleSet
from spec.types import ProducerState, StreamRequest

__all__ = ["Equivalence", "EquivalenceVerdict"]


@dataclass(frozen=True)
class EquivalenceVerdict:
    kind: str  # equivalent | repeated-uuids | differs | unknown


class Equivalence:
    def __init__(
        self,
        rules: RuleSet,
        table_entries: int,
        humpty_only: bool,
        budget: Budget,
        deadline: float | None = None,
    ) -> None:
        """``budget`` (Z3 resource units) is shared with the caller's other queries;
        ``deadline`` (``time.monotonic()``) is an outer wall-clock guard."""
        self.rules = rules
        self.humpty_only = humpty_only
        self.budget, self.deadline = budget, deadline
        self.spaces = {
            repeat: DecisionSpace(table_entries, distinct_uuids=not repeat)
            for repeat in (True, False)
        }
        self._sessions: dict[bool, Session] = {}
        self._minimisers: dict[bool, Minimiser] = {}

    def _session(self, repeat: bool) -> Session:
        """Decides whether an input exists (the witness, if wanted, is made readable apart)."""
        if repeat not in self._sessions:
            session = Session(seed=0, budget=self.budget, deadline=self.deadline)
            space = self.spaces[repeat]
            session.add(space.well_formed())
            if self.humpty_only:
                session.add(humpty_expressible(space))
            self._sessions[repeat] = session
        return self._sessions[repeat]

    def _differs(self, mutant: RuleSet, repeat: bool) -> str:
        space = self.spaces[repeat]
        condition = differs(space.decision(self.rules), space.decision(mutant))
        return self._session(repeat).check(condition).answer.value

    def witness(
        self, mutant: RuleSet, repeated_uuids_allowed: bool = True
    ) -> tuple[StreamRequest, ProducerState] | None:
        """The most readable input telling ``mutant`` apart (None if there is none, or if
        Z3 gave up)."""
        space = self.spaces[repeated_uuids_allowed]
        if repeated_uuids_allowed not in self._minimisers:
            minimiser = Minimiser(seed=0, budget=self.budget, deadline=self.deadline)
            minimiser.add(space.well_formed())
            if self.humpty_only:
                minimiser.add(humpty_expressible(space))
            self._minimisers[repeated_uuids_allowed] = minimiser
        minimiser = self._minimisers[repeated_uuids_allowed]
        condition = differs(space.decision(self.rules), space.decision(mutant))
        soft, small = preferences(space)
        outcome = minimiser.solve(condition, soft, small, want=list(space.sorts))
        return space.decode(outcome.values) if outcome.answer is SolverAnswer.SAT else None

    def check(self, mutant: RuleSet) -> EquivalenceVerdict:
        """The mutant's verdict (see the module docstring); no witness."""
        with_repeats = self._differs(mutant, repeat=True)
        if with_repeats == "unknown":
            return EquivalenceVerdict("unknown")
        if with_repeats == "unsat":
            return EquivalenceVerdict("equivalent")
        distinct = self._differs(mutant, repeat=False)
        if distinct == "unknown":
            return EquivalenceVerdict("unknown")
        return EquivalenceVerdict("repeated-uuids" if distinct == "unsat" else "differs")
