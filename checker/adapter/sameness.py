"""When two stream requests are one to the producer: the rule set's decisions say so.

A client and a model may spell one request two ways: uuid 0 or the log's
uuid with start 0, snapshot ``{e, e}`` or ``{a, e}`` at start ``e``.
``Sameness(rules, bounds)(a, b)`` is True when the producer cannot tell
``a`` from ``b`` within the bounds: the same answer (outcome and rollback
seqno, whichever clause gives it) of the rule set (``producer_decision``, as
the search plays it) for every producer state within them (every failover
table of at most
``entries`` entries with seqnos up to its high seqno, every high seqno up to
``seqnos``, every purge seqno up to the high seqno; the table's uuids are the
two requests' and as many others as a table has entries, since a rule only
compares uuids), and the same stream once accepted (the same start, and the
same first snapshot marker). Nothing is listed by hand: what the rule set
decides is the only judge. Each pair is decided once.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from spec.bounds import Bounds
from spec.failover_table import FailoverTable
from spec.reference.simulate import producer_decision
from spec.rules import RuleSet
from spec.types import ProducerState, StreamRequest

__all__ = ["Sameness", "request_of"]

_OTHER_UUIDS = 7_000_001  # uuids no request names (a rule only compares uuids)


def request_of(answer: Mapping[str, Any]) -> StreamRequest:
    """A ``stream_request`` answer as a transcript records it."""
    return StreamRequest(
        uuid=int(answer["uuid"]),
        start=int(answer["start"]),
        snap_start=int(answer["snap_start"]),
        snap_end=int(answer["snap_end"]),
        strict=bool(answer.get("strict", False)),
        ignore_purged=bool(answer.get("ignore_purged", False)),
        remote_purge=int(answer.get("purge_seqno", 0)),
    )


def _stream(r: StreamRequest) -> tuple[int, int]:
    """Where an accepted stream starts and its first marker's start (``play._resume``)."""
    inside = r.snap_start <= r.start < r.snap_end
    return r.start, r.snap_start if inside else r.start + 1


class Sameness:
    def __init__(self, rules: RuleSet, bounds: Bounds) -> None:
        self.decide = producer_decision(rules)
        self.bounds = bounds
        self._known: dict[tuple[StreamRequest, StreamRequest], bool] = {}

    def __call__(self, a: Mapping[str, object], b: Mapping[str, object]) -> bool:
        first, second = request_of(a), request_of(b)
        if first == second:
            return True
        if _stream(first) != _stream(second):
            return False
        key = (first, second)
        if key not in self._known:
            self._known[key] = all(
                self.answer(first, state) == self.answer(second, state)
                for state in self.states(first.uuid, second.uuid)
            )
        return self._known[key]

    def answer(self, request: StreamRequest, state: ProducerState) -> tuple[object, int | None]:
        """What the client sees of a decision: the outcome and the rollback seqno (not the
        clause that decided it)."""
        decision = self.decide(request, state)
        return decision.outcome, decision.rollback_seqno

    def states(self, *named: int) -> Iterator[ProducerState]:
        """Every producer state within the bounds, over the uuids ``named`` and others."""
        entries, top = self.bounds.entries, self.bounds.seqnos
        others = [u for u in range(_OTHER_UUIDS, _OTHER_UUIDS + entries + 2) if u not in named]
        uuids = sorted(set(named)) + others[:entries]
        for high in range(top + 1):
            for length in range(1, entries + 1):
                for order in itertools.permutations(uuids, length):
                    for seqnos in itertools.combinations_with_replacement(
                        range(high, -1, -1), length
                    ):
                        table = FailoverTable.of(
                            *zip(order, seqnos, strict=True), max_entries=self.bounds.max_entries
                        )
                        for purge in range(high + 1):
                            yield ProducerState(table, high, purge)
