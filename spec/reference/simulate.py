"""The reference implementation of a resume scenario: docs/model.md, step by step.

``simulate`` runs one scenario with ordinary code and records what happened
as a ``spec.trace.Trace``:

1. the first producer (``VBucket.first``) writes the first history;
2. the initial stream: the consumer receives the snapshot markers and every
   deduplicated item at or below ``received``, then disconnects;
3. the failovers, in order, then compaction (the final purge seqno); a
   consumer with rollback mitigation was only sent items every replica had
   persisted, so a failover branching below the end of a snapshot it holds
   whole is not a run of it (``NotARun``);
4. the resume: the consumer remembers the request its variant says it
   would send; then at most ``rounds`` rounds of request -> decision;
   ROLLBACK applies the variant's reaction (the data it keeps, the request
   it claims next, its log, its catch-up filter), ERANGE ends the resume, OK
   runs the stream (less what the filter drops) and ends it.

5. with ``--sessions K``, for each of the scenario's ``later`` cuts, once the
   previous resume was accepted: its stream runs until the cut
   (``ReferenceConsumer.cut_stream``), the consumer takes the producer's
   failover log, the cut's failovers and compaction happen, and the consumer
   resumes again (each resume recorded as a ``Trace``; ``Trace.later``).

It replays counterexamples of the symbolic model and is cross-checked against
it, so it is written from docs/model.md alone. It does not model in-stream
backfills, collections or SyncWrites (see docs/model.md, "What is not
modelled").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from spec.consumers import calls
from spec.consumers.api import ConsumerVariant, ResumeRequest
from spec.expr import BOOL, Expr, const, evaluate
from spec.failover_table import UINT64_MAX, FailoverTable
from spec.reference.consumer import ReferenceConsumer, ReferenceLog, int_value
from spec.reference.producer import REFERENCE_DECISIONS, stream_request
from spec.reference.vbucket import VBucket
from spec.rules import RULE_SETS, Decider, RuleSet
from spec.scenario import Failover, Item, Scenario
from spec.trace import Round, Trace
from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = [
    "Decide",
    "NotARun",
    "final_producer",
    "first_producer",
    "initial_stream",
    "producer_decision",
    "resume",
    "simulate",
    "stream_request_of",
]

Decide = Callable[[StreamRequest, ProducerState], Decision]


def simulate(
    scenario: Scenario,
    rules: RuleSet,
    variant: ConsumerVariant,
    rounds: int,
    decide: Decide | None = None,
) -> Trace:
    """Run ``scenario`` with producer rule set ``rules`` and consumer ``variant``;
    ``decide``, when given, answers the final producer's decisions instead of ``rules``
    (an implementation under review: ``dcpcheck review`` confirms on its target)."""
    problems = scenario.problems()
    if problems:
        raise ValueError("the scenario is not well formed: " + "; ".join(problems))
    if rounds < 0:
        raise ValueError(f"rounds must be at least 0, got {rounds}")
    producer = first_producer(scenario)
    consumer = initial_stream(scenario, producer)
    _mitigation_allows(variant, consumer, scenario.failovers)
    final_producer(scenario, producer)
    decide = decide or producer_decision(rules)
    traces = [_resumed(scenario, consumer, producer, variant, decide, rounds)]
    epoch = len(scenario.failovers)
    for cut in scenario.later:
        if not traces[-1].accepted:
            break
        request = traces[-1].rounds[-1].request
        start = request.start
        snapshots = producer.snapshots_after(
            start, request.snap_start, request.snap_end, cut.disk, cut.snapshot_ends
        )
        consumer.cut_stream(
            start,
            snapshots,
            cut.received,
            (request.snap_start, request.snap_end),
            variant.seqno_advanced,
        )
        consumer.adopt_log(ReferenceLog.of_table(producer.table))  # sent on acceptance
        _mitigation_allows(variant, consumer, cut.failovers)
        for failover in cut.failovers:
            epoch += 1
            producer.failover(failover.branch, failover.uuid, failover.mutations, epoch)
        producer.compact(cut.purge_seqno)
        traces.append(_resumed(scenario, consumer, producer, variant, decide, rounds))
    return replace(traces[0], later=tuple(traces[1:]))


def _resumed(
    scenario: Scenario,
    consumer: ReferenceConsumer,
    producer: VBucket,
    variant: ConsumerVariant,
    decide: Decide,
    rounds: int,
) -> Trace:
    """One resume, recorded: what the consumer held, the rounds, its final versions."""
    held, boundaries = consumer.held(), tuple(sorted(consumer.whole_snapshot_ends))
    played, final = resume(consumer, producer, variant, decide, rounds)
    return Trace(
        scenario=scenario,
        producer_items=producer.items,
        producer_table=producer.table,
        purge_seqno=producer.purge_seqno,
        held=held,
        boundaries=boundaries,
        rounds=played,
        final=final,
    )


class NotARun(ValueError):
    """The scenario cannot happen to this consumer (e.g. its rollback mitigation rules
    it out): there is nothing to simulate."""


def _mitigation_allows(
    variant: ConsumerVariant, consumer: ReferenceConsumer, failovers: tuple[Failover, ...]
) -> None:
    """A client with rollback mitigation was only sent items every replica had persisted,
    so whichever replica takes over received whole every snapshot the client holds whole
    (its markers read as the client's) and branches at or above their ends: its failover
    entry is the end of the last snapshot it received whole (kv_engine eba4298,
    ``CheckpointManager::getFailoverSeqno``), which can lie below the client's last item."""
    if not variant.rollback_mitigation:
        return
    whole = max(consumer.whole_snapshot_ends, default=0)
    for failover in failovers:
        if failover.branch < whole:
            raise NotARun(
                f"{variant.name} has rollback mitigation: it holds the snapshot ending at "
                f"{whole} whole, which every replica had persisted, so no failover "
                f"branches at {failover.branch}"
            )


def first_producer(scenario: Scenario) -> VBucket:
    """The first producer: the first history (epoch 0) and table, nothing purged."""
    table = FailoverTable(scenario.table.entries, scenario.max_entries)
    return VBucket.first(scenario.history, table)


def initial_stream(scenario: Scenario, producer: VBucket) -> ReferenceConsumer:
    """A consumer streams from 0, receives the items at or below ``received``, disconnects."""
    consumer = ReferenceConsumer(ReferenceLog.of_table(producer.table))
    for snapshot in producer.snapshots(scenario.first_snapshot_start, scenario.snapshot_ends):
        consumer.receive_marker(snapshot.snap_start, snapshot.snap_end)
        for item in snapshot.items:
            if item.seqno <= scenario.received:
                consumer.receive_item(item)
    consumer.disconnect(scenario.received)
    return consumer


def final_producer(scenario: Scenario, producer: VBucket) -> None:
    """Apply the scenario's failovers (epochs 1, 2, ...) and then compaction."""
    for epoch, failover in enumerate(scenario.failovers, start=1):
        producer.failover(failover.branch, failover.uuid, failover.mutations, epoch)
    producer.compact(scenario.purge_seqno)


def producer_decision(rules: RuleSet) -> Decide:
    """How the final producer answers: the hand-written reference for a built-in rule
    set that has one, the clause-form rule set otherwise."""
    if rules.name in REFERENCE_DECISIONS and _is_builtin(rules):
        needs_rollback = REFERENCE_DECISIONS[rules.name]
        return lambda req, producer: stream_request(req, producer, needs_rollback)
    return Decider(rules).decide


def _is_builtin(rules: RuleSet) -> bool:
    return rules.name in RULE_SETS and RULE_SETS.get(rules.name) is rules


def stream_request_of(request: ResumeRequest) -> StreamRequest:
    """The stream request a variant's ``ResumeRequest`` stands for (end 2^64-1, no collection)."""
    return StreamRequest(
        uuid=int_value(request.uuid, "request uuid"),
        start=int_value(request.start, "request start"),
        snap_start=int_value(request.snap_start, "request snap_start"),
        snap_end=int_value(request.snap_end, "request snap_end"),
        end=UINT64_MAX,
        strict=_bool_value(request.strict, "request strict"),
        ignore_purged=_bool_value(request.ignore_purged, "request ignore_purged"),
        remote_purge=int_value(request.remote_purge, "request remote_purge"),
        collection_high=None,
    )


def _bool_value(expr: Expr, what: str) -> bool:
    if expr.sort is not BOOL:
        raise TypeError(f"{what} must be a boolean expression, got `{expr}`")
    return bool(evaluate(expr, {}))


def resume(
    consumer: ReferenceConsumer,
    producer: VBucket,
    variant: ConsumerVariant,
    decide: Decide,
    rounds: int,
) -> tuple[tuple[Round, ...], dict[int, Item]]:
    """The resume loop: the rounds played and the consumer's final versions
    (empty unless a request was accepted).

    The consumer first remembers what its variant says it remembers once the
    stream ended; each round it sends its variant's request; ROLLBACK(R)
    applies the variant's reaction (data, claim, log, filter)."""
    producer_log = ReferenceLog.of_table(producer.table)
    consumer.remember(calls.remembered(variant, consumer.view(producer_log)))
    played: list[Round] = []
    for _ in range(rounds):
        view = consumer.view(producer_log)
        request = stream_request_of(calls.request(variant, view))
        decision = decide(request, producer.producer_state())
        played.append(Round(request, decision, consumer.keep, consumer.filter))
        if decision.outcome is Outcome.ACCEPT:
            return tuple(played), consumer.after_stream(producer.stream_after(request.start))
        if decision.outcome is Outcome.ERANGE:
            break
        rollback_seqno = decision.rollback_seqno
        assert rollback_seqno is not None, "a ROLLBACK decision carries its seqno"
        reaction = calls.reaction(variant, view, const(rollback_seqno), producer_log)
        consumer.react(reaction, rollback_seqno)
    return tuple(played), {}
