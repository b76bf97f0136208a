"""Expected verdicts of the client catalogue (``dcpcheck clients``, ``make verify``).

Every catalogued client (``spec.consumers.CATALOGUE``) and its fix, under
both built-in rule sets, for every safety property, at the default bounds
and make verify's. A client's violations are findings about its code (as we
read it: spec/consumers/clients/); every ``-fixed`` variant must hold.
docs/clients.md tells each violation's story. ``spec.expected`` merges this
table into the one ``dcpcheck verify`` compares against.
"""

from __future__ import annotations

from spec.consumers import CATALOGUE

__all__ = ["CLIENT_EXPECTED", "SAFETY"]

RULE_SETS = ("kv-current", "rollback-doc")
SAFETY = ("no-missed-item", "no-foreign-snapshot", "bounded-rollback", "valid-request")

KEEPS_DATA = (
    "violated",
    "it keeps what it derived above the rollback point: a mutation of the branch the "
    "producer discarded stays, or a key the producer deleted stays live",
)
REPLICA_MID_SNAPSHOT = (
    "violated",
    "with couchstore's midpoint rule off it rolls back to a disk header written mid-snapshot "
    "and claims {h,[h,h]}: a mutation deduplicated away before h is never sent again",
)
REPLICA_RESETS = (
    "holds",
    "with at most 3 keys its file has at most 3 entries, so couchstore's midpoint rule "
    "(default on) resets every rollback to 0; the loss needs 4 keys (docs/clients.md)",
)
RETRY_LOOP = (
    "violated",
    "a second rollback (the purge check it skipped with IgnorePurgedTombstones) makes it "
    "reopen from its unchanged checkpoint, forever",
)

# (rules, consumer, property) -> (verdict, why)
CLIENT_EXPECTED: dict[tuple[str, str, str], tuple[str, str]] = {}
for _rules in RULE_SETS:
    for _client, _fixed in CATALOGUE:
        for _prop in SAFETY:
            CLIENT_EXPECTED[(_rules, _fixed, _prop)] = ("holds", "the fix is safe")
            CLIENT_EXPECTED[(_rules, _client, _prop)] = ("holds", "not a finding")
    for _client in ("java-dcp-client", "go-dcp", "cbgt"):
        CLIENT_EXPECTED[(_rules, _client, "no-missed-item")] = KEEPS_DATA
        CLIENT_EXPECTED[(_rules, _client, "no-foreign-snapshot")] = KEEPS_DATA
    CLIENT_EXPECTED[(_rules, "go-dcp", "bounded-rollback")] = RETRY_LOOP
    CLIENT_EXPECTED[(_rules, "kv-replica", "no-missed-item")] = REPLICA_RESETS
    # kv-replica with couchstore_midpoint_rollback_optimisation=false (a setting, not a fix)
    for _prop in SAFETY:
        CLIENT_EXPECTED[(_rules, "kv-replica-midpoint-off", _prop)] = ("holds", "not a finding")
    CLIENT_EXPECTED[(_rules, "kv-replica-midpoint-off", "no-missed-item")] = REPLICA_MID_SNAPSHOT
