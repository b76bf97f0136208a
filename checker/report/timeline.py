"""A counterexample as a short readable timeline, in the style of seed 001.

    first producer, uuid 1111@0:
      seqno   1       2       3       4
      key     SET(A)  SET(B)  SET(C)  DEL(A)
      snap    [1-----------------------4]
    consumer received 2:SET(B) 3:SET(C), then disconnected (1:SET(A) deduplicated)
    ...

Plain strings; the caller prints them.
"""

from __future__ import annotations

from spec.expr import const
from spec.scenario import Item, Scenario, key_name
from spec.trace import Trace
from spec.types import Outcome

__all__ = ["explain", "timeline"]

CELL = 8


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


def _item(item: Item) -> str:
    return str(item)


def _version(item: Item | None) -> str:
    if item is None:
        return "nothing"
    return _item(item) + ("" if not item.deleted else " (a tombstone)")


def timeline(trace: Trace) -> list[str]:
    s = trace.scenario
    lines = [
        "first producer, failover table "
        + " ".join(f"{e.uuid}@{e.seqno}" for e in s.table.entries)
        + ":",
        _row("seqno", [str(x) for x in range(1, len(s.history) + 1)]),
        _row("key", [str(m) for m in s.history]),
        _snapshot_row(s),
    ]
    held = " ".join(_item(i) for i in trace.held) or "nothing"
    held_seqnos = {i.seqno for i in trace.held}
    deduped = [
        f"{x}:{m}"
        for x, m in enumerate(s.history, start=1)
        if x <= s.received and x not in held_seqnos
    ]
    line = f"consumer received {held}, then disconnected"
    if deduped:
        line += f" ({', '.join(deduped)} deduplicated away)"
    lines.append(line)
    for i, f in enumerate(s.failovers, start=1):
        new = " ".join(
            str(Item(x, i, m.key, m.deleted)) for x, m in enumerate(f.mutations, start=f.branch + 1)
        )
        lines.append(
            f"failover {i}: history kept up to seqno {f.branch}, new entry {f.uuid}@{f.branch}"
            + (f", then {new}" if new else "")
        )
    if s.purge_seqno:
        lines.append(f"compaction: tombstones at or below seqno {s.purge_seqno} purged")
    for n, r in enumerate(trace.rounds):
        req, dec = r.request, r.decision
        answer = {
            Outcome.ACCEPT: "OK",
            Outcome.ROLLBACK: f"ROLLBACK to {dec.rollback_seqno}",
            Outcome.ERANGE: "ERANGE",
        }[dec.outcome]
        flags = "".join(
            [" strict" if req.strict else "", " ignore-purged" if req.ignore_purged else ""]
        )
        lines.append(
            f"request {n}: uuid {req.uuid} snapshot {{{req.snap_start},{req.snap_end}}} "
            f"start {req.start}{flags} -> {answer} ({dec.case})"
        )
    if trace.accepted:
        start = trace.rounds[-1].request.start
        streamed = sorted(
            {i for i in trace.final.values() if i.seqno > start and i in trace.producer_items}
        )
        lines.append("stream after OK: " + (" ".join(map(str, streamed)) or "nothing"))
    producer = _live(trace.producer_items, trace.purge_seqno)
    lines.append(
        "producer has:  " + (" ".join(str(i) for i in producer.values()) or "nothing live")
    )
    if trace.accepted:
        consumer = {k: i for k, i in trace.final.items() if not i.deleted}
        lines.append(
            "consumer has:  "
            + (" ".join(str(consumer[k]) for k in sorted(consumer)) or "nothing live")
        )
    return lines


def _live(items: tuple[Item, ...], purge: int) -> dict[int, Item]:
    last: dict[int, Item] = {}
    for item in items:
        last[item.key] = item
    return {k: i for k, i in sorted(last.items()) if not i.deleted}


def explain(prop: str, trace: Trace) -> str:
    """One line saying what goes wrong, from the reference trace."""
    if prop == "no-missed-item" and trace.accepted:
        producer = _live(trace.producer_items, trace.purge_seqno)
        for key in sorted(set(producer) | {k for k, i in trace.final.items() if not i.deleted}):
            mine = trace.final.get(key)
            mine_live = mine if mine is not None and not mine.deleted else None
            theirs = producer.get(key)
            if mine_live != theirs:
                return (
                    f"key {key_name(key)}: the producer has {_version(theirs)}, "
                    f"the consumer ends with {_version(mine)}"
                )
    if prop == "no-foreign-snapshot" and trace.accepted:
        keep = trace.rounds[-1].keep
        by_seqno = {i.seqno: i for i in trace.producer_items}
        for item in trace.held:
            if item.seqno <= keep and by_seqno.get(item.seqno) != item:
                other = by_seqno.get(item.seqno)
                return (
                    f"the consumer keeps {item} but the producer has "
                    f"{other if other else 'nothing'} at seqno {item.seqno}"
                )
    if prop == "valid-request":
        for n, r in enumerate(trace.rounds):
            if not r.request.snap_start <= r.request.start <= r.request.snap_end:
                return f"request {n} breaks snap_start <= start <= snap_end"
    if prop == "bounded-rollback":
        for n, r in enumerate(trace.rounds):
            d = r.decision
            if d.outcome is Outcome.ROLLBACK and (d.rollback_seqno or 0) > r.request.start:
                return (
                    f"request {n}: rollback to {d.rollback_seqno} is above start {r.request.start}"
                )
        return f"the loop is still rolling back after {len(trace.rounds)} rounds"
    if prop == "no-needless-rollback":
        return _needless(trace)
    return f"{prop} is violated"


def _needless(trace: Trace) -> str:
    """Name the rollback and the highest point the consumer was safe at."""
    from spec.bounds import Bounds
    from spec.expr import evaluate
    from spec.properties.derive import safe_at
    from spec.trace import TraceFields, trace_values

    s = trace.scenario
    keys = {i.key for i in trace.producer_items} | {m.key for m in s.history}
    bounds = Bounds(
        seqnos=max(len(s.history), trace.high_seqno, 1),
        keys=max(keys, default=0) + 1,
        entries=max(len(trace.producer_table), 1) + 1,
        failovers=1,
        rounds=max(len(trace.rounds), 1),
    )
    fields = TraceFields(bounds)
    values = trace_values(trace, bounds)
    for n, r in enumerate(trace.rounds):
        if r.decision.outcome is not Outcome.ROLLBACK:
            continue
        start, seqno = r.request.start, r.decision.rollback_seqno or 0
        safe = [
            c
            for c in range(0, min(start, bounds.seqnos) + 1)
            if evaluate(safe_at(fields, c, const(r.keep)), values) and (c == start or c > seqno)
        ]
        if safe:
            where = "its start" if max(safe) == start else f"seqno {max(safe)}"
            return (
                f"request {n} (start {start}) is rolled back to {seqno} ({r.decision.case}) "
                f"although the consumer could resume safely from {where}"
            )
    return "a rollback is needless"
