"""Domain values shared by every layer: a stream request, a producer, a decision."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum

from spec.failover_table import UINT64_MAX, FailoverTable

__all__ = ["UINT64_MAX", "Decision", "Outcome", "ProducerState", "StreamRequest"]


@dataclass(frozen=True)
class StreamRequest:
    """What a consumer sends: its uuid, start (last seqno received), snapshot range.

    The flags and optional fields are the rest of what kv_engine's producer
    feeds into ``needsRollback``: ``strict`` is DCP_ADD_STREAM_STRICT_VBUUID,
    ``ignore_purged`` is IgnorePurgedTombstones (the producer then treats its
    purge seqno as 0), ``remote_purge`` is the purge seqno the client reports
    in the stream-request value, ``collection_high`` the max high seqno of the
    collections in the stream's filter (None: not a collection stream).
    """

    uuid: int
    start: int
    snap_start: int
    snap_end: int
    end: int = UINT64_MAX
    strict: bool = False
    ignore_purged: bool = False
    remote_purge: int = 0
    collection_high: int | None = None

    @property
    def range_ok(self) -> bool:
        """The stream-request invariant; a producer refuses others with ERANGE."""
        return self.snap_start <= self.start <= self.snap_end and self.start <= self.end

    def to_json(self) -> dict[str, object]:
        """Every field, in order, as counterexample and vector files write a request."""
        return asdict(self)

    @property
    def humpty_expressible(self) -> bool:
        """True if humpty_dumpty's four stdin fields say everything about this request."""
        return (
            self.end == UINT64_MAX
            and not self.strict
            and not self.ignore_purged
            and self.remote_purge == 0
            and self.collection_high is None
        )


@dataclass(frozen=True)
class ProducerState:
    """The producer's side of a decision: its failover table, high and purge seqnos."""

    table: FailoverTable
    high_seqno: int
    purge_seqno: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "table": self.table.to_json(),
            "high_seqno": self.high_seqno,
            "purge_seqno": self.purge_seqno,
        }


class Outcome(StrEnum):
    ACCEPT = "ok"
    ROLLBACK = "rollback"
    ERANGE = "erange"


@dataclass(frozen=True)
class Decision:
    """The producer's answer and the named case (clause) that produced it."""

    outcome: Outcome
    case: str
    rollback_seqno: int | None = None
    reason: str = field(default="", compare=False)

    @property
    def rolls_back(self) -> bool:
        return self.outcome is Outcome.ROLLBACK

    def to_json(self) -> dict[str, object]:
        return {
            "decision": self.outcome.value,
            "rollback_seqno": self.rollback_seqno,
            "case": self.case,
            "reason": self.reason,
        }
