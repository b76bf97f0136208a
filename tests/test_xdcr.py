"""XDCR's source side (spec/consumers/clients/xdcr.py): what the target keeps after a rollback.

Hand-written scenarios replayed on the reference implementation, the model predicting the
same trace (no solver search: each test is one replay). make verify pins the catalogue's
verdicts; these pin the stories docs/clients.md tells and the three changes of xdcr-fixed.
"""

from __future__ import annotations

import pytest

from checker.confirm import replay_scenario
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.consumers.clients.xdcr import XdcrFixed
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS
from spec.scenario import Failover, Mutation, Scenario

SMALL = Bounds(seqnos=3, keys=2, entries=2, failovers=1)


def replayed(scenario: Scenario, consumer, prop: str = "no-missed-item"):
    variant = CONSUMERS.get(consumer) if isinstance(consumer, str) else consumer
    model = ScenarioModel(SMALL, RULE_SETS.get("kv-current"), variant)
    replay = replay_scenario(scenario, model, PROPERTIES.get(prop))
    assert not replay.mismatches, replay.mismatches  # the model predicts the reference's trace
    return replay


# 1:SET(A) 2:SET(B) in snapshot [1,2], 3:DEL(A) in [3,3], all replicated to the target;
# the source fails over to a replica that had only up to 2 (A live again there).
LOST_DELETION = Scenario(
    history=(Mutation(0), Mutation(1), Mutation(0, deleted=True)),
    table=FailoverTable.of((1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(2, 3),
    received=3,
    failovers=(Failover(2, 2222),),
)

# 1:SET(A), then 2:DEL(A) while XDCR was away, purged before it resumes from 1.
PURGED_DELETION = Scenario(
    history=(Mutation(0), Mutation(0, deleted=True)),
    table=FailoverTable.of((1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(1, 2),
    received=1,
    purge_seqno=2,
)


@pytest.mark.parametrize("consumer", ["xdcr", "xdcr:purge-rollback=on"])
def test_a_deletion_the_source_lost_stays_on_the_target(consumer) -> None:
    replay = replayed(LOST_DELETION, consumer)
    assert replay.violated_on_reference and replay.confirmed
    trace = replay.trace
    assert trace is not None and trace.rounds[0].decision.rollback_seqno == 2
    # It resumes from its checkpoint at 2, with that record's uuid and snapshot [1,2].
    request = trace.rounds[1].request
    assert (request.uuid, request.start, request.snap_start, request.snap_end) == (1111, 2, 1, 2)


def test_xdcr_fixed_restores_what_the_source_kept() -> None:
    assert not replayed(LOST_DELETION, "xdcr-fixed").violated_on_reference


def test_by_default_a_purged_deletion_is_never_sent_to_the_target() -> None:
    assert replayed(PURGED_DELETION, "xdcr").violated_on_reference  # 0x80: no purge rollback
    assert not replayed(PURGED_DELETION, "xdcr-fixed").violated_on_reference


class XdcrFixedIgnoringPurged(XdcrFixed):
    """xdcr-fixed with dcpEnablePurgeRollback back at its default (0x80 sent)."""

    name = "xdcr-fixed-0x80"
    ignore_purged = True


def test_xdcr_fixed_needs_purge_rollback_on() -> None:
    replay = replayed(PURGED_DELETION, XdcrFixedIgnoringPurged())
    assert replay.violated_on_reference and replay.confirmed


def test_a_second_rollback_to_zero_walks_down_its_checkpoint_records() -> None:
    # 1111@1: the new active, branched at 0, does not know 1111; every record has that uuid.
    scenario = Scenario(
        history=(Mutation(0), Mutation(0), Mutation(0)),
        table=FailoverTable.of((1111, 1)),
        first_snapshot_start=1,
        snapshot_ends=(1, 2, 3),
        received=3,
        failovers=(Failover(0, 2222),),
    )
    replay = replayed(scenario, "xdcr", "bounded-rollback")
    assert replay.trace is not None
    starts = [r.request.start for r in replay.trace.rounds]
    assert starts == [3, 2, 1, 0] and replay.violated_on_reference


# Seed 001 on XDCR: 2:SET(B) replicated from snapshot [1,3] (1:SET(A) deduplicated away by
# 3:SET(A)); the source fails over at 2 and writes 3':SET(B). A checkpoint with its marker
# claims {2,[1,3]} and is rolled back; one without (getSnapshotForSeqno's (s, s) fallback,
# MB-48855) claims {2,[2,2]}, is accepted, and A never reaches the target.
COLLAPSED = Scenario(
    history=(Mutation(0), Mutation(1), Mutation(0)),
    table=FailoverTable.of((1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(3,),
    received=2,
    failovers=(Failover(2, 2222, (Mutation(1),)),),
)


def test_with_the_marker_kept_the_checkpoint_is_rolled_back_and_a_arrives() -> None:
    replay = replayed(COLLAPSED, "xdcr")
    assert not replay.violated_on_reference
    assert replay.trace is not None and replay.trace.rounds[0].decision.rollback_seqno == 1


def test_with_the_snapshot_fallback_the_checkpoint_is_accepted_and_a_is_missed() -> None:
    replay = replayed(COLLAPSED, "xdcr:snapshot-marker=lost")
    assert replay.violated_on_reference and replay.confirmed
    (only,) = replay.trace.rounds
    request = only.request
    assert (request.start, request.snap_start, request.snap_end) == (2, 2, 2)
    assert only.decision.rollback_seqno is None


class XdcrFixedFallbackAsShipped(XdcrFixed):
    """xdcr-fixed with the marker lost and XDCR's own fallback: the record claims (s, s)."""

    name = "xdcr-fixed-s-s"
    marker_lost = True

    def remembered(self, view):
        record = super().remembered(view)
        return record.at(record.start)


def test_xdcr_fixed_with_the_marker_lost_claims_a_range_containing_it() -> None:
    # The fix's reconciliation alone does not survive XDCR's (s, s) fallback (seed 001):
    # the record must claim from a whole point up to an end at or past the lost marker's.
    assert replayed(COLLAPSED, XdcrFixedFallbackAsShipped()).violated_on_reference
    replay = replayed(COLLAPSED, "xdcr-fixed:snapshot-marker=lost")
    assert not replay.violated_on_reference
    first = replay.trace.rounds[0]
    assert (first.request.start, first.request.snap_start, first.request.snap_end) == (2, 0, 3)
    assert first.decision.rollback_seqno == 0
