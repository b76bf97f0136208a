"""Z3-driven generation of a small regression-vector set, in three phases.

Encode, solve, decode: each goal (``checker.vectors.goals``) is a condition
over ``DecisionSpace(T)``; Z3 finds inputs for it under ``well_formed()``,
with readable values: Z3's Optimize keeps as many preferences as the goal
allows (``checker.vectors.readable``) and then makes the seqnos as small as
it can. A goal an earlier vector already covers costs no query.

1. Coverage: every goal (and every confirmed counterexample decision); a
   greedy set cover keeps few vectors, humpty_dumpty-expressible ones
   wherever one will do.
2. The guarantee (``checker.vectors.guarantee``): vectors are added until
   Z3 proves that every rule set one change away from each rule set that
   answers some input differently answers some vector differently, first
   through humpty-expressible inputs, then through all.
3. Mutants: every built-in mutant (``spec.rules.mutation.operators``) no vector
   kills gets a goal of its own (its decision differs from the rule set's,
   through humpty if it can); an unsatisfiable one is an equivalent mutant.
   A last set cover adds few vectors for the kill goals.

The same arguments give the same vectors: goals and places are solved in a
fixed order with a fixed solver seed, all queries together bounded by one
budget of Z3's deterministic resource units (``--budget``), and nothing
depends on time or hash order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from checker.symbolic.budget import MILLION, Budget
from checker.symbolic.optimise import Minimiser
from checker.symbolic.session import Session, SolverAnswer, SolverReply
from checker.timing import deadline_after
from checker.vectors.counterexamples import CounterexampleDecision
from checker.vectors.equivalence import Equivalence
from checker.vectors.format import Answer, Corpus, ExpectedAnswer, Vector, vector_id
from checker.vectors.goals import Goal, coverage_goals, kill_goal, producer_goals
from checker.vectors.guarantee import prove
from checker.vectors.readable import humpty_expressible, preferences
from spec.errors import HarnessBug, SolverUnknown
from spec.expr import TRUE, Compiled, Expr, Value, all_of
from spec.rules import Decider, DecisionSpace, RuleSet
from spec.rules.breaks import property_at_stake
from spec.rules.inputs import answers
from spec.rules.mutation.operators import mutants
from spec.types import Outcome, ProducerState, StreamRequest

__all__ = ["VECTORS_BUDGET", "expectations", "generate"]

# Z3 resource units for a whole generation (or a score) unless told otherwise.
VECTORS_BUDGET = 4_000 * MILLION


@dataclass
class Candidate:
    request: StreamRequest
    producer: ProducerState
    origin: str
    env: dict[str, Value] | None  # None: the table is larger than the decision space


@dataclass
class Pool:
    """Candidate vectors in creation order; identical inputs are kept once."""

    space: DecisionSpace
    items: list[Candidate] = field(default_factory=list)
    # Per condition asked about (by identity, the condition kept): its program and its
    # value on each item so far. The coverage phase asks about each goal's condition
    # several times, and the pool only grows.
    _truths: dict[int, tuple[Expr, Compiled, list[bool]]] = field(default_factory=dict)

    def add(self, req: StreamRequest, producer: ProducerState, origin: str) -> int:
        for index, item in enumerate(self.items):
            if item.request == req and item.producer == producer:
                return index
        env = None
        if len(producer.table) <= self.space.table_entries:
            env = self.space.assignment(req, producer)
        self.items.append(Candidate(req, producer, origin, env))
        return len(self.items) - 1

    def satisfying(self, condition: Expr, humpty_only: bool = False) -> list[int]:
        known = self._truths.get(id(condition))
        if known is None or known[0] is not condition:
            known = (condition, Compiled([condition]), [])
            self._truths[id(condition)] = known
        _, program, truths = known
        for item in self.items[len(truths) :]:
            truths.append(item.env is not None and bool(program(item.env)[0]))
        return [
            i
            for i, (item, holds) in enumerate(zip(self.items, truths, strict=True))
            if holds and (item.request.humpty_expressible or not humpty_only)
        ]


class Solver:
    """One Z3 session for a whole run: goals in order, each decoded into a candidate."""

    def __init__(
        self, space: DecisionSpace, pool: Pool, timeout_s: float | None, budget: Budget
    ) -> None:
        self.space = space
        self.pool = pool
        # One budget and one deadline for every solver of the run (the later phases' too).
        self.budget = budget
        self.deadline = deadline_after(timeout_s)
        self.session = Session(seed=0, budget=budget, deadline=self.deadline)
        self.session.add(space.well_formed())
        self.minimiser = Minimiser(seed=0, budget=budget, deadline=self.deadline)
        self.minimiser.add(space.well_formed())
        self.soft, self.small = preferences(space)
        self.humpty = humpty_expressible(space)
        self.names = list(space.sorts)

    def _check(self, condition: Expr) -> bool:
        return self._answer(self.session.check(condition)) is not None

    def _answer(self, outcome: SolverReply) -> dict[str, Any] | None:
        if outcome.answer is SolverAnswer.UNKNOWN:
            raise SolverUnknown(
                f"Z3 answered unknown ({outcome.reason}) while generating vectors; "
                "raise --budget (or --timeout) or lower --table-entries"
            )
        return outcome.values if outcome.answer is SolverAnswer.SAT else None

    def _solve(self, condition: Expr, origin: str) -> None:
        outcome = self.minimiser.solve(condition, self.soft, self.small, want=self.names)
        values = self._answer(outcome)
        if values is None:
            raise HarnessBug(f"goal {origin}: satisfiable for Session, unsatisfiable for Optimize")
        req, producer = self.space.decode(values)
        self.pool.add(req, producer, origin)

    def cover(self, goal: Goal) -> Expr | None:
        """Make sure a candidate covers ``goal``: its effective condition, None if unreachable.

        The effective condition is ``required`` and ``preferred`` if they can
        hold together, else ``required``. A humpty-expressible candidate is
        found (or made) for it whenever one can exist.
        """
        levels = (
            [goal.required]
            if goal.preferred is TRUE
            else [
                all_of(goal.required, goal.preferred),
                goal.required,
            ]
        )
        for condition in levels:
            if self.pool.satisfying(condition, humpty_only=True):
                return condition
            if self._check(all_of(condition, self.humpty)):
                self._solve(condition, goal.name)  # the humpty preference outweighs the rest
                return condition
            if self.pool.satisfying(condition):
                return condition
            if self._check(condition):
                self._solve(condition, goal.name)
                return condition
        return None


def expectations(
    rules: Sequence[RuleSet],
) -> Callable[[StreamRequest, ProducerState], dict[str, Any]]:
    deciders = [Decider(r) for r in rules]

    def expect(req: StreamRequest, producer: ProducerState) -> dict[str, ExpectedAnswer]:
        result = {}
        for decider in deciders:
            decision = decider.decide(req, producer)
            inner, inner_case = None, None
            if decision.outcome is Outcome.ERANGE:
                alone = decider.needs_rollback(req, producer)
                inner, inner_case = Answer.of(alone), alone.case
            result[decider.rules.name] = ExpectedAnswer(
                Answer.of(decision),
                decision.case,
                property_at_stake(decision.case, decision.outcome),
                inner,
                inner_case,
            )
        return result

    return expect


class Kills:
    """Which candidates tell a rule set's mutants apart from it (its answers kept as the
    pool grows). Candidates in the decision space are run through one compiled program
    per mutant; the few with a longer table (a counterexample's) through ``Decider``."""

    def __init__(self, rules: RuleSet, pool: Pool) -> None:
        self.rules, self.pool = rules, pool
        self.expected: list[tuple[int, int] | Answer] = []

    def _answers(
        self, rules: RuleSet, items: Sequence[Candidate]
    ) -> list[tuple[int, int] | Answer]:
        inside = [item.env for item in items if item.env is not None]
        fast = iter(answers(rules, self.pool.space, inside))
        decider = None if len(inside) == len(items) else Decider(rules)
        out: list[tuple[int, int] | Answer] = []
        for item in items:
            if item.env is not None:
                out.append(next(fast))
            else:
                assert decider is not None
                out.append(Answer.of(decider.decide(item.request, item.producer)))
        return out

    def of(self, mutant: RuleSet) -> set[int]:
        """The candidates on which ``mutant`` answers otherwise than the rule set."""
        items = self.pool.items
        if len(self.expected) < len(items):
            self.expected += self._answers(self.rules, items[len(self.expected) :])
        got = self._answers(mutant, items)
        return {i for i, (a, b) in enumerate(zip(self.expected, got, strict=True)) if a != b}


def _cover_greedily(sets: dict[str, set[int]], allowed: set[int]) -> list[int]:
    """Few ``allowed`` candidates (greedy; ties to the earliest) hitting every set they can."""
    pending = {name: members & allowed for name, members in sets.items() if members & allowed}
    chosen: list[int] = []
    while pending:
        counts: dict[int, int] = {}
        for members in pending.values():
            for i in members:
                counts[i] = counts.get(i, 0) + 1
        best = min(counts, key=lambda i: (-counts[i], i))
        chosen.append(best)
        pending = {name: m for name, m in pending.items() if best not in m}
    return chosen


def _select(sets: dict[str, set[int]], pool: Pool, chosen: set[int]) -> set[int]:
    """``chosen`` and few more: humpty-expressible vectors first for every goal one of them
    covers, then the rest.

    So a humpty_dumpty target, which skips the others, still meets every goal
    it can express.
    """
    humpty = {i for i, item in enumerate(pool.items) if item.request.humpty_expressible}
    open_sets = {name: m for name, m in sets.items() if not m & chosen & humpty}
    picked = set(_cover_greedily(open_sets, humpty))
    rest = {name: m for name, m in sets.items() if not m & (chosen | picked)}
    picked |= set(_cover_greedily(rest, set(range(len(pool.items)))))
    return chosen | picked


@dataclass
class Mutants:
    """The built-in mutants' kill sets over the pool, and the equivalent ones."""

    killable: dict[str, set[int]] = field(default_factory=dict)  # goal name -> killers
    equivalent: dict[str, tuple[str, ...]] = field(default_factory=dict)
    repeated_uuids: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _mutants(rule_sets: Sequence[RuleSet], solver: Solver, pool: Pool) -> Mutants:
    """Kill every built-in mutant that can be killed, through humpty wherever possible.

    A mutant no humpty-expressible candidate kills gets a goal of its own
    (``Solver.cover`` makes a humpty-expressible vector for it if one can
    exist); an unsatisfiable goal is an equivalent mutant. Mutants whose every
    killer repeats a uuid are asked again with distinct uuids: if none then
    kills them, they differ only on such tables.
    """
    space = pool.space
    found = Mutants()
    for rules in rule_sets:
        same, repeated = [], []
        check = Equivalence(rules, space.table_entries, False, solver.budget, solver.deadline)
        kills_of = Kills(rules, pool)
        for mutant in mutants(rules):
            kills = kills_of.of(mutant.rules)
            if not any(pool.items[i].request.humpty_expressible for i in kills):
                goal = kill_goal(space, rules, mutant.id, mutant.rules)
                if solver.cover(goal) is None:
                    if space.distinct_uuids and check.check(mutant.rules).kind != "equivalent":
                        repeated.append(mutant.id)
                    same.append(mutant.id)
                    continue
                kills = kills_of.of(mutant.rules)
            found.killable[f"{rules.name}:kill:{mutant.id}"] = kills
            if not space.distinct_uuids and all(
                _repeats_uuid(pool.items[i].producer) for i in kills
            ):
                verdict = check.check(mutant.rules)
                if verdict.kind == "unknown":
                    raise SolverUnknown(
                        f"Z3 answered unknown on mutant {mutant.id} with distinct uuids; "
                        "raise --budget (or --timeout)"
                    )
                if verdict.kind == "repeated-uuids":
                    repeated.append(mutant.id)
        found.equivalent[rules.name] = tuple(same)
        found.repeated_uuids[rules.name] = tuple(repeated)
    return found


def _repeats_uuid(producer: ProducerState) -> bool:
    uuids = producer.table.uuids
    return len(set(uuids)) < len(uuids)


def _guarantee(
    rule_sets: Sequence[RuleSet], solver: Solver, pool: Pool, chosen: set[int]
) -> dict[str, dict[str, str]]:
    """Add vectors until every rule set one change away is exposed (humpty inputs first)."""
    verdicts: dict[str, dict[str, str]] = {r.name: {} for r in rule_sets}

    def add(req: StreamRequest, producer: ProducerState, origin: str) -> None:
        chosen.add(pool.add(req, producer, origin))

    for humpty_only in (True, False):
        for rules in rule_sets:
            inputs = [(pool.items[i].request, pool.items[i].producer) for i in sorted(chosen)]
            result = prove(
                inputs, rules, pool.space, humpty_only, solver.budget, solver.deadline, add
            )
            if result.count("unknown"):
                raise SolverUnknown(
                    f"Z3 answered unknown while proving what the vectors expose of "
                    f"{rules.name}'s neighbourhood; raise --budget (or --timeout) or lower "
                    "--table-entries"
                )
            verdicts[rules.name]["humpty" if humpty_only else "all"] = (
                "proved" if result.holds else "survived"
            )
    return verdicts


def generate(
    rule_sets: Sequence[RuleSet],
    space: DecisionSpace,
    counterexamples: Sequence[CounterexampleDecision],
    timeout_s: float | None,
    command: str,
    budget: int | None = VECTORS_BUDGET,
    guarantee: bool = True,
) -> Corpus:
    """The vector set for ``rule_sets`` over ``space`` (see the module docstring).

    ``budget``: Z3 resource units for the whole generation, every phase
    together (None: no limit); ``timeout_s``: an outer wall-clock guard.
    ``guarantee``: add vectors until every rule set one change away from each
    rule set is exposed (``checker.vectors.guarantee``); without it, only the
    goals and the built-in mutants are covered.
    """
    pool = Pool(space)
    solver = Solver(space, pool, timeout_s, Budget(budget))
    sets: dict[str, set[int]] = {}
    for cx in counterexamples:
        sets[cx.goal] = {pool.add(cx.request, cx.producer, cx.goal)}
    goals = producer_goals(space)
    for rules in rule_sets:
        goals.extend(coverage_goals(space, rules))
    effective: dict[str, Expr] = {}
    unreachable: list[str] = []
    for goal in goals:
        condition = solver.cover(goal)
        if condition is None:
            unreachable.append(goal.name)
        else:
            effective[goal.name] = condition
    for name, condition in effective.items():
        sets[name] = set(pool.satisfying(condition))
    chosen = _select(sets, pool, set())
    verdicts = _guarantee(rule_sets, solver, pool, chosen) if guarantee else {}
    found = _mutants(rule_sets, solver, pool)
    for name, condition in effective.items():
        sets[name] = set(pool.satisfying(condition))  # the pool has grown
    chosen = _select({**sets, **found.killable}, pool, chosen)
    expect = expectations(rule_sets)
    coverage = [n for n in sets if ":kill:" not in n]
    vectors = []
    for index in sorted(chosen):
        item = pool.items[index]
        vectors.append(
            Vector(
                id=vector_id(item.request, item.producer),
                origin=item.origin,
                request=item.request,
                producer=item.producer,
                expected=expect(item.request, item.producer),
                covers=tuple(n for n in coverage if index in sets[n]),
            )
        )
    return Corpus(
        rules=tuple(r.name for r in rule_sets),
        table_entries=space.table_entries,
        command=command,
        vectors=tuple(vectors),
        unreachable=tuple(unreachable),
        equivalent_mutants=found.equivalent,
        distinct_uuids=space.distinct_uuids,
        repeated_uuid_mutants=found.repeated_uuids,
        guarantee=verdicts,
    )
