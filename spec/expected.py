"""Expected verdicts of the built-in matrix (default bounds and make verify's).

The harness is wrong if it disagrees (MISSION.md, "Expected verdicts").
Deliberately broken variants are kept here with the verdict they must get,
as TLA+ specs keep their broken configurations. ``dcpcheck verify``
compares every run against this table.
"""

from __future__ import annotations

from spec.bounds import Bounds
from spec.expected_clients import CLIENT_EXPECTED, RULE_SETS, SAFETY  # from the registries

__all__ = [
    "CHANGED_AT_TWO_SESSIONS",
    "DEFAULT_BOUNDS",
    "EXPECTED",
    "EXPECTED_AT",
    "expected_verdict",
]

DEFAULT_BOUNDS = Bounds()

CONSUMERS = ("correct", "collapse-snapshot")
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

# With --sessions 2 (a resume's stream may be cut, failovers and compactions may come
# between resumes; docs/model.md, "Several sessions"), at the default bounds and make
# verify's: every verdict as with one session except these (docs/findings.md).
# (xdcr, xdcr:purge-rollback=on and xdcr-fixed were run at two sessions on their own, at
# make verify's bounds: every verdict their one-session one. So were java-dcp-client, its
# fix (both mitigation values) and cbgt once they remembered their own offset,
# ConsumerView.offset: 40 checks, benchmarks/RESULTS.md.)
CHANGED_AT_TWO_SESSIONS: dict[tuple[str, str, str], tuple[str, str]] = {
    (rules, client, "bounded-rollback"): (
        "violated",
        "after a second failover its log is the longer table of the producer it last "
        "streamed from; it walks that log one ROLLBACK per entry, more rounds than the "
        "current producer's table + 2 (the loop ends; counterexamples/sessions/)",
    )
    for rules in ("kv-current", "rollback-doc")
    for client in (
        "kv-replica",
        "kv-replica-fixed",
        "kv-replica:midpoint=off",
        "kv-replica-fixed:midpoint=off",
    )
}

# sessions -> (rules, consumer, property) -> (verdict, why)
EXPECTED_AT: dict[int, dict[tuple[str, str, str], tuple[str, str]]] = {
    1: EXPECTED,
    2: EXPECTED | CHANGED_AT_TWO_SESSIONS,
}


def expected_verdict(rules: str, consumer: str, prop: str, sessions: int = 1) -> str | None:
    """The pinned verdict (None: none pinned, e.g. for more sessions than pinned)."""
    entry = EXPECTED_AT.get(sessions, {}).get((rules, consumer, prop))
    return entry[0] if entry else None
