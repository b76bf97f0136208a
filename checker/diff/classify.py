"""Is a region a safety regression, a safety fix, a cost, or neutral? Ask the scenario model.

For each pair of runs (``checker.diff.scenarios.Pair``) and each region, Z3
is asked, over every scenario within the bounds whose two runs first part in
that region:

1. is there one at all? (if not: *not reached* by this consumer);
2. one where B violates a safety property and A does not? (*regression*);
3. one where A violates a safety property and B does not? (*fix*);
4. one where the cost property (``no-needless-rollback``) fails for B and
   not for A, or the converse?

The region's verdict: a safety regression if any pair shows one; else a
safety fix if any shows one; else, if some pair reaches it, a cost
regression when B rolls back more or deeper there (a cost improvement when
less or shallower); else neutral. An unknown answer on a question the
verdict depends on makes the verdict ``unknown``: nothing is claimed.

The scenario behind a verdict is minimised, decoded and replayed on the
reference implementation under both A and B (``checker.confirm``); it is
*confirmed* when both reference traces equal the model's, the reference
shows the same property outcome, and the reference runs first part in the
same region.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from checker.confirm import Replay, replay_scenario
from checker.diff.regions import Region, change_of
from checker.diff.scenarios import Pair
from checker.engines.z3 import minimise as minimise_scenario
from checker.symbolic.budget import Budget
from checker.symbolic.session import Session, SolverAnswer, SolverReply
from spec.expr import Expr, Value, any_of, evaluate_many
from spec.properties import PROPERTIES
from spec.scenario import Scenario
from spec.trace import Trace

__all__ = ["Classification", "Evidence", "Probe", "Survey", "Sweep", "Witness", "classify"]


class Classification(StrEnum):
    """What a decided region is; an undecided one has the verdict ``unknown`` instead."""

    SAFETY_REGRESSION = "safety regression"
    SAFETY_FIX = "safety fix"
    COST_REGRESSION = "cost regression"
    COST_IMPROVEMENT = "cost improvement"
    NEUTRAL = "neutral"


@dataclass
class Witness:
    """A scenario behind a verdict, replayed on the reference under A and B."""

    claim: str  # e.g. "B violates no-missed-item, A does not"
    pair: str  # the consumer (rule diff) or "C1 vs C2" (consumer diff)
    scenario: Scenario
    round: int  # the first round in which the runs differ
    trace_a: Trace | None
    trace_b: Trace | None
    confirmed: bool
    detail: str = ""
    size: dict[str, int] = field(default_factory=dict)
    prop: str = ""  # the property the claim is about ("" for a reach witness)
    culprit: str = ""  # "a" or "b": the run that violates it

    @property
    def culprit_trace(self) -> Trace | None:
        return {"a": self.trace_a, "b": self.trace_b}.get(self.culprit)


@dataclass
class Evidence:
    """What one pair of runs says about one region."""

    pair: str
    reached: bool | None = None  # None: unknown
    regressions: list[str] = field(default_factory=list)  # property ids
    fixes: list[str] = field(default_factory=list)
    needless_b: bool = False  # the cost property fails for B and not for A
    needless_a: bool = False
    # with fixes: whether B leaves this consumer unsafe anyway (it violates a safety property
    # in some scenario within the bounds, in any region): its fix is no evidence of safety
    unsafe_b: bool | None = None
    unknown: list[str] = field(default_factory=list)  # reasons
    witnesses: dict[str, tuple[Expr, dict[str, Value], str]] = field(default_factory=dict)


@dataclass
class Sweep:
    """The regions in which some scenario satisfies a condition, one scenario each."""

    complete: bool = False  # the last search answered unsat: no other region has one
    found: dict[Region, dict[str, Value]] = field(default_factory=dict)
    note: str = ""


@dataclass
class Survey:
    regions: list[Region]
    evidence: dict[Region, Evidence]
    reach: Sweep


class Probe:
    """One solver session over a pair: every question about every region.

    Three sweeps over all scenarios find the regions the runs reach, the
    regions in which the runs differ on a safety property, and those in which
    they differ on the cost property; only those regions get the targeted
    questions (which property, in which direction).
    """

    def __init__(self, pair: Pair, budget: Budget, deadline: float | None = None) -> None:
        self.pair = pair
        self.name = pair.consumer or f"{pair.name_a} vs {pair.name_b}"
        model_a, model_b = pair.model_a, pair.model_b
        self.session = Session(budget=budget, deadline=deadline)
        self.session.declare(model_b.variables)
        self.session.add(model_b.constraints)
        self.want = model_b.variables
        self.safety = [p for p in PROPERTIES if p.kind == "safety"]
        self.cost = [p for p in PROPERTIES if p.kind == "cost"]
        self.holds_a = model_a.holds_all([*self.safety, *self.cost])
        self.holds_b = model_b.holds_all([*self.safety, *self.cost])
        self._unsafe_b: tuple[bool | None] | None = None

    def unsafe_b(self) -> bool | None:
        """Whether B's run violates some safety property in some scenario within the bounds
        (None: the solver did not say); asked once per pair."""
        if self._unsafe_b is None:
            outcome = self.session.check(any_of(*(~self.holds_b[p.id] for p in self.safety)))
            answer = outcome.answer
            self._unsafe_b = (
                None if answer is SolverAnswer.UNKNOWN else answer is SolverAnswer.SAT,
            )
        return self._unsafe_b[0]

    def _ask(self, evidence: Evidence, condition: Expr, what: str) -> SolverReply:
        outcome = self.session.check(condition, want=self.want)
        if outcome.answer is SolverAnswer.UNKNOWN:
            evidence.unknown.append(f"{what}: solver {outcome.reason}")
        return outcome

    def _broken(
        self, evidence: Evidence, inside: Expr, by_b: bool, what: str
    ) -> tuple[list[str], dict[str, Value] | None, Expr | None]:
        """Safety properties one run violates and the other does not, in the region."""
        bad, good = (self.holds_b, self.holds_a) if by_b else (self.holds_a, self.holds_b)
        remaining = [p.id for p in self.safety]
        found: list[str] = []
        first: tuple[dict[str, Value], Expr] | None = None
        while remaining:
            condition = inside & any_of(*(~bad[p] & good[p] for p in remaining))
            outcome = self._ask(evidence, condition, what)
            if outcome.answer is not SolverAnswer.SAT:
                break
            flags = evaluate_many([~bad[p] & good[p] for p in remaining], outcome.values)
            now = [p for p, f in zip(remaining, flags, strict=True) if f]
            if first is None:
                first = (outcome.values, inside & ~bad[now[0]] & good[now[0]])
            found += now
            remaining = [p for p in remaining if p not in now]
        if first is None:
            return found, None, None
        return found, first[0], first[1]

    def _sweep(self, condition: Expr, limit: int) -> Sweep:
        """Every region holding a scenario that satisfies ``condition`` (block, re-solve)."""
        sweep = Sweep()
        self.session.push()
        try:
            self.session.add(condition)
            while True:
                if len(sweep.found) >= limit:
                    sweep.note = f"stopped after --max {limit} regions; more may exist"
                    return sweep
                outcome = self.session.check(want=self.want)
                if outcome.answer is SolverAnswer.UNSAT:
                    sweep.complete = True
                    return sweep
                if outcome.answer is SolverAnswer.UNKNOWN:
                    sweep.note = f"the solver answered unknown ({outcome.reason})"
                    return sweep
                split = self.pair.split_of(outcome.values)
                assert split is not None, "a scenario satisfying the sweep has a first split"
                region = split[1]
                sweep.found[region] = outcome.values
                self.session.add(~self.pair.diverges_in(region))
        finally:
            self.session.pop()

    def survey(self, regions: list[Region] | None, limit: int) -> Survey:
        """Reach, safety and cost evidence for ``regions`` (None: every region the runs reach)."""
        pair = self.pair
        reach = self._sweep(pair.parts, limit)
        if regions is None:
            regions = list(reach.found)
        survey = Survey(regions, {r: Evidence(self.name) for r in regions}, reach)
        differs = [self.holds_a[p.id] != self.holds_b[p.id] for p in self.safety]
        safety = self._sweep(pair.parts & any_of(*differs), limit) if reach.found else Sweep(True)
        differs = [self.holds_a[p.id] != self.holds_b[p.id] for p in self.cost]
        cost = self._sweep(pair.parts & any_of(*differs), limit) if reach.found else Sweep(True)
        for region in regions:
            self._examine(region, survey.evidence[region], reach, safety, cost)
        return survey

    def _examine(
        self, region: Region, evidence: Evidence, reach: Sweep, safety: Sweep, cost: Sweep
    ) -> None:
        inside = self.pair.diverges_in(region)
        plain = region.plain
        if region.via and plain in reach.found:
            outcome = self._ask(evidence, inside, "reach")
            evidence.reached = (
                None
                if outcome.answer is SolverAnswer.UNKNOWN
                else outcome.answer is SolverAnswer.SAT
            )
            if evidence.reached:
                evidence.witnesses["reach"] = (inside, outcome.values, "")
        elif plain in reach.found:
            evidence.reached = True
            evidence.witnesses["reach"] = (inside, reach.found[plain], "")
        else:
            evidence.reached = False if reach.complete else None
            if not reach.complete:
                evidence.unknown.append(f"reach: {reach.note}")
        if not evidence.reached:
            return
        if plain in safety.found:
            for by_b, key in ((True, "regression"), (False, "fix")):
                found, values, condition = self._broken(evidence, inside, by_b, key)
                getattr(evidence, "regressions" if by_b else "fixes").extend(found)
                if values is not None and condition is not None:
                    evidence.witnesses[key] = (condition, values, found[0])
            if evidence.fixes and not evidence.regressions:
                evidence.unsafe_b = self.unsafe_b()
        elif not safety.complete:
            evidence.unknown.append(f"safety: {safety.note}")
        if evidence.regressions or evidence.fixes:
            return
        if plain in cost.found:
            for prop in self.cost:
                for by_b in (True, False):
                    bad, good = (
                        (self.holds_b, self.holds_a) if by_b else (self.holds_a, self.holds_b)
                    )
                    condition = inside & ~bad[prop.id] & good[prop.id]
                    outcome = self._ask(evidence, condition, prop.id)
                    if outcome.answer is SolverAnswer.SAT:
                        setattr(evidence, "needless_b" if by_b else "needless_a", True)
                        key = "needless-b" if by_b else "needless-a"
                        evidence.witnesses[key] = (condition, outcome.values, prop.id)
        elif not cost.complete:
            evidence.unknown.append(f"cost: {cost.note}")

    def witness(self, region: Region, key: str, evidence: Evidence, minimise: bool) -> Witness:
        """Minimise, decode and replay the scenario behind ``evidence.witnesses[key]``."""
        condition, values, prop_id = evidence.witnesses[key]
        size: dict[str, int] = {}
        note = ""
        if minimise:
            self.session.push()
            try:
                self.session.add(condition)
                values, size, note = minimise_scenario(self.session, self.pair.model_b, values)
            finally:
                self.session.pop()
        return self._replayed(region, key, prop_id, values, evidence.pair, size, note)

    def _replayed(
        self,
        region: Region,
        key: str,
        prop_id: str,
        values: dict[str, Value],
        pair_name: str,
        size: dict[str, int],
        note: str,
    ) -> Witness:
        pair = self.pair
        scenario = pair.model_b.decode(values)
        split = pair.split_of(values)
        prop = PROPERTIES.get(prop_id) if prop_id else self.safety[0]
        replay_a = replay_scenario(scenario, pair.model_a, prop)
        replay_b = replay_scenario(scenario, pair.model_b, prop)
        a, b = pair.name_a, pair.name_b
        claims = {
            "regression": (f"{b} violates {prop_id}, {a} does not", False, True),
            "fix": (f"{a} violates {prop_id}, {b} does not", True, False),
            "needless-b": (
                f"{b}'s rollback is needless ({prop_id}), {a}'s run is not",
                False,
                True,
            ),
            "needless-a": (
                f"{a}'s rollback is needless ({prop_id}), {b}'s run is not",
                True,
                False,
            ),
            "reach": ("the two runs part in this region", None, None),
        }
        claim, violated_a, violated_b = claims[key]
        problems = [*_problems(a, replay_a, violated_a), *_problems(b, replay_b, violated_b)]
        if replay_a.trace is not None and replay_b.trace is not None:
            problems += _split_problems(region, replay_a.trace, replay_b.trace, pair.consumer)
        return Witness(
            claim,
            pair_name,
            scenario,
            split[0] if split else -1,
            replay_a.trace,
            replay_b.trace,
            confirmed=not problems,
            detail="; ".join(problems) or note,
            size=size,
            prop=prop_id,
            culprit="b" if violated_b else "a" if violated_a else "",
        )


def _problems(name: str, replay: Replay, violated: bool | None) -> list[str]:
    out = []
    if replay.trace is None:
        out.append(f"{name}: {replay.detail}")
    if replay.mismatches:
        out.append(f"{name}: model and reference disagree on {replay.mismatches[0]}")
    if violated is not None and replay.violated_on_reference is not violated:
        state = "violates" if replay.violated_on_reference else "does not violate"
        out.append(f"{name}: the reference {state} the property")
    return out


def _split_problems(region: Region, trace_a: Trace, trace_b: Trace, consumer: str) -> list[str]:
    """The reference runs must first part in ``region``."""
    for n, (ra, rb) in enumerate(zip(trace_a.rounds, trace_b.rounds, strict=False)):
        if consumer:  # a rule diff: the same request, different answers
            differ = change_of(ra.decision, rb.decision).name != "same answer"
        else:  # a consumer diff: different requests (or held items)
            differ = (ra.request, ra.keep) != (rb.request, rb.keep)
        if differ:
            got = (ra.decision.case, rb.decision.case, change_of(ra.decision, rb.decision))
            want = (region.case_a, region.case_b, region.change)
            if got != want:
                return [f"the reference runs part in round {n} as {got[0]} -> {got[1]}"]
            return []
    return ["the reference runs never part"]


def classify(region: Region, evidence: list[Evidence]) -> tuple[Classification | None, str]:
    """The region's classification (None: unknown, a question it depends on went
    unanswered) and which witness backs it (a key of ``Evidence.witnesses``)."""
    if any(e.regressions for e in evidence):
        return Classification.SAFETY_REGRESSION, "regression"
    if any(e.unknown for e in evidence):
        return None, ""
    if any(e.fixes for e in evidence):
        return Classification.SAFETY_FIX, "fix"
    if not any(e.reached for e in evidence):
        return Classification.NEUTRAL, ""
    direction = region.change.direction
    needless_b = any(e.needless_b for e in evidence)
    needless_a = any(e.needless_a for e in evidence)
    if direction > 0 or (direction == 0 and needless_b and not needless_a):
        return Classification.COST_REGRESSION, "needless-b" if needless_b else "reach"
    if direction < 0 or (direction == 0 and needless_a and not needless_b):
        return Classification.COST_IMPROVEMENT, "needless-a" if needless_a else "reach"
    return Classification.NEUTRAL, "reach"
