"""The catalogue's fixes are the smallest we found: take any one change back and it breaks.

Each ablation (tests/client_ablations.py) is a fix with one of its changes
undone; each must violate a safety property under kv-current, with a
counterexample the reference implementation confirms. The fixes themselves
hold: ``dcpcheck clients`` pins that at make verify's bounds
(spec/expected_clients.py), and tests/test_clients_cli.py at small ones.
"""

from __future__ import annotations

import pytest
from client_ablations import ABLATIONS

from checker.scenario_check import check
from spec.bounds import Bounds
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

SMALL = Bounds(seqnos=3, keys=2, entries=3, failovers=1)
SAFETY = [p for p in PROPERTIES if p.kind == "safety"]
CASES = [(fix, change, variant) for fix, pairs in ABLATIONS.items() for change, variant in pairs]


@pytest.mark.parametrize(
    ("fix", "change", "variant"), CASES, ids=[f"{f}: {c}" for f, c, _ in CASES]
)
def test_taking_back_one_change_of_a_fix_breaks_a_safety_property(fix, change, variant) -> None:
    for prop in SAFETY:
        result = check(RULE_SETS.get("kv-current"), variant, prop, SMALL)
        if result.verdict.value == "violated":
            assert result.confirmed, result.replay
            return
        assert result.verdict.value == "holds", result.reason
    pytest.fail(f"{fix} without '{change}' is still safe within {SMALL.describe()}")
