"""Adapter runs that say their size (issue 47, item 3): ``clients --target`` and
``conform`` count their scenarios before starting (``checker.adapter.count``, without
listing them), estimate the time from a sample of the adapter's rate, and stop above an
hour naming the bounds that fit (``--force`` runs anyway); progress counts against the
total (``checker.adapter.size``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from checker.adapter.count import scenario_count
from checker.adapter.size import Estimate, Tally, fitting_bounds, refusal
from checker.engines.exhaustive import scenarios
from spec.bounds import Bounds

ROOT = Path(__file__).resolve().parent.parent
ADAPTER = f"jsonl:{sys.executable} {ROOT / 'examples' / 'adapters' / 'offset_store_client.py'}"


@pytest.mark.parametrize(
    "bounds",
    [
        Bounds(seqnos=1, keys=1, entries=2, failovers=1),
        Bounds(seqnos=2, keys=2, entries=2, failovers=1),
        Bounds(seqnos=1, keys=2, entries=3, failovers=2),
        Bounds(seqnos=2, keys=1, entries=2, failovers=0, sessions=2),
        Bounds(seqnos=1, keys=1, entries=3, failovers=2, sessions=2),
        Bounds(seqnos=1, keys=1, entries=2, failovers=1, sessions=3),
    ],
    ids=str,
)
def test_the_count_is_the_number_of_scenarios_the_enumeration_lists(bounds: Bounds) -> None:
    # one key, deletions, several failovers (a chain), several sessions (cuts with a
    # failover between them): each sum of the count has a case here
    assert scenario_count(bounds) == sum(1 for _ in scenarios(bounds))


def test_the_count_at_the_default_bounds_is_made_without_listing_them() -> None:
    # the figures of docs/client-targets.md, and the defaults' 2 x 10^19
    assert scenario_count(Bounds(seqnos=4, keys=1, entries=2, failovers=1)) == 1_396_442
    assert scenario_count(Bounds(seqnos=2, keys=1, entries=2, failovers=1, sessions=2)) == 338_234
    assert scenario_count(Bounds()) == 19_949_363_665_360_144_338


def test_the_bounds_that_fit_are_the_largest_below_the_given_ones() -> None:
    given = Bounds(seqnos=3, keys=2, entries=2, failovers=1)  # 3,251,176
    fit = fitting_bounds(given, lambda n: n <= 100_000)
    shown = {(b.seqnos, b.keys, b.entries, b.failovers) for b in fit}
    # 88,250, 45,320 and no failover at all; (3, 2, 2, 1) is too big, and every smaller one
    # is below one of these
    assert shown == {(3, 1, 2, 1), (2, 2, 2, 1), (3, 2, 1, 0)}
    assert all(scenario_count(b) <= 100_000 for b in fit)


def test_a_run_longer_than_an_hour_is_refused_naming_the_bounds_that_fit() -> None:
    estimate = Estimate(scenario_count(Bounds()), rate=1000.0, processes=2)
    line = refusal("dcpcheck clients --target", Bounds(), estimate)
    assert line is not None and "\n" not in line
    assert "19,949,363,665,360,144,338 scenarios" in line and "more than an hour" in line
    assert "bounds that fit: --seqnos " in line and "--force" in line
    small = Bounds(seqnos=3, keys=1, entries=2, failovers=1)
    assert refusal("x", small, Estimate(scenario_count(small), rate=1000.0)) is None


def test_progress_counts_against_the_total() -> None:
    assert Tally(1_396_442).text(72_724).startswith("72,724 of 1,396,442 scenarios")
    assert Tally(None).text(5) == "5 scenarios"


def test_clients_target_at_the_default_bounds_says_its_size_and_stops(cli, tmp_path) -> None:
    """The issue's report: at the default bounds the run never ended and said nothing."""
    result = cli("clients", "--target", ADAPTER, "--out", str(tmp_path / "out"))
    assert result.code == 2 and result.out == ""
    first, *rest = result.err.splitlines()
    assert "19,949,363,665,360,144,338 scenarios per rule set" in first
    assert "dcpcheck: error: dcpcheck clients --target: 19,949,363,665,360,144,338" in rest[-1]
    assert "bounds that fit: --seqnos" in rest[-1] and "--force runs it anyway" in rest[-1]
    assert not (tmp_path / "out").exists()


def test_conform_says_its_size_and_progress_against_the_total(cli) -> None:
    small = ["--seqnos", "2", "--keys", "1", "--entries", "2", "--failovers", "1"]
    result = cli("conform", "--target", ADAPTER, "--consumer", "correct", *small)
    assert result.code == 0
    assert "within seqnos<=2" in result.err and ": 4,610 scenarios" in result.err
    assert "conform: 4,500 of 4,610 scenarios" in result.err


def test_conform_above_an_hour_stops_naming_the_bounds_that_fit(cli) -> None:
    result = cli("conform", "--target", ADAPTER, "--consumer", "correct")
    assert result.code == 2 and result.out == ""
    assert "dcpcheck: error: dcpcheck conform: " in result.err and "bounds that fit" in result.err
