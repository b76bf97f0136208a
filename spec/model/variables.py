"""A scenario's free choices as variables, and the constraints that make one well formed.

Variable names (N seqnos, K keys, first table of T0 entries, F failovers):

==========================  ==================================================
h0.high                     length of the first producer's history
h0.key.x, h0.del.x          its mutation at seqno x (1 <= x <= N)
t0.len, t0.seq.i            the first table: length, seqno of entry i (newest
                            first); entry i's uuid is the constant ``i + 1``
snap.disk                   the first snapshot marker starts at 0 (a disk
                            backfill) rather than 1
snap.end.x                  a snapshot ends at seqno x
received                    the consumer received every sent item <= this
fN.on                       failover N happens (failovers happen in order)
fN.branch, fN.high          its branch point and the new high seqno
fN.key.x, fN.del.x          the mutation failover N writes at seqno x
purge                       the purge seqno when the consumer (first) resumes
==========================  ==================================================

With ``sessions`` K >= 2, for each cut j in 1..K-1 (the stream of resume j cut
short, then resume j + 1; docs/model.md, "Several sessions"):

==========================  ==================================================
sj.on                       resume j's stream is cut and resume j + 1 happens
sj.disk, sj.end.x           that stream's first marker is a backfill's; a
                            snapshot of it ends at x
sj.received                 the consumer received its items <= this
sj.purge                    the purge seqno when resume j + 1 starts
fN.gap                      failover N happens before resume gap + 1
==========================  ==================================================

Unused positions are pinned to 0/false, so a scenario has one assignment.
``encode`` and ``decode`` convert between assignments and ``Scenario``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from spec.bounds import Bounds
from spec.expr import BOOL, INT, Expr, Sort, Value, all_of, const, implies, ite, var
from spec.failover_table import FailoverEntry, FailoverTable
from spec.scenario import Cut, Failover, Mutation, Scenario
from spec.table_exprs import TableExprs

__all__ = ["ScenarioVars", "failover_uuid", "first_table_uuid"]


def first_table_uuid(i: int) -> int:
    """The uuid of entry ``i`` (newest first) of the first table, in the model."""
    return i + 1


def failover_uuid(f: int) -> int:
    """The uuid failover ``f`` (from 1) creates, in the model."""
    return 100 + f


@dataclass(frozen=True)
class ScenarioVars:
    bounds: Bounds

    @cached_property
    def sorts(self) -> dict[str, Sort]:
        b = self.bounds
        sorts: dict[str, Sort] = {"h0.high": INT, "t0.len": INT, "snap.disk": BOOL}
        sorts |= {"received": INT, "purge": INT}
        for x in self.seqnos:
            sorts |= {f"h0.key.{x}": INT, f"h0.del.{x}": BOOL, f"snap.end.{x}": BOOL}
        for i in range(b.first_table_entries):
            sorts[f"t0.seq.{i}"] = INT
        for f in self.failover_ids:
            sorts |= {f"f{f}.on": BOOL, f"f{f}.branch": INT, f"f{f}.high": INT}
            for x in self.seqnos:
                sorts |= {f"f{f}.key.{x}": INT, f"f{f}.del.{x}": BOOL}
            if b.sessions > 1:
                sorts[f"f{f}.gap"] = INT
        for j in self.cut_ids:
            sorts |= {f"s{j}.on": BOOL, f"s{j}.disk": BOOL, f"s{j}.received": INT}
            sorts[f"s{j}.purge"] = INT
            sorts |= {f"s{j}.end.{x}": BOOL for x in self.seqnos}
        return sorts

    @cached_property
    def ranges(self) -> dict[str, tuple[int, int]]:
        """The values each integer variable takes in a well-formed scenario (lo, hi)."""
        b = self.bounds
        ranges = {"h0.high": (0, b.seqnos), "t0.len": (1, b.first_table_entries)}
        ranges |= {"received": (0, b.seqnos), "purge": (0, b.seqnos)}
        for name, sort in self.sorts.items():
            if sort is INT and name not in ranges:
                key = ".key." in name
                ranges[name] = (0, b.keys - 1) if key else (0, b.seqnos)
                if name.endswith(".gap"):
                    ranges[name] = (0, b.sessions - 1)
        return ranges

    @property
    def seqnos(self) -> range:
        return range(1, self.bounds.seqnos + 1)

    @property
    def failover_ids(self) -> range:
        return range(1, self.bounds.failovers + 1)

    @property
    def cut_ids(self) -> range:
        """The cuts: resume j's stream cut short before resume j + 1 (1 .. K - 1)."""
        return range(1, self.bounds.sessions)

    def gap(self, f: int) -> Expr:
        """The cut failover ``f`` follows (0: it comes before the first resume)."""
        return self[f"f{f}.gap"] if self.bounds.sessions > 1 else const(0)

    def __getitem__(self, name: str) -> Expr:
        return var(name, self.sorts[name])

    # -- structure ------------------------------------------------------------------
    @cached_property
    def first_table(self) -> TableExprs:
        n = self.bounds.first_table_entries
        length = self["t0.len"]
        uuids = tuple(ite(const(i) < length, first_table_uuid(i), 0) for i in range(n))
        seqs = tuple(self[f"t0.seq.{i}"] for i in range(n))
        return TableExprs(length, uuids, seqs)

    def well_formed(self) -> Expr:
        """Constraints every scenario satisfies, apart from what history.py derives."""
        b, v = self.bounds, self.__getitem__
        parts = [v("h0.high") <= b.seqnos]
        for x in self.seqnos:
            live = const(x) <= v("h0.high")
            parts.append(v(f"h0.key.{x}") < b.keys)
            parts.append(implies(~live, (v(f"h0.key.{x}") == 0) & ~v(f"h0.del.{x}")))
            parts.append(implies(~live, ~v(f"snap.end.{x}")))
        table = self.first_table
        parts += [table.well_formed(), table.seq[0] <= v("h0.high")]
        parts.append(v("received") <= v("h0.high"))
        previous_high, previous_on = v("h0.high"), const(True)
        for f in self.failover_ids:
            on, branch, high = v(f"f{f}.on"), v(f"f{f}.branch"), v(f"f{f}.high")
            parts.append(implies(on, previous_on))
            parts.append(implies(on, (branch <= previous_high) & (branch <= high)))
            parts.append(implies(on, high <= b.seqnos))
            parts.append(implies(~on, (branch == 0) & (high == 0)))
            for x in self.seqnos:
                written = on & (const(x) > branch) & (const(x) <= high)
                parts.append(v(f"f{f}.key.{x}") < b.keys)
                parts.append(implies(~written, (v(f"f{f}.key.{x}") == 0) & ~v(f"f{f}.del.{x}")))
            previous_high = high
            previous_on = on
        parts += self._cuts_well_formed()
        return all_of(*parts)

    def _cuts_well_formed(self) -> list[Expr]:
        """Cuts happen in order; a failover between resumes follows a cut that happened
        and comes after the failovers before it; an absent cut is all 0/false. (The ends,
        ``received`` and purge seqnos are bounded by the histories in ``spec.model.build``.)"""
        v, parts = self.__getitem__, []
        previous_gap: Expr = const(0)
        for f in self.failover_ids:
            if self.bounds.sessions == 1:
                break
            gap, on = v(f"f{f}.gap"), v(f"f{f}.on")
            parts.append(implies(~on, gap == 0))
            parts.append(implies(on, previous_gap <= gap))
            for j in self.cut_ids:
                parts.append(implies(on & (gap == j), v(f"s{j}.on")))
            previous_gap = ite(on, gap, previous_gap)
        for j in self.cut_ids:
            on = v(f"s{j}.on")
            if j > 1:
                parts.append(implies(on, v(f"s{j - 1}.on")))
            quiet = [~v(f"s{j}.disk"), v(f"s{j}.received") == 0, v(f"s{j}.purge") == 0]
            quiet += [~v(f"s{j}.end.{x}") for x in self.seqnos]
            parts.append(implies(~on, all_of(*quiet)))
        return parts

    def keys_in_first_use_order(self) -> Expr:
        """Keys are numbered in order of first use (history, then each failover's writes).

        Keys are interchangeable: nothing in a rule set, a consumer variant or
        a property tells key 0 from key 1, so renaming the keys of a scenario
        in order of first use (what ``decode`` shows) changes no verdict. Every
        scenario thus has an equivalent one satisfying this; a solver may add
        it to skip the others (symmetry breaking).
        """
        v = self.__getitem__
        slots = [(const(x) <= v("h0.high"), v(f"h0.key.{x}")) for x in self.seqnos]
        for f in self.failover_ids:
            on, branch, high = v(f"f{f}.on"), v(f"f{f}.branch"), v(f"f{f}.high")
            for x in self.seqnos:
                written = on & (const(x) > branch) & (const(x) <= high)
                slots.append((written, v(f"f{f}.key.{x}")))
        used: Expr = const(0)  # how many keys the slots so far use: 0 .. used-1
        parts = []
        for live, key in slots:
            parts.append(implies(live, key <= used))
            used = ite(live & (key == used), used + 1, used)
        return all_of(*parts)

    # -- scenarios <-> assignments ----------------------------------------------------------
    def encode(self, scenario: Scenario) -> dict[str, Value]:
        b = self.bounds
        problems = scenario.problems()
        if problems:
            raise ValueError("; ".join(problems))
        if len(scenario.later) >= b.sessions:
            raise ValueError(f"scenario does not fit bounds {b.describe()}")
        if len(scenario.all_failovers) > b.failovers or len(scenario.table) > b.first_table_entries:
            raise ValueError(f"scenario does not fit bounds {b.describe()}")
        values: dict[str, Value] = {n: (False if s is BOOL else 0) for n, s in self.sorts.items()}
        values["h0.high"] = len(scenario.history)
        for x, m in enumerate(scenario.history, start=1):
            values[f"h0.key.{x}"] = m.key
            values[f"h0.del.{x}"] = m.deleted
        values["t0.len"] = len(scenario.table)
        for i, entry in enumerate(scenario.table):
            values[f"t0.seq.{i}"] = entry.seqno
        values["snap.disk"] = scenario.first_snapshot_start == 0
        for end in scenario.snapshot_ends:
            values[f"snap.end.{end}"] = True
        values["received"] = scenario.received
        values["purge"] = scenario.purge_seqno
        gaps = [0] * len(scenario.failovers)
        for j, cut in enumerate(scenario.later, start=1):
            values |= {f"s{j}.on": True, f"s{j}.disk": cut.disk, f"s{j}.received": cut.received}
            values[f"s{j}.purge"] = cut.purge_seqno
            for end in cut.snapshot_ends:
                values[f"s{j}.end.{end}"] = True
            gaps += [j] * len(cut.failovers)
        for f, (failover, gap) in enumerate(zip(scenario.all_failovers, gaps, strict=True), 1):
            values[f"f{f}.on"] = True
            values[f"f{f}.branch"] = failover.branch
            values[f"f{f}.high"] = failover.high_seqno
            if gap:
                values[f"f{f}.gap"] = gap
            for x, m in enumerate(failover.mutations, start=failover.branch + 1):
                values[f"f{f}.key.{x}"] = m.key
                values[f"f{f}.del.{x}"] = m.deleted
        return values

    def uuid_labels(self, values: Mapping[str, Value]) -> dict[int, int]:
        """Readable uuids for the model's constants: oldest first-table entry 1111, ..."""
        length = int(values["t0.len"])
        labels = {first_table_uuid(i): 1111 * (length - i) for i in range(length)}
        for f in self.failover_ids:
            labels[failover_uuid(f)] = 1111 * (length + f)
        return labels

    def uuid_map(self, scenario: Scenario) -> dict[int, int]:
        """The model's uuid constants -> the uuids ``scenario`` uses (0 stays 0)."""
        mapping = {0: 0}
        for i, entry in enumerate(scenario.table):
            mapping[first_table_uuid(i)] = entry.uuid
        for f, failover in enumerate(scenario.all_failovers, start=1):
            mapping[failover_uuid(f)] = failover.uuid
        return mapping

    def decode(self, values: Mapping[str, Value]) -> Scenario:
        """The scenario an assignment denotes, with readable uuids."""
        b = self.bounds
        high = int(values["h0.high"])
        history = tuple(
            Mutation(int(values[f"h0.key.{x}"]), bool(values[f"h0.del.{x}"]))
            for x in range(1, high + 1)
        )
        labels = self.uuid_labels(values)
        length = int(values["t0.len"])
        table = FailoverTable(
            tuple(
                FailoverEntry(labels[first_table_uuid(i)], int(values[f"t0.seq.{i}"]))
                for i in range(length)
            ),
            self.bounds.max_entries,
        )
        failovers = []
        for f in self.failover_ids:
            if not values[f"f{f}.on"]:
                break
            branch, new_high = int(values[f"f{f}.branch"]), int(values[f"f{f}.high"])
            mutations = tuple(
                Mutation(int(values[f"f{f}.key.{x}"]), bool(values[f"f{f}.del.{x}"]))
                for x in range(branch + 1, new_high + 1)
            )
            failovers.append(Failover(branch, labels[failover_uuid(f)], mutations))
        history, failovers = _keys_by_first_use(history, failovers)
        gaps = [
            int(values[f"f{f}.gap"]) if b.sessions > 1 else 0 for f in range(1, len(failovers) + 1)
        ]
        later = tuple(
            Cut(
                disk=bool(values[f"s{j}.disk"]),
                snapshot_ends=tuple(x for x in self.seqnos if values[f"s{j}.end.{x}"]),
                received=int(values[f"s{j}.received"]),
                failovers=tuple(fo for fo, g in zip(failovers, gaps, strict=True) if g == j),
                purge_seqno=int(values[f"s{j}.purge"]),
            )
            for j in self.cut_ids
            if values[f"s{j}.on"]
        )
        failovers = [fo for fo, g in zip(failovers, gaps, strict=True) if g == 0]
        return Scenario(
            history=history,
            table=table,
            first_snapshot_start=0 if values["snap.disk"] else 1,
            snapshot_ends=tuple(x for x in range(1, high + 1) if values[f"snap.end.{x}"]),
            received=int(values["received"]),
            failovers=tuple(failovers),
            purge_seqno=int(values["purge"]),
            max_entries=self.bounds.max_entries,
            later=later,
        )


def _keys_by_first_use(
    history: tuple[Mutation, ...], failovers: list[Failover]
) -> tuple[tuple[Mutation, ...], list[Failover]]:
    """Rename keys in order of first use (A first), which changes no behaviour."""
    order: dict[int, int] = {}
    for m in [*history, *(m for f in failovers for m in f.mutations)]:
        order.setdefault(m.key, len(order))

    def rename(ms: tuple[Mutation, ...]) -> tuple[Mutation, ...]:
        return tuple(Mutation(order[m.key], m.deleted) for m in ms)

    return rename(history), [Failover(f.branch, f.uuid, rename(f.mutations)) for f in failovers]
