"""The consumer-variant interface.

A consumer variant is a *policy*: what the consumer reports when it resumes
(uuid, start, snapshot range, flags) and how it reacts to ``ROLLBACK(R)``
(how far it truncates, which failover log it keeps). It is written once, in
the expression language, against a ``ConsumerView``; dcpcheck evaluates it
over a symbolic view (Z3 searches every consumer state) and over a concrete
view (the reference consumer replays a counterexample).

The view, for a consumer holding items of a stream it received in snapshots:

``view.last``
    the highest seqno of an item the consumer holds (0 if none).
``view.keep``
    the consumer holds no item above this seqno (it starts as the last
    seqno received and only goes down, on truncation).
``view.snapshot_of(seqno)``
    ``(start, end)`` of the snapshot marker under which the item at
    ``seqno`` arrived; ``(0, 0)`` for seqno 0.
``view.consistent_at_or_below(seqno)``
    the highest point ``c <= seqno`` (and ``<= keep``) at which the
    consumer's data is a consistent snapshot: 0, or the end of a snapshot it
    received whole.
``view.log``
    the consumer's failover log (a ``LogView``).

A ``LogView`` has ``latest_uuid`` (0 for an empty log),
``covering(seqno)`` (uuid of the newest entry at or below seqno, 0 if none)
and ``pruned(seqno)`` (the log without the entries above seqno).

Write a variant as a subclass of ``ConsumerVariant`` with ``request`` and
``on_rollback``, and create one instance at module level; see
docs/authoring-consumers.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from spec.expr import FALSE, Expr, const, lift

ZERO = const(0)

__all__ = ["ConsumerVariant", "ConsumerView", "LogView", "ResumeRequest", "Truncation"]


class LogView(Protocol):
    @property
    def latest_uuid(self) -> Expr: ...

    def covering(self, seqno: Expr) -> Expr: ...

    def pruned(self, seqno: Expr) -> LogView: ...


class ConsumerView(Protocol):
    @property
    def last(self) -> Expr: ...

    @property
    def keep(self) -> Expr: ...

    def snapshot_of(self, seqno: Expr) -> tuple[Expr, Expr]: ...

    def consistent_at_or_below(self, seqno: Expr) -> Expr: ...

    @property
    def log(self) -> LogView: ...


@dataclass(frozen=True)
class ResumeRequest:
    """What the consumer sends. Plain ints and bools are accepted and lifted."""

    uuid: Expr
    start: Expr
    snap_start: Expr
    snap_end: Expr
    strict: Expr = FALSE
    ignore_purged: Expr = FALSE
    remote_purge: Expr = ZERO

    def __post_init__(self) -> None:
        for name in (
            "uuid",
            "start",
            "snap_start",
            "snap_end",
            "strict",
            "ignore_purged",
            "remote_purge",
        ):
            object.__setattr__(self, name, lift(getattr(self, name)))


@dataclass(frozen=True)
class Truncation:
    """How the consumer reacts to ROLLBACK: keep items <= ``keep``, use ``log`` from now on."""

    keep: Expr
    log: LogView

    def __post_init__(self) -> None:
        object.__setattr__(self, "keep", lift(self.keep))


class ConsumerVariant:
    """Base class: subclass it, set ``name`` and ``summary``, define the two policies."""

    name: str = ""
    summary: str = ""

    def request(self, view: ConsumerView) -> ResumeRequest:
        raise NotImplementedError

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Truncation:
        raise NotImplementedError

    def problems(self) -> list[str]:
        """What keeps this variant from being checked (empty when it is usable)."""
        out = []
        if not self.name or not all(c.isalnum() or c in "-_." for c in self.name):
            out.append(f"name {self.name!r} must be non-empty letters, digits, '-', '_' or '.'")
        for method in ("request", "on_rollback"):
            if getattr(type(self), method) is getattr(ConsumerVariant, method):
                out.append(f"it does not define {method}()")
        return out

    def __repr__(self) -> str:
        return f"<consumer variant {self.name}>"
