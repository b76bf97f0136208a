"""dcpcheck as the producer: one scenario played to a client, recorded as a ``Trace``.

The producer side is the reference implementation's (``spec.reference``: the
first producer, the failovers, compaction, the rule set's decisions); the
consumer side is the client, told what a DCP client sees and asked what it
requests and what its application holds (docs/client-targets.md):

1. ``begin`` (the first producer's failover log), then the initial stream as
   far as ``received``: snapshot markers, mutations and deletions (each with
   a CAS unique to the mutation), ``seqno_advanced`` for a snapshot whose last
   item was not sent, and ``disconnect``;
2. the failovers and compaction happen (the client is not told); it resumes:
   ``data`` (what it holds before resuming), then rounds of
   ``stream_request`` -> the producer's decision: ``rollback`` (seqno and the
   producer's failover log), ``erange`` (the resume ends), or ``accepted``
   (the failover log); once accepted, ``data`` (what it holds then: the
   accepted round's ``keep`` is its highest seqno, and the trace's ``held``
   is what it held before resuming if that truncated at ``keep`` is what it
   holds now, else what it holds now), the stream from the request's start to
   the end, and ``data`` again (the trace's ``final``);
3. with ``--sessions K``, resume j is played in a run of its own (``begin``
   again): the earlier resumes' accepted streams are cut as the scenario's
   cuts say and end in ``disconnect``, so every resume's final data is
   asked of a client whose stream ran to its end.

A client's answers are taken as they come: a request that breaks
``snap_start <= start <= snap_end`` is a request (the properties judge it),
a held mutation dcpcheck never sent is garbage (``AdapterFault``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from checker.adapter.client import Client
from checker.adapter.protocol import AdapterFault, Version, cas_of, item_event, log_json
from spec.reference.simulate import Decide, NotARun, first_producer, producer_decision
from spec.reference.vbucket import Snapshot, VBucket
from spec.rules import RuleSet
from spec.scenario import Failover, Item, Scenario, key_name
from spec.trace import Round, Trace
from spec.types import Outcome, StreamRequest

__all__ = ["Played", "play", "snapshot_events"]


@dataclass(frozen=True)
class Played:
    """A scenario played: the trace, and every message of the run of each resume
    (the events and questions, each question with its answer)."""

    trace: Trace
    transcript: tuple[tuple[dict[str, Any], ...], ...]


def snapshot_events(snapshots: list[Snapshot], received: int) -> list[dict[str, Any]]:
    """The stream as a client sees it when the connection drops once it has every item
    sent at or below ``received``: markers and items in order, ``seqno_advanced`` for a
    snapshot complete without its last item (a purged tombstone); nothing after the
    last snapshot it received anything of."""
    out: list[dict[str, Any]] = []
    for snap in snapshots:
        got = [i for i in snap.items if i.seqno <= received]
        if not got and snap.snap_end > received:
            break
        out.append({"type": "snapshot", "start": snap.snap_start, "end": snap.snap_end})
        out.extend(item_event(i) for i in got)
        if snap.snap_end <= received and (not got or got[-1].seqno != snap.snap_end):
            out.append({"type": "seqno_advanced", "seqno": snap.snap_end})
        if snap.snap_end > received:
            break
    return out


class _Run:
    """One run of a scenario against a client, asking about resume ``target``."""

    def __init__(
        self, client: Client, scenario: Scenario, decide: Decide, rounds: int, mitigation: bool
    ) -> None:
        self.client = client
        self.scenario = scenario
        self.decide = decide
        self.rounds = rounds
        self.mitigation = mitigation
        self.sent: dict[int, Item] = {}  # cas -> the mutation sent with it
        self.log: list[dict[str, Any]] = []
        self.told = True  # ask what it holds before each resume

    def send(self, event: dict[str, Any]) -> None:
        self.log.append(event)
        self.client.send(event)

    def send_items(self, events: list[dict[str, Any]], items: dict[int, Item]) -> None:
        for event in events:
            if "cas" in event:
                self.sent[event["cas"]] = items[event["cas"]]
            self.send(event)

    def request(self) -> StreamRequest:
        request = self.client.ask_request()
        self.log.append({"type": "stream_request", "answer": _request_text(request)})
        return request

    def data(self) -> dict[int, Item]:
        data = self.client.ask_data()
        self.log.append({"type": "data", "answer": {k: vars(v) for k, v in data.items()}})
        return self.items_of(data)

    def data_around(
        self, events: list[dict[str, Any]], items: dict[int, Item]
    ) -> tuple[dict[int, Item], dict[int, Item]]:
        """What it holds now, ``events`` (a stream of ``items``), what it holds then:
        asked in one write; each answer judged against what was sent before its question."""
        now, then = self.client.ask_data_around(events)
        self.log.append({"type": "data", "answer": {k: vars(v) for k, v in now.items()}})
        held = self.items_of(now)
        for event in events:
            if "cas" in event:
                self.sent[event["cas"]] = items[event["cas"]]
            self.log.append(event)
        self.log.append({"type": "data", "answer": {k: vars(v) for k, v in then.items()}})
        return held, self.items_of(then)

    def items_of(self, data: dict[str, Version]) -> dict[int, Item]:
        out: dict[int, Item] = {}
        for name, version in data.items():
            item = self.sent.get(version.cas)
            if (
                item is None
                or key_name(item.key) != name
                or item.seqno != version.seqno
                or item.deleted != version.deleted
            ):
                raise AdapterFault(
                    "garbage",
                    f"data: key {name!r} at seqno {version.seqno} with CAS "
                    f"{version.cas} is no mutation dcpcheck sent",
                )
            out[item.key] = item
        return out

    def stream(self, snapshots: list[Snapshot], received: int) -> None:
        items = {cas_of(i): i for s in snapshots for i in s.items}
        self.send_items(snapshot_events(snapshots, received), items)

    def allows(self, failovers: tuple[Failover, ...], whole: int) -> None:
        """With mitigation no failover branches below ``whole``, the end of the highest
        snapshot the client was sent whole (``spec.reference.simulate``'s rule)."""
        for failover in failovers:
            if self.mitigation and failover.branch < whole:
                raise NotARun(
                    f"the client has rollback mitigation and the snapshot ending at {whole} whole"
                )


def _request_text(r: StreamRequest) -> dict[str, Any]:
    return {
        "uuid": r.uuid,
        "start": r.start,
        "snap_start": r.snap_start,
        "snap_end": r.snap_end,
        "strict": r.strict,
        "ignore_purged": r.ignore_purged,
        "purge_seqno": r.remote_purge,
    }


def _run(
    client: Client,
    scenario: Scenario,
    decide: Decide,
    rounds: int,
    mitigation: bool,
    target: int,
    told: bool,
) -> tuple[Trace, list[dict[str, Any]]]:
    """Play ``scenario`` until resume ``target`` (from 0) is decided; its trace."""
    run = _Run(client, scenario, decide, rounds, mitigation)
    run.told = told
    producer = first_producer(scenario)
    run.send({"type": "begin", "failover_log": log_json(producer.table)})
    initial = producer.snapshots(scenario.first_snapshot_start, scenario.snapshot_ends)
    run.stream(initial, scenario.received)
    run.send({"type": "disconnect"})
    boundaries = tuple(s.snap_end for s in initial if s.snap_end <= scenario.received)
    whole = list(boundaries)
    run.allows(scenario.failovers, max(whole, default=0))
    epoch = 0
    for failover in scenario.failovers:
        epoch += 1
        producer.failover(failover.branch, failover.uuid, failover.mutations, epoch)
    producer.compact(scenario.purge_seqno)
    resume = 0
    while True:
        trace = _resume(run, producer, boundaries, final=resume == target, told=run.told)
        if resume == target or not trace.accepted:
            return trace, run.log
        cut = scenario.later[resume]
        request = trace.rounds[-1].request
        snapshots = producer.snapshots_after(
            request.start, request.snap_start, request.snap_end, cut.disk, cut.snapshot_ends
        )
        run.stream(snapshots, cut.received)
        run.send({"type": "disconnect"})
        # The snapshots it was sent whole: its older ones up to the stream's start, and
        # the stream's own (the reference consumer's ``whole_snapshot_ends`` less ``keep``).
        whole = [e for e in whole if e <= request.start]
        whole += [s.snap_end for s in snapshots if s.snap_end <= cut.received]
        run.allows(cut.failovers, max(whole, default=0))
        for failover in cut.failovers:
            epoch += 1
            producer.failover(failover.branch, failover.uuid, failover.mutations, epoch)
        producer.compact(cut.purge_seqno)
        boundaries = ()
        resume += 1


def _resume(
    run: _Run, producer: VBucket, boundaries: tuple[int, ...], final: bool, told: bool
) -> Trace:
    """One resume: what the client held, the rounds, and (``final``) what it ends with."""
    before = run.data() if told else {}
    keep = max((i.seqno for i in before.values()), default=0)
    held = tuple(sorted(before.values()))
    played: list[Round] = []
    ends_with: dict[int, Item] = {}
    producer_log = log_json(producer.table)
    for _ in range(run.rounds):
        request = run.request()
        decision = run.decide(request, producer.producer_state())
        if decision.outcome is Outcome.ACCEPT:
            run.send({"type": "accepted", "failover_log": producer_log})
            if final:
                # what it holds now, the stream from the request's start, what it ends with
                items = sorted(producer.stream_after(request.start).values())
                stream: list[dict[str, Any]] = []
                if items:
                    start = request.start + 1
                    if request.snap_start <= request.start < request.snap_end:
                        start = request.snap_start
                    stream.append({"type": "snapshot", "start": start, "end": producer.high_seqno})
                stream.extend(item_event(i) for i in items)
                stream.append({"type": "stream_end"})
                now, ends_with = run.data_around(stream, {cas_of(i): i for i in items})
                at_accept = tuple(sorted(now.values()))
                keep = max((i.seqno for i in at_accept), default=0)
                if at_accept != tuple(i for i in held if i.seqno <= keep):
                    held = at_accept  # not a truncation of what it held: judge what it holds
            played.append(Round(request, decision, keep))
            break
        played.append(Round(request, decision, keep))
        if decision.outcome is Outcome.ERANGE:
            run.send({"type": "erange"})
            break
        run.send(
            {"type": "rollback", "seqno": decision.rollback_seqno, "failover_log": producer_log}
        )
    return Trace(
        scenario=run.scenario,
        producer_items=producer.items,
        producer_table=producer.table,
        purge_seqno=producer.purge_seqno,
        held=held,
        boundaries=boundaries,
        rounds=tuple(played),
        final=ends_with,
    )


def play(
    client: Client,
    scenario: Scenario,
    rules: RuleSet | Decide,
    rounds: int,
    mitigation: bool = False,
    told: bool = True,
) -> Played:
    """Play ``scenario`` to ``client`` (rounds per resume at most ``rounds``); its trace,
    every resume after the first from a run of its own. Raises ``NotARun`` when the
    client's rollback mitigation rules the scenario out, ``AdapterFault`` on a bad
    answer (or runs that answer the same events differently). ``told``: ask what the
    client holds before the resume the run is for (the run's story needs it; the
    properties read only what it holds once accepted and at the end), else it is taken
    to hold, before resuming, what it holds when accepted."""
    decide = producer_decision(rules) if isinstance(rules, RuleSet) else rules
    traces: list[Trace] = []
    transcript: list[tuple[dict[str, Any], ...]] = []
    for target in range(len(scenario.later) + 1):
        trace, log = _run(client, scenario, decide, rounds, mitigation, target, told)
        if transcript:
            _deterministic(transcript[-1], log)
        traces.append(trace)
        transcript.append(tuple(log))
        if not trace.accepted or target == len(scenario.later):
            break
    return Played(replace(traces[0], later=tuple(traces[1:])), tuple(transcript))


def _deterministic(before: tuple[dict[str, Any], ...], now: list[dict[str, Any]]) -> None:
    """Two runs of the same scenario agree up to the acceptance the earlier run asked
    about (then one streams to the end, the other is cut); otherwise the client's
    answers are not a function of the events it was sent."""
    accepted = max(n for n, m in enumerate(before) if m["type"] == "accepted")
    for a, b in zip(before[: accepted + 1], now, strict=False):
        if a != b:
            raise AdapterFault(
                "garbage", f"the same events got different answers in two runs: {a} then {b}"
            )
