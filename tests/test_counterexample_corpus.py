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
from checker.report.counterexample import load_counterexample
from spec.consumers import CONSUMERS
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

CORPUS = sorted(
    p for p in (ROOT / "counterexamples").glob("*.json") if not p.name.endswith(".itf.json")
)


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 4
    kinds = {load_counterexample(p)["consumer"] for p in CORPUS}
    assert {"correct", "collapse-snapshot"} <= kinds


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
