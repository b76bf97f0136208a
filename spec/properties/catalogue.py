"""The five single-node properties of the catalogue (docs/model.md, "Properties").

Each is ``Property(id, kind, summary, formula)``; the formula is true when the
property holds for a trace. Safety properties must hold; the cost property
measures rollbacks a consumer did not need.
"""

from __future__ import annotations

from spec.expr import Expr, all_of, any_of, const, implies
from spec.properties import Property
from spec.properties.derive import (
    Version,
    accepted,
    any_round,
    is_producers,
    producer_final,
    rolled_back,
    safe_at,
    same,
)
from spec.trace import TraceFields


def no_missed_item(t: TraceFields) -> Expr:
    """After an accepted resume, each key is live on both sides (same mutation) or on neither."""
    parts = []
    for key in t.keys:
        mine = Version(
            t[f"f.has.{key}"] & ~t[f"f.del.{key}"], t[f"f.seq.{key}"], t[f"f.epoch.{key}"]
        )
        parts.append(same(mine, producer_final(t, key)))
    return implies(any_round(t, lambda i: accepted(t, i)), all_of(*parts))


def no_foreign_snapshot(t: TraceFields) -> Expr:
    """When a request is accepted, each item the consumer holds is the producer's mutation."""
    parts = []
    for i in t.rounds:
        keep = t[f"r{i}.keep"]
        for x in t.seqnos:
            held = t[f"c.held.{x}"] & (const(x) <= keep)
            parts.append(implies(accepted(t, i) & held, is_producers(t, x)))
    return all_of(*parts)


def bounded_rollback(t: TraceFields) -> Expr:
    """Rollback seqnos never exceed the start; the loop ends within table entries + 2 rounds."""
    parts = []
    for i in t.rounds:
        parts.append(implies(rolled_back(t, i), t[f"r{i}.seqno"] <= t[f"r{i}.start"]))
        parts.append(implies(t[f"r{i}.sent"], const(i) < t["p.table_len"] + 2))
    return all_of(*parts)


def valid_request(t: TraceFields) -> Expr:
    """Every request satisfies snap_start <= start <= snap_end."""
    return all_of(
        *(
            implies(
                t[f"r{i}.sent"],
                (t[f"r{i}.snap_start"] <= t[f"r{i}.start"])
                & (t[f"r{i}.start"] <= t[f"r{i}.snap_end"]),
            )
            for i in t.rounds
        )
    )


def no_needless_rollback(t: TraceFields) -> Expr:
    """No rollback of a consumer safe at its start, nor below a point it is safe at."""
    parts = []
    for i in t.rounds:
        start, seqno, keep = t[f"r{i}.start"], t[f"r{i}.seqno"], t[f"r{i}.keep"]
        needless = [
            safe_at(t, c, keep) & (const(c) <= start) & ((const(c) == start) | (const(c) > seqno))
            for c in range(0, t.bounds.seqnos + 1)
        ]
        parts.append(implies(rolled_back(t, i), ~any_of(*needless)))
    return all_of(*parts)


CATALOGUE = (
    Property(
        "no-missed-item",
        "safety",
        "after resume the consumer's data equals the producer's",
        no_missed_item,
    ),
    Property(
        "no-foreign-snapshot",
        "safety",
        "an accepted consumer holds only the producer's mutations",
        no_foreign_snapshot,
    ),
    Property(
        "bounded-rollback",
        "safety",
        "rollback seqno <= start; the loop ends within table entries + 2 rounds",
        bounded_rollback,
    ),
    Property(
        "valid-request",
        "safety",
        "every request has snap_start <= start <= snap_end",
        valid_request,
    ),
    Property(
        "no-needless-rollback",
        "cost",
        "no rollback of a consumer that could safely resume, none below its highest safe point",
        no_needless_rollback,
    ),
)
