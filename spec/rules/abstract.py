"""Every failover table at once: the decision space with the table's four fields free.

A rule set reads the producer's failover table only through its table
fields (``spec.rules.language.FIELDS``): ``table_len``, ``latest_uuid``,
``uuid_found``, ``upper`` and ``entry_seqno`` (and, for a rule set that
scans its table newest first, ``upper`` and ``entry_seqno`` of that scan:
``spec.rules.lookup``). ``AbstractDecisionSpace`` leaves them free but for
``table_facts``, what kv_engine's lookup gives for *every* table, whatever
its length, as long as no older entry repeats the newest uuid (a table
kv_engine creates never repeats one; a table it loads may, and then these
facts, and every claim made over this space, do not cover it):

* the table has an entry, and its newest uuid is not 0;
* a uuid that is not found is not the newest one, and ``upper`` is then
  the high seqno;
* a found uuid is not 0; ``upper`` is at most the high seqno, and is the
  high seqno when the uuid is the newest one; a found uuid other than the
  newest needs a second entry;
* (the newest uuid is always found.)

``entry_seqno`` and the newest-first scan's fields are left entirely free:
no fact about them is proved, so a claim over this space assumes nothing
about them (sound, if coarser for a rule set that reads them).

``LookupInduction`` states why this holds for tables of any length, as
expressions over the lookup's own loop step (``spec.table_exprs.lookup_step``):
the facts hold after the newest entry, and one more entry keeps them, given
what every table kv_engine keeps satisfies (distinct non-zero uuids, seqnos
non-increasing from at most the high seqno). ``checker.unbounded`` has Z3
prove both, and the facts directly for each table length up to 25, so a
property proved over this space holds for every table length (kv_engine's
``max_failover_entries`` is a ``size_t`` setting, 25 by default, and a table
loaded from disk is not capped) and every uint64 seqno.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from spec.expr import BOOL, INT, Expr, Sort, all_of, const, implies, ite, var
from spec.rules.inputs import REQUEST_VARS, DecisionExprs, producer_decision, range_ok
from spec.rules.language import FIELDS, RuleSet
from spec.rules.lookup import SCANNED_FIELDS, TABLE_SCANS
from spec.table_exprs import lookup_step

__all__ = ["AbstractDecisionSpace", "LookupInduction", "table_facts"]

TABLE_FIELDS: dict[str, Sort] = {
    "table_len": INT,
    "latest_uuid": INT,
    "uuid_found": BOOL,
    "upper": INT,
    "entry_seqno": INT,  # free: no fact is claimed about it (module doc)
}
# The other scans' fields (``NAME@SCAN``), free as well.
SCANNED: dict[str, Sort] = {
    f"{name}@{scan}": TABLE_FIELDS[name] for name in SCANNED_FIELDS for scan in TABLE_SCANS[1:]
}


def table_facts(
    uuid: Expr, high: Expr, length: Expr, latest: Expr, found: Expr, upper: Expr
) -> Expr:
    """What kv_engine's lookup of ``uuid`` gives for any well-formed table (module doc)."""
    newest = uuid == latest
    return all_of(
        const(1) <= length,
        latest != 0,
        implies(~found, (upper == high) & ~newest),
        implies(found, (uuid != 0) & (upper <= high)),
        implies(found & newest, upper == high),
        implies(found & ~newest, const(2) <= length),
    )


@dataclass(frozen=True)
class AbstractDecisionSpace:
    """The decision space of ``spec.rules.inputs.DecisionSpace`` with the table replaced
    by its four fields: one space for every table length."""

    @cached_property
    def sorts(self) -> dict[str, Sort]:
        sorts: dict[str, Sort] = dict(REQUEST_VARS)
        sorts |= {"high_seqno": INT, "producer_purge_seqno": INT, **TABLE_FIELDS, **SCANNED}
        return sorts

    def v(self, name: str) -> Expr:
        return var(name, self.sorts[name])

    @cached_property
    def fields(self) -> dict[str, Expr]:
        v = self.v
        fields = {name: v(name) for name in self.sorts}
        # IgnorePurgedTombstones, as the producer applies it (decision_fields)
        fields["purge_seqno"] = ite(v("ignore_purged"), const(0), v("producer_purge_seqno"))
        assert set(fields) == set(FIELDS) | set(SCANNED), set(fields) ^ set(FIELDS)
        return fields

    def well_formed(self) -> Expr:
        """What every producer state gives (``DecisionSpace.well_formed``, any table)."""
        v = self.v
        return all_of(
            table_facts(
                v("uuid"),
                v("high_seqno"),
                v("table_len"),
                v("latest_uuid"),
                v("uuid_found"),
                v("upper"),
            ),
            v("producer_purge_seqno") <= v("high_seqno"),
            implies(~v("has_collection_high"), v("collection_high") == 0),
        )

    @property
    def range_ok(self) -> Expr:
        return range_ok(self.fields)

    def decision(self, rules: RuleSet) -> DecisionExprs:
        return producer_decision(rules, self.fields)


class LookupInduction:
    """The lookup walk, one entry at a time, for tables of any length.

    Variables: the consumer's ``uuid``, the ``high`` seqno, the table ``length``,
    its newest entry (``uuid.0``), the walk's state before entry i (``found``,
    ``upper``) and entry i (``uuid.i``, ``seq.prev`` the seqno of entry i-1, ``live.i``).
    """

    def __init__(self) -> None:
        names = {"uuid": INT, "high": INT, "length": INT, "uuid.0": INT}
        names |= {"found": BOOL, "upper": INT, "uuid.i": INT, "seq.prev": INT, "live.i": BOOL}
        self.sorts: dict[str, Sort] = names
        self.v = {n: var(n, s) for n, s in names.items()}

    def invariant(self, found: Expr, upper: Expr) -> Expr:
        """The table facts, and: the newest uuid is found once the walk passed it."""
        v = self.v
        facts = table_facts(v["uuid"], v["high"], v["length"], v["uuid.0"], found, upper)
        return facts & implies(v["uuid"] == v["uuid.0"], found)

    def base(self) -> tuple[Expr, Expr]:
        """(premise, the invariant after the newest entry): the table has an entry."""
        v = self.v
        premise = all_of(const(1) <= v["length"], v["uuid.0"] != 0)
        after = lookup_step(const(False), v["high"], const(True), v["uuid.0"], v["uuid"], v["high"])
        return premise, self.invariant(*after)

    def step(self) -> tuple[Expr, Expr]:
        """(premise, the invariant after entry i >= 1): the invariant held before it,
        and entry i is what a kv_engine table has there (non-zero, not the newest
        uuid again, its predecessor's seqno at most the high seqno, live only within
        the length, which is then at least 2)."""
        v = self.v
        live = v["live.i"]
        premise = all_of(
            self.invariant(v["found"], v["upper"]),
            implies(live, (v["uuid.i"] != 0) & (v["uuid.i"] != v["uuid.0"])),
            implies(live, const(2) <= v["length"]),
            v["seq.prev"] <= v["high"],
        )
        after = lookup_step(v["found"], v["upper"], live, v["uuid.i"], v["uuid"], v["seq.prev"])
        return premise, self.invariant(*after)
