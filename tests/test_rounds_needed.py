"""A ``holds`` that cannot be false (issue 25, item 3): ``--rounds`` too few for a property
whose violation needs more rounds is warned about on stderr, with the bound to raise,
derived from the property's formula (``checker.scenario_check.rounds_needed``)."""

from __future__ import annotations

import pytest

from checker.scenario_check import rounds_needed
from spec.bounds import Bounds
from spec.expr import all_of, implies
from spec.properties import PROPERTIES, Property

SMALL = {"seqnos": 4, "keys": 2, "entries": 3, "failovers": 1}
FLAGS = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]


def test_go_dcps_loop_at_four_rounds_holds_with_a_warning_naming_the_rounds_to_raise(cli) -> None:
    args = ["check", "--consumer", "go-dcp", "--rules", "kv-current"]
    result = cli(*args, "--property", "bounded-rollback", *FLAGS, "--rounds", "4", "--quiet")
    assert result.code == 0 and ": holds within" in result.out
    assert result.err == (
        "dcpcheck: warning: bounded-rollback holds only for runs of at most 4 rounds: within "
        "these bounds a violation can need 6, which --rounds 4 cannot show; raise --rounds to "
        "6 (the default is entries + 3)\n"
    )
    raised = cli(*args, "--property", "bounded-rollback", *FLAGS, "--rounds", "6", "--quiet")
    assert raised.code == 1 and ": violated" in raised.out and raised.err == ""


@pytest.mark.parametrize(
    ("rounds", "max_entries", "needed"),
    [(4, 25, 6), (5, 25, 6), (4, 2, 5), (5, 2, None), (6, 25, None)],
)
def test_bounded_rollback_needs_the_longest_table_plus_three_rounds(
    rounds: int, max_entries: int, needed: int | None
) -> None:
    bounds = Bounds(**SMALL, rounds=rounds, max_entries=max_entries)
    assert rounds_needed(PROPERTIES.get("bounded-rollback"), bounds) == needed


@pytest.mark.parametrize("prop", [p.id for p in PROPERTIES])
def test_the_default_rounds_cut_no_built_in_property_short(prop: str) -> None:
    assert rounds_needed(PROPERTIES.get(prop), Bounds(**SMALL)) is None


def at_most_two_requests(t):
    """A property of the user's own that counts rounds: no third request is sent."""
    return all_of(*(implies(t[f"r{i}.sent"], i < 2) for i in t.rounds))


def test_a_user_property_that_counts_rounds_is_read_from_its_formula() -> None:
    prop = Property("at-most-two-requests", "safety", "no third request", at_most_two_requests)
    assert rounds_needed(prop, Bounds(**SMALL, rounds=2)) == 3
    assert rounds_needed(prop, Bounds(**SMALL, rounds=3)) is None


@pytest.mark.parametrize("rounds", ["-1", "0"])
def test_rounds_below_one_is_one_line_of_bad_input_never_the_default(cli, rounds: str) -> None:
    """Issue 47, item 5: ``--rounds -1`` was an AssertionError (exit 4) and ``--rounds 0``
    was silently replaced by entries + 3 (the report said rounds<=5)."""
    args = ["check", "--consumer", "correct", "--rules", "kv-current"]
    result = cli(*args, "--property", "valid-request", *FLAGS, "--rounds", rounds, "--quiet")
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1
    assert f"argument --rounds: expected 1..128, got {rounds}" in result.err


def test_bounds_refuse_negative_rounds() -> None:
    with pytest.raises(ValueError, match="bound rounds must be at least 1"):
        Bounds(**SMALL, rounds=-1)
