"""`diff --consumers`: two consumer variants under one rule set."""

from __future__ import annotations

from checker.diff.classify import Classification
from checker.diff.engine import DiffReport, diff_consumers
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.errors import EXIT_OK, EXIT_VIOLATION
from spec.rules import RULE_SETS

# The smallest bounds at which seed 001's regression and its fix are found (at 2 seqnos, or
# 2 keys and 1 entry, the snapshot-mismatch -> lagging region is not reached).
SMALL = Bounds(seqnos=3, keys=2, entries=2, failovers=1)


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
