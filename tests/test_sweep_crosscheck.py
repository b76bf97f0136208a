"""The sweep's regions against dcpcheck diff's: agreement is exact, and each kind of
mismatch is caught."""

from __future__ import annotations

import numpy as np

from checker.columns.decisions import NO_REGION, Decisions
from checker.diff.decisions import search_regions
from checker.diff.engine import DIFF_BUDGET
from checker.diff.regions import Change, Region
from checker.sweep.crosscheck import Agreement, crosscheck
from checker.sweep.space import SweepSpace
from checker.symbolic.budget import Budget
from spec.rules import RULE_SETS
from spec.types import Outcome

SPACE = SweepSpace(2, 2)
RULES = [RULE_SETS.get("kv-current"), RULE_SETS.get("rollback-doc")]
KEY = ("kv-current", "rollback-doc")


def swept() -> set[Region]:
    decisions = Decisions(RULES, SPACE.decision_space)
    _, (codes,) = decisions(SPACE.columns(0, SPACE.size), SPACE.size)
    table = decisions.regions(0)
    return {table[code] for code in np.unique(codes).tolist() if code != NO_REGION}


def test_the_regions_swept_are_exactly_diffs_regions_within_the_bounds() -> None:
    found = swept()
    check = crosscheck(SPACE, RULES, {KEY: found}, timeout_s=120)
    assert check.agreement is Agreement.AGREE, [r.problem for r in check.pairs[0].regions]
    (pair,) = check.pairs
    assert {r.region for r in pair.regions if r.in_diff and r.within_bounds} == found
    assert any(r.in_diff and r.within_bounds is False for r in pair.regions)  # bounds matter


def test_each_kind_of_disagreement_with_diff_is_a_mismatch() -> None:
    found = swept()
    search = search_regions(*RULES, SPACE.entries, 50, Budget(DIFF_BUDGET))
    beyond = {r.plain for r, _ in search.found} - found  # diff's regions out of the bounds
    dropped = sorted(found, key=lambda r: r.label)[0]
    invented = Region("lagging", "lagging", Change(Outcome.ACCEPT, Outcome.ROLLBACK))
    claimed = (found - {dropped}) | {invented, sorted(beyond, key=lambda r: r.label)[0]}
    check = crosscheck(SPACE, RULES, {KEY: claimed}, timeout_s=120)
    assert check.agreement is Agreement.MISMATCH
    problems = {r.region: r.problem for r in check.pairs[0].regions if r.problem}
    assert problems == {
        dropped: "Z3 finds inputs of it within the bounds; the sweep has none",
        invented: "the sweep has inputs in it; dcpcheck diff reports no such region",
        sorted(beyond, key=lambda r: r.label)[0]: (
            "the sweep has inputs in it; Z3 proves it has none within the bounds"
        ),
    }
    assert next(r for r in check.pairs[0].regions if r.region == dropped).witness is not None


def test_a_crosscheck_out_of_time_is_unknown_not_agreement() -> None:
    check = crosscheck(SPACE, RULES, {KEY: swept()}, timeout_s=0.001)
    assert check.agreement is Agreement.UNKNOWN
    assert check.pairs[0].note
