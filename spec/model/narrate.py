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
from spec.run import Cell, Lane, Mark, Picture, Run, Span, Step
from spec.scenario import Item, Mutation, Scenario, key_name
from spec.trace import Round, Trace
from spec.types import Decision, Outcome

__all__ = ["answer_text", "live_versions", "picture_of", "run_of", "version_text"]

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


def version_text(item: Item | None) -> str:
    """A consumer's or producer's version of a key, in words."""
    if item is None:
        return "nothing"
    return str(item) + ("" if not item.deleted else " (a tombstone)")


def live_versions(items: tuple[Item, ...] | list[Item]) -> dict[int, Item]:
    """Key -> its last mutation among ``items``, for the keys that mutation leaves live."""
    last: dict[int, Item] = {}
    for item in items:
        last[item.key] = item
    return {k: i for k, i in sorted(last.items()) if not i.deleted}


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
    items = list(rec.producer["items"])
    table = s.table
    for n, f in enumerate(s.failovers, start=1):
        new = [Item(x, n, m.key, m.deleted) for x, m in enumerate(f.mutations, start=f.branch + 1)]
        items = [i for i in items if i.seqno <= f.branch] + new
        table = table.create_entry(f.branch, f.uuid)
        rec.producer |= {"items": items, "high_seqno": len(items), "table": _table(table)}
        text = f"failover {n}: history kept up to seqno {f.branch}, new entry {f.uuid}@{f.branch}"
        if new:
            text += ", then " + " ".join(map(str, new))
        rec.step("Failover", f"Failover({n})", text, number=n, branch=f.branch, uuid=f.uuid)
    if s.purge_seqno:
        rec.producer |= {"purge_seqno": s.purge_seqno}
        text = f"compaction: tombstones at or below seqno {s.purge_seqno} purged"
        rec.step("Compact", "Compact", text, purge_seqno=s.purge_seqno)
    for n, r in enumerate(trace.rounds):
        rec.step(
            "StreamRequest",
            f"StreamRequest({n})",
            _request_text(n, trace),
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
    if trace.accepted:
        start_seqno = trace.rounds[-1].request.start
        streamed = sorted(
            {i for i in trace.final.values() if i.seqno > start_seqno and i in trace.producer_items}
        )
        rec.consumer["items"] = sorted(trace.final.values())
        rec.consumer["connected"] = True
        rec.step(
            "StreamAfterOk",
            "StreamAfterOk",
            "stream after OK: " + (" ".join(map(str, streamed)) or "nothing"),
            final={key_name(k): i.to_json() for k, i in sorted(trace.final.items())},
        )
    return Run(
        start=START,
        init=init,
        steps=tuple(rec.steps),
        init_lines=_init_lines(s),
        end_lines=_end_lines(trace),
        picture=picture_of(trace),
    )


# -- the picture --------------------------------------------------------------------------


def _kind(deleted: bool) -> str:
    return "del" if deleted else "set"


LEGEND = (
    ("set", "a SET"),
    ("del", "a DEL (tombstone)"),
    ("held", "received and held by the consumer"),
    ("dropped", "never received: deduplicated away"),
    ("branch", "a failover's branch point"),
    ("purge", "the purge seqno: tombstones at or below are gone"),
)


def picture_of(trace: Trace) -> Picture:
    """Both producers' histories (the first, the final one after the failovers), what the
    consumer holds and ends with, each failover's new items, the branch points and the
    purge seqno."""
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
    consumer = Lane(
        "consumer holds",
        tuple(
            Cell(x, f"{m}", "held" if x in held else "dropped")
            for x, m in enumerate(s.history, start=1)
            if x <= s.received
        ),
    )
    lanes = [first, consumer]
    marks = []
    for n, f in enumerate(s.failovers, start=1):
        cells = tuple(
            Cell(x, f"{m}" + "'" * n, _kind(m.deleted))
            for x, m in enumerate(f.mutations, start=f.branch + 1)
        )
        lanes.append(Lane(f"failover {n}: {f.uuid}@{f.branch}", cells))
        marks.append(Mark(f.branch, f"branch {f.uuid}@{f.branch}", "branch"))
    lanes.append(
        Lane(
            "final producer",
            tuple(
                Cell(i.seqno, f"{Mutation(i.key, i.deleted)}" + "'" * i.epoch, _kind(i.deleted))
                for i in trace.producer_items
            ),
        )
    )
    if trace.accepted:
        lanes.append(
            Lane(
                "consumer ends with",
                tuple(
                    Cell(i.seqno, f"{Mutation(i.key, i.deleted)}" + "'" * i.epoch, "held")
                    for i in sorted(trace.final.values())
                ),
            )
        )
    if s.purge_seqno:
        marks.append(Mark(s.purge_seqno, f"purge {s.purge_seqno}", "purge"))
    return Picture(tuple(lanes), tuple(marks), LEGEND)
