"""The sweep against ``dcpcheck diff``: the same regions, found two independent ways.

For each pair (A, B) of rule sets, ``search_regions`` (``dcpcheck diff``'s
Z3 search) lists every region where A and B answer differently, over the
whole decision space with failover tables of at most E entries (every uint64
seqno), and proves there are no others. Then, for every region diff reports
or the sweep found, Z3 decides whether the region has an input within the
sweep's space (``SweepSpace.constraint``). The two agree when

* every region the sweep has inputs in is one diff reports, and Z3 finds
  inputs of it within the bounds; and
* every region diff reports with inputs within the bounds has sweep inputs.

Anything else is a mismatch: one of the interpretations (vectorised, Z3) or
the enumeration is wrong, a harness bug. When Z3 cannot decide (diff's
search incomplete, an unknown answer, the time limit), the check is unknown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from checker.diff.decisions import search_regions
from checker.diff.engine import DIFF_BUDGET
from checker.diff.regions import Region, region_condition
from checker.sweep.space import SweepSpace
from checker.symbolic.budget import Budget
from checker.symbolic.session import Session, SolverAnswer
from spec.rules.language import RuleSet
from spec.types import ProducerState, StreamRequest

__all__ = ["Agreement", "CrossCheck", "PairCheck", "RegionCheck", "crosscheck"]

MAX_REGIONS = 200


class Agreement(StrEnum):
    """Whether the sweep and dcpcheck diff found the same regions between two rule sets:
    mismatch where a region is in one and not the other (``RegionCheck.problem``), unknown
    where a check could not finish (``PairCheck.note``)."""

    AGREE = "agree"
    MISMATCH = "mismatch"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class RegionCheck:
    region: Region
    in_diff: bool
    in_sweep: bool
    within_bounds: bool | None  # Z3: the region has inputs in the sweep's space (None: unknown)
    diff_complete: bool  # diff proved it reports every region
    witness: tuple[StreamRequest, ProducerState] | None = None  # one such input, from Z3

    @property
    def problem(self) -> str:
        if self.in_sweep and not self.in_diff and self.diff_complete:
            return "the sweep has inputs in it; dcpcheck diff reports no such region"
        if self.in_sweep and self.within_bounds is False:
            return "the sweep has inputs in it; Z3 proves it has none within the bounds"
        if self.in_diff and not self.in_sweep and self.within_bounds:
            return "Z3 finds inputs of it within the bounds; the sweep has none"
        return ""


@dataclass
class PairCheck:
    a: str
    b: str
    regions: list[RegionCheck] = field(default_factory=list)
    note: str = ""  # why the check is unknown

    @property
    def agreement(self) -> Agreement:
        if any(r.problem for r in self.regions):
            return Agreement.MISMATCH
        if self.note:
            return Agreement.UNKNOWN
        return Agreement.AGREE


@dataclass
class CrossCheck:
    pairs: list[PairCheck]
    seconds: float

    @property
    def agreement(self) -> Agreement:
        found = {p.agreement for p in self.pairs}
        for outcome in (Agreement.MISMATCH, Agreement.UNKNOWN):
            if outcome in found:
                return outcome
        return Agreement.AGREE


def crosscheck(
    space: SweepSpace,
    rule_sets: list[RuleSet],
    found: dict[tuple[str, str], set[Region]],
    timeout_s: float,
) -> CrossCheck:
    """Check the regions the sweep ``found`` per pair of ``rule_sets`` (by name, in order)
    against diff's; ``timeout_s`` for all the Z3 work."""
    started = time.perf_counter()
    deadline = time.monotonic() + timeout_s
    pairs = []
    for i, rules_a in enumerate(rule_sets):
        for rules_b in rule_sets[i + 1 :]:
            key = (rules_a.name, rules_b.name)
            pairs.append(_pair(space, rules_a, rules_b, found.get(key, set()), deadline))
    return CrossCheck(pairs, time.perf_counter() - started)


def _pair(
    space: SweepSpace, rules_a: RuleSet, rules_b: RuleSet, swept: set[Region], deadline: float
) -> PairCheck:
    check = PairCheck(rules_a.name, rules_b.name)
    budget = Budget(DIFF_BUDGET)  # the same deterministic limit as dcpcheck diff's
    search = search_regions(rules_a, rules_b, space.entries, MAX_REGIONS, budget, deadline)
    if not search.complete:
        check.note = f"dcpcheck diff could not list every region: {search.note}"
    in_diff = {region.plain for region, _ in search.found}
    decisions = space.decision_space
    a, b = decisions.decision(rules_a), decisions.decision(rules_b)
    session = Session(budget=budget, deadline=deadline)
    session.declare(decisions.sorts)
    session.add(space.constraint())
    for region in sorted(in_diff | swept, key=lambda r: r.label):
        outcome = session.check(
            region_condition(region, rules_a, rules_b, a, b), want=decisions.sorts
        )
        within = {SolverAnswer.SAT: True, SolverAnswer.UNSAT: False}.get(outcome.answer)
        if within is None and not check.note:
            check.note = f"Z3 answered unknown ({outcome.reason}) on {region.label}"
        witness = decisions.decode(outcome.values) if within else None
        check.regions.append(
            RegionCheck(
                region, region in in_diff, region in swept, within, search.complete, witness
            )
        )
    return check
