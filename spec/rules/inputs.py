"""The input space of one producer decision, and the producer around a rule set.

``DecisionSpace(table_entries=T)`` names the variables of a stream request and
of a producer whose failover table has at most ``T`` entries, defines the
fields a rule set reads (``FIELDS``) as expressions over them, states which
producer states are well formed, and wraps a rule set in the producer's stream
request handling: ERANGE unless ``snap_start <= start <= snap_end`` and
``start <= end``; IgnorePurgedTombstones makes the purge seqno read as 0.

It also converts between domain values (``StreamRequest``, ``ProducerState``)
and variable assignments, so a Z3 model decodes into a request and a producer,
and a request evaluates through exactly the expressions Z3 reasons about.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from spec.expr import BOOL, INT, Compiled, Expr, Value, all_of, any_of, const, implies, ite, var
from spec.failover_table import UINT64_MAX, FailoverEntry, FailoverTable
from spec.rules.language import (
    ERANGE_CODE,
    FIELDS,
    RuleSet,
    RulesExprs,
    compile_rules,
)
from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = ["Decider", "DecisionExprs", "DecisionSpace"]

REQUEST_VARS = {
    "uuid": INT,
    "start": INT,
    "snap_start": INT,
    "snap_end": INT,
    "end": INT,
    "strict": BOOL,
    "ignore_purged": BOOL,
    "remote_purge": INT,
    "has_collection_high": BOOL,
    "collection_high": INT,
}


@dataclass(frozen=True)
class DecisionExprs:
    """A producer decision as expressions: the stream request, then the rule set."""

    range_ok: Expr
    rules: RulesExprs
    outcome: Expr  # ACCEPT_CODE / ROLLBACK_CODE / ERANGE_CODE
    seqno: Expr
    case: Expr  # index into RuleSet.case_names (the last is "erange")


@dataclass(frozen=True)
class DecisionSpace:
    table_entries: int

    def __post_init__(self) -> None:
        if self.table_entries < 1:
            raise ValueError("a failover table has at least one entry")

    # -- variables ---------------------------------------------------------------
    @staticmethod
    def uuid_var(i: int) -> str:
        return f"table.uuid.{i}"

    @staticmethod
    def seq_var(i: int) -> str:
        return f"table.seq.{i}"

    @cached_property
    def sorts(self) -> dict[str, object]:
        sorts: dict[str, object] = dict(REQUEST_VARS)
        sorts.update({"high_seqno": INT, "producer_purge_seqno": INT, "table_len": INT})
        for i in range(self.table_entries):
            sorts[self.uuid_var(i)] = INT
            sorts[self.seq_var(i)] = INT
        return sorts

    def v(self, name: str) -> Expr:
        return var(name, self.sorts[name])  # type: ignore[arg-type]

    # -- fields a rule set reads -----------------------------------------------
    @cached_property
    def fields(self) -> dict[str, Expr]:
        v = self.v
        fields = {name: v(name) for name in REQUEST_VARS}
        fields["high_seqno"] = v("high_seqno")
        fields["producer_purge_seqno"] = v("producer_purge_seqno")
        fields["purge_seqno"] = ite(v("ignore_purged"), const(0), v("producer_purge_seqno"))
        fields["table_len"] = v("table_len")
        fields["latest_uuid"] = v(self.uuid_var(0))
        found, upper = self.lookup(v("uuid"))
        fields["uuid_found"] = found
        fields["upper"] = upper
        assert set(fields) == set(FIELDS), set(fields) ^ set(FIELDS)
        return fields

    def lookup(self, uuid: Expr) -> tuple[Expr, Expr]:
        """(uuid is in the table, upper): kv_engine's walk from the oldest entry."""
        v = self.v
        found: Expr = const(False)
        upper: Expr = v("high_seqno")
        for i in range(self.table_entries):
            match = all_of(const(i) < v("table_len"), v(self.uuid_var(i)) == uuid)
            found = any_of(found, match)
            # Newest first: an older match (larger i) overrides a newer one.
            upper = ite(match, v("high_seqno") if i == 0 else v(self.seq_var(i - 1)), upper)
        return found, upper

    @cached_property
    def range_ok(self) -> Expr:
        v = self.v
        return all_of(
            v("snap_start") <= v("start"), v("start") <= v("snap_end"), v("start") <= v("end")
        )

    def well_formed(self, distinct_uuids: bool = True) -> Expr:
        """Producer states kv_engine can be in (after its table was sanitised).

        Entries beyond ``table_len`` are pinned to 0 so that one producer state
        has one assignment. ``distinct_uuids``: kv_engine draws 48-bit random
        uuids, so two entries sharing one is not a state worth searching.
        """
        v, n = self.v, self.table_entries
        parts = [const(1) <= v("table_len"), v("table_len") <= const(n)]
        for i in range(n):
            live = const(i) < v("table_len")
            parts.append(implies(live, v(self.uuid_var(i)) != 0))
            parts.append(implies(~live, (v(self.uuid_var(i)) == 0) & (v(self.seq_var(i)) == 0)))
            if i > 0:
                parts.append(implies(live, v(self.seq_var(i)) <= v(self.seq_var(i - 1))))
            if distinct_uuids:
                for j in range(i):
                    parts.append(implies(live, v(self.uuid_var(i)) != v(self.uuid_var(j))))
        parts.append(v(self.seq_var(0)) <= v("high_seqno"))
        parts.append(v("producer_purge_seqno") <= v("high_seqno"))
        parts.append(implies(~v("has_collection_high"), v("collection_high") == 0))
        return all_of(*parts)

    # -- the producer around a rule set ----------------------------------------
    def decision(self, rules: RuleSet) -> DecisionExprs:
        compiled = compile_rules(rules, self.fields)
        erange_case = len(rules.clauses)
        ok = self.range_ok
        return DecisionExprs(
            range_ok=ok,
            rules=compiled,
            outcome=ite(ok, compiled.outcome, const(ERANGE_CODE)),
            seqno=ite(ok, compiled.seqno, const(0)),
            case=ite(ok, compiled.case, const(erange_case)),
        )

    # -- domain values <-> assignments ---------------------------------------------
    def assignment(self, req: StreamRequest, producer: ProducerState) -> dict[str, Value]:
        if len(producer.table) > self.table_entries:
            raise ValueError(
                f"table has {len(producer.table)} entries; this space holds {self.table_entries}"
            )
        values: dict[str, Value] = {
            "uuid": req.uuid,
            "start": req.start,
            "snap_start": req.snap_start,
            "snap_end": req.snap_end,
            "end": req.end,
            "strict": req.strict,
            "ignore_purged": req.ignore_purged,
            "remote_purge": req.remote_purge,
            "has_collection_high": req.collection_high is not None,
            "collection_high": req.collection_high or 0,
            "high_seqno": producer.high_seqno,
            "producer_purge_seqno": producer.purge_seqno,
            "table_len": len(producer.table),
        }
        for i in range(self.table_entries):
            entry = producer.table.entries[i] if i < len(producer.table) else FailoverEntry(0, 0)
            values[self.uuid_var(i)] = entry.uuid
            values[self.seq_var(i)] = entry.seqno
        return values

    def decode(self, values: Mapping[str, Value]) -> tuple[StreamRequest, ProducerState]:
        def get(name: str) -> int:
            return int(values.get(name, 0))

        req = StreamRequest(
            uuid=get("uuid"),
            start=get("start"),
            snap_start=get("snap_start"),
            snap_end=get("snap_end"),
            end=int(values.get("end", UINT64_MAX)),
            strict=bool(values.get("strict", False)),
            ignore_purged=bool(values.get("ignore_purged", False)),
            remote_purge=get("remote_purge"),
            collection_high=get("collection_high") if values.get("has_collection_high") else None,
        )
        length = max(1, min(get("table_len"), self.table_entries))
        table = FailoverTable(
            tuple(FailoverEntry(get(self.uuid_var(i)), get(self.seq_var(i))) for i in range(length))
        )
        return req, ProducerState(table, get("high_seqno"), get("producer_purge_seqno"))


class Decider:
    """Concrete decisions of one rule set: the compiled expressions, evaluated fast.

    ``decide`` answers like the producer (ERANGE first); ``needs_rollback``
    runs the rule set alone, as humpty_dumpty does.
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._by_size: dict[int, tuple[DecisionSpace, Compiled, DecisionExprs]] = {}

    def _compiled(self, size: int) -> tuple[DecisionSpace, Compiled, DecisionExprs]:
        if size not in self._by_size:
            space = DecisionSpace(size)
            exprs = space.decision(self.rules)
            reason_exprs = [
                e for clause in exprs.rules.reason_values.values() for e in clause.values()
            ]
            roots = [
                exprs.range_ok,
                exprs.rules.outcome,
                exprs.rules.seqno,
                exprs.rules.case,
                *reason_exprs,
            ]
            self._by_size[size] = (space, Compiled(roots), exprs)
        return self._by_size[size]

    def _run(self, req: StreamRequest, producer: ProducerState, check_range: bool) -> Decision:
        space, program, exprs = self._compiled(len(producer.table))
        values = program(space.assignment(req, producer))
        range_ok, outcome, seqno, case = values[:4]
        if check_range and not range_ok:
            return Decision(
                Outcome.ERANGE,
                "erange",
                None,
                "snap_start <= start <= snap_end and start <= end are required",
            )
        clause = self.rules.clauses[int(case)]
        placeholders = list(exprs.rules.reason_values[clause.name])
        offset = 4 + sum(
            len(exprs.rules.reason_values[c.name]) for c in self.rules.clauses[: int(case)]
        )
        reason = clause.reason.format(
            **{name: values[offset + k] for k, name in enumerate(placeholders)}
        )
        if outcome == 0:
            return Decision(Outcome.ACCEPT, clause.name, None, reason)
        return Decision(Outcome.ROLLBACK, clause.name, int(seqno), reason)

    def decide(self, req: StreamRequest, producer: ProducerState) -> Decision:
        return self._run(req, producer, check_range=True)

    def needs_rollback(self, req: StreamRequest, producer: ProducerState) -> Decision:
        return self._run(req, producer, check_range=False)
