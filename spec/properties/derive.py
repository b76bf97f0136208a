"""Quantities properties share, computed from trace fields.

Each returns expressions over trace-field variables (``TraceFields``): who
holds what version of a key, at a seqno or at the end, and whether a
consumer would be safe resuming from a point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spec.expr import FALSE, TRUE, Expr, all_of, any_of, const, implies, ite
from spec.rules.language import ACCEPT_CODE, ROLLBACK_CODE
from spec.trace import TraceFields

__all__ = [
    "Version",
    "accepted",
    "consumer_at",
    "is_producers",
    "producer_at",
    "producer_final",
    "resume_from",
    "rolled_back",
    "safe_at",
    "same",
]


@dataclass(frozen=True)
class Version:
    """A key's version as seen by someone: live?, and if so which mutation."""

    live: Expr
    seqno: Expr
    epoch: Expr


def same(a: Version, b: Version) -> Expr:
    """Both not live, or both live with the same mutation."""
    return (a.live == b.live) & implies(a.live, (a.seqno == b.seqno) & (a.epoch == b.epoch))


def accepted(t: TraceFields, i: int) -> Expr:
    return t[f"r{i}.sent"] & (t[f"r{i}.outcome"] == ACCEPT_CODE)


def rolled_back(t: TraceFields, i: int) -> Expr:
    return t[f"r{i}.sent"] & (t[f"r{i}.outcome"] == ROLLBACK_CODE)


def producer_at(t: TraceFields, key: int, upto: Expr) -> Version:
    """The producer's last mutation of ``key`` at or below ``upto``."""
    live, seqno, epoch = FALSE, const(0), const(0)
    for x in t.seqnos:
        hit = (const(x) <= upto) & (const(x) <= t["p.high"]) & (t[f"p.key.{x}"] == key)
        live = ite(hit, ~t[f"p.del.{x}"], live)
        seqno = ite(hit, const(x), seqno)
        epoch = ite(hit, t[f"p.epoch.{x}"], epoch)
    return Version(live, seqno, epoch)


def producer_final(t: TraceFields, key: int) -> Version:
    return producer_at(t, key, t["p.high"])


def consumer_at(t: TraceFields, key: int, upto: Expr, keep: Expr) -> Version:
    """The consumer's last held item of ``key`` at or below ``upto`` (and ``keep``)."""
    live, seqno, epoch = FALSE, const(0), const(0)
    for x in t.seqnos:
        hit = t[f"c.held.{x}"] & (const(x) <= upto) & (const(x) <= keep) & (t[f"c.key.{x}"] == key)
        live = ite(hit, ~t[f"c.del.{x}"], live)
        seqno = ite(hit, const(x), seqno)
        epoch = ite(hit, t[f"c.epoch.{x}"], epoch)
    return Version(live, seqno, epoch)


def resume_from(t: TraceFields, key: int, start: Expr, before: Version) -> Version:
    """``before``, updated by the producer's stream after ``start`` (docs/model.md)."""
    sent, seqno, live, epoch = FALSE, const(0), FALSE, const(0)
    for x in t.seqnos:
        hit = (const(x) > start) & (const(x) <= t["p.high"]) & (t[f"p.key.{x}"] == key)
        purged = t[f"p.del.{x}"] & (const(x) <= t["p.purge"])
        # The last mutation of the key decides; a purged tombstone is not sent.
        sent = ite(hit, ~purged, sent)
        seqno = ite(hit, const(x), seqno)
        live = ite(hit, ~t[f"p.del.{x}"], live)
        epoch = ite(hit, t[f"p.epoch.{x}"], epoch)
    return Version(
        ite(sent, live, before.live), ite(sent, seqno, before.seqno), ite(sent, epoch, before.epoch)
    )


def is_producers(t: TraceFields, x: int) -> Expr:
    """The consumer's item at seqno ``x`` is the producer's mutation there."""
    return all_of(
        const(x) <= t["p.high"],
        t[f"p.epoch.{x}"] == t[f"c.epoch.{x}"],
        t[f"p.key.{x}"] == t[f"c.key.{x}"],
        t[f"p.del.{x}"] == t[f"c.del.{x}"],
    )


def safe_at(t: TraceFields, point: int, keep: Expr) -> Expr:
    """The consumer could resume from ``point`` and end up equal to the producer.

    ``point`` is one of its consistent points (0, or the end of a snapshot it
    received whole) at or below ``keep``; every item it holds up to ``point``
    is the producer's mutation (no foreign item, tombstones included); its
    data up to ``point`` is the producer's state at ``point``; and streaming
    from ``point`` completes it (no key live in it is deleted by a purged
    tombstone above ``point``).
    """
    c = const(point)
    consistent = TRUE if point == 0 else t[f"c.boundary.{point}"]
    parts = [consistent, c <= keep, c <= t["p.high"]]
    for x in t.seqnos:
        if x <= point:
            held = t[f"c.held.{x}"] & (const(x) <= keep)
            parts.append(implies(held, is_producers(t, x)))
    for key in t.keys:
        mine = consumer_at(t, key, c, keep)
        parts.append(same(mine, producer_at(t, key, c)))
        parts.append(same(resume_from(t, key, c, mine), producer_final(t, key)))
    return all_of(*parts)


def any_round(t: TraceFields, predicate: Callable[[int], Expr]) -> Expr:
    return any_of(*(predicate(i) for i in t.rounds))


def every_round(t: TraceFields, predicate: Callable[[int], Expr]) -> Expr:
    return all_of(*(predicate(i) for i in t.rounds))
