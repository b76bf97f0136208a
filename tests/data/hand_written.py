"""Producers as a user writes them by hand: kv_engine's needsRollback in past releases, and
single-point changes of today's. Plain Python, no dcpcheck imports (like producer_logic.py).

Each takes (req, table, high, purge) -- table [(uuid, seq)] newest first -- and answers
(rollback?, seqno). humpty_target.py and jsonl_target.py run one with --variant NAME;
the tests replay the vectors through them (tests/test_vectors_hand_written.py).

Historical behaviour, from kv_engine's engines/ep/src/failover-table.cc as it was:

* ``kv-before-mb-27604`` (until January 2018, STRICT_VBUUID included): both
  snapshot adjustments first (complete snapshot, else no item received), then
  the purge test on the adjusted snapshot start, then the uuid lookup,
  lagging, and the rollback point (upper or the snapshot start). MB-27604
  moved the purge test to the start seqno;
* ``kv-before-mb-27800`` (July 2020, MB-32358's collection exemption, to July
  2024): today's decision without the remote purge seqno MB-27800 added. On
  what humpty_dumpty can express it answers as today.
"""

from __future__ import annotations

import argparse

from producer_logic import BUGS
from producer_logic import needs_rollback as kv_current


def _upper(table, uuid, high, newest_first=False):
    """(found, upper, the matched entry's seqno); kv_engine keeps the oldest match."""
    order = range(len(table)) if newest_first else range(len(table) - 1, -1, -1)
    for index in order:
        if table[index][0] == uuid:
            return True, (high if index == 0 else table[index - 1][1]), table[index][1]
    return False, high, 0


def kv_before_mb_27604(req, table, high, purge):
    start, snap_start, snap_end = req["start"], req["snap_start"], req["snap_end"]
    if start == 0 and (not req.get("strict") or req["uuid"] == 0):
        return False, None
    if start == snap_end:
        snap_start = start
    elif start == snap_start:
        snap_end = start
    if snap_start < purge and start != 0:
        return True, 0
    found, upper, _ = _upper(table, req["uuid"], high)
    if not found:
        return True, 0
    if snap_end <= upper:
        return False, None
    return True, (upper if upper < snap_start else snap_start)


def kv_before_mb_27800(req, table, high, purge):
    """Today's needsRollback without the remote purge seqno."""
    return kv_current({**req, "remote_purge": None}, table, high, purge)


def _changed(
    purge_quantity="start",
    purge_after_complete=False,
    newest_first=False,
    lagging_against="upper",
    ahead_returns="upper",
    mismatch_returns="snap_start",
    unknown_returns="zero",
    no_item_before_lagging=True,
):
    """kv-current with one thing changed (each keyword: as today by default)."""

    def decide(req, table, high, purge):
        start, snap_start, snap_end = req["start"], req["snap_start"], req["snap_end"]
        if start == 0 and (not req.get("strict") or req["uuid"] == 0):
            return False, None
        if purge_after_complete and start == snap_end:
            snap_start = start
        tested = {"start": start, "snap_start": snap_start, "snap_end": snap_end}[purge_quantity]
        collection = req.get("collection_high")
        done = (
            collection is not None and start < purge and start >= collection and collection <= purge
        )
        if tested < purge and start != 0 and not done and req.get("remote_purge", 0) != purge:
            return True, 0
        found, upper, entry = _upper(table, req["uuid"], high, newest_first)
        if not found:
            return True, {"zero": 0, "snap_start": snap_start}[unknown_returns]
        if no_item_before_lagging and start == snap_start:
            snap_end = start
        if snap_end <= {"upper": upper, "high": high}[lagging_against]:
            return False, None
        if start == snap_end:
            snap_start = start
        values = {"upper": upper, "snap_start": snap_start, "entry": entry, "start": start}
        values["snap_start_minus_one"] = max(snap_start - 1, 0)
        if upper < snap_start:
            return True, values[ahead_returns]
        return True, values[mismatch_returns]

    return decide


VARIANTS = {
    "kv-before-mb-27604": kv_before_mb_27604,
    "kv-before-mb-27800": kv_before_mb_27800,
    "purge-on-snap-start": _changed(purge_quantity="snap_start"),
    "purge-on-snap-end": _changed(purge_quantity="snap_end"),
    "purge-after-complete-snapshot": _changed(
        purge_quantity="snap_start", purge_after_complete=True
    ),
    "newest-match": _changed(newest_first=True),
    "lagging-against-high": _changed(lagging_against="high"),
    "ahead-to-snap-start": _changed(ahead_returns="snap_start"),
    "ahead-to-entry": _changed(ahead_returns="entry"),
    "mismatch-to-upper": _changed(mismatch_returns="upper"),
    "mismatch-to-start": _changed(mismatch_returns="start"),
    "unknown-uuid-to-snap-start": _changed(unknown_returns="snap_start"),
    "mismatch-to-snap-start-minus-one": _changed(mismatch_returns="snap_start_minus_one"),
    "no-item-adjustment-after-lagging": _changed(no_item_before_lagging=False),
}

# Variants that answer every humpty-expressible request as kv-current does.
HUMPTY_EQUIVALENT = ("kv-before-mb-27800",)


def target_parser() -> argparse.ArgumentParser:
    """The switches both test targets take (humpty_target.py and jsonl_target.py add theirs)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS))
    parser.add_argument("--variant", choices=sorted(VARIANTS))
    parser.add_argument("--crash-on-start", type=int)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--garbage", action="store_true")
    return parser
