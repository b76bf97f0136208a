"""Sync Gateway's own DCP client as modelled: its uuid is the oldest log entry.

``getVbUUID`` walks the failover log from its last (oldest, in wire order)
element, so a client that resumes past a failover entry names the old
branch and is rolled back to the entry above it: needless (the data is the
producer's), not unsafe, and again at every reconnect, with no failover in
between (``SetFailoverEntries`` stores the oldest uuid again after each open).
The fix sends the newest entry and is accepted.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from spec.consumers import CONSUMERS
from spec.failover_table import FailoverTable
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Cut, Mutation, Scenario
from spec.trace import Trace

# A vbucket with one failover entry at 2 (2222@2 over 1111@0); the client streamed
# snapshots [1,2] and [3,4] whole from the current branch and resumes at 4.
PAST_AN_ENTRY = Scenario(
    history=(Mutation(0), Mutation(1), Mutation(0), Mutation(1)),
    table=FailoverTable.of((2222, 2), (1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(2, 4),
    received=4,
)


def assert_rolled_back_to_the_entry(resume: Trace) -> None:
    """``resume`` names the old branch at 4, is rolled back to the entry at 2, and is
    accepted at 2 on the newest uuid."""
    first, second = resume.rounds
    assert (first.request.uuid, first.request.start) == (1111, 4)
    assert first.decision.rollback_seqno == 2
    assert (second.request.uuid, second.request.start) == (2222, 2) and resume.accepted


@pytest.mark.parametrize("rules", ["kv-current", "rollback-doc"])
def test_resuming_past_a_failover_entry_it_names_the_oldest_uuid_and_is_rolled_back(
    rules,
) -> None:
    trace = simulate(PAST_AN_ENTRY, RULE_SETS.get(rules), CONSUMERS.get("sg-dcp-client"), 5)
    assert_rolled_back_to_the_entry(trace)


@pytest.mark.parametrize("rules", ["kv-current", "rollback-doc"])
def test_the_fix_names_the_newest_uuid_and_is_accepted(rules) -> None:
    variant = CONSUMERS.get("sg-dcp-client-fixed")
    trace = simulate(PAST_AN_ENTRY, RULE_SETS.get(rules), variant, 5)
    (only,) = trace.rounds
    assert (only.request.uuid, only.request.start) == (2222, 4) and trace.accepted


# The same vbucket, and a second reconnect after the first resume's stream ran to the end;
# nothing happens on the producer in between (no failover, no compaction, no write).
TWICE = replace(PAST_AN_ENTRY, later=(Cut(disk=False, snapshot_ends=(4,), received=4),))


@pytest.mark.parametrize("rules", ["kv-current", "rollback-doc"])
def test_every_reconnect_is_rolled_back_and_streams_again_what_lies_above_the_entry(
    rules,
) -> None:
    trace = simulate(TWICE, RULE_SETS.get(rules), CONSUMERS.get("sg-dcp-client"), 5)
    assert len(trace.resumes) == 2
    for resume in trace.resumes:
        assert_rolled_back_to_the_entry(resume)


@pytest.mark.parametrize("rules", ["kv-current", "rollback-doc"])
def test_with_the_fix_no_reconnect_is_rolled_back(rules) -> None:
    trace = simulate(TWICE, RULE_SETS.get(rules), CONSUMERS.get("sg-dcp-client-fixed"), 5)
    assert len(trace.resumes) == 2
    for resume in trace.resumes:
        (only,) = resume.rounds
        assert (only.request.uuid, only.request.start) == (2222, 4) and resume.accepted
