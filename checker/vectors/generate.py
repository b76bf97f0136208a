"""Z3-driven generation of a small regression-vector set with full decision coverage.

Encode, solve, decode: each goal (``checker.vectors.goals``) is a condition
over ``DecisionSpace(T)``; Z3 finds inputs for it under ``well_formed()``,
with readable values: Z3's Optimize keeps as many preferences as the goal
allows (``checker.vectors.readable``) and then makes the seqnos as small as
it can. A goal an earlier vector already covers costs no query.

After the coverage goals, every built-in mutant (``spec.rules.mutations``)
that no vector kills gets a goal of its own (its decision differs from the
rule set's); an unsatisfiable one is an equivalent mutant. Last, a greedy
set cover keeps few vectors that still cover every goal and kill every
killable mutant, choosing humpty_dumpty-expressible vectors wherever one
will do.

The same arguments give the same vectors: goals are solved in a fixed order
with a fixed solver seed, and nothing depends on time or hash order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from checker.symbolic.budget import MILLION, Budget
from checker.symbolic.optimise import Minimiser
from checker.symbolic.session import Answer as SolverAnswer
from checker.symbolic.session import Outcome, Session
from checker.vectors.counterexamples import CounterexampleDecision
from checker.vectors.format import Answer, Corpus, Expectation, Vector, vector_id
from checker.vectors.goals import Goal, coverage_goals, kill_goal, producer_goals
from checker.vectors.readable import humpty_expressible, preferences
from spec.errors import EXIT_UNKNOWN, DcpcheckError, HarnessBug
from spec.expr import TRUE, Compiled, Expr, all_of
from spec.rules import Decider, DecisionSpace, RuleSet
from spec.rules.breaks import property_at_stake
from spec.rules.mutations import mutants
from spec.types import Outcome as Decided
from spec.types import ProducerState, StreamRequest

__all__ = ["VECTORS_BUDGET", "SolverUnknown", "expectations", "generate"]

# Z3 resource units for a whole generation (or a score) unless told otherwise.
VECTORS_BUDGET = 4_000 * MILLION


class SolverUnknown(DcpcheckError):
    """Z3 answered unknown (or ran out of time); no vector set is written."""

    exit_code = EXIT_UNKNOWN


@dataclass
class Candidate:
    request: StreamRequest
    producer: ProducerState
    origin: str
    env: dict[str, object] | None  # None: the table is larger than the decision space


@dataclass
class Pool:
    """Candidate vectors in creation order; identical inputs are kept once."""

    space: DecisionSpace
    items: list[Candidate] = field(default_factory=list)

    def add(self, req: StreamRequest, producer: ProducerState, origin: str) -> int:
        for index, item in enumerate(self.items):
            if item.request == req and item.producer == producer:
                return index
        env = None
        if len(producer.table) <= self.space.table_entries:
            env = self.space.assignment(req, producer)
        self.items.append(Candidate(req, producer, origin, env))  # type: ignore[arg-type]
        return len(self.items) - 1

    def satisfying(self, condition: Expr, humpty_only: bool = False) -> list[int]:
        program = Compiled([condition])
        return [
            i
            for i, item in enumerate(self.items)
            if item.env is not None
            and (item.request.humpty_expressible or not humpty_only)
            and program(item.env)[0]  # type: ignore[arg-type]
        ]


class Solver:
    """One Z3 session for a whole run: goals in order, each decoded into a candidate."""

    def __init__(
        self, space: DecisionSpace, pool: Pool, timeout_s: float | None, budget: Budget
    ) -> None:
        self.space = space
        self.pool = pool
        self.session = Session(timeout_s, seed=0, budget=budget)
        self.session.add(space.well_formed())
        self.minimiser = Minimiser(timeout_s, seed=0, budget=budget)
        self.minimiser.add(space.well_formed())
        self.soft, self.small = preferences(space)
        self.humpty = humpty_expressible(space)
        self.names = list(space.sorts)

    def _check(self, condition: Expr) -> bool:
        return self._answer(self.session.check(condition)) is not None

    def _answer(self, outcome: Outcome) -> dict | None:
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


def expectations(rules: Sequence[RuleSet]) -> Callable[[StreamRequest, ProducerState], dict]:
    deciders = [Decider(r) for r in rules]

    def expect(req: StreamRequest, producer: ProducerState) -> dict[str, Expectation]:
        result = {}
        for decider in deciders:
            decision = decider.decide(req, producer)
            inner, inner_case = None, None
            if decision.outcome is Decided.ERANGE:
                alone = decider.needs_rollback(req, producer)
                inner, inner_case = Answer.of(alone), alone.case
            result[decider.rules.name] = Expectation(
                Answer.of(decision),
                decision.case,
                property_at_stake(decision.case, decision.outcome),
                inner,
                inner_case,
            )
        return result

    return expect


def _kills(original: Decider, mutant: Decider, pool: Pool) -> list[int]:
    return [
        i
        for i, item in enumerate(pool.items)
        if Answer.of(original.decide(item.request, item.producer))
        != Answer.of(mutant.decide(item.request, item.producer))
    ]


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


def _select(sets: dict[str, set[int]], pool: Pool) -> list[int]:
    """Humpty-expressible vectors first for every goal one of them covers, then the rest.

    So a humpty_dumpty target, which skips the others, still meets every goal
    it can express.
    """
    humpty = {i for i, item in enumerate(pool.items) if item.request.humpty_expressible}
    chosen = _cover_greedily(sets, humpty)
    rest = {name: m for name, m in sets.items() if not m & set(chosen)}
    chosen += _cover_greedily(rest, set(range(len(pool.items))))
    return sorted(chosen)


def generate(
    rule_sets: Sequence[RuleSet],
    table_entries: int,
    counterexamples: Sequence[CounterexampleDecision],
    timeout_s: float | None,
    command: str,
    budget: int | None = VECTORS_BUDGET,
) -> Corpus:
    """``budget``: Z3 resource units for the whole generation (None: no limit);
    ``timeout_s``: an outer wall-clock guard."""
    space = DecisionSpace(table_entries)
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
    equivalent: dict[str, tuple[str, ...]] = {}
    killable: dict[str, tuple[Decider, Decider]] = {}
    for rules in rule_sets:
        original = Decider(rules)
        same = []
        for mutant in mutants(rules):
            decider = Decider(mutant.rules)
            humpty = [
                i
                for i in _kills(original, decider, pool)
                if pool.items[i].request.humpty_expressible
            ]
            if not humpty:
                goal = kill_goal(space, rules, mutant.id, mutant.rules)
                if solver.cover(goal) is None:
                    same.append(mutant.id)
                    continue
            killable[f"{rules.name}:kill:{mutant.id}"] = (original, decider)
        equivalent[rules.name] = tuple(same)
    for name, condition in effective.items():
        sets[name] = set(pool.satisfying(condition))
    for name, (original, decider) in killable.items():
        sets[name] = set(_kills(original, decider, pool))
    chosen = _select(sets, pool)
    expect = expectations(rule_sets)
    coverage = [n for n in sets if ":kill:" not in n]
    vectors = []
    for index in chosen:
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
        table_entries=table_entries,
        command=command,
        vectors=tuple(vectors),
        unreachable=tuple(unreachable),
        equivalent_mutants=equivalent,
    )
