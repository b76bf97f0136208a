"""`diff --consumers`: two consumer variants under one rule set."""

from __future__ import annotations

from checker.diff.classify import Classification
from checker.diff.engine import diff_consumers
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.errors import EXIT_OK, EXIT_VIOLATION
from spec.rules import RULE_SETS

SMALL = Bounds(seqnos=4, keys=2, entries=3, failovers=1)


def test_collapse_snapshot_is_seed_001s_safety_regression_relative_to_correct() -> None:
    report = diff_consumers(
        RULE_SETS.get("kv-current"),
        CONSUMERS.get("correct"),
        CONSUMERS.get("collapse-snapshot"),
        SMALL,
    )
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
    report = diff_consumers(
        RULE_SETS.get("kv-current"),
        CONSUMERS.get("collapse-snapshot"),
        CONSUMERS.get("correct"),
        SMALL,
    )
    fixes = [
        r.region.label for r in report.regions if r.classification is Classification.SAFETY_FIX
    ]
    assert fixes == ["lagging -> snapshot-mismatch (ok -> rollback)"]
    assert report.exit_code == EXIT_OK


def test_a_variant_compared_with_itself_is_equivalent_within_the_bounds() -> None:
    correct = CONSUMERS.get("correct")
    report = diff_consumers(RULE_SETS.get("rollback-doc"), correct, correct, SMALL)
    assert report.equivalent and report.exit_code == EXIT_OK
