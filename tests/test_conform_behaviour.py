"""``conform`` compares behaviour, not spelling (issue 47, item 10): two requests the
producer cannot tell apart within the bounds are one (``checker.adapter.sameness``, from
the rule set's decisions), and every difference of a scenario is named, a request's with
the producer's answers to both side by side."""

from __future__ import annotations

import sys

from checker.adapter.check import ClientTarget
from checker.adapter.conform import conform
from checker.adapter.sameness import Sameness, request_of
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.rules import RULE_SETS

SMALL = Bounds(seqnos=2, keys=1, entries=2, failovers=1)
VARIANT_ADAPTER = f"{sys.executable} -m checker.adapter.variant"


def request(uuid: int, start: int, snap_start: int, snap_end: int) -> dict:
    return {"uuid": uuid, "start": start, "snap_start": snap_start, "snap_end": snap_end}


def test_requests_the_producer_cannot_tell_apart_are_the_same() -> None:
    same = Sameness(RULE_SETS.get("kv-current"), SMALL)
    assert same(request(0, 0, 0, 0), request(2222, 0, 0, 0))  # uuid 0 at start 0
    assert same(request(1111, 2, 2, 2), request(1111, 2, 0, 2))  # (e, {e, e}), (e, {a, e})
    # told apart: the uuid at start 1 (a table without it rolls back), and a mid-snapshot
    # start (the stream's first marker starts at snap_start)
    assert not same(request(1111, 1, 1, 1), request(2222, 1, 1, 1))
    assert not same(request(1111, 1, 0, 2), request(1111, 1, 1, 2))


def test_sameness_is_the_rule_sets_not_a_list() -> None:
    """rollback-doc (rollback.md as written) and kv-current decide snapshot ranges
    differently; whatever they decide, a pair is the same exactly when every state's
    decision agrees, which the states enumerated show."""
    for name in ("kv-current", "rollback-doc"):
        same = Sameness(RULE_SETS.get(name), SMALL)
        a, b = request(1111, 1, 0, 1), request(1111, 1, 1, 1)
        agree = all(
            same.answer(request_of(a), s) == same.answer(request_of(b), s)
            for s in same.states(1111)
        )
        assert same(a, b) is agree


def test_collapse_snapshot_differs_only_where_the_producer_can_tell() -> None:
    """With one key a consumer never stops mid-snapshot, so collapse-snapshot's {s, s} and
    correct's {a, s} are the same request to the producer: 0 differ (each was a difference
    before). With two keys it stops mid-snapshot, and every difference names what the
    producer answered each."""
    target = ClientTarget(f"jsonl:{VARIANT_ADAPTER} collapse-snapshot")
    rules, correct = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    one_key = conform(target, correct, rules, Bounds(seqnos=2, keys=1, entries=1, failovers=0))
    assert (one_key.differing, one_key.fault) == (0, "") and one_key.examined > 0
    two = conform(target, correct, rules, Bounds(seqnos=2, keys=2, entries=1, failovers=0))
    assert two.differing > 0
    for _, difference, every in two.shrunk:
        assert difference.question == "stream_request" and difference in every
        assert "the producer answered the client accepted, the model accepted" in (
            difference.describe()
        )
