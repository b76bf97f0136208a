"""The cluster model gets the verdicts spec/cluster/expected.py records; stored runs replay.

Checked-in counterexamples (counterexamples/durability/) run first: each is
replayed action by action on the model and must violate its property again,
at its last step and not before, within its preset's bounds as they are now.
Then the expected verdicts are searched for the presets that explore in
seconds (mb-34150, mb-51805; both properties of a model in one search, which
also pins mb-34150's state counts) and, for the larger presets, for the recorded
violations (a breadth-first search stops at the first one) that no stored
counterexample witnesses: a replayed one shows the violation the search would
find (the search itself is tested on the small presets), for a second of the
25-35 CPU s a search of mb-34150-wide takes to reach it. The larger presets'
``holds`` run in the benchmark.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from durabilityhelp import in_process, together

from checker.confirm import replay_stored
from spec.cluster import ACK_RULES, BRANCH_RULES, PRESETS
from spec.cluster.expected import EXPECTED

ROOT = Path(__file__).resolve().parent.parent
STORED = sorted(
    p
    for p in (ROOT / "counterexamples" / "durability").glob("*.json")
    if not p.name.endswith(".itf.json")
)
FAST = {"mb-34150", "mb-51805"}


def _check_of(stored: dict) -> tuple[str, str, str, str]:
    return stored["preset"], stored["ack_rule"], stored["branch_rule"], stored["property"]


RECORDS = {p: json.loads(p.read_text()) for p in STORED}
# the recorded violations a stored counterexample of the preset's current bounds witnesses
WITNESSED = {
    _check_of(r) for r in RECORDS.values() if r["bounds"] == PRESETS[r["preset"]].bounds.to_json()
}


@pytest.mark.parametrize("path", STORED, ids=[p.name[:60] for p in STORED])
def test_stored_counterexample_replays_to_its_violation(path: Path) -> None:
    replayed = replay_stored(path).replayed
    assert replayed.confirmed, replayed.detail
    check = _check_of(RECORDS[path])
    if check in EXPECTED:  # a catalogued property: its recorded verdict is this one
        assert EXPECTED[check][0] == "violated", check


def test_the_corpus_holds_both_seeds() -> None:
    names = {p.name.split("--")[0] + "/" + p.name.split("--")[1] for p in STORED}
    assert "no-lost-syncwrite/ack-on-prepare" in names  # MB-34150
    assert "prepare-ack-progress/ack-at-snapshot-end" in names  # MB-51805


CASES = sorted(
    k
    for k, (verdict, _) in EXPECTED.items()
    if k[0] in FAST or (verdict == "violated" and k not in WITNESSED)
)
# The presets that explore in seconds: both properties of a model from one search.
MODELS = sorted({k[:3] for k in CASES if k[0] in FAST})
# Unique states of complete searches: a change to the model shows here (couchstore headers
# in the state, 2026-11: mb-34150 22,167 -> 44,622); mb-51805's in test_durability_model.py.
# One representative per orbit of the nodes' symmetry (the default); without it, 44,622 and
# 61,162 (tests/test_cluster_symmetry.py).
STATES = {
    ("mb-34150", "ack-on-prepare", "highest-snapshot"): 18451,
    ("mb-34150", "ack-at-snapshot-end+restart-fix", "highest-snapshot"): 25006,
}


@pytest.mark.parametrize("preset, ack, branch", MODELS, ids=["/".join(m) for m in MODELS])
def test_expected_verdicts_of_a_model(preset: str, ack: str, branch: str) -> None:
    results, states = together(preset, ack, branch)
    for prop, result in results.items():
        want, why = EXPECTED[(preset, ack, branch, prop)]
        assert (prop, result.verdict.value) == (prop, want), why
        assert not result.vacuous, prop
    if (preset, ack, branch) in STATES:
        assert states == STATES[(preset, ack, branch)]


LARGER = [k for k in CASES if k[0] not in FAST]


@pytest.mark.parametrize("preset, ack, branch, prop", LARGER, ids=["/".join(c) for c in LARGER])
def test_expected_verdict(preset: str, ack: str, branch: str, prop: str) -> None:
    want, why = EXPECTED[(preset, ack, branch, prop)]
    result = in_process(preset, ack, branch, prop)
    assert result.verdict.value == want, why
    assert not result.vacuous


def test_every_recorded_violation_of_a_larger_preset_is_searched_or_replayed() -> None:
    violations = {k for k, (verdict, _) in EXPECTED.items() if verdict == "violated"}
    assert violations <= set(CASES) | WITNESSED
    assert any(k[0] not in FAST for k in WITNESSED)  # the slowest searches of mb-34150-wide


def test_every_recorded_preset_has_a_verdict_for_every_combination() -> None:
    combos = {
        (preset, ack, branch, prop)
        for preset in PRESETS
        if PRESETS[preset].recorded
        for ack in ACK_RULES.names()
        for branch in BRANCH_RULES.names()
        for prop in ("no-lost-syncwrite", "prepare-ack-progress")
    }
    assert combos == {k for k in EXPECTED if PRESETS[k[0]].recorded}


LEVEL_PRESETS = [
    "levels-mp",
    "levels-pm",
    "levels-mp-small",
    "levels-pm-small",
    "mb-34150-backfill",  # (disk snapshots; recorded as the level presets are)
    "mb-34150-wide-persist",
]


def test_mb_34150_wider_records_every_check_each_violation_a_stored_run() -> None:
    """mb-34150-wider records all 12 checks (its four ``holds`` take hours of two cores,
    searched in no test: benchmarks/durability_scale.py); each violation is witnessed by a
    stored run."""
    unrecorded = [name for name, p in PRESETS.items() if not p.recorded]
    assert unrecorded == LEVEL_PRESETS
    scale = {k: v for k, (v, _) in EXPECTED.items() if k[0] == "mb-34150-wider"}
    assert len(scale) == 12
    assert {k for k, v in scale.items() if v == "violated"} <= WITNESSED
    assert sorted(k[1:3] for k, v in scale.items() if v == "holds") == [
        (ack, branch)
        for ack in ("ack-at-snapshot-end+restart-fix", "ack-on-prepare")
        for branch in ("highest-snapshot", "persisted-snapshot")
    ]


def test_every_violation_of_a_level_preset_is_a_stored_run() -> None:
    """The level presets record the checks run so far; each violation is witnessed by a
    stored run (replayed above on the model and the reference), none searched again."""
    recorded = {k: v for k, (v, _) in EXPECTED.items() if k[0] in LEVEL_PRESETS}
    assert {k[0] for k in recorded} == set(LEVEL_PRESETS)
    assert {k for k, v in recorded.items() if v == "violated"} <= WITNESSED
