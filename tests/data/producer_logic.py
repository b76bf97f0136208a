"""An independent producer decision for the replay tests' external targets.

Plain Python, no dcpcheck imports: kv_engine's needsRollback (kv-current) and
the producer's range check, written again from kv_engine's facts, with
switchable deliberate bugs so the tests can check that replay catches them.
"""

from __future__ import annotations

BUGS = {
    "purge-off-by-one": "purge check start + 1 < purge (misses start == purge - 1)",
    "lagging-strict": "lagging check snap_end < upper (rolls back at snap_end == upper)",
    "upper-self": "upper is the matched entry's own seqno, not the next newer one's",
}


def upper_of(table, uuid, high, bugs):
    """table: [(uuid, seq)] newest first; the oldest matching entry wins."""
    for index in range(len(table) - 1, -1, -1):
        if table[index][0] == uuid:
            if "upper-self" in bugs:
                return table[index][1]
            return high if index == 0 else table[index - 1][1]
    return None


def needs_rollback(req, table, high, purge, bugs=frozenset()):
    """(rollback?, seqno) as kv_engine's FailoverTable::needsRollback answers."""
    start, snap_start, snap_end = req["start"], req["snap_start"], req["snap_end"]
    if start == 0 and (not req.get("strict") or req["uuid"] == 0):
        return False, None
    collection = req.get("collection_high")
    done = collection is not None and start < purge and start >= collection and collection <= purge
    below_purge = start + 1 < purge if "purge-off-by-one" in bugs else start < purge
    if below_purge and start != 0 and not done and req.get("remote_purge", 0) != purge:
        return True, 0
    upper = upper_of(table, req["uuid"], high, bugs)
    if upper is None:
        return True, 0
    if start == snap_start:
        snap_end = start
    lagging = snap_end < upper if "lagging-strict" in bugs else snap_end <= upper
    if lagging:
        return False, None
    if start == snap_end:
        snap_start = start
    if upper < snap_start:
        return True, upper
    return True, snap_start


def stream_request(req, table, high, purge, bugs=frozenset(), decide=None):
    """('erange'|'ok'|'rollback', seqno) as the producer answers a stream request;
    ``decide(req, table, high, purge)`` replaces needs_rollback (hand_written.py)."""
    end = req.get("end", 2**64 - 1)
    if not (req["snap_start"] <= req["start"] <= req["snap_end"] and req["start"] <= end):
        return "erange", None
    if req.get("ignore_purged"):
        purge = 0
    if decide is not None:
        rolls_back, seqno = decide(req, table, high, purge)
    else:
        rolls_back, seqno = needs_rollback(req, table, high, purge, bugs)
    return ("rollback", seqno) if rolls_back else ("ok", None)
