"""`diff` of two rule sets: the regions found, their classification, equivalence proofs."""

from __future__ import annotations

import pytest
from conftest import DATA

from checker.diff.classify import Classification
from checker.diff.engine import DiffOptions, DiffReport, diff_rules
from checker.diff.report import table
from checker.loading import resolve
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, TEXTBOOK
from spec.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION
from spec.rules import RULE_SETS, Decider, RuleSet

# The smallest scenario bounds at which each test's assertions hold (docs: ARCHITECTURE.md,
# "Tests"): the purge regions of rollback-doc and no_purge.py need 4 seqnos (at 3 the
# snapshot-mismatch region is only a cost change); the other diffs hold at LESS. The
# decision space is searched with tables of at most TABLE_ENTRIES entries (diff's least).
SMALL = Bounds(seqnos=4, keys=2, entries=2, failovers=1)
LESS = Bounds(seqnos=3, keys=2, entries=2, failovers=1)
TABLE_ENTRIES = 3
RULES = DATA / "rules"


def rules(text: str) -> RuleSet:
    return resolve(RULE_SETS, RuleSet, text)


def diff(a: str, b: str, bounds: Bounds = SMALL, options: DiffOptions | None = None) -> DiffReport:
    return diff_rules(
        rules(a),
        rules(b),
        [CONSUMERS.get(c) for c in TEXTBOOK],
        bounds,
        table_entries=TABLE_ENTRIES,
        options=options or DiffOptions(),
    )


def verdicts(report: DiffReport) -> dict[str, str]:
    return {r.region.label: r.shown for r in report.regions}


@pytest.fixture(scope="module")
def doc_vs_code() -> DiffReport:
    return diff("rollback-doc", "kv-current")


def test_doc_vs_code_lists_every_known_disagreement(doc_vs_code: DiffReport) -> None:
    assert doc_vs_code.complete
    assert verdicts(doc_vs_code) == {
        # rollback.md tests the (adjusted) snapshot start against the purge seqno.
        "purge -> lagging (rollback -> ok)": "cost improvement",
        "purge -> ahead-of-upper (rollback shallower)": "cost improvement",
        "purge -> snapshot-mismatch (rollback shallower)": "cost improvement",
        # kv_engine exempts a client that reports the purge seqno, or a finished
        # collection stream; no built-in consumer sends either.
        **{
            f"purge -> {case} ({change}) via {feature}": "neutral"
            for case, change in [
                ("lagging", "rollback -> ok"),
                ("ahead-of-upper", "rollback shallower"),
                ("snapshot-mismatch", "rollback shallower"),
            ]
            for feature in ("remote_purge", "collection_high")
        },
        # rollback.md section 1b: start 0 with a uuid the producer does not know.
        "uuid-not-found -> start-zero (rollback -> ok)": "cost improvement",
    }
    assert doc_vs_code.exit_code == EXIT_OK


def test_each_region_representative_really_lies_in_its_region(doc_vs_code: DiffReport) -> None:
    for result in doc_vs_code.regions:
        ex = result.example
        assert ex is not None
        a = Decider(rules("rollback-doc")).decide(ex.request, ex.producer)
        b = Decider(rules("kv-current")).decide(ex.request, ex.producer)
        assert (a.case, b.case) == (result.region.case_a, result.region.case_b)
        assert (a.outcome, b.outcome) == (result.region.change.before, result.region.change.after)
        if not result.region.via:
            assert ex.request.humpty_expressible, result.region.label


def test_unreached_regions_say_so_and_reached_ones_have_a_confirmed_witness(
    doc_vs_code: DiffReport,
) -> None:
    for result in doc_vs_code.regions:
        if result.region.via:
            assert result.witness is None
            assert "not reached by correct, collapse-snapshot" in result.note
        else:
            assert result.witness is not None and result.witness.confirmed, result.witness


# The two purge-clause diffs below judge regions, not the witness's size: they skip its
# minimisation (a minimised witness is confirmed in doc_vs_code above and in
# tests/test_diff_consumers.py).


def test_dropping_the_purge_clause_is_a_safety_regression() -> None:
    report = diff("kv-current", str(RULES / "no_purge.py"), options=DiffOptions(minimise=False))
    assert set(verdicts(report).values()) == {Classification.SAFETY_REGRESSION.value}
    assert all(r.region.case_a == "purge" for r in report.regions)
    missed = [e for r in report.regions for e in r.evidence if "no-missed-item" in e.regressions]
    assert missed, "a consumer behind the purge seqno misses a purged deletion"
    assert report.exit_code == EXIT_VIOLATION


def test_restoring_the_purge_clause_is_the_matching_safety_fix() -> None:
    report = diff(str(RULES / "no_purge.py"), "kv-current", options=DiffOptions(minimise=False))
    assert set(verdicts(report).values()) == {Classification.SAFETY_FIX.value}
    assert report.exit_code == EXIT_OK
    # correct is fixed too, and kv-current leaves it safe: real evidence
    assert not any(r.fix_only_for_unsafe for r in report.regions)


def test_a_fix_only_an_already_unsafe_consumer_shows_is_flagged() -> None:
    unsafe = [CONSUMERS.get("collapse-snapshot")]
    report = diff_rules(
        rules(str(RULES / "no_purge.py")), rules("kv-current"), unsafe, LESS, TABLE_ENTRIES
    )
    fixes = [r for r in report.regions if r.classification is Classification.SAFETY_FIX]
    assert fixes and all(r.fix_only_for_unsafe for r in fixes)
    assert all(e.unsafe_b for r in fixes for e in r.evidence if e.fixes)
    assert "(unsafe consumers only)" in table(report)


def test_checking_the_uuid_before_start_zero_loops_a_consumer_with_an_empty_log() -> None:
    report = diff("kv-current", str(RULES / "reordered.py"), LESS)
    assert verdicts(report) == {
        "start-zero -> uuid-not-found (ok -> rollback)": "safety regression"
    }
    (result,) = report.regions
    assert {p for e in result.evidence for p in e.regressions} == {"bounded-rollback"}
    assert result.witness is not None and result.witness.confirmed


def test_a_behaviour_preserving_rewrite_is_proved_equivalent() -> None:
    report = diff("kv-current", str(RULES / "kv_current_rewrite.py"))
    assert report.equivalent and report.complete and not report.regions
    assert report.exit_code == EXIT_OK


def test_the_purge_test_on_snap_start_costs_rollbacks_but_is_safe() -> None:
    report = diff("kv-current", str(RULES / "purge_on_snap_start.py"), LESS)
    assert set(verdicts(report).values()) == {Classification.COST_REGRESSION.value}
    assert {r.region.case_b for r in report.regions} == {"purge"}
    assert report.exit_code == EXIT_OK


def test_a_search_cut_short_is_incomplete_never_equivalent() -> None:
    timed_out = diff(
        "kv-current", str(RULES / "kv_current_rewrite.py"), options=DiffOptions(timeout_s=1e-6)
    )
    assert not timed_out.complete and not timed_out.equivalent
    assert "unknown" in timed_out.note
    assert timed_out.exit_code == EXIT_UNKNOWN
    capped = diff_rules(
        rules("rollback-doc"),
        rules("kv-current"),
        [],
        SMALL,
        table_entries=TABLE_ENTRIES,
        options=DiffOptions(max_regions=1),
    )
    assert not capped.complete and "--max 1" in capped.note
    assert capped.exit_code == EXIT_UNKNOWN


def test_a_region_only_a_request_feature_reaches_is_listed_once_with_its_feature() -> None:
    # Without STRICT_VBUUID, start 0 is accepted whatever the uuid; kv-current rolls back
    # an unknown uuid only when the request sets STRICT_VBUUID: one region, via strict.
    report = diff("kv-current", str(RULES / "no_strict.py"), LESS)
    assert report.complete
    assert verdicts(report) == {
        "uuid-not-found -> start-zero (rollback -> ok) via strict": "neutral"
    }
    (region,) = report.regions
    assert region.example is not None and region.example.request.strict
