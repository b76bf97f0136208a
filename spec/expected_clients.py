"""Expected verdicts of the client catalogue (``dcpcheck clients``, ``make verify``).

Every catalogued client (``spec.consumers.CATALOGUE``) and its fix, as it
ships (the bare name: every setting at its default) and under each
non-default value of its settings (``spec.consumers.catalogue_names``),
under both built-in rule sets, for every safety property, at the default
bounds and make verify's. A client's violations are findings about its code
(as we read it: spec/consumers/clients/); every ``-fixed`` variant must hold
under every setting. docs/clients.md tells each violation's story.
``spec.expected`` merges this table into the one ``dcpcheck verify``
compares against.
"""

from __future__ import annotations

from spec import rules
from spec.consumers import catalogue_names
from spec.properties import PROPERTIES

__all__ = ["CLIENT_EXPECTED", "COSTS", "RULE_SETS", "SAFETY"]

RULE_SETS = tuple(rules.RULE_SETS.names())  # the built-in rule sets: kv-current, rollback-doc
SAFETY = tuple(p.id for p in PROPERTIES if p.kind == "safety")  # the catalogue's kinds decide

KEEPS_DATA = (
    "violated",
    "it keeps what it derived above the rollback point: a mutation of the branch the "
    "producer discarded stays, or a key the producer deleted stays live",
)
KEEPS_DATA_AFTER_PURGE = (
    "violated",
    "mitigation leaves the purge rollback: rolled back to 0 because a tombstone it needed "
    "was purged, it keeps its data, and the deleted key stays live",
)
KEEPS_DATA_PART_SNAPSHOT = (
    "violated",
    "mitigation leaves a branch below what it holds: a promoted replica's entry is the end of "
    "the last snapshot it received whole (kv_engine getFailoverSeqno), below a snapshot the "
    "client held in part; rolled back there, it keeps items no later active has",
)
IGNORES_PURGED = (
    "violated",
    "IgnorePurgedTombstones (0x80, on by design since 2e20fdc): a deletion purged while it "
    "was away is never sent, so the key stays live (the flag's documented trade-off)",
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
    "a second ROLLBACK answers its rollback request: it reopens from its unchanged "
    "checkpoint, which is rolled back again (5 tries, then a panic; a restart reloads it)",
)

TARGET_KEEPS = (
    "violated",
    "XDCR never removes from the target what it replicated above the rollback point: a "
    "mutation of the branch the source discarded stays on the target (source and target "
    "diverge until the key is written again on the source)",
)
WALKS_CHECKPOINTS = (
    "violated",
    "ROLLBACK(0) from a start above 0: it retries from the next older checkpoint record, "
    "one round per record (the model checkpoints every item; XDCR keeps at most 5 records, "
    "so the loop ends within 6 rounds: extra round trips, no data harm)",
)

# Verdicts other than a plain "holds", per client name (with its settings).
VIOLATIONS: dict[str, dict[str, tuple[str, str]]] = {
    "java-dcp-client": {"no-missed-item": KEEPS_DATA, "no-foreign-snapshot": KEEPS_DATA},
    "java-dcp-client:mitigation=on": {
        "no-missed-item": KEEPS_DATA_AFTER_PURGE,
        "no-foreign-snapshot": KEEPS_DATA_PART_SNAPSHOT,
    },
    "go-dcp": {
        "no-missed-item": IGNORES_PURGED,
        "no-foreign-snapshot": KEEPS_DATA_PART_SNAPSHOT,
        "bounded-rollback": RETRY_LOOP,
    },
    "go-dcp:mitigation=off": {
        "no-missed-item": KEEPS_DATA,
        "no-foreign-snapshot": KEEPS_DATA,
        "bounded-rollback": RETRY_LOOP,
    },
    "cbgt": {"no-missed-item": KEEPS_DATA, "no-foreign-snapshot": KEEPS_DATA},
    "sg-dcp-client": {"no-missed-item": KEEPS_DATA, "no-foreign-snapshot": KEEPS_DATA},
    "xdcr": {
        "no-missed-item": TARGET_KEEPS,
        "no-foreign-snapshot": TARGET_KEEPS,
        "bounded-rollback": WALKS_CHECKPOINTS,
    },
    "xdcr:purge-rollback=on": {
        "no-missed-item": TARGET_KEEPS,
        "no-foreign-snapshot": TARGET_KEEPS,
        "bounded-rollback": WALKS_CHECKPOINTS,
    },
    "xdcr:snapshot-marker=lost": {
        "no-missed-item": TARGET_KEEPS,
        "no-foreign-snapshot": TARGET_KEEPS,
        "bounded-rollback": WALKS_CHECKPOINTS,
    },
    "kv-replica": {"no-missed-item": REPLICA_RESETS},
    "kv-replica:midpoint=off": {"no-missed-item": REPLICA_MID_SNAPSHOT},
}

# The cost property, pinned where a client's code (not the rule set) adds a rollback:
# (client, property) -> (verdict, why), under both rule sets.
REPEATED_ROLLBACK = (
    "violated",
    "it resumes with the oldest uuid of the log it stored at open: with a failover entry "
    "above the oldest, every reconnect is rolled back to that entry (or below) and what "
    "follows is streamed again, with no failover or compaction in between",
)
FIX_COSTS_AS_CORRECT = (
    "violated",
    "only from the rule set, as correct: a purge or an unknown uuid (spec/expected.py); "
    "it resumes with the newest uuid, so a reconnect past a failover entry is accepted",
)
COSTS: dict[tuple[str, str], tuple[str, str]] = {
    ("sg-dcp-client", "no-needless-rollback"): REPEATED_ROLLBACK,
    ("sg-dcp-client-fixed", "no-needless-rollback"): FIX_COSTS_AS_CORRECT,
}

# (rules, consumer, property) -> (verdict, why)
CLIENT_EXPECTED: dict[tuple[str, str, str], tuple[str, str]] = {
    (rules, client, prop): verdict
    for rules in RULE_SETS
    for (client, prop), verdict in COSTS.items()
}
for _rules in RULE_SETS:
    for _client in catalogue_names():
        for _prop in SAFETY:
            fixed = "-fixed" in _client.partition(":")[0]
            holds = ("holds", "the fix is safe" if fixed else "not a finding")
            CLIENT_EXPECTED[(_rules, _client, _prop)] = VIOLATIONS.get(_client, {}).get(
                _prop, holds
            )
