"""Expected verdicts of the built-in matrix (default bounds and make verify's).

The harness is wrong if it disagrees (MISSION.md, "Expected verdicts").
Deliberately broken variants are kept here with the verdict they must get,
as TLA+ specs keep their broken configurations. ``dcpcheck verify``
compares every run against this table.
"""

from __future__ import annotations

from spec.bounds import Bounds
from spec.expected_clients import CLIENT_EXPECTED

__all__ = ["DEFAULT_BOUNDS", "EXPECTED", "expected_verdict"]

DEFAULT_BOUNDS = Bounds()

RULE_SETS = ("kv-current", "rollback-doc")
CONSUMERS = ("correct", "collapse-snapshot")
SAFETY = ("no-missed-item", "no-foreign-snapshot", "bounded-rollback", "valid-request")

# (rules, consumer, property) -> (verdict, why)
EXPECTED: dict[tuple[str, str, str], tuple[str, str]] = {}
for _rules in RULE_SETS:
    for _consumer in CONSUMERS:
        for _prop in SAFETY:
            EXPECTED[(_rules, _consumer, _prop)] = ("holds", "a correct protocol is safe")
        EXPECTED[(_rules, _consumer, "no-needless-rollback")] = (
            "violated",
            "kv-current rolls back to 0 whenever start < purge seqno, even when no purged "
            "tombstone concerns the consumer; rollback-doc also rolls back start-0 consumers "
            "whose uuid is unknown (docs/findings.md)",
        )
    EXPECTED[(_rules, "collapse-snapshot", "no-missed-item")] = (
        "violated",
        "seed 001: a consumer reporting {start,start} mid-snapshot is not rolled back and "
        "never receives a key whose mutation was deduplicated away",
    )


EXPECTED.update(CLIENT_EXPECTED)  # the client catalogue (spec/expected_clients.py)


def expected_verdict(rules: str, consumer: str, prop: str) -> str | None:
    entry = EXPECTED.get((rules, consumer, prop))
    return entry[0] if entry else None
