"""The five single-node properties of the catalogue (docs/model.md, "Properties").

Each is ``Property(id, kind, summary, formula, explanation)``; the formula is
true when the property holds for a trace, the explanation says what went
wrong in a reference trace that violates it. Safety properties must hold; the cost property
measures rollbacks a consumer did not need.
"""

from __future__ import annotations

from spec.bounds import Bounds
from spec.expr import Expr, all_of, any_of, const, evaluate, implies
from spec.properties import Property
from spec.properties.derive import (
    Version,
    accepted,
    any_round,
    every_round,
    is_producers,
    producer_final,
    rolled_back,
    safe_at,
    same,
)
from spec.scenario import key_name, live_versions, version_text
from spec.trace import Trace, TraceFields, trace_values
from spec.types import Outcome


def no_missed_item_at(t: TraceFields, key: int) -> Expr:
    """After an accepted resume, ``key`` is live on both sides (same mutation) or on neither."""
    mine = Version(t[f"f.has.{key}"] & ~t[f"f.del.{key}"], t[f"f.seq.{key}"], t[f"f.epoch.{key}"])
    return implies(any_round(t, lambda i: accepted(t, i)), same(mine, producer_final(t, key)))


def no_missed_item(t: TraceFields) -> Expr:
    """After an accepted resume, each key is live on both sides (same mutation) or on neither."""
    return all_of(*(no_missed_item_at(t, key) for key in t.keys))


def explain_missed_item(trace: Trace, bounds: Bounds) -> str:
    """The first key whose live version differs between the producer and the consumer."""
    if not trace.accepted:
        return ""
    producer = live_versions(trace.producer_items)
    for key in sorted(set(producer) | {k for k, i in trace.final.items() if not i.deleted}):
        mine = trace.final.get(key)
        mine_live = mine if mine is not None and not mine.deleted else None
        theirs = producer.get(key)
        if mine_live != theirs:
            return (
                f"key {key_name(key)}: the producer has {version_text(theirs)}, "
                f"the consumer ends with {version_text(mine)}"
            )
    return ""


def no_foreign_snapshot(t: TraceFields) -> Expr:
    """When a request is accepted, each item the consumer holds is the producer's mutation."""

    def held_are_producers(i: int) -> Expr:
        keep = t[f"r{i}.keep"]
        return all_of(
            *(
                implies(accepted(t, i) & t[f"c.held.{x}"] & (const(x) <= keep), is_producers(t, x))
                for x in t.seqnos
            )
        )

    return every_round(t, held_are_producers)


def explain_foreign_item(trace: Trace, bounds: Bounds) -> str:
    """The first item the accepted consumer keeps that the producer does not have."""
    if not trace.accepted:
        return ""
    keep = trace.rounds[-1].keep
    by_seqno = {i.seqno: i for i in trace.producer_items}
    for item in trace.held:
        if item.seqno <= keep and by_seqno.get(item.seqno) != item:
            other = by_seqno.get(item.seqno)
            return (
                f"the consumer keeps {item} but the producer has "
                f"{other if other else 'nothing'} at seqno {item.seqno}"
            )
    return ""


def bounded_rollback(t: TraceFields) -> Expr:
    """Rollback seqnos never exceed the start; the loop ends within table entries + 2 rounds."""
    return every_round(
        t,
        lambda i: (
            implies(rolled_back(t, i), t[f"r{i}.seqno"] <= t[f"r{i}.start"])
            & implies(t[f"r{i}.sent"], const(i) < t["p.table_len"] + 2)
        ),
    )


def explain_unbounded_rollback(trace: Trace, bounds: Bounds) -> str:
    for n, r in enumerate(trace.rounds):
        d = r.decision
        if d.outcome is Outcome.ROLLBACK and (d.rollback_seqno or 0) > r.request.start:
            return f"request {n}: rollback to {d.rollback_seqno} is above start {r.request.start}"
    return f"the loop is still rolling back after {len(trace.rounds)} rounds"


def valid_request(t: TraceFields) -> Expr:
    """Every request satisfies snap_start <= start <= snap_end."""
    return every_round(
        t,
        lambda i: implies(
            t[f"r{i}.sent"],
            (t[f"r{i}.snap_start"] <= t[f"r{i}.start"]) & (t[f"r{i}.start"] <= t[f"r{i}.snap_end"]),
        ),
    )


def explain_invalid_request(trace: Trace, bounds: Bounds) -> str:
    for n, r in enumerate(trace.rounds):
        if not r.request.snap_start <= r.request.start <= r.request.snap_end:
            return f"request {n} breaks snap_start <= start <= snap_end"
    return ""


def no_needless_rollback(t: TraceFields) -> Expr:
    """No rollback of a consumer safe at its start, nor below a point it is safe at."""

    def needed(i: int) -> Expr:
        start, seqno, keep = t[f"r{i}.start"], t[f"r{i}.seqno"], t[f"r{i}.keep"]
        needless = [
            safe_at(t, c, keep) & (const(c) <= start) & ((const(c) == start) | (const(c) > seqno))
            for c in range(0, t.bounds.seqnos + 1)
        ]
        return implies(rolled_back(t, i), ~any_of(*needless))

    return every_round(t, needed)


def explain_needless_rollback(trace: Trace, bounds: Bounds) -> str:
    """The first needless rollback and the highest point the consumer was safe at."""
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


CATALOGUE = (
    Property(
        "no-missed-item",
        "safety",
        "after resume the consumer's data equals the producer's",
        no_missed_item,
        explain_missed_item,
        per_key=no_missed_item_at,
    ),
    Property(
        "no-foreign-snapshot",
        "safety",
        "an accepted consumer holds only the producer's mutations",
        no_foreign_snapshot,
        explain_foreign_item,
    ),
    Property(
        "bounded-rollback",
        "safety",
        "rollback seqno <= start; the loop ends within table entries + 2 rounds",
        bounded_rollback,
        explain_unbounded_rollback,
    ),
    Property(
        "valid-request",
        "safety",
        "every request has snap_start <= start <= snap_end",
        valid_request,
        explain_invalid_request,
    ),
    Property(
        "no-needless-rollback",
        "cost",
        "no rollback of a consumer that could safely resume, none below its highest safe point",
        no_needless_rollback,
        explain_needless_rollback,
    ),
)
