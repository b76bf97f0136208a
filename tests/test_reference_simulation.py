"""The reference implementation of a resume scenario (spec/reference/simulate.py)."""

from __future__ import annotations

import dataclasses

import pytest

from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant, ConsumerView, LogView
from spec.consumers.api import ResumeRequest, Truncation
from spec.expr import Expr, const, evaluate
from spec.failover_table import FailoverEntry, FailoverTable
from spec.reference.consumer import ReferenceConsumer, ReferenceLog, ReferenceView
from spec.reference.simulate import first_producer, initial_stream, simulate
from spec.reference.vbucket import VBucket
from spec.rules import RULE_SETS
from spec.scenario import Failover, Item, Mutation, Scenario
from spec.trace import Trace, trace_values
from spec.types import Outcome, StreamRequest

A, B, C = 0, 1, 2
KV_CURRENT = RULE_SETS.get("kv-current")
CORRECT = CONSUMERS.get("correct")
COLLAPSE = CONSUMERS.get("collapse-snapshot")
ROUNDS = 6


def SET(key: int) -> Mutation:
    return Mutation(key)


def DEL(key: int) -> Mutation:
    return Mutation(key, deleted=True)


def value(expr: Expr) -> int | bool:
    return evaluate(expr, {})


def live(versions: dict[int, Item]) -> dict[int, Item]:
    return {key: item for key, item in versions.items() if not item.deleted}


def shown(items: tuple[Item, ...]) -> str:
    """Items as timelines print them: ``4':SET(B)`` is SET(B) at seqno 4, in epoch 1."""
    return " ".join(str(item) for item in items)


def seed_001() -> Scenario:
    """kv_engine's "why snapshot ranges" example."""
    return Scenario(
        history=(SET(A), SET(B), SET(C), DEL(A)),
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(4,),
        received=3,
        failovers=(Failover(branch=3, uuid=2222, mutations=(SET(B),)),),
        purge_seqno=0,
    )


def view_after_stream(scenario: Scenario) -> tuple[ReferenceConsumer, ReferenceView]:
    consumer = initial_stream(scenario, first_producer(scenario))
    return consumer, consumer.view()


# -- seed 001 -------------------------------------------------------------------------


def test_seed_001_initial_stream_deduplicates_set_a_away() -> None:
    trace = simulate(seed_001(), KV_CURRENT, CORRECT, ROUNDS)
    assert trace.held == (Item(2, 0, B, False), Item(3, 0, C, False))
    assert trace.boundaries == ()
    assert shown(trace.producer_items) == "1:SET(A) 2:SET(B) 3:SET(C) 4':SET(B)"
    assert trace.producer_table == FailoverTable.of((2222, 3), (1111, 0))
    assert trace.purge_seqno == 0


def test_seed_001_collapse_snapshot_is_accepted_as_lagging_and_misses_a() -> None:
    trace = simulate(seed_001(), KV_CURRENT, COLLAPSE, ROUNDS)
    assert len(trace.rounds) == 1
    (first,) = trace.rounds
    assert first.request == StreamRequest(uuid=1111, start=3, snap_start=3, snap_end=3)
    assert first.decision.outcome is Outcome.ACCEPT
    assert first.decision.case == "lagging"
    assert first.keep == 3
    assert trace.accepted
    assert trace.final == {B: Item(4, 1, B, False), C: Item(3, 0, C, False)}
    producer = VBucket(trace.producer_items, trace.producer_table, trace.purge_seqno)
    assert producer.live_state()[A] == Item(1, 0, A, False)
    assert A not in trace.final


def test_seed_001_correct_rolls_back_to_zero_and_ends_with_the_producers_state() -> None:
    trace = simulate(seed_001(), KV_CURRENT, CORRECT, ROUNDS)
    assert [r.request for r in trace.rounds] == [
        StreamRequest(uuid=1111, start=3, snap_start=1, snap_end=4),
        StreamRequest(uuid=1111, start=0, snap_start=0, snap_end=0),
    ]
    rollback, accept = trace.rounds
    assert (rollback.decision.outcome, rollback.decision.case) == (
        Outcome.ROLLBACK,
        "snapshot-mismatch",
    )
    assert rollback.decision.rollback_seqno == 1
    assert rollback.keep == 3
    assert accept.decision.outcome is Outcome.ACCEPT
    assert accept.keep == 0  # truncated to the consistent point 0
    producer = VBucket(trace.producer_items, trace.producer_table, trace.purge_seqno)
    assert live(trace.final) == producer.live_state()
    assert trace.final == {
        A: Item(1, 0, A, False),
        B: Item(4, 1, B, False),
        C: Item(3, 0, C, False),
    }


def test_a_copy_of_a_builtin_rule_set_is_decided_by_its_clauses_with_the_same_result() -> None:
    copy = dataclasses.replace(KV_CURRENT)
    assert copy is not KV_CURRENT
    for variant in (CORRECT, COLLAPSE):
        by_reference = simulate(seed_001(), KV_CURRENT, variant, ROUNDS)
        by_clauses = simulate(seed_001(), copy, variant, ROUNDS)
        assert by_clauses == by_reference


# -- purge ----------------------------------------------------------------------------


def purge_scenario() -> Scenario:
    """The consumer holds A and B at a complete snapshot; then A is deleted and purged."""
    return Scenario(
        history=(SET(A), SET(B), DEL(A), SET(B)),
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(2, 4),
        received=2,
        purge_seqno=3,
    )


def test_a_purged_tombstone_makes_kv_current_roll_back_to_zero() -> None:
    trace = simulate(purge_scenario(), KV_CURRENT, CORRECT, ROUNDS)
    assert trace.held == (Item(1, 0, A, False), Item(2, 0, B, False))
    assert trace.boundaries == (2,)
    first, second = trace.rounds
    assert first.request == StreamRequest(uuid=1111, start=2, snap_start=1, snap_end=2)
    assert (first.decision.outcome, first.decision.case) == (Outcome.ROLLBACK, "purge")
    assert first.decision.rollback_seqno == 0
    assert second.request == StreamRequest(uuid=1111, start=0, snap_start=0, snap_end=0)
    assert second.decision.outcome is Outcome.ACCEPT
    assert trace.final == {B: Item(4, 0, B, False)}
    assert A not in live(trace.final)


class IgnoresPurge(ConsumerVariant):
    """Asks like ``correct`` but with IgnorePurgedTombstones: the purge check is skipped."""

    name = "ignores-purge"

    def request(self, view: ConsumerView) -> ResumeRequest:
        snap_start, snap_end = view.snapshot_of(view.last)
        return ResumeRequest(
            view.log.latest_uuid, view.last, snap_start, snap_end, ignore_purged=True
        )

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Truncation:
        return CORRECT.on_rollback(view, rollback_seqno, producer_log)


def test_ignoring_purged_tombstones_keeps_a_deleted_key_live() -> None:
    trace = simulate(purge_scenario(), KV_CURRENT, IgnoresPurge(), ROUNDS)
    (only,) = trace.rounds
    assert only.request.ignore_purged is True
    assert (only.decision.outcome, only.decision.case) == (Outcome.ACCEPT, "lagging")
    assert trace.final == {A: Item(1, 0, A, False), B: Item(4, 0, B, False)}


def test_stream_after_leaves_out_only_tombstones_at_or_below_the_purge_seqno() -> None:
    producer = VBucket.first((SET(A), DEL(B), SET(C), DEL(C), DEL(A)), FailoverTable.of((1, 0)))
    producer.compact(4)
    assert producer.stream_after(0) == {A: Item(5, 0, A, True)}
    assert producer.stream_after(4) == {A: Item(5, 0, A, True)}
    assert producer.stream_after(5) == {}
    producer.compact(5)
    assert producer.stream_after(0) == {}
    producer.compact(1)
    assert producer.stream_after(1) == {
        A: Item(5, 0, A, True),
        B: Item(2, 0, B, True),
        C: Item(4, 0, C, True),
    }


# -- snapshots, boundaries, the view ----------------------------------------------------


def test_a_snapshot_sends_each_keys_last_mutation_in_its_range_in_seqno_order() -> None:
    producer = VBucket.first((SET(A), SET(B), DEL(A), SET(B), SET(A)), FailoverTable.of((1, 0)))
    first, second = producer.snapshots(0, (3, 5))
    assert (first.snap_start, first.snap_end) == (0, 3)
    assert first.items == (Item(2, 0, B, False), Item(3, 0, A, True))
    assert (second.snap_start, second.snap_end) == (4, 5)
    assert second.items == (Item(4, 0, B, False), Item(5, 0, A, False))


def snapshots_scenario(received: int, first_snapshot_start: int = 1) -> Scenario:
    return Scenario(
        history=(SET(A), SET(B), SET(A), SET(B), SET(C), SET(C)),
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=first_snapshot_start,
        snapshot_ends=(2, 4, 5),
        received=received,
    )


def test_boundaries_are_the_ends_of_snapshots_received_whole() -> None:
    whole = simulate(snapshots_scenario(received=4), KV_CURRENT, CORRECT, ROUNDS)
    assert whole.boundaries == (2, 4)
    assert [i.seqno for i in whole.held] == [1, 2, 3, 4]
    partial = simulate(snapshots_scenario(received=3), KV_CURRENT, CORRECT, ROUNDS)
    assert partial.boundaries == (2,)
    assert [i.seqno for i in partial.held] == [1, 2, 3]
    nothing = simulate(snapshots_scenario(received=0), KV_CURRENT, CORRECT, ROUNDS)
    assert (nothing.boundaries, nothing.held) == ((), ())


def test_keep_starts_at_received_even_when_that_item_was_deduplicated() -> None:
    scenario = dataclasses.replace(seed_001(), received=1, failovers=())
    consumer, view = view_after_stream(scenario)
    assert consumer.held() == ()
    assert (value(view.keep), value(view.last)) == (1, 0)


def test_snapshot_of_gives_the_marker_range_or_x_x_outside_every_snapshot() -> None:
    _, view = view_after_stream(snapshots_scenario(received=3))
    pairs = {x: tuple(value(e) for e in view.snapshot_of(const(x))) for x in range(7)}
    assert pairs == {
        0: (0, 0),
        1: (1, 2),
        2: (1, 2),
        3: (3, 4),
        4: (3, 4),  # a snapshot the consumer is in the middle of
        5: (5, 5),  # a marker whose item was not received
        6: (6, 6),  # no snapshot contains 6
    }


def test_snapshot_of_a_disk_first_marker_starts_at_zero_but_seqno_zero_is_in_no_snapshot() -> None:
    _, view = view_after_stream(snapshots_scenario(received=2, first_snapshot_start=0))
    assert tuple(value(e) for e in view.snapshot_of(const(1))) == (0, 2)
    assert tuple(value(e) for e in view.snapshot_of(const(0))) == (0, 0)


def test_consistent_at_or_below_is_the_largest_whole_end_not_above_x_or_keep() -> None:
    consumer, view = view_after_stream(snapshots_scenario(received=4))
    points = [value(view.consistent_at_or_below(const(x))) for x in range(7)]
    assert points == [0, 0, 2, 2, 4, 4, 4]
    consumer.truncate(3)
    truncated = consumer.view()
    assert value(truncated.keep) == 3
    assert value(truncated.last) == 3
    assert [value(truncated.consistent_at_or_below(const(x))) for x in range(7)] == [
        0,
        0,
        2,
        2,
        2,
        2,
        2,
    ]


def test_truncation_restores_the_older_version_of_a_key() -> None:
    consumer, _ = view_after_stream(snapshots_scenario(received=4))
    assert consumer.versions() == {A: Item(3, 0, A, False), B: Item(4, 0, B, False)}
    consumer.truncate(2)
    assert consumer.versions() == {A: Item(1, 0, A, False), B: Item(2, 0, B, False)}
    consumer.truncate(5)  # keep only goes down
    assert consumer.keep == 2


# -- failover logs ----------------------------------------------------------------------


def test_log_covering_latest_uuid_and_pruned() -> None:
    log = ReferenceLog.of_table(FailoverTable.of((3333, 4), (2222, 2), (1111, 0)))
    assert value(log.latest_uuid) == 3333
    assert [value(log.covering(const(x))) for x in range(6)] == [
        1111,
        1111,
        2222,
        2222,
        3333,
        3333,
    ]
    assert log.pruned(const(3)).entries == (FailoverEntry(2222, 2), FailoverEntry(1111, 0))
    assert value(log.pruned(const(3)).latest_uuid) == 2222


def test_an_emptied_log_reports_uuid_zero() -> None:
    log = ReferenceLog.of_table(FailoverTable.of((2222, 2))).pruned(const(1))
    assert log.entries == ()
    assert value(log.latest_uuid) == 0
    assert value(log.covering(const(5))) == 0
    assert log.pruned(const(9)).entries == ()


def test_a_consumer_whose_log_is_pruned_empty_resumes_with_uuid_zero() -> None:
    scenario = Scenario(
        history=(SET(A), SET(B), SET(A), SET(B)),
        table=FailoverTable.of((1111, 2)),
        first_snapshot_start=1,
        snapshot_ends=(4,),
        received=3,
        failovers=(Failover(branch=3, uuid=2222, mutations=(SET(C),)),),
    )
    trace = simulate(scenario, KV_CURRENT, CORRECT, ROUNDS)
    first, second = trace.rounds
    assert first.request == StreamRequest(uuid=1111, start=3, snap_start=1, snap_end=4)
    assert (first.decision.case, first.decision.rollback_seqno) == ("snapshot-mismatch", 1)
    assert second.request == StreamRequest(uuid=0, start=0, snap_start=0, snap_end=0)
    assert (second.decision.outcome, second.decision.case) == (Outcome.ACCEPT, "start-zero")
    assert trace.final == {
        A: Item(3, 0, A, False),
        B: Item(2, 0, B, False),
        C: Item(4, 1, C, False),
    }


# -- failovers ------------------------------------------------------------------------


def two_failovers() -> Scenario:
    return Scenario(
        history=(SET(A), SET(B), SET(A), SET(B), SET(A)),
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(2, 4, 5),
        received=5,
        failovers=(
            Failover(branch=4, uuid=2222, mutations=(DEL(B),)),
            Failover(branch=2, uuid=3333, mutations=(SET(B), DEL(A))),
        ),
    )


def test_a_second_failover_below_the_first_drops_its_branch() -> None:
    trace = simulate(two_failovers(), KV_CURRENT, CORRECT, ROUNDS)
    assert shown(trace.producer_items) == "1:SET(A) 2:SET(B) 3'':SET(B) 4'':DEL(A)"
    assert trace.producer_table == FailoverTable.of((3333, 2), (1111, 0))


def test_correct_resumes_from_the_common_consistent_point_after_two_failovers() -> None:
    trace = simulate(two_failovers(), KV_CURRENT, CORRECT, ROUNDS)
    first, second = trace.rounds
    assert first.request == StreamRequest(uuid=1111, start=5, snap_start=5, snap_end=5)
    assert (first.decision.case, first.decision.rollback_seqno) == ("ahead-of-upper", 2)
    assert second.request == StreamRequest(uuid=3333, start=2, snap_start=1, snap_end=2)
    assert (second.decision.case, second.keep) == ("lagging", 2)
    assert trace.final == {A: Item(4, 2, A, True), B: Item(3, 2, B, False)}
    assert live(trace.final) == {B: Item(3, 2, B, False)}


# -- the loop: rounds bound, ERANGE ------------------------------------------------------


class NeverTruncates(ConsumerVariant):
    """Always asks for 1111 from 5 {5,5} and ignores every rollback."""

    name = "never-truncates"

    def request(self, view: ConsumerView) -> ResumeRequest:
        return ResumeRequest(1111, 5, 5, 5)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Truncation:
        return Truncation(view.keep, view.log)


def ahead_of_producer() -> Scenario:
    return Scenario(
        history=(SET(A), SET(B), SET(C), SET(A), SET(B)),
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(5,),
        received=5,
        failovers=(Failover(branch=3, uuid=2222),),
    )


@pytest.mark.parametrize("rounds", [0, 1, 4, 7])
def test_the_loop_stops_after_rounds_rounds(rounds: int) -> None:
    trace = simulate(ahead_of_producer(), KV_CURRENT, NeverTruncates(), rounds)
    assert len(trace.rounds) == rounds
    for played in trace.rounds:
        assert played.request == StreamRequest(uuid=1111, start=5, snap_start=5, snap_end=5)
        assert (played.decision.case, played.decision.rollback_seqno) == ("ahead-of-upper", 3)
        assert played.keep == 5
    assert not trace.accepted
    assert trace.final == {}


class ReportsSnapStartAboveStart(ConsumerVariant):
    name = "bad-range"

    def request(self, view: ConsumerView) -> ResumeRequest:
        return ResumeRequest(view.log.latest_uuid, view.last, view.last + 1, view.last + 1)

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Truncation:
        raise AssertionError("ERANGE must not call on_rollback")


def test_erange_ends_the_resume_without_a_stream() -> None:
    trace = simulate(seed_001(), KV_CURRENT, ReportsSnapStartAboveStart(), ROUNDS)
    (only,) = trace.rounds
    assert only.request == StreamRequest(uuid=1111, start=3, snap_start=4, snap_end=4)
    assert only.decision.outcome is Outcome.ERANGE
    assert not trace.accepted
    assert trace.final == {}


def test_an_ill_formed_scenario_is_refused() -> None:
    scenario = dataclasses.replace(seed_001(), received=9)
    with pytest.raises(ValueError, match="received must be within the first history"):
        simulate(scenario, KV_CURRENT, CORRECT, ROUNDS)


# -- trace fields ---------------------------------------------------------------------


def test_trace_values_flatten_a_reference_trace() -> None:
    trace: Trace = simulate(seed_001(), KV_CURRENT, CORRECT, ROUNDS)
    values = trace_values(trace, Bounds(seqnos=5, keys=3, entries=3, failovers=1))
    assert (values["p.high"], values["p.purge"], values["p.table_len"]) == (4, 0, 2)
    assert (values["p.key.4"], values["p.del.4"], values["p.epoch.4"]) == (B, False, 1)
    assert [values[f"c.held.{x}"] for x in range(1, 6)] == [False, True, True, False, False]
    assert values["c.key.3"] == C
    assert not any(values[f"c.boundary.{x}"] for x in range(1, 6))
    assert (values["r0.outcome"], values["r0.seqno"], values["r0.keep"]) == (1, 1, 3)
    assert (values["r0.snap_start"], values["r0.snap_end"]) == (1, 4)
    assert (values["r1.sent"], values["r1.outcome"], values["r1.start"]) == (True, 0, 0)
    assert values["r2.sent"] is False
    assert (values["f.has.0"], values["f.seq.0"], values["f.epoch.0"]) == (True, 1, 0)
    assert (values["f.seq.1"], values["f.epoch.1"], values["f.del.1"]) == (4, 1, False)


def test_trace_values_of_an_erange_trace_have_no_final_state() -> None:
    trace = simulate(seed_001(), KV_CURRENT, ReportsSnapStartAboveStart(), ROUNDS)
    values = trace_values(trace, Bounds(seqnos=4, keys=3, entries=2, failovers=1))
    assert (values["r0.sent"], values["r0.outcome"]) == (True, 2)
    assert not any(values[f"f.has.{k}"] for k in range(3))
