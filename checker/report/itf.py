"""Counterexamples as ITF traces (the Informal Trace Format of Apalache and Quint).

One state per named action: ``Init``, ``ReceiveSnapshot``, ``Disconnect``,
``Failover``, ``Compact``, ``StreamRequest`` (with the producer's answer),
``RollbackConsumer``, ``StreamAfterOk``. Variables: ``action`` (a record with
the action's name and arguments), ``producer`` and ``consumer`` (records).
Integers at or above 2^53 are written ``{"#bigint": "..."}``; maps are
``{"#map": [[key, value], ...]}``.
"""

from __future__ import annotations

from typing import Any

from checker.report.counterexample import item_json
from spec.failover_table import FailoverTable
from spec.scenario import Item, key_name
from spec.trace import Trace

__all__ = ["itf_value", "to_itf"]

SAFE = 2**53


def itf_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if -SAFE < value < SAFE else {"#bigint": str(value)}
    if isinstance(value, dict):
        return {str(k): itf_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [itf_value(v) for v in value]
    raise TypeError(f"no ITF encoding for {type(value).__name__}")


def _items_map(items: list[Item]) -> dict[str, Any]:
    return {"#map": [[i.seqno, itf_value(item_json(i))] for i in sorted(items)]}


def _table(table: FailoverTable | None) -> list[dict[str, Any]]:
    return [] if table is None else [itf_value(e.to_json()) for e in table]


def to_itf(trace: Trace, meta: dict[str, Any]) -> dict[str, Any]:
    s = trace.scenario
    first_items = [Item(x, 0, m.key, m.deleted) for x, m in enumerate(s.history, start=1)]
    producer = {
        "high_seqno": len(first_items),
        "purge_seqno": 0,
        "table": _table(s.table),
        "items": first_items,
    }
    consumer: dict[str, Any] = {"items": [], "keep": 0, "log": _table(None), "connected": True}
    states: list[dict[str, Any]] = []

    def emit(action: str, **args: Any) -> None:
        states.append(
            {
                "#meta": {"index": len(states)},
                "action": itf_value({"name": action, **args}),
                "producer": itf_value(producer | {"items": None})
                | {"items": _items_map(producer["items"])},
                "consumer": itf_value(consumer | {"items": None})
                | {"items": _items_map(consumer["items"])},
            }
        )

    emit("Init")
    consumer["log"] = _table(s.table)
    start = s.first_snapshot_start
    for end in s.snapshot_ends:
        if s.received == 0 or start > s.received:
            break
        got = [i for i in trace.held if start <= i.seqno <= end]
        consumer["items"] = consumer["items"] + got
        consumer["keep"] = min(end, s.received)
        emit(
            "ReceiveSnapshot",
            snap_start=start,
            snap_end=end,
            whole=end <= s.received,
            items=[item_json(i) for i in got],
        )
        start = end + 1
    consumer["connected"] = False
    emit("Disconnect", received=s.received)
    items = first_items
    table = s.table
    for n, f in enumerate(s.failovers, start=1):
        items = [i for i in items if i.seqno <= f.branch] + [
            Item(x, n, m.key, m.deleted) for x, m in enumerate(f.mutations, start=f.branch + 1)
        ]
        table = table.create_entry(f.branch, f.uuid)
        producer = producer | {"items": items, "high_seqno": len(items), "table": _table(table)}
        emit("Failover", number=n, branch=f.branch, uuid=f.uuid)
    if s.purge_seqno:
        producer = producer | {"purge_seqno": s.purge_seqno}
        emit("Compact", purge_seqno=s.purge_seqno)
    for n, r in enumerate(trace.rounds):
        emit("StreamRequest", round=n, request=r.request.to_json(), answer=r.decision.to_json())
        if r.decision.rolls_back and n + 1 < len(trace.rounds):
            keep = trace.rounds[n + 1].keep
            consumer["items"] = [i for i in consumer["items"] if i.seqno <= keep]
            consumer["keep"] = keep
            emit("RollbackConsumer", rollback_seqno=r.decision.rollback_seqno, keep=keep)
    if trace.accepted:
        consumer["items"] = sorted(trace.final.values())
        consumer["connected"] = True
        emit(
            "StreamAfterOk",
            final={key_name(k): item_json(i) for k, i in sorted(trace.final.items())},
        )
    return {
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            **meta,
        },
        "vars": ["action", "producer", "consumer"],
        "states": states,
    }
