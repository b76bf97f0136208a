"""Replica ack rules and promotion branch rules, by stable id.

An **ack rule** says when a replica's high prepared seqno (HPS, what it acks
to the active) moves, as three switches read by the replica's actions:

* ``hps_on_prepare``: the HPS moves to a PREPARE as soon as it is received;
* ``hps_at_snapshot_end``: when the last item of a snapshot arrives and the
  PassiveStream saw a PREPARE in it (``cur_snapshot_prepare``), the HPS moves
  to the last PREPARE at or below the snapshot end;
* ``prepare_flag_on_new_stream``: a new PassiveStream starts with
  ``cur_snapshot_prepare`` set (kv_engine's MB-51805 fix, in
  ``PassiveStream::acceptStream``), so the end of a snapshot begun before a
  restart or reconnect still moves the HPS.

A **branch rule** says where a promoted replica puts its new failover entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spec.cluster.state import NodeState
from spec.registry import Registry

__all__ = ["ACK_RULES", "BRANCH_RULES", "AckRule", "BranchRule"]


@dataclass(frozen=True)
class _Rule:
    """A rule of the cluster model, by stable id, with where it comes from (``source``)."""

    id: str
    summary: str
    source: str

    @property
    def name(self) -> str:
        return self.id


@dataclass(frozen=True)
class AckRule(_Rule):
    hps_on_prepare: bool
    hps_at_snapshot_end: bool
    prepare_flag_on_new_stream: bool


@dataclass(frozen=True)
class BranchRule(_Rule):
    branch_point: Callable[[NodeState], int]


def _ack_rules() -> None:
    for rule in (
        AckRule(
            "ack-on-prepare",
            "6.0 (before MB-34150): a replica acks a PREPARE as soon as it receives it",
            "MB-34150 'Today' diagrams",
            hps_on_prepare=True,
            hps_at_snapshot_end=False,
            prepare_flag_on_new_stream=False,
        ),
        AckRule(
            "ack-at-snapshot-end",
            "MB-34197 (2019, in 6.5.0): the HPS moves (and acks happen) only once the whole "
            "snapshot holding the PREPARE is received; without the MB-51805 fix",
            "kv_engine 8a0f8da1b (MB-34197): PassiveDurabilityMonitor; "
            "PassiveStream::handleSnapshotEnd",
            hps_on_prepare=False,
            hps_at_snapshot_end=True,
            prepare_flag_on_new_stream=False,
        ),
        AckRule(
            "ack-at-snapshot-end+restart-fix",
            "MB-34197 and the MB-51805 fix: as ack-at-snapshot-end, and a new stream "
            "(after a restart or reconnect) notifies the end of the snapshot it resumes",
            "kv_engine PassiveStream::acceptStream (cur_snapshot_prepare = true)",
            hps_on_prepare=False,
            hps_at_snapshot_end=True,
            prepare_flag_on_new_stream=True,
        ),
    ):
        ACK_RULES.register(rule.id, rule)


def _persisted_snapshot(node: NodeState) -> int:
    return node.last_persisted_snapshot_end


def _highest_snapshot(node: NodeState) -> int:
    return node.last_snapshot_end


def _branch_rules() -> None:
    for rule in (
        BranchRule(
            "persisted-snapshot",
            "the end of the highest snapshot persisted whole (MB-35003, 2019, in 6.5.0; "
            "MB-34150's description step 3)",
            "kv_engine f40669692 (MB-35003): the flusher's persisted snapshot range",
            _persisted_snapshot,
        ),
        BranchRule(
            "highest-snapshot",
            "MB-53189 (2025, master only): the end of the highest snapshot received whole",
            "kv_engine a854b96e6 (MB-53189): CheckpointManager::getFailoverSeqno",
            _highest_snapshot,
        ),
    ):
        BRANCH_RULES.register(rule.id, rule)


ACK_RULES: Registry[AckRule] = Registry("ack-rule", _ack_rules)
BRANCH_RULES: Registry[BranchRule] = Registry("branch-rule", _branch_rules)
