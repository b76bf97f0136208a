"""Regions of the decision space: every concrete difference lies in a region Z3 found."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import producers, requests

from checker.diff.decisions import RegionSearch, search_regions
from checker.diff.regions import Change, Region, change_of
from checker.symbolic.budget import Budget
from spec.rules import RULE_SETS, Decider
from spec.types import Decision, Outcome

TABLE_ENTRIES = 4


@pytest.fixture(scope="module")
def doc_vs_code() -> RegionSearch:
    search = search_regions(
        RULE_SETS.get("rollback-doc"), RULE_SETS.get("kv-current"), TABLE_ENTRIES, 50, Budget()
    )
    assert search.complete
    return search


def _region(a: Decision, b: Decision) -> Region:
    return Region(a.case, b.case, change_of(a, b))


@given(data=st.data())
def test_every_request_answered_differently_lies_in_a_found_region(
    doc_vs_code: RegionSearch, data: st.DataObject
) -> None:
    producer = data.draw(producers(max_entries=TABLE_ENTRIES))
    request = data.draw(requests(producer))
    a = Decider(RULE_SETS.get("rollback-doc")).decide(request, producer)
    b = Decider(RULE_SETS.get("kv-current")).decide(request, producer)
    if (a.outcome, a.rollback_seqno) != (b.outcome, b.rollback_seqno):
        assert _region(a, b) in {r.plain for r, _ in doc_vs_code.found}


def test_regions_are_distinct(doc_vs_code: RegionSearch) -> None:
    regions = [r for r, _ in doc_vs_code.found]
    assert len(regions) == len(set(regions))


@pytest.mark.parametrize(
    ("a", "b", "name", "direction"),
    [
        (Decision(Outcome.ACCEPT, "x"), Decision(Outcome.ROLLBACK, "y", 0), "ok -> rollback", 1),
        (Decision(Outcome.ROLLBACK, "x", 3), Decision(Outcome.ACCEPT, "y"), "rollback -> ok", -1),
        (
            Decision(Outcome.ROLLBACK, "x", 3),
            Decision(Outcome.ROLLBACK, "y", 1),
            "rollback deeper",
            1,
        ),
        (
            Decision(Outcome.ROLLBACK, "x", 1),
            Decision(Outcome.ROLLBACK, "y", 3),
            "rollback shallower",
            -1,
        ),
        (Decision(Outcome.ACCEPT, "x"), Decision(Outcome.ACCEPT, "y"), "same answer", 0),
        (Decision(Outcome.ERANGE, "erange"), Decision(Outcome.ACCEPT, "y"), "erange -> ok", 0),
    ],
)
def test_a_change_says_which_way_the_rollback_moved(
    a: Decision, b: Decision, name: str, direction: int
) -> None:
    change = change_of(a, b)
    assert change.name == name and change.direction == direction
    assert isinstance(change, Change)
