"""Review a build: learn its answers, compare with BASE, judge the differences, confirm.

``review(...)`` after the learning (``checker.review.learn``, on Spark or
here) has left its dataset and tallies:

1. *compare*: the regions (BASE's clause, what the target did, the change)
   with their counts and first inputs, from the tallies; the inputs the
   target gave no answer to (crash, timeout, garbage), per kind;
2. *judge*: the target within bounds as a rule set (``checker.review.table``)
   and each region classified exactly as ``dcpcheck diff`` classifies
   (``checker.diff.engine.classify_rule_regions``), in scenarios no bigger
   than the swept space (tables of at most E entries, seqnos at most N);
3. *confirm*: each witness replayed with the target answering
   (``checker.review.confirm``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from checker.diff.classify import Evidence
from checker.diff.decisions import DecisionExample
from checker.diff.engine import DiffReport, RegionResult, classify_rule_regions
from checker.review.confirm import OnTarget, on_target
from checker.review.learn import ASKED, PROBLEM, REGION, TARGET_CASES, target_regions
from checker.review.table import learnt_overrides, override_rules
from checker.sweep.space import SweepSpace
from checker.symbolic.budget import Budget
from checker.vectors.targets import Target
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.rules import Decider, RuleSet
from spec.rules.language import ROLLBACK_CODE
from spec.types import Decision, Outcome

__all__ = ["Learnt", "Problem", "Review", "Within", "judge", "learnt_from"]

_OUTCOMES = (Outcome.ACCEPT, Outcome.ROLLBACK, Outcome.ERANGE)


@dataclass(frozen=True)
class Problem:
    kind: str  # crash, timeout, garbage
    inputs: int
    first: int
    detail: str


@dataclass
class Learnt:
    """What the learning found: inputs asked, regions with counts, inputs not answered."""

    parts: int
    asked: int
    counts: dict[int, tuple[int, int, int, int]]  # region code -> inputs, first, outcome, seqno
    problems: list[Problem]

    @property
    def differing(self) -> int:
        return sum(c[0] for c in self.counts.values())

    @property
    def unanswered(self) -> int:
        return sum(p.inputs for p in self.problems)


def learnt_from(parts: int, rows: Sequence[dict[str, Any]]) -> Learnt:
    """Every part's tally rows reduced: sums, and the lowest first input of each key."""
    from checker.review.learn import PROBLEMS

    asked = 0
    counts: dict[int, tuple[int, int, int, int]] = {}
    problems: dict[int, Problem] = {}
    for row in rows:
        kind, code, n, first = row["kind"], row["code"], row["inputs"], row["first"]
        if kind == ASKED:
            asked += n
        elif kind == REGION:
            had = counts.get(code)
            seqno = int(row["seqno"] or 0)
            if had is None or first < had[1]:
                counts[code] = (n + (had[0] if had else 0), first, row["outcome"], seqno)
            else:
                counts[code] = (had[0] + n, *had[1:])
        elif kind == PROBLEM:
            p = problems.get(code)
            if p is None or first < p.first:
                total = n + (p.inputs if p else 0)
                problems[code] = Problem(PROBLEMS[code], total, first, row["detail"])
            else:
                problems[code] = Problem(p.kind, p.inputs + n, p.first, p.detail)
    ordered = dict(sorted(counts.items(), key=lambda item: item[1][1]))
    return Learnt(parts, asked, ordered, sorted(problems.values(), key=lambda p: p.first))


@dataclass(frozen=True)
class Within:
    """What a review's verdicts hold for: the inputs learnt and the scenarios judged."""

    space: SweepSpace
    bounds: Bounds
    humpty: bool

    def describe(self) -> str:
        asked = "requests humpty_dumpty expresses" if self.humpty else "every request"
        return (
            f"{asked} to producers with {self.space.describe()}; scenarios within "
            f"{self.bounds.describe()}"
        )

    def to_json(self) -> dict[str, int]:
        return {
            "entries": self.space.entries,
            "seqnos": self.space.seqnos,
            "duplicate_uuids": int(self.space.duplicate_uuids),
            "humpty_only": int(self.humpty),
            **{f"scenario_{k}": v for k, v in self.bounds.to_json().items()},
        }


@dataclass
class Review:
    target: str
    base: RuleSet
    space: SweepSpace
    bounds: Bounds  # the scenarios the judge classifies in
    consumers: list[str]
    learnt: Learnt
    humpty: bool  # the target speaks humpty_dumpty: only plain requests were asked
    diff: DiffReport | None = None  # the judge's classification (None: nothing differs)
    conflicts: list[tuple[int, int]] = field(default_factory=list)
    confirmed: dict[int, OnTarget] = field(default_factory=dict)  # region index -> replay
    counts: list[tuple[int, int]] = field(default_factory=list)  # per region: inputs, first
    seconds: dict[str, float] = field(default_factory=dict)  # phase -> wall seconds

    @property
    def equivalent(self) -> bool:
        return not self.learnt.counts and not self.learnt.problems

    def asked_space(self) -> str:
        what = self.space.describe()
        if self.humpty:
            return (
                f"{what}, requests humpty_dumpty can express (no strict or ignore_purged "
                "flag, remote purge seqno 0, no collection filter, end 2^64-1)"
            )
        return f"{what}, every request and flag"


def example(
    space: SweepSpace, base: RuleSet, first: int, case_b: str, outcome: int, seqno: int
) -> DecisionExample:
    """The first input of a region: the request, the producer, BASE's and the target's
    answers."""
    ((request, producer),) = list(space.inputs(first, first + 1))
    decision_a = Decider(base).decide(request, producer)
    answer = _OUTCOMES[outcome]
    decision_b = Decision(
        answer,
        case_b,
        seqno if outcome == ROLLBACK_CODE else None,
        "the target's answer",
    )
    return DecisionExample(request, producer, decision_a, decision_b)


def judge(
    review: Review,
    dataset: str,
    consumers: list[ConsumerVariant],
    target: Target,
    budget: int | None,
    deadline: float | None,
    minimise: bool = True,
) -> None:
    """Classify every region the learning found, and confirm each witness on ``target``."""
    from checker.review.learn import region_column

    base, space = review.base, review.space
    table = target_regions(base)
    regions = [table[code] for code in review.learnt.counts]
    review.counts = [(c[0], c[1]) for c in review.learnt.counts.values()]
    examples = {
        table[code]: example(space, base, first, table[code].case_b, outcome, seqno)
        for code, (_, first, outcome, seqno) in review.learnt.counts.items()
    }
    report = DiffReport(
        "rules", base.name, "target", [c.name for c in consumers], review.bounds, space.entries
    )
    report.complete = True
    review.diff = report
    if not regions:
        return
    overrides, conflicts = learnt_overrides(space, base, dataset, region_column(base.name))
    override = override_rules(base, overrides)
    review.conflicts = conflicts
    judged = [r for r in regions if r.case_b != TARGET_CASES[2]]
    if conflicts:
        judged = []
    if judged:
        classify_rule_regions(
            report,
            base,
            override,
            consumers,
            judged,
            Budget(budget),
            len(regions) + 1,
            examples=examples,
            deadline=deadline,
            minimise=minimise,
        )
    reasons = {
        True: "the target's answers depend on more than a rule set reads (inputs "
        + ", ".join(f"{a} and {b}" for a, b in conflicts[:3])
        + " have the same fields and different answers): not judged",
        False: "the clause language cannot answer ERANGE to a well-formed request: not judged",
    }
    by_region = {r.region: r for r in report.regions}
    report.regions = []
    for region in regions:
        result = by_region.get(region)
        if result is None:
            reason = reasons[bool(conflicts)]
            evidence = [Evidence(c.name, unknown=[reason]) for c in consumers]
            result = RegionResult(region, None, evidence)
        result.example = examples[region]
        report.regions.append(result)
    variants = {c.name: c for c in consumers}
    for n, result in enumerate(report.regions):
        if result.witness is not None:
            review.confirmed[n] = on_target(
                result.witness, override, variants[result.witness.pair], review.bounds, target
            )
