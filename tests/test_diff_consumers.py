"""`diff --consumers`: two consumer variants under one rule set."""

from __future__ import annotations

import functools

from checker.diff.classify import Classification
from checker.diff.engine import DiffReport, diff_consumers
from checker.tasks import ScenarioGroupTask
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.errors import EXIT_OK, EXIT_VIOLATION
from spec.expected import SAFETY
from spec.rules import RULE_SETS

# The smallest bounds at which seed 001's regression and its fix are found (at 2 seqnos, or
# 2 keys and 1 entry, the snapshot-mismatch -> lagging region is not reached).
SMALL = Bounds(seqnos=3, keys=2, entries=2, failovers=1)


@functools.cache  # once per test process: two tests below read correct -> collapse-snapshot's
def diff(base: str, candidate: str, rules: str = "kv-current") -> DiffReport:
    """``diff --consumers BASE CANDIDATE --rules RULES`` within SMALL bounds."""
    return diff_consumers(
        RULE_SETS.get(rules), CONSUMERS.get(base), CONSUMERS.get(candidate), SMALL
    )


def test_collapse_snapshot_is_seed_001s_safety_regression_relative_to_correct() -> None:
    report = diff("correct", "collapse-snapshot")
    assert report.complete
    regressions = [
        r for r in report.regions if r.classification is Classification.SAFETY_REGRESSION
    ]
    assert [r.region.label for r in regressions] == [
        "snapshot-mismatch -> lagging (rollback -> ok)"
    ]
    (result,) = regressions
    assert result.evidence[0].regressions == ["no-missed-item"]
    witness = result.witness
    assert witness is not None and witness.confirmed
    # Seed 001: mid-snapshot, the deduplicated key is never sent again.
    assert witness.trace_b is not None and witness.trace_b.accepted
    assert witness.trace_b.rounds[0].request.snap_start == witness.trace_b.rounds[0].request.start
    assert report.exit_code == EXIT_VIOLATION


def test_going_back_to_correct_is_the_matching_safety_fix() -> None:
    report = diff("collapse-snapshot", "correct")
    fixes = [
        r.region.label for r in report.regions if r.classification is Classification.SAFETY_FIX
    ]
    assert fixes == ["lagging -> snapshot-mismatch (ok -> rollback)"]
    assert report.exit_code == EXIT_OK


def test_a_variant_compared_with_itself_is_equivalent_within_the_bounds() -> None:
    report = diff("correct", "correct", rules="rollback-doc")
    assert report.equivalent and report.exit_code == EXIT_OK


def test_diff_regresses_exactly_the_cells_check_finds_violated_by_b_alone() -> None:
    """diff's door (tests/test_one_check.py: one cell, one ``Result``): the safety regressions
    ``diff --consumers A B`` finds, one per property, are the cells whose ``Result`` is
    violated for B and holds for A, at the same bounds."""
    a, b = "correct", "collapse-snapshot"
    report = diff(a, b)
    regressions = [
        r.witness for r in report.regions if r.classification is Classification.SAFETY_REGRESSION
    ]
    assert all(w is not None and w.confirmed and w.culprit == "b" for w in regressions)
    by_diff = {w.prop for w in regressions if w is not None}
    verdicts = {
        name: {r.property: r.verdict.value for r in ScenarioGroupTask(
            "kv-current", name, tuple(SAFETY), SMALL).run()}
        for name in (a, b)
    }  # fmt: skip
    by_check = {p for p in SAFETY if (verdicts[a][p], verdicts[b][p]) == ("holds", "violated")}
    assert by_diff == by_check == {"no-missed-item"}
