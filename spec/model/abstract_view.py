"""The consumer as a variant sees it, abstracted from the history: a third interpretation.

``SymbolicView`` (spec/model/view.py) answers a variant's questions with
expressions over a bounded scenario's variables; ``AbstractView`` answers each
with a fresh uint64 variable (a fresh pair for ``snapshot_of``), tied to the
question only by the facts every consumer state keeps whatever the length of
the history: the facts of the scans of spec/model/scans.py (``SCAN_FACTS``:
``snapshot of a seqno`` and ``highest marked``, the first resting on the two
marker scans'), which Z3 proves by induction over each scan's step. Every log is
an ``AbstractLog`` of fresh values. A variant's ``request``, ``remembered`` and ``on_rollback`` are
evaluated over it unchanged.

What the abstraction admits is a superset of what any bounded model admits:
any real view, with any number of seqnos, keys, table entries, failovers and
resumes, is one assignment of the fresh variables that satisfies the premises.
So a property that holds over the abstract view holds at every bound; one that
fails over it may still hold (the abstraction forgets how the answers relate to
each other and to the history), and is then unknown, never violated.
"""

from __future__ import annotations

from functools import cached_property

from spec.consumers.api import ResumeRequest
from spec.expr import BOOL, INT, Expr, Sort, all_of, lift, var

__all__ = ["AbstractLog", "AbstractView", "Fresh"]


class Fresh:
    """Fresh variables, named ``prefix.what.n``, and the premises stated about them."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.sorts: dict[str, Sort] = {}
        self.premises: list[Expr] = []

    def value(self, what: str, sort: Sort = INT) -> Expr:
        name = f"{self.prefix}.{what}.{len(self.sorts)}"
        self.sorts[name] = sort
        return var(name, sort)

    def request(self, what: str) -> ResumeRequest:
        """A request of fresh fields."""
        return ResumeRequest(
            self.value(f"{what}.uuid"),
            self.value(f"{what}.start"),
            self.value(f"{what}.snap_start"),
            self.value(f"{what}.snap_end"),
            self.value(f"{what}.strict", BOOL),
            self.value(f"{what}.ignore_purged", BOOL),
            self.value(f"{what}.remote_purge"),
        )


class AbstractLog:
    """A failover log (``LogView``) of which nothing is known: every answer fresh."""

    def __init__(self, fresh: Fresh, what: str) -> None:
        self.fresh = fresh
        self.what = what

    def _new(self, question: str) -> Expr:
        return self.fresh.value(f"{self.what}.{question}")

    @cached_property
    def length(self) -> Expr:
        return self._new("length")

    @cached_property
    def latest_uuid(self) -> Expr:
        return self._new("latest_uuid")

    @cached_property
    def oldest_uuid(self) -> Expr:
        return self._new("oldest_uuid")

    def uuid_at(self, position: Expr | int) -> Expr:
        return self._new("uuid_at")

    def seqno_at(self, position: Expr | int) -> Expr:
        return self._new("seqno_at")

    def covering(self, seqno: Expr | int) -> Expr:
        return self._new("covering")

    def pruned(self, seqno: Expr | int) -> AbstractLog:
        return AbstractLog(self.fresh, f"{self.what}.pruned")

    def dropped(self, count: Expr | int) -> AbstractLog:
        return AbstractLog(self.fresh, f"{self.what}.dropped")

    def single(self, uuid: Expr | int, seqno: Expr | int = 0) -> AbstractLog:
        return AbstractLog(self.fresh, f"{self.what}.single")

    def choose(self, condition: Expr, other: AbstractLog) -> AbstractLog:
        return AbstractLog(self.fresh, f"{self.what}.chosen")


class AbstractView:
    """A consumer state (``ConsumerView``) of a history of any length, through the
    premises alone. ``claim``: the request it remembers (None while ``remembered``
    computes it, as in the model)."""

    def __init__(self, fresh: Fresh, claim: ResumeRequest | None) -> None:
        self.fresh = fresh
        self._claim = claim
        self.log = AbstractLog(fresh, "log")
        self.producer_log = AbstractLog(fresh, "producer_log")

    @property
    def claim(self) -> ResumeRequest:
        if self._claim is None:
            raise ValueError("the claim is not known yet: remembered() is computing it")
        return self._claim

    @cached_property
    def keep(self) -> Expr:
        return self.fresh.value("keep")

    @cached_property
    def last(self) -> Expr:
        last = self.fresh.value("last")
        self.fresh.premises.append(last <= self.keep)
        return last

    @cached_property
    def filter(self) -> Expr:
        return self.fresh.value("filter")

    @cached_property
    def rolled_back(self) -> Expr:
        return self.fresh.value("rolled_back", BOOL)

    @cached_property
    def rollback_seqno(self) -> Expr:
        return self.fresh.value("rollback_seqno")

    def _at_or_below(self, what: str, seqno: Expr | int) -> Expr:
        point = self.fresh.value(what)
        self.fresh.premises.append(all_of(point <= lift(seqno), point <= self.keep))
        return point

    def held_at_or_below(self, seqno: Expr | int) -> Expr:
        return self._at_or_below("held_at_or_below", seqno)

    def consistent_at_or_below(self, seqno: Expr | int) -> Expr:
        return self._at_or_below("consistent_at_or_below", seqno)

    def snapshot_of(self, seqno: Expr | int) -> tuple[Expr, Expr]:
        start, end = self.fresh.value("snap_start_of"), self.fresh.value("snap_end_of")
        self.fresh.premises.append(all_of(start <= lift(seqno), lift(seqno) <= end))
        return start, end

    def entries_between(self, low: Expr | int, high: Expr | int) -> Expr:
        return self.fresh.value("entries_between")

    @cached_property
    def offset(self) -> tuple[Expr, Expr, Expr]:
        # An item inside its marker, or a request the producer accepted (valid).
        start, low, high = (self.fresh.value(f"offset.{n}") for n in ("start", "low", "high"))
        self.fresh.premises.append(all_of(low <= start, start <= high))
        return start, low, high
