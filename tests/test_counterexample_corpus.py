"""Every checked-in counterexample still violates its property, on both sides.

Checked-in counterexamples run before any search: each is replayed on the
reference implementation (it must still violate its property under its rule
set and consumer) and evaluated through the symbolic model (which must predict
the same trace). A counterexample that stops violating means a rule set,
variant or the model changed: look at it before refreshing the corpus with
``dcpcheck check --out counterexamples``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from checker.confirm import replay_scenario
from checker.corpus.scenario import load_counterexample
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.expected_clients import CLIENT_EXPECTED
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

CORPUS = sorted(
    p
    for pattern in ("*.json", "clients/*.json", "clients/larger/*.json")
    for p in (ROOT / "counterexamples").glob(pattern)
    if not p.name.endswith(".itf.json")
)
CLIENTS = [p for p in CORPUS if p.parent.name == "clients"]
# clients/larger: stories at bounds larger than make verify's, where the real system
# behaves as modelled (kv-replica needs 4 keys for couchstore's midpoint rule not to reset)
# make verify's bounds (Makefile VERIFY_BOUNDS): the client counterexamples were found there
VERIFY_BOUNDS = Bounds(seqnos=8, keys=3, entries=5, failovers=3)


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 4
    kinds = {load_counterexample(p)["consumer"] for p in CORPUS}
    assert {"correct", "collapse-snapshot"} <= kinds


def test_every_pinned_client_violation_has_its_counterexample_checked_in() -> None:
    violations = {key for key, (verdict, _) in CLIENT_EXPECTED.items() if verdict == "violated"}
    stored = set()
    for path in CLIENTS:
        record = load_counterexample(path)
        stored.add((record["rules"], record["consumer"], record["property"]))
        assert record["bounds"] == VERIFY_BOUNDS, path
    assert stored == violations


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_checked_in_counterexample_still_violates(path: Path) -> None:
    record = load_counterexample(path)
    model = ScenarioModel(
        record["bounds"], RULE_SETS.get(record["rules"]), CONSUMERS.get(record["consumer"])
    )
    replay = replay_scenario(record["scenario"], model, PROPERTIES.get(record["property"]))
    assert replay.violated_on_reference, replay.detail
    assert not replay.mismatches, replay.mismatches
    assert replay.confirmed
    assert replay.trace is not None
    stored = [r["decision"]["case"] for r in record["trace"]["rounds"]]
    assert [r.decision.case for r in replay.trace.rounds] == stored


def test_a_corrupt_counterexample_file_names_the_field(tmp_path: Path) -> None:
    from spec.errors import InvalidInput

    bad = tmp_path / "bad.json"
    text = CORPUS[0].read_text().replace('"op": "set"', '"op": "put"', 1)
    bad.write_text(text)
    with pytest.raises(InvalidInput, match=r"history\[\d\]: op must be"):
        load_counterexample(bad)
