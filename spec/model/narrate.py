"""A scenario's reference trace as a run of named steps, told in the style of seed 001.

    first producer, failover table 1111@0:
      seqno   1       2       3       4
      key     SET(A)  SET(B)  SET(C)  DEL(A)
      snap    [1-----------------------4]
    consumer received 2:SET(B) 3:SET(C), then disconnected (1:SET(A) deduplicated away)
    failover 1: history kept up to seqno 2, new entry 2222@2, then 3':SET(B)
    request 0: uuid 1111 snapshot {2,2} start 2 -> OK (lagging)
    ...

The steps (``run_of``): ``ReceiveSnapshot`` (one per snapshot the consumer
received any of), ``Disconnect``, ``Failover``, ``Compact``,
``StreamRequest`` (with the producer's answer), ``RollbackConsumer``,
``StreamAfterOk``, from the start state ``first producer``. State variables:
``producer`` and ``consumer`` (records; items as ITF maps from seqno).
"""

from __future__ import annotations

from typing import Any

from spec.failover_table import FailoverTable
from spec.reference.vbucket import Snapshot, VBucket
from spec.run import Cell, Exchange, Lane, Mark, Picture, Rounds, Run, Span, Step
from spec.scenario import Cut, Failover, Item, Mutation, Scenario, key_name, live_versions
from spec.trace import Round, Trace
from spec.types import Decision, Outcome

__all__ = ["answer_text", "picture_of", "run_of"]

CELL = 8
START = "first producer"


def _row(label: str, cells: list[str]) -> str:
    return f"  {label:<7}" + "".join(f"{c:<{CELL}}" for c in cells).rstrip()


def _snapshot_row(s: Scenario) -> str:
    """Marks each snapshot's range under the seqno columns."""
    n = len(s.history)
    cells = [""] * n
    start = s.first_snapshot_start
    for end in s.snapshot_ends:
        first = max(start, 1)
        for x in range(first, end + 1):
            cells[x - 1] = "-" * CELL
        cells[first - 1] = f"[{start}" + "-" * (CELL - 1 - len(str(start)))
        cells[end - 1] = (
            ("-" * (CELL - 2 - len(str(end))) + f"{end}]") if end != first else f"[{start},{end}]"
        )
        start = end + 1
    return _row("snap", cells)


def answer_text(decision: Decision) -> str:
    return {
        Outcome.ACCEPT: "OK",
        Outcome.ROLLBACK: f"ROLLBACK to {decision.rollback_seqno}",
        Outcome.ERANGE: "ERANGE",
    }[decision.outcome]


def _items_map(items: list[Item]) -> dict[str, Any]:
    return {"#map": [[i.seqno, i.to_json()] for i in sorted(items)]}


def _table(table: FailoverTable | None) -> list[dict[str, int]]:
    return [] if table is None else [e.to_json() for e in table]


class _Recorder:
    """The producer's and consumer's variables as the steps change them."""

    def __init__(self, scenario: Scenario) -> None:
        first = [Item(x, 0, m.key, m.deleted) for x, m in enumerate(scenario.history, start=1)]
        self.producer: dict[str, Any] = {
            "high_seqno": len(first),
            "purge_seqno": 0,
            "table": _table(scenario.table),
            "items": first,
        }
        self.consumer: dict[str, Any] = {"items": [], "keep": 0, "log": [], "connected": True}
        self.steps: list[Step] = []

    def state(self) -> dict[str, Any]:
        return {
            "producer": self.producer | {"items": _items_map(self.producer["items"])},
            "consumer": self.consumer | {"items": _items_map(self.consumer["items"])},
        }

    def step(self, name: str, label: str, narration: str = "", **args: Any) -> None:
        self.steps.append(Step({"name": name, **args}, self.state(), label, narration))


def _init_lines(s: Scenario) -> tuple[str, ...]:
    return (
        "first producer, failover table "
        + " ".join(f"{e.uuid}@{e.seqno}" for e in s.table.entries)
        + ":",
        _row("seqno", [str(x) for x in range(1, len(s.history) + 1)]),
        _row("key", [str(m) for m in s.history]),
        _snapshot_row(s),
    )


def _disconnect_text(trace: Trace) -> str:
    s = trace.scenario
    held = " ".join(str(i) for i in trace.held) or "nothing"
    held_seqnos = {i.seqno for i in trace.held}
    deduped = [
        f"{x}:{m}"
        for x, m in enumerate(s.history, start=1)
        if x <= s.received and x not in held_seqnos
    ]
    line = f"consumer received {held}, then disconnected"
    if deduped:
        line += f" ({', '.join(deduped)} deduplicated away)"
    return line


def _request_text(n: int, trace: Trace) -> str:
    r = trace.rounds[n]
    req, dec = r.request, r.decision
    flags = "".join(
        [" strict" if req.strict else "", " ignore-purged" if req.ignore_purged else ""]
    )
    return (
        f"request {n}: uuid {req.uuid} snapshot {{{req.snap_start},{req.snap_end}}} "
        f"start {req.start}{flags} -> {answer_text(dec)} ({dec.case})"
    )


def _reaction_text(rolled_back: Round, after: Round) -> str:
    """What the consumer did with a ROLLBACK, as the next round shows it."""
    if after.keep < rolled_back.keep:
        text = f"consumer drops its items above seqno {after.keep}"
    else:
        text = f"consumer keeps its items (up to seqno {after.keep})"
    if after.filter:
        text += f", will drop re-streamed items up to seqno {after.filter}"
    return text


def _end_lines(trace: Trace) -> tuple[str, ...]:
    producer = live_versions(trace.producer_items)
    lines = ["producer has:  " + (" ".join(str(i) for i in producer.values()) or "nothing live")]
    if trace.accepted:
        consumer = {k: i for k, i in trace.final.items() if not i.deleted}
        lines.append(
            "consumer has:  "
            + (" ".join(str(consumer[k]) for k in sorted(consumer)) or "nothing live")
        )
    return tuple(lines)


def run_of(trace: Trace) -> Run:
    """The run a reference trace is: named steps, their states and their story."""
    s = trace.scenario
    rec = _Recorder(s)
    init = rec.state()
    rec.consumer["log"] = _table(s.table)
    start = s.first_snapshot_start
    for end in s.snapshot_ends:
        if s.received == 0 or start > s.received:
            break
        got = [i for i in trace.held if start <= i.seqno <= end]
        rec.consumer["items"] = rec.consumer["items"] + got
        rec.consumer["keep"] = min(end, s.received)
        rec.step(
            "ReceiveSnapshot",
            f"ReceiveSnapshot({start},{end})",
            snap_start=start,
            snap_end=end,
            whole=end <= s.received,
            items=[i.to_json() for i in got],
        )
        start = end + 1
    rec.consumer["connected"] = False
    rec.step("Disconnect", "Disconnect", _disconnect_text(trace), received=s.received)
    items, table, _ = _failover_steps(rec, list(rec.producer["items"]), s.table, s.failovers, 0)
    if s.purge_seqno:
        rec.producer |= {"purge_seqno": s.purge_seqno}
        text = f"compaction: tombstones at or below seqno {s.purge_seqno} purged"
        rec.step("Compact", "Compact", text, purge_seqno=s.purge_seqno)
    epoch = len(s.failovers)
    for r, resume in enumerate(trace.resumes):
        if r > 0:
            cut = s.later[r - 1]
            _cut_steps(rec, trace.resumes[r - 1], resume, cut, r)
            items, table, epoch = _failover_steps(rec, items, table, cut.failovers, epoch)
            if cut.purge_seqno != rec.producer["purge_seqno"]:
                rec.producer |= {"purge_seqno": cut.purge_seqno}
                text = f"compaction: tombstones at or below seqno {cut.purge_seqno} purged"
                rec.step("Compact", "Compact", text, purge_seqno=cut.purge_seqno)
        _resume_steps(rec, resume, last=r == len(trace.resumes) - 1, number=r)
    last = trace.resumes[-1]
    return Run(
        start=START,
        init=init,
        steps=tuple(rec.steps),
        init_lines=_init_lines(s),
        end_lines=_end_lines(last),
        picture=picture_of(trace),
    )


def _failover_steps(
    rec: _Recorder,
    items: list[Item],
    table: FailoverTable,
    failovers: tuple[Failover, ...],
    epoch: int,
) -> tuple[list[Item], FailoverTable, int]:
    """Record ``failovers`` (the first numbered ``epoch + 1``): the producer's new state."""
    for f in failovers:
        epoch += 1
        n = epoch
        new = [Item(x, n, m.key, m.deleted) for x, m in enumerate(f.mutations, start=f.branch + 1)]
        items = [i for i in items if i.seqno <= f.branch] + new
        table = table.create_entry(f.branch, f.uuid)
        rec.producer |= {"items": items, "high_seqno": len(items), "table": _table(table)}
        text = f"failover {n}: history kept up to seqno {f.branch}, new entry {f.uuid}@{f.branch}"
        if new:
            text += ", then " + " ".join(map(str, new))
        rec.step("Failover", f"Failover({n})", text, number=n, branch=f.branch, uuid=f.uuid)
    return items, table, epoch


def _resume_steps(rec: _Recorder, trace: Trace, last: bool, number: int) -> None:
    """One resume's rounds; the stream after OK when it is the last resume."""
    prefix = f"resume {number + 1}: " if number else ""
    for n, r in enumerate(trace.rounds):
        rec.step(
            "StreamRequest",
            f"StreamRequest({n})",
            prefix + _request_text(n, trace),
            round=n,
            request=r.request.to_json(),
            answer=r.decision.to_json(),
        )
        if r.decision.rolls_back and n + 1 < len(trace.rounds):
            after = trace.rounds[n + 1]
            rec.consumer["items"] = [i for i in rec.consumer["items"] if i.seqno <= after.keep]
            rec.consumer["keep"] = after.keep
            rec.step(
                "RollbackConsumer",
                "RollbackConsumer",
                _reaction_text(r, after),
                rollback_seqno=r.decision.rollback_seqno,
                keep=after.keep,
                filter=after.filter,
            )
    if trace.accepted and last:
        rec.consumer["items"] = sorted(trace.final.values())
        rec.consumer["connected"] = True
        rec.step(
            "StreamAfterOk",
            "StreamAfterOk",
            _streamed_text(trace),
            final={key_name(k): i.to_json() for k, i in sorted(trace.final.items())},
        )


def _streamed_text(trace: Trace) -> str:
    """What the accepted request streams (the last resume's, streamed to the end)."""
    start_seqno = trace.rounds[-1].request.start
    streamed = sorted(
        {i for i in trace.final.values() if i.seqno > start_seqno and i in trace.producer_items}
    )
    return "stream after OK: " + (" ".join(map(str, streamed)) or "nothing")


def cut_snapshots(before: Trace, cut: Cut) -> list[Snapshot]:
    """The snapshots the stream of ``before``'s accepted request sent, up to the cut's."""
    request = before.rounds[-1].request
    producer = VBucket(before.producer_items, before.producer_table, before.purge_seqno)
    return producer.snapshots_after(
        request.start, request.snap_start, request.snap_end, cut.disk, cut.snapshot_ends
    )


def _cut_steps(rec: _Recorder, before: Trace, after: Trace, cut: Cut, number: int) -> None:
    """The stream of resume ``number`` (from 1) up to the cut, then the disconnect."""
    rec.consumer["connected"] = True
    snapshots = cut_snapshots(before, cut)
    for snapshot in snapshots:
        got = [i for i in snapshot.items if i.seqno <= cut.received]
        backfill = cut.disk or before.purge_seqno > before.rounds[-1].request.start
        kind = "disk" if backfill and snapshot is snapshots[0] else "memory"
        rec.consumer["items"] = sorted(after.held)
        rec.step(
            "ReceiveSnapshot",
            f"ReceiveSnapshot({snapshot.snap_start},{snapshot.snap_end})",
            f"resume {number}: {kind} snapshot [{snapshot.snap_start},{snapshot.snap_end}]: "
            + (" ".join(map(str, got)) or "nothing")
            + ("" if snapshot.snap_end <= cut.received else " received of it"),
            snap_start=snapshot.snap_start,
            snap_end=snapshot.snap_end,
            whole=snapshot.snap_end <= cut.received,
            items=[i.to_json() for i in got],
        )
    rec.consumer["connected"] = False
    rec.consumer["log"] = _table(before.producer_table)
    held = " ".join(str(i) for i in after.held) or "nothing"
    rec.step(
        "Disconnect",
        "Disconnect",
        f"resume {number}: consumer disconnected after seqno {cut.received}, holding {held}",
        received=cut.received,
    )


# -- the picture --------------------------------------------------------------------------


def _kind(deleted: bool) -> str:
    return "del" if deleted else "set"


LEGEND = (
    ("set", "a SET"),
    ("del", "a DEL (tombstone)"),
    ("held", "received and held by the consumer"),
    ("rolledback", "received, then dropped by the consumer's rollback"),
    ("dropped", "never received: deduplicated away"),
    ("branch", "a failover's branch point"),
    ("purge", "the purge seqno: tombstones at or below are gone"),
)


def _item_cell(i: Item, kind: str) -> Cell:
    return Cell(i.seqno, f"{Mutation(i.key, i.deleted)}" + "'" * i.epoch, kind)


def _failover_lanes(
    lanes: list[Lane], marks: list[Mark], failovers: tuple[Failover, ...], epoch: int
) -> None:
    for n, f in enumerate(failovers, start=epoch + 1):
        cells = tuple(
            Cell(x, f"{m}" + "'" * n, _kind(m.deleted))
            for x, m in enumerate(f.mutations, start=f.branch + 1)
        )
        label = f"failover {n}: {f.uuid}@{f.branch}"
        lanes.append(Lane(label, cells))
        marks.append(Mark(f.branch, f"branch {f.uuid}@{f.branch}", "branch", lane=label))


def kept(trace: Trace) -> int | None:
    """The highest seqno the consumer still holds when its last request of this resume
    goes out (None: it never asked): what its rollbacks left of ``trace.held``."""
    return trace.rounds[-1].keep if trace.rounds else None


def _holding(seqno: int, keep: int | None) -> str:
    return "held" if keep is None or seqno <= keep else "rolledback"


def request_words(r: Round) -> str:
    """A request as the sequence diagram labels it: uuid, start, snapshot range, flags."""
    req = r.request
    flags = "".join(
        [" strict" if req.strict else "", " ignore-purged" if req.ignore_purged else ""]
    )
    return f"uuid {req.uuid} start {req.start} snapshot [{req.snap_start},{req.snap_end}]{flags}"


def _answer(decision: Decision) -> tuple[str, str]:
    if decision.outcome is Outcome.ACCEPT:
        return "OK", "ok"
    if decision.outcome is Outcome.ROLLBACK:
        return f"ROLLBACK({decision.rollback_seqno})", "rollback"
    return answer_text(decision), "error"


def rounds_of(trace: Trace, number: int, last: bool) -> Rounds:
    """Resume ``number``'s rounds (from 1) as exchanges: each request, its answer, and the
    consumer's drop and filter before the next request, as the reference replays them
    (and, ``last``, what the stream after OK brings)."""
    exchanges = []
    requests: dict[str, int] = {}
    for n, r in enumerate(trace.rounds):
        words = request_words(r)
        answer, kind = _answer(r.decision)
        reaction = ""
        if r.decision.rolls_back:
            if n + 1 < len(trace.rounds):
                reaction = _reaction_text(r, trace.rounds[n + 1])
            else:
                reaction = "no round left within the bounds"
        elif r.decision.outcome is Outcome.ACCEPT and last:
            reaction = _streamed_text(trace)
        repeats = requests.get(words)
        requests.setdefault(words, n + 1)
        exchanges.append(Exchange(words, answer, kind, reaction, repeats))
    if trace.accepted:
        streamed = f"streams from seqno {trace.rounds[-1].request.start}"
        outcome = f"OK after {len(trace.rounds)} round{'s' if len(trace.rounds) != 1 else ''}: "
        outcome += streamed
    elif trace.rounds and trace.rounds[-1].decision.rolls_back:
        outcome = f"still rolling back after {len(trace.rounds)} rounds: no OK"
    elif trace.rounds:
        outcome = f"stops at {answer_text(trace.rounds[-1].decision)}"
    else:
        outcome = "no request"
    return Rounds(f"resume {number}", tuple(exchanges), outcome)


def picture_of(trace: Trace) -> Picture:
    """Both producers' histories (the first, the final one after the failovers), what the
    consumer holds (after its rollbacks dropped what they drop) and ends with, each
    failover's new items, the branch points and the purge seqno; with several resumes,
    what the consumer holds after each cut stream (with that stream's snapshots) and the
    failovers between resumes; and each resume's rounds, request by answer."""
    s = trace.scenario
    spans = []
    start = s.first_snapshot_start
    for end in s.snapshot_ends:
        spans.append(Span(max(start, 1), end, f"[{start},{end}]"))
        start = end + 1
    first = Lane(
        START,
        tuple(Cell(x, f"{m}", _kind(m.deleted)) for x, m in enumerate(s.history, start=1)),
        tuple(spans),
    )
    held = {i.seqno for i in trace.held}
    keep = kept(trace)
    consumer = Lane(
        "consumer holds",
        tuple(
            Cell(x, f"{m}", _holding(x, keep) if x in held else "dropped")
            for x, m in enumerate(s.history, start=1)
            if x <= s.received
        ),
        empty="nothing",
    )
    lanes = [first, consumer]
    marks: list[Mark] = []
    _failover_lanes(lanes, marks, s.failovers, 0)
    epoch = len(s.failovers)
    for j, (cut, resume) in enumerate(zip(s.later, trace.later, strict=False), start=1):
        lanes.append(
            Lane(
                f"after resume {j}'s stream, cut at {cut.received}: consumer holds",
                tuple(_item_cell(i, _holding(i.seqno, kept(resume))) for i in resume.held),
                tuple(
                    Span(max(sn.snap_start, 1), sn.snap_end, f"[{sn.snap_start},{sn.snap_end}]")
                    for sn in cut_snapshots(trace.resumes[j - 1], cut)
                ),
                empty="nothing",
            )
        )
        _failover_lanes(lanes, marks, cut.failovers, epoch)
        epoch += len(cut.failovers)
    last = trace.resumes[-1]
    lanes.append(
        Lane(
            "final producer",
            tuple(_item_cell(i, _kind(i.deleted)) for i in last.producer_items),
            empty="nothing",
        )
    )
    ends = "nothing" if last.accepted else "no stream: the producer never answered OK"
    lanes.append(
        Lane(
            "consumer ends with",
            tuple(_item_cell(i, "held") for i in sorted(last.final.values())),
            empty=ends,
        )
    )
    if last.purge_seqno:
        marks.append(Mark(last.purge_seqno, f"purge {last.purge_seqno}", "purge"))
    count = len(trace.resumes)
    resumes = tuple(rounds_of(t, n, n == count) for n, t in enumerate(trace.resumes, start=1))
    return Picture(tuple(lanes), tuple(marks), LEGEND, resumes)
