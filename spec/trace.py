"""What happened when a consumer resumed: the trace every property reads.

A ``Trace`` is produced two ways: by the reference implementation running a
scenario step by step (``spec.reference.simulate``), and by the symbolic model
(``spec.model``), whose expressions over the scenario's variables denote the
same quantities. Properties are formulas over the *trace fields* below, so a
property is written once and evaluated on either.

Trace fields, for bounds with N seqnos, K keys and R rounds (x in 1..N,
k in 0..K-1, i in 0..R-1); unused positions are 0 / false:

==================  =========================================================
p.high, p.purge     the final producer's high and purge seqnos
p.table_len         entries in the final producer's failover table
p.key.x, p.del.x,   the final producer's mutation at seqno x (x <= p.high):
p.epoch.x           its key, whether it is a deletion, the epoch that wrote it
c.held.x            before resuming, the consumer holds the item at seqno x
c.key.x, c.del.x,   ... and that item's key, deletion flag and epoch
c.epoch.x
c.boundary.x        the consumer received a whole snapshot ending at x
ri.sent             the consumer sent request i (round i happened)
ri.uuid, ri.start,  request i
ri.snap_start,
ri.snap_end
ri.strict,          ... and its flags (STRICT_VBUUID, IgnorePurgedTombstones)
ri.ignore_purged
ri.outcome          the answer: 0 ok, 1 rollback, 2 erange
ri.seqno            the rollback seqno (0 unless outcome is rollback)
ri.keep             the consumer held only items with seqno <= keep when it
                    sent request i
ri.filter           ... and would drop re-streamed items with seqno <= filter
                    (its catch-up filter; 0: none)
f.has.k             after the accepted stream completed, the consumer holds a
                    version of key k (live or a tombstone) ...
f.seq.k, f.epoch.k, ... the seqno and epoch of that version, and whether it is
f.del.k             a tombstone (all 0/false when no request was accepted)
==================  =========================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from spec.bounds import Bounds
from spec.expr import BOOL, INT, Expr, Sort, Value, var
from spec.failover_table import FailoverTable
from spec.rules.language import ACCEPT_CODE, ERANGE_CODE, ROLLBACK_CODE
from spec.scenario import Item, Scenario
from spec.types import Decision, Outcome, StreamRequest

__all__ = ["Round", "Trace", "TraceFields", "resume_values", "session_name", "trace_values"]


def session_name(resume: int, name: str) -> str:
    """The name of trace field ``name`` of resume ``resume`` (from 0) among all resumes'."""
    return name if resume == 0 else f"s{resume}:{name}"


OUTCOME_CODE = {
    Outcome.ACCEPT: ACCEPT_CODE,
    Outcome.ROLLBACK: ROLLBACK_CODE,
    Outcome.ERANGE: ERANGE_CODE,
}


@dataclass(frozen=True)
class Round:
    request: StreamRequest
    decision: Decision
    keep: int  # the consumer held only items with seqno <= keep when it sent the request
    filter: int = 0  # ... and would drop re-streamed items with seqno <= filter


@dataclass(frozen=True)
class Trace:
    scenario: Scenario
    producer_items: tuple[Item, ...]  # the final producer's history, seqno 1..high, in order
    producer_table: FailoverTable
    purge_seqno: int
    held: tuple[Item, ...]  # what the consumer held before resuming, by seqno
    boundaries: tuple[int, ...]  # ends of the snapshots it received whole
    rounds: tuple[Round, ...]
    final: dict[int, Item]  # key -> the version the consumer ends with ({} unless accepted)
    # With --sessions K: the traces of the resumes after this one that happened (each
    # after this one's stream was cut; docs/model.md, "Several sessions").
    later: tuple[Trace, ...] = ()

    @property
    def resumes(self) -> tuple[Trace, ...]:
        """Every resume that happened, in order, this one first."""
        return (self, *self.later)

    @property
    def accepted(self) -> bool:
        return bool(self.rounds) and self.rounds[-1].decision.outcome is Outcome.ACCEPT

    @property
    def high_seqno(self) -> int:
        return len(self.producer_items)


class TraceFields:
    """The trace fields of one bound, as variables of the expression language."""

    ROUND = ("uuid", "start", "snap_start", "snap_end", "outcome", "seqno", "keep", "filter")
    ROUND_FLAGS = ("strict", "ignore_purged")

    def __init__(self, bounds: Bounds) -> None:
        self.bounds = bounds
        self.seqnos = range(1, bounds.seqnos + 1)
        self.keys = range(bounds.keys)
        self.rounds = range(bounds.rounds)
        sorts: dict[str, Sort] = {"p.high": INT, "p.purge": INT, "p.table_len": INT}
        for x in self.seqnos:
            sorts |= {f"p.key.{x}": INT, f"p.del.{x}": BOOL, f"p.epoch.{x}": INT}
            sorts |= {f"c.held.{x}": BOOL, f"c.key.{x}": INT, f"c.del.{x}": BOOL}
            sorts |= {f"c.epoch.{x}": INT, f"c.boundary.{x}": BOOL}
        for i in self.rounds:
            sorts[f"r{i}.sent"] = BOOL
            sorts |= {f"r{i}.{name}": INT for name in self.ROUND}
            sorts |= {f"r{i}.{name}": BOOL for name in self.ROUND_FLAGS}
        for k in self.keys:
            sorts |= {
                f"f.has.{k}": BOOL,
                f"f.seq.{k}": INT,
                f"f.epoch.{k}": INT,
                f"f.del.{k}": BOOL,
            }
        self.sorts = sorts

    def __getitem__(self, name: str) -> Expr:
        return var(name, self.sorts[name])


def trace_values(trace: Trace, bounds: Bounds) -> dict[str, Value]:
    """Flatten a concrete trace into trace-field values (see the module docstring): the
    first resume's by their names, resume j + 1's prefixed ``sj:`` (all 0/false for a
    resume that did not happen), up to ``bounds.sessions`` resumes."""
    if len(trace.resumes) > bounds.sessions:
        raise ValueError(f"trace does not fit bounds {bounds.describe()}")
    out: dict[str, Value] = {}
    for r in range(bounds.sessions):
        values = (
            _resume_values(trace.resumes[r], bounds)
            if r < len(trace.resumes)
            else {n: (False if s is BOOL else 0) for n, s in TraceFields(bounds).sorts.items()}
        )
        out |= {session_name(r, name): value for name, value in values.items()}
    return out


def resume_values(trace: Trace, bounds: Bounds) -> list[dict[str, Value]]:
    """Each resume's trace-field values (unprefixed), for evaluating a property on each."""
    return [_resume_values(t, bounds) for t in trace.resumes]


@lru_cache(maxsize=16)
def _unused(bounds: Bounds) -> dict[str, Value]:
    """Every trace field of ``bounds`` at its unused value (0 / false)."""
    return {name: (False if s is BOOL else 0) for name, s in TraceFields(bounds).sorts.items()}


def _resume_values(trace: Trace, bounds: Bounds) -> dict[str, Value]:
    if trace.high_seqno > bounds.seqnos or len(trace.rounds) > bounds.rounds:
        raise ValueError(f"trace does not fit bounds {bounds.describe()}")
    values: dict[str, Value] = dict(_unused(bounds))
    values["p.high"] = trace.high_seqno
    values["p.purge"] = trace.purge_seqno
    values["p.table_len"] = len(trace.producer_table)
    for item in trace.producer_items:
        x = item.seqno
        values |= {f"p.key.{x}": item.key, f"p.del.{x}": item.deleted, f"p.epoch.{x}": item.epoch}
    for item in trace.held:
        x = item.seqno
        values |= {f"c.held.{x}": True, f"c.key.{x}": item.key, f"c.del.{x}": item.deleted}
        values[f"c.epoch.{x}"] = item.epoch
    for x in trace.boundaries:
        values[f"c.boundary.{x}"] = True
    for i, rnd in enumerate(trace.rounds):
        req, dec = rnd.request, rnd.decision
        values |= {
            f"r{i}.sent": True,
            f"r{i}.uuid": req.uuid,
            f"r{i}.start": req.start,
            f"r{i}.snap_start": req.snap_start,
            f"r{i}.snap_end": req.snap_end,
            f"r{i}.outcome": OUTCOME_CODE[dec.outcome],
            f"r{i}.seqno": dec.rollback_seqno or 0,
            f"r{i}.keep": rnd.keep,
            f"r{i}.filter": rnd.filter,
            f"r{i}.strict": req.strict,
            f"r{i}.ignore_purged": req.ignore_purged,
        }
    for k, item in trace.final.items():
        values |= {f"f.has.{k}": True, f"f.seq.{k}": item.seqno, f"f.epoch.{k}": item.epoch}
        values[f"f.del.{k}"] = item.deleted
    return values
