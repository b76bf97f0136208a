"""What a vector set is guaranteed to expose, proved by Z3: every rule set one change away.

The class: ``Neighbourhood(rules)`` (``spec.rules.mutation.neighbourhood``), every rule
set that differs from ``rules`` by one change of the clause language — a
comparison of two seqno quantities replaced by any other, a returned quantity
by any other, a step dropped, moved or repeated, an adjustment retargeted, a
new clause on any comparison at any position, the other table scan.

The claim, per rule set and input space (``DecisionSpace``: tables of at most
T entries, uuids repeating or not; with ``humpty_only`` the inputs a
humpty_dumpty target can express and only the vectors it can run): *every
member of the class that answers some input of the space differently from
the rule set answers some vector differently too.* One Z3 query per *place*
(one change: its selectors free, the rest as in the rule set): a member of
the place, an input where it answers differently, and the same answers on
every vector; unsat is the proof for that place. Sat is a member the vectors
do not expose (``prove`` with ``add`` then adds a vector that does), unknown is unknown.

The answers compared are the producer's (ERANGE first, then the rule set):
decision and rollback seqno, not the case name or the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from checker.symbolic.budget import Budget
from checker.symbolic.optimise import Minimiser
from checker.symbolic.session import Session, SolverAnswer
from checker.vectors.goals import differs
from checker.vectors.readable import humpty_expressible, preferences
from spec.errors import HarnessBug
from spec.expr import INT, Expr, all_of, var
from spec.rules import Decider, DecisionSpace, RuleSet
from spec.rules.inputs import DecisionExprs, producer_decision
from spec.rules.language import ERANGE_CODE, ROLLBACK_CODE
from spec.rules.mutation.holes import Change
from spec.rules.mutation.neighbourhood import Neighbourhood
from spec.types import Outcome, ProducerState, StreamRequest

__all__ = [
    "CLASS",
    "Guarantee",
    "PlaceVerdict",
    "prove",
]

Input = tuple[StreamRequest, ProducerState]

# Members found before one vector is chosen to expose as many of them as it can.
BATCH = 16

CLASS = (
    "every rule set one change away from RULES in the clause language over the quantities "
    "0, start, snap_start, snap_end, purge_seqno, upper, entry_seqno, high_seqno, "
    "remote_purge, collection_high (as each step reads them) and the flags strict, "
    "uuid_found, has_collection_high: one comparison replaced by any relation between any "
    "two quantities (or true/false), one boolean negated, one clause returning another "
    "quantity or accepting, one adjustment setting another quantity or the other field, "
    "one step dropped, moved or (an adjustment) repeated, one new clause at any position "
    "guarded by one comparison or flag, or the failover table scanned the other way"
)


@dataclass(frozen=True)
class PlaceVerdict:
    """The proof (or not) for one place: ``proved``, ``survived`` or ``unknown``."""

    place: str
    verdict: str
    member: str = ""  # a member the vectors do not expose (survived)
    witness: Input | None = None  # an input that would expose it
    selection: dict[str, int] | None = None  # the member: Neighbourhood(rules).instance(this)


@dataclass(frozen=True)
class Guarantee:
    rules: str
    space: DecisionSpace
    humpty_only: bool
    members: int  # selector combinations, one change each (equal rule sets counted apart)
    verdicts: tuple[PlaceVerdict, ...]

    @property
    def holds(self) -> bool:
        return all(v.verdict == "proved" for v in self.verdicts)

    def count(self, verdict: str) -> int:
        return sum(1 for v in self.verdicts if v.verdict == verdict)

    @property
    def inputs(self) -> str:
        which = "humpty-expressible requests" if self.humpty_only else "stream requests"
        return f"{which} against producers with {self.space.describe()}"

    def statement(self) -> str:
        """The guarantee in one paragraph, as ``vectors score`` prints it."""
        places = len(self.verdicts)
        if self.holds:
            verdict = f"proved by Z3 at every one of the {places} places"
        elif self.count("unknown") and not self.count("survived"):
            verdict = (
                f"NOT PROVED: Z3 answered unknown at {self.count('unknown')} of {places} "
                "places (nothing is claimed there)"
            )
        else:
            verdict = f"DOES NOT HOLD at {self.count('survived')} of {places} places"
        which = "the humpty-expressible vectors" if self.humpty_only else "the vectors"
        return (
            f"guarantee for {self.rules}: every rule set in the class below that answers some "
            f"{self.inputs} differently from {self.rules} gets a different answer from "
            f"{which} too — {verdict}.\n"
            f"class: {CLASS.replace('RULES', self.rules)} ({self.members:,} choices of one "
            "change; some give equal rule sets)."
        )


class _Place:
    """One change of the neighbourhood, asked about in a shared session (push .. pop)."""

    def __init__(
        self,
        session: Session,
        hood: Neighbourhood,
        change: Change,
        space: DecisionSpace,
        reference: DecisionExprs,
    ) -> None:
        self.session, self.hood, self.change, self.space = session, hood, change, space
        decision = producer_decision(hood.only(change), hood.fields_for(change, space.fields))
        # The member's answer equals the rule set's, written once with the rule set's
        # answer as two variables that each vector fixes (with its inputs).
        self.same = all_of(decision.outcome == _EXPECTED_OUTCOME, decision.seqno == _EXPECTED_SEQNO)
        session.push()
        domain = [(h.var >= 0) & (h.var < h.size) for h in change.holes]
        session.add(*domain, change.changed(), differs(reference, decision))

    def close(self) -> None:
        self.session.pop()

    def agree(self, values: Mapping[str, int | bool], outcome: int, seqno: int) -> None:
        """The member answers the input ``values`` as the rule set does (``outcome``, ``seqno``)."""
        fixed = {**values, _EXPECTED_OUTCOME.var_name: outcome, _EXPECTED_SEQNO.var_name: seqno}
        self.session.add_instance(self.same, fixed)

    def survivor(self) -> dict[str, int] | str | None:
        """Selector values of a member no vector exposes; None if proved; "unknown"."""
        outcome = self.session.check(want=[h.name for h in self.change.holes])
        if outcome.answer is SolverAnswer.UNSAT:
            return None
        if outcome.answer is SolverAnswer.UNKNOWN:
            return "unknown"
        return {name: int(value) for name, value in outcome.values.items()}

    def block(self, selection: dict[str, int]) -> None:
        self.session.add(~all_of(*(h.var == selection[h.name] for h in self.change.holes)))


_EXPECTED_OUTCOME = var("expected.outcome", INT)
_EXPECTED_SEQNO = var("expected.seqno", INT)


def _answer_code(decider: Decider, req: StreamRequest, producer: ProducerState) -> tuple[int, int]:
    decision = decider.decide(req, producer)
    if decision.outcome is Outcome.ERANGE:
        return ERANGE_CODE, 0
    if decision.outcome is Outcome.ROLLBACK:
        return ROLLBACK_CODE, int(decision.rollback_seqno or 0)
    return 0, 0


def _usable(inputs: Sequence[Input], space: DecisionSpace, humpty_only: bool) -> list[Input]:
    return [
        (req, producer)
        for req, producer in inputs
        if len(producer.table) <= space.table_entries
        and (req.humpty_expressible or not humpty_only)
    ]


def members(hood: Neighbourhood) -> int:
    total = 0
    for change in hood.changes:
        combos = 1
        for hole in change.holes:
            combos *= hole.size
        total += combos - 1
    return total


def prove(
    inputs: Sequence[Input],
    rules: RuleSet,
    space: DecisionSpace,
    humpty_only: bool,
    budget: Budget,
    deadline: float | None = None,
    add: Callable[[StreamRequest, ProducerState, str], None] | None = None,
) -> Guarantee:
    """Check, place by place, that ``inputs`` expose every member of the neighbourhood.

    ``budget``: the Z3 resource units all its queries may spend (shared with the
    caller's); ``deadline`` (``time.monotonic()``): an outer wall-clock guard.

    ``add``: extend the inputs, adding (through ``add``) a vector for each batch of
    members not exposed. Each new vector is the most readable input that exposes as
    many members of the batch as it can (Z3's Optimize), so few are added.
    """
    hood = Neighbourhood(rules)
    reference = space.decision(rules)
    decider = Decider(rules)
    known = _usable(inputs, space, humpty_only)  # grows as vectors are added

    def added(req: StreamRequest, producer: ProducerState, origin: str) -> None:
        assert add is not None
        add(req, producer, origin)
        known.append((req, producer))

    session = Session(seed=0, budget=budget, deadline=deadline)
    session.declare(space.sorts)
    session.add(space.well_formed())
    if humpty_only:
        session.add(humpty_expressible(space))
    exposer = _Exposer(space, reference, humpty_only, budget, deadline)
    verdicts = []
    for change in hood.changes:
        place = _Place(session, hood, change, space, reference)
        for req, producer in known:
            place.agree(space.assignment(req, producer), *_answer_code(decider, req, producer))
        label = f"{change.operator} at '{change.step}'"
        adding = None if add is None else added
        verdicts.append(_settle(place, label, rules, decider, exposer, adding))
        place.close()
    return Guarantee(rules.name, space, humpty_only, members(hood), tuple(verdicts))


def _settle(
    place: _Place,
    label: str,
    rules: RuleSet,
    decider: Decider,
    exposer: _Exposer,
    add: Callable[[StreamRequest, ProducerState, str], None] | None,
) -> PlaceVerdict:
    """Prove one place, adding vectors while ``add`` is given."""
    while True:
        found = place.survivor()
        if found is None:
            return PlaceVerdict(label, "proved")
        if found == "unknown":
            return PlaceVerdict(label, "unknown")
        assert isinstance(found, dict)
        batch = [found]
        if add is not None:
            place.session.push()
            while len(batch) < BATCH:
                place.block(batch[-1])
                more = place.survivor()
                if not isinstance(more, dict):
                    break
                batch.append(more)
            place.session.pop()
        members = [place.hood.instance(s, rules.name, summary="") for s in batch]
        witness = exposer.expose(members)
        if witness is None:
            return PlaceVerdict(label, "unknown", place.hood.describe(batch[0]))
        req, producer = witness
        expected = _answer_code(decider, req, producer)
        if _answer_code(Decider(members[0]), req, producer) == expected:
            raise HarnessBug(
                f"Z3 says '{place.hood.describe(batch[0])}' answers {req} differently from "
                f"{rules.name}, but the rule set it stands for does not"
            )
        if add is None:
            member = place.hood.describe(batch[0])
            return PlaceVerdict(label, "survived", member, witness, batch[0])
        add(req, producer, f"{rules.name}:expose:{label}")
        place.agree(place.space.assignment(req, producer), *expected)


class _Exposer:
    """Finds readable inputs that expose members; one Optimize for a whole run."""

    def __init__(
        self,
        space: DecisionSpace,
        reference: DecisionExprs,
        humpty_only: bool,
        budget: Budget,
        deadline: float | None,
    ) -> None:
        self.space, self.reference = space, reference
        self.humpty_only = humpty_only
        self.budget, self.deadline = budget, deadline
        self.soft, self.small = preferences(space)
        self._minimiser: Minimiser | None = None

    def expose(self, batch: Sequence[RuleSet]) -> Input | None:
        """The most readable input on which the first member (and as many others as can
        be) answers differently from the rule set."""
        if self._minimiser is None:
            self._minimiser = Minimiser(seed=0, budget=self.budget, deadline=self.deadline)
            self._minimiser.add(self.space.well_formed())
            if self.humpty_only:
                self._minimiser.add(humpty_expressible(self.space))
        space = self.space
        kills: list[Expr] = [differs(self.reference, space.decision(m)) for m in batch]
        soft = [(k, 10_000) for k in kills[1:]] + self.soft
        outcome = self._minimiser.solve(kills[0], soft, self.small, want=list(space.sorts))
        if outcome.answer is not SolverAnswer.SAT:
            return None
        return space.decode(outcome.values)
