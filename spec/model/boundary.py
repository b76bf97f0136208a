"""The state at a resume boundary, and one more session as a step over it.

An induction over resumes (``checker.induction``) needs the states the
K-session model (docs/model.md, "Several sessions") passes from one resume
to the next, as free variables, and the step from one to the next over an
*arbitrary* such state (not only a reachable one). ``BoundaryVars(bounds,
prefix)`` names them:

==========================  ==================================================
p.high, p.key.x, p.del.x,   the producer the consumer resumes to: its history
p.epoch.x                   (epoch: the failover that wrote x, 0 the first)
p.len, p.uuid.i, p.seq.i    its failover table (``entries`` slots)
p.purge                     its purge seqno
used                        failovers so far (all of them at most ``failovers``)
c.held.x, c.key.x, c.del.x, what the consumer holds at seqno x
c.epoch.x
c.start.x, c.end.x          the marker it knows for x (end 0: none)
c.boundary.x                a snapshot it received whole ends at x
keep, filter                its ``keep`` and catch-up filter
log.len, log.uuid.i,        its failover log
log.seq.i
g.high, g.key.x, g.del.x,   ghost: the history of the producer the consumer
g.epoch.x                   last streamed from (the consumer's log is that
                            producer's table)
g.agree                     ghost: that producer and the current one have the
                            same history up to here
g.from, g.upto              ghost: the received prefix: the last stream started
                            at g.from, and the consumer got every item it sent
                            up to g.upto (the first stream: from 0)
o.start, o.snap_start,      the consumer's own offset (``ConsumerView.offset``):
o.snap_end                  its last stream's last item and marker, or the
                            request that opened it if it delivered none
==========================  ==================================================

The ghosts change nothing the consumer or the producer do; they give the
lemmas of an invariant something to relate the consumer's data to.

``initial(model)``: the boundary state before the first resume, as
expressions over a one-session ``ScenarioModel``'s variables (all of them are
states the model reaches). ``SessionStep``: one resume from the state of ``prefix``
(its trace, for the properties), its stream accepted and cut, failovers and a
compaction: the next boundary state as expressions over the state's variables
and the step's own choices (``x.*``), with the constraints those choices
satisfy (the same as the K-session model's for a cut, ``spec.model.build``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.expr import (
    BOOL,
    FALSE,
    INT,
    Expr,
    Sort,
    all_of,
    any_of,
    const,
    implies,
    ite,
    min_of,
    var,
)
from spec.model.build import ScenarioModel
from spec.model.held import CutVars, HeldData, highest_whole
from spec.model.history import History, first_history
from spec.model.variables import failover_uuid
from spec.model.view import ConsumerState, first_offset, offset_after_cut
from spec.rules.language import RuleSet
from spec.table_exprs import TableExprs, count

__all__ = ["Boundary", "BoundaryVars", "SessionStep", "initial"]


@dataclass(frozen=True)
class Boundary:
    """A boundary state as expressions (variables, or what a step or the start makes)."""

    producer: History
    table: TableExprs
    purge: Expr
    used: Expr
    data: HeldData
    keep: Expr
    filter: Expr
    log: TableExprs
    streamed: History  # ghost
    agree: Expr  # ghost
    received_from: Expr  # ghost: where the last stream started
    received_upto: Expr  # ghost: the consumer got that stream whole up to here
    offset: tuple[Expr, Expr, Expr]  # the consumer's own offset (ConsumerView.offset)

    def fields(self) -> dict[str, Expr]:
        """The state as ``BoundaryVars`` names (without prefix) -> expressions."""
        out: dict[str, Expr] = {
            "p.high": self.producer.high,
            "p.len": self.table.length,
            "p.purge": self.purge,
            "used": self.used,
            "keep": self.keep,
            "filter": self.filter,
            "log.len": self.log.length,
            "g.high": self.streamed.high,
            "g.agree": self.agree,
            "g.from": self.received_from,
            "g.upto": self.received_upto,
            "o.start": self.offset[0],
            "o.snap_start": self.offset[1],
            "o.snap_end": self.offset[2],
        }
        for x in self.data.seqnos:
            out |= {f"p.key.{x}": self.producer.key[x], f"p.del.{x}": self.producer.deleted[x]}
            out[f"p.epoch.{x}"] = self.producer.epoch[x]
            out |= {f"g.key.{x}": self.streamed.key[x], f"g.del.{x}": self.streamed.deleted[x]}
            out[f"g.epoch.{x}"] = self.streamed.epoch[x]
            d = self.data
            out |= {f"c.held.{x}": d.held[x], f"c.key.{x}": d.key[x], f"c.del.{x}": d.deleted[x]}
            out |= {f"c.epoch.{x}": d.epoch[x], f"c.start.{x}": d.start_of[x]}
            out |= {f"c.end.{x}": d.end_of[x], f"c.boundary.{x}": d.boundary[x]}
        for i in range(self.table.slots):
            out |= {f"p.uuid.{i}": self.table.uuid[i], f"p.seq.{i}": self.table.seq[i]}
        for i in range(self.log.slots):
            out |= {f"log.uuid.{i}": self.log.uuid[i], f"log.seq.{i}": self.log.seq[i]}
        return out


@dataclass(frozen=True)
class BoundaryVars:
    bounds: Bounds
    prefix: str = "b."

    @property
    def seqnos(self) -> range:
        return range(1, self.bounds.seqnos + 1)

    @cached_property
    def ranges(self) -> dict[str, tuple[int, int]]:
        """Unprefixed name -> the values it takes in every reachable boundary state
        (``checker.induction`` proves that a step never leaves them)."""
        b = self.bounds
        n, keys, f = b.seqnos, b.keys - 1, b.failovers
        uuids = failover_uuid(f) if f else b.entries
        out = {"p.high": (0, n), "p.len": (1, b.entries), "p.purge": (0, n), "used": (0, f)}
        out |= {"keep": (0, n), "filter": (0, n), "log.len": (0, b.entries)}
        out |= {"g.high": (0, n), "g.agree": (0, n), "g.from": (0, n), "g.upto": (0, n)}
        out |= {"o.start": (0, n), "o.snap_start": (0, n), "o.snap_end": (0, n)}
        for x in self.seqnos:
            for who in ("p", "g", "c"):
                out |= {f"{who}.key.{x}": (0, keys), f"{who}.epoch.{x}": (0, f)}
            out |= {f"c.start.{x}": (0, n), f"c.end.{x}": (0, n)}
        for i in range(b.entries):
            for table in ("p", "log"):
                out |= {f"{table}.uuid.{i}": (0, uuids), f"{table}.seq.{i}": (0, n)}
        return out

    @cached_property
    def sorts(self) -> dict[str, Sort]:
        """Prefixed name -> sort."""
        names = dict.fromkeys(self.ranges, INT)
        for x in self.seqnos:
            for name in (f"p.del.{x}", f"g.del.{x}", f"c.held.{x}", f"c.del.{x}"):
                names[name] = BOOL
            names[f"c.boundary.{x}"] = BOOL
        return {self.prefix + name: sort for name, sort in names.items()}

    @property
    def prefixed_ranges(self) -> dict[str, tuple[int, int]]:
        return {self.prefix + name: span for name, span in self.ranges.items()}

    def __getitem__(self, name: str) -> Expr:
        return var(self.prefix + name, self.sorts[self.prefix + name])

    @cached_property
    def state(self) -> Boundary:
        v, xs, slots = self.__getitem__, self.seqnos, self.bounds.entries

        def history(who: str, high: str) -> History:
            return History(
                v(high),
                {x: v(f"{who}.key.{x}") for x in xs},
                {x: v(f"{who}.del.{x}") for x in xs},
                {x: v(f"{who}.epoch.{x}") for x in xs},
            )

        def table(name: str, length: str) -> TableExprs:
            return TableExprs(
                v(length),
                tuple(v(f"{name}.uuid.{i}") for i in range(slots)),
                tuple(v(f"{name}.seq.{i}") for i in range(slots)),
            )

        data = HeldData(
            xs,
            {x: v(f"c.held.{x}") for x in xs},
            {x: v(f"c.key.{x}") for x in xs},
            {x: v(f"c.del.{x}") for x in xs},
            {x: v(f"c.epoch.{x}") for x in xs},
            {x: v(f"c.start.{x}") for x in xs},
            {x: v(f"c.end.{x}") for x in xs},
            {x: v(f"c.boundary.{x}") for x in xs},
        )
        return Boundary(
            history("p", "p.high"),
            table("p", "p.len"),
            v("p.purge"),
            v("used"),
            data,
            v("keep"),
            v("filter"),
            table("log", "log.len"),
            history("g", "g.high"),
            v("g.agree"),
            v("g.from"),
            v("g.upto"),
            (v("o.start"), v("o.snap_start"), v("o.snap_end")),
        )

    def domain(self, state: Boundary) -> dict[str, Expr]:
        """Unprefixed name -> its value in ``state`` is within ``ranges``: what every
        reachable boundary state satisfies (anything more is a lemma to prove)."""
        fields = state.fields()
        return {
            name: (const(lo) <= fields[name]) & (fields[name] <= hi)
            for name, (lo, hi) in self.ranges.items()
        }


def initial(model: ScenarioModel) -> Boundary:
    """The boundary state before the first resume, over a one-session model's variables."""
    v, slots = model.vars, model.bounds.entries
    n = model.bounds.seqnos
    on = [v[f"f{f}.on"] for f in v.failover_ids]
    branches = [
        ite(o, v[f"f{f}.branch"], const(n)) for f, o in zip(v.failover_ids, on, strict=True)
    ]
    data = HeldData.initial(model.stream)
    return Boundary(
        producer=model.producer,
        table=model.producer_table.padded(slots),
        purge=v["purge"],
        used=count(on),
        data=data,
        keep=v["received"],
        filter=const(0),
        log=v.first_table.padded(slots),
        streamed=first_history(v),
        agree=min_of(v["h0.high"], *branches),
        received_from=const(0),
        received_upto=v["received"],
        offset=first_offset(data, v["received"]),
    )


class SessionStep:
    """One session from the boundary state ``BoundaryVars(bounds, prefix)``: the resume
    (``trace``), its accepted stream cut short, failovers, a compaction (``after``)."""

    CHOICE = "x."

    def __init__(
        self, bounds: Bounds, rules: RuleSet, variant: ConsumerVariant, prefix: str = "b."
    ) -> None:
        self.bounds = bounds
        self.here = BoundaryVars(bounds, prefix)
        # A two-session model resumes from any state and reports what was accepted.
        self.model = ScenarioModel(replace(bounds, sessions=2), rules, variant)
        s = self.here.state
        state = ConsumerState(s.keep, s.log, None, s.filter, FALSE, const(0), s.offset)
        self.trace, self._at_accept = self.model.resume(s.data, state, s.producer, s.table, s.purge)

    @cached_property
    def choices(self) -> dict[str, Sort]:
        b, c = self.bounds, self.CHOICE
        sorts: dict[str, Sort] = {f"{c}disk": BOOL, f"{c}received": INT, f"{c}purge": INT}
        sorts |= {f"{c}end.{x}": BOOL for x in self.here.seqnos}
        for f in range(1, b.failovers + 1):
            sorts |= {f"{c}f{f}.on": BOOL, f"{c}f{f}.branch": INT, f"{c}f{f}.high": INT}
            for x in self.here.seqnos:
                sorts |= {f"{c}f{f}.key.{x}": INT, f"{c}f{f}.del.{x}": BOOL}
        return sorts

    @cached_property
    def choice_ranges(self) -> dict[str, tuple[int, int]]:
        n, keys = self.bounds.seqnos, self.bounds.keys - 1
        return {
            name: ((0, keys) if ".key." in name else (0, n))
            for name, sort in self.choices.items()
            if sort is INT
        }

    def _c(self, name: str) -> Expr:
        full = self.CHOICE + name
        return var(full, self.choices[full])

    @cached_property
    def accepted(self) -> Expr:
        return self.model.accepted(self.trace)

    @cached_property
    def _after(self) -> tuple[Boundary, Expr]:
        """(the next boundary state, the constraints on the step's choices)."""
        s, c, xs, b = self.here.state, self._c, self.here.seqnos, self.bounds
        producer, purge = s.producer, s.purge
        cut = CutVars(c("disk"), {x: c(f"end.{x}") for x in xs}, c("received"))
        keep, drop_upto, start, snap_start, snap_end = self._at_accept
        data, keep, upto, last_got = s.data.after_cut(
            keep, drop_upto, start, snap_start, snap_end, producer, purge, cut
        )
        parts = [self.accepted, c("received") <= producer.high]
        parts += [implies(c(f"end.{x}"), producer.present(x)) for x in xs]
        # Failovers between this resume and the next: numbered on from ``used``.
        history, table, agree = producer, s.table, producer.high
        previous_on, previous_high, happened = const(True), producer.high, []
        # Rollback mitigation: no branch below a snapshot held whole (ScenarioModel._mitigated).
        lowest = highest_whole(data.boundary) if self.model.variant.rollback_mitigation else None
        for f in range(1, b.failovers + 1):
            on, branch, high = c(f"f{f}.on"), c(f"f{f}.branch"), c(f"f{f}.high")
            parts += [implies(on, previous_on), implies(on, s.used + f <= b.failovers)]
            parts.append(implies(on, (branch <= previous_high) & (branch <= high)))
            parts.append(implies(~on, (branch == 0) & (high == 0)))
            if lowest is not None:
                parts.append(implies(on, branch >= lowest))
            written = {x: on & (const(x) > branch) for x in xs}
            for x in xs:
                live = written[x] & (const(x) <= high)
                key, deleted = c(f"f{f}.key.{x}"), c(f"f{f}.del.{x}")
                parts.append(implies(~live, (key == 0) & ~deleted))
            epoch = s.used + f
            history = History(
                ite(on, high, history.high),
                {x: ite(written[x], c(f"f{f}.key.{x}"), history.key[x]) for x in xs},
                {x: ite(written[x], c(f"f{f}.del.{x}"), history.deleted[x]) for x in xs},
                {x: ite(written[x], epoch, history.epoch[x]) for x in xs},
            )
            uuid = const(failover_uuid(0)) + epoch
            created = table.create_entry(branch, uuid, b.entries, b.max_entries)
            table = created.choose(on, table)
            agree = ite(on, min_of(agree, branch), agree)
            previous_on, previous_high = on, high
            happened.append(on)
        new_purge = c("purge")
        tombstones = [(new_purge == x) & history.present(x) & history.deleted[x] for x in xs]
        parts.append(any_of(new_purge == 0, *tombstones))
        parts.append(implies(~any_of(*happened), purge <= new_purge))
        after = Boundary(
            producer=history,
            table=table,
            purge=new_purge,
            used=s.used + count(happened),
            data=data,
            keep=keep,
            filter=drop_upto,
            log=s.table,  # the producer sends its failover log when it accepts a stream
            streamed=producer,
            agree=agree,
            received_from=start,
            received_upto=upto,
            offset=offset_after_cut(
                data,
                last_got,
                (start, snap_start, snap_end),
                self.model.variant.seqno_advanced,
            ),
        )
        return after, all_of(*parts)

    @property
    def after(self) -> Boundary:
        return self._after[0]

    @property
    def constraints(self) -> Expr:
        return self._after[1]
