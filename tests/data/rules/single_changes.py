"""Single-point changes of kv-current a user might make, one rule set each (FILE.py:NAME).

Each is computed from kv-current's steps, as docs/authoring-rules.md shows:

* ``purge-on-snap-end``: the purge clause tests the snapshot end instead of the start;
* ``ahead-to-entry``: ahead-of-upper rolls back to the matching entry's own seqno
  (its branch point) instead of upper;
* ``newest-match``: the failover table is scanned from the newest entry, so if
  a table repeats the consumer's uuid the newest entry decides (kv_engine
  keeps the oldest);
* ``no-item-after-lagging``: the no-item-received adjustment comes after the
  lagging test instead of before it;
* ``mismatch-to-snap-start-minus-one``: snapshot-mismatch rolls back to one below the
  snapshot start (deeper than needed, and safe: a cost regression);
* ``mismatch-wrapped``: the same in uint64 arithmetic, as C++ computes it: at snapshot
  start 0 it rolls back to 2^64-1, above the request's start (bounded-rollback breaks).

tests/data/hand_written.py has the same behaviours as plain Python.
"""

import dataclasses

from spec.expr import saturating_sub
from spec.rules import F, RuleSet, rollback
from spec.rules.kv_current import RULES as KV_CURRENT


def _step(name):
    return next(step for step in KV_CURRENT.steps if step.name == name)


def _replaced(name, **changes):
    return tuple(
        dataclasses.replace(step, **changes) if step.name == name else step
        for step in KV_CURRENT.steps
    )


# Only the purge comparison's own start changes; the start != 0 and collection tests keep it.
PURGE_WHEN = (
    (F.snap_end < F.purge_seqno)
    & (F.start != 0)
    & ~(
        F.has_collection_high
        & (F.start < F.purge_seqno)
        & (F.start >= F.collection_high)
        & (F.collection_high <= F.purge_seqno)
    )
    & (F.remote_purge != F.purge_seqno)
)

PURGE_ON_SNAP_END = RuleSet(
    name="purge-on-snap-end",
    summary="kv-current, with the purge test on snap_end",
    steps=_replaced("purge", when=PURGE_WHEN),
)

AHEAD_TO_ENTRY = RuleSet(
    name="ahead-to-entry",
    summary="kv-current, rolling a consumer ahead of upper back to its entry's branch point",
    steps=_replaced("ahead-of-upper", then=rollback(F.entry_seqno)),
)

NEWEST_MATCH = RuleSet(
    name="newest-match",
    summary="kv-current, scanning the failover table from the newest entry",
    steps=KV_CURRENT.steps,
    table_scan="newest-first",
)

_order = [step.name for step in KV_CURRENT.steps]
_lagging = _order.index("lagging")
NO_ITEM_AFTER_LAGGING = RuleSet(
    name="no-item-after-lagging",
    summary="kv-current, with the no-item-received adjustment after the lagging test",
    steps=tuple(
        _step(name)
        for name in (
            *(n for n in _order[:_lagging] if n != "no-item-received"),
            "lagging",
            "no-item-received",
            *_order[_lagging + 1 :],
        )
    ),
)

MISMATCH_TO_SNAP_START_MINUS_ONE = RuleSet(
    name="mismatch-to-snap-start-minus-one",
    summary="kv-current, rolling a snapshot mismatch back to snap_start - 1",
    steps=_replaced("snapshot-mismatch", then=rollback(saturating_sub(F.snap_start, 1))),
)

MISMATCH_WRAPPED = RuleSet(
    name="mismatch-wrapped",
    summary="kv-current, rolling a snapshot mismatch back to snap_start - 1 (uint64: 0 - 1 wraps)",
    steps=_replaced("snapshot-mismatch", then=rollback(F.snap_start - 1)),
)
