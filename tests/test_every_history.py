"""valid-request for histories of any length: each variant evaluated over the abstract
consumer view (spec/model/abstract_view.py), whose premises are scan facts Z3 proves by
induction (spec/model/scans.py). A proof must never stand beside a bounded violation, a
broken variant must not be proved, and dropping a premise or breaking a scan's step must
show."""

from __future__ import annotations

import pytest
from broken_variants import SnapshotEndOffByOne

import spec.model.scans as scans
from checker.engines import z3
from checker.result import Verdict
from checker.symbolic.budget import Budget
from checker.unbounded import scan_facts_hold, valid_request_every_history
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, TEXTBOOK, catalogue_names
from spec.model.abstract_view import AbstractView
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

BUDGET = 50_000_000


def _every_history(*variants):
    return valid_request_every_history(list(variants), Budget(BUDGET))


def test_every_built_in_and_catalogued_variant_sends_valid_requests_at_any_length() -> None:
    names = [*TEXTBOOK, *catalogue_names()]
    results = _every_history(*(CONSUMERS.get(n) for n in names))
    assert [(r.subject["consumer"], r.verdict) for r in results] == [
        (n, Verdict.HOLDS) for n in names
    ]
    assert "every history length" in results[0].bounds.describe()


def test_a_variant_that_reports_its_snapshot_end_minus_one_is_not_proved() -> None:
    (result,) = _every_history(SnapshotEndOffByOne())
    assert result.verdict is Verdict.UNKNOWN  # never violated: the abstraction over-approximates
    assert result.reason.startswith("the request sent: not proved over the abstract view")


def test_without_the_snapshot_premise_correct_is_not_proved(monkeypatch) -> None:
    def no_premise(self, seqno):
        return self.fresh.value("snap_start_of"), self.fresh.value("snap_end_of")

    monkeypatch.setattr(AbstractView, "snapshot_of", no_premise)
    (result,) = _every_history(CONSUMERS.get("correct"))
    assert result.verdict is Verdict.UNKNOWN
    assert "remembered when a stream ends" in result.reason


def test_the_scan_facts_are_proved_and_a_wrong_step_is_refuted(monkeypatch) -> None:
    assert scan_facts_hold(Budget(BUDGET)) == (
        True,
        "4 scan facts, by induction over their steps",
    )
    # a marker that would start two past the last end: start_of[x] <= x no longer follows
    monkeypatch.setattr(scans, "start_step", lambda c, is_end, x: scans.ite(is_end, x + 2, c))
    held, where = scan_facts_hold(Budget(BUDGET))
    assert held is False and where == "the step of the scan fact 'marker start'"
    (result,) = _every_history(CONSUMERS.get("correct"))
    assert result.verdict is Verdict.UNKNOWN and "a premise is refuted" in result.reason


@pytest.mark.parametrize("consumer", ["correct", "collapse-snapshot", "go-dcp", "kv-replica"])
def test_a_proof_for_any_length_agrees_with_the_bounded_check(consumer: str) -> None:
    """The proof covers every bound, so a bounded search must find nothing either."""
    (proved,) = _every_history(CONSUMERS.get(consumer))
    assert proved.verdict is Verdict.HOLDS
    bounds = Bounds(seqnos=3, keys=2, entries=2, failovers=1)
    model = ScenarioModel(bounds, RULE_SETS.get("kv-current"), CONSUMERS.get(consumer))
    found = z3.search(model, PROPERTIES.get("valid-request"), budget=Budget(BUDGET))
    assert found.verdict is Verdict.HOLDS


def test_the_broken_variant_is_violated_by_the_bounded_check() -> None:
    """What the abstract view leaves unknown is really violated within small bounds."""
    bounds = Bounds(seqnos=2, keys=1, entries=2, failovers=1)
    model = ScenarioModel(bounds, RULE_SETS.get("kv-current"), SnapshotEndOffByOne())
    found = z3.search(model, PROPERTIES.get("valid-request"), budget=Budget(BUDGET))
    assert found.verdict is Verdict.VIOLATED


class _ReadsTheTableItself(SnapshotEndOffByOne):
    """A user's variant reaching past the ConsumerView interface (a TableExprs field)."""

    name = "reads-the-table"

    def request(self, view):
        base = super().request(view)
        return base.but(uuid=view.log.uuid[0])


def test_a_variant_reading_past_the_interface_is_unknown_not_an_error() -> None:
    (result,) = _every_history(_ReadsTheTableItself())
    assert result.verdict is Verdict.UNKNOWN
    assert result.reason.startswith("not evaluable over the abstract view: ")


def test_sessions_any_for_valid_request_is_the_any_length_proof_and_falls_back_when_it_fails() -> (
    None
):
    from checker.induction.every_session import check_every_session

    bounds = Bounds(seqnos=8, keys=3, entries=5, failovers=3)
    rules, prop = RULE_SETS.get("kv-current"), PROPERTIES.get("valid-request")
    proved = check_every_session(rules, CONSUMERS.get("go-dcp-fixed"), prop, bounds)
    assert proved.verdict is Verdict.HOLDS
    assert proved.bounds.describe().endswith("every number of sessions (abstract view)")
    assert "every history length" in proved.long_text
    # not proved over the abstract view: the induction over resumes and the bounded checks
    small = Bounds(seqnos=2, keys=1, entries=2, failovers=1)
    broken = check_every_session(rules, SnapshotEndOffByOne(), prop, small)
    assert broken.verdict is Verdict.VIOLATED
