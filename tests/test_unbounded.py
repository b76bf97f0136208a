"""Decision-level proofs for every failover-table length and every uint64 seqno."""

from __future__ import annotations

from checker.diff.decisions import search_regions
from checker.report.text import result_json
from checker.result import Verdict
from checker.symbolic.budget import Budget
from checker.unbounded import decision_results, lookup_abstraction_holds
from spec.rules import RULE_SETS, Clause, F, RuleSet, accept, otherwise, rollback


def test_the_table_lookup_gives_the_abstract_facts_for_every_length() -> None:
    proved, how = lookup_abstraction_holds(Budget())
    assert proved is True, how
    assert "every length" in how


def test_builtin_rule_sets_keep_rollback_below_start_and_refuse_invalid_requests() -> None:
    results = decision_results(list(RULE_SETS), Budget())
    verdicts = {(r.rules, r.property): r.verdict for r in results}
    assert verdicts == {
        (name, prop): Verdict.HOLDS
        for name in RULE_SETS.names()
        for prop in ("bounded-rollback", "valid-request")
    }
    assert all("every failover-table length" in r.bounds.describe() for r in results)
    # in --json (verify's decision-level records): no bound to state, not the scenario ones
    assert all(result_json(r)["bounds"] == {} for r in results)


def test_a_rollback_to_the_snapshot_end_is_caught_for_tables_of_any_length() -> None:
    to_snap_end = RuleSet(
        name="to-snap-end",
        summary="rolls back to the end of the consumer's snapshot",
        steps=(
            Clause("start-zero", when=F.start == 0, then=accept()),
            Clause("always", when=otherwise, then=rollback(F.snap_end)),
        ),
    )
    verdicts = {r.property: r.verdict for r in decision_results([to_snap_end], Budget())}
    assert verdicts == {"bounded-rollback": Verdict.VIOLATED, "valid-request": Verdict.HOLDS}


def test_no_region_of_rollback_doc_vs_kv_current_needs_a_longer_table() -> None:
    search = search_regions(
        RULE_SETS.get("rollback-doc"), RULE_SETS.get("kv-current"), 3, 50, Budget()
    )
    assert search.complete and search.any_length
    assert len([r for r, _ in search.found if not r.via]) == 4
