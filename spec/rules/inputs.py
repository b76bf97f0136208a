"""The input space of one producer decision, and the producer around a rule set.

``DecisionSpace(table_entries=T, distinct_uuids=False)`` names the variables
of a stream request and of a producer whose failover table has at most ``T``
entries, defines the fields a rule set reads (``FIELDS``) as expressions over
them, states which producer states are well formed, and wraps a rule set in
the producer's stream request handling: ERANGE unless ``snap_start <= start
<= snap_end`` and ``start <= end``; IgnorePurgedTombstones makes the purge
seqno read as 0.

A table may repeat a uuid unless ``distinct_uuids`` is set: kv_engine never
creates two entries with one uuid, but it loads tables it did not create
(humpty_dumpty's JSON file, a replaced failover log), and its scan order
then decides (``spec.rules.lookup``). Every command that searches this space
(``diff``, ``vectors``, a sweep) takes the same switch, off by default.

It also converts between domain values (``StreamRequest``, ``ProducerState``)
and variable assignments, so a Z3 model decodes into a request and a producer,
and a request evaluates through exactly the expressions Z3 reasons about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from spec.expr import (
    BOOL,
    INT,
    Compiled,
    Expr,
    Sort,
    Value,
    all_of,
    const,
    implies,
    ite,
    var,
)
from spec.failover_table import UINT64_MAX, FailoverEntry, FailoverTable
from spec.rules.language import (
    ERANGE_CODE,
    FIELDS,
    RuleSet,
    RulesExprs,
    compile_rules,
)
from spec.rules.lookup import OLDEST_FIRST, SCANNED_FIELDS, TABLE_SCANS, lookup
from spec.table_exprs import TableExprs
from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = ["Decider", "DecisionExprs", "DecisionSpace", "answers"]

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


def decision_fields(
    request: Mapping[str, Expr], table: TableExprs, high_seqno: Expr, producer_purge_seqno: Expr
) -> dict[str, Expr]:
    """The fields a rule set reads (``FIELDS``), for a request and a producer.

    ``request`` maps every name of ``REQUEST_VARS`` to an expression. The
    producer applies IgnorePurgedTombstones here: ``purge_seqno`` reads 0.
    The lookup fields are kv_engine's (oldest-first scan); the other scans'
    are under ``NAME@SCAN`` (``spec.rules.language.scanned`` picks them).
    """
    fields = {name: request[name] for name in REQUEST_VARS}
    fields["high_seqno"] = high_seqno
    fields["producer_purge_seqno"] = producer_purge_seqno
    fields["purge_seqno"] = ite(request["ignore_purged"], const(0), producer_purge_seqno)
    fields["table_len"] = table.length
    fields["latest_uuid"] = table.latest_uuid
    for scan in TABLE_SCANS:
        found = lookup(table, request["uuid"], high_seqno, scan)
        suffix = "" if scan == OLDEST_FIRST else f"@{scan}"
        fields["uuid_found"] = found.found
        fields[f"upper{suffix}"] = found.upper
        fields[f"entry_seqno{suffix}"] = found.entry_seqno
    scanned = {f"{name}@{scan}" for name in SCANNED_FIELDS for scan in TABLE_SCANS[1:]}
    assert set(fields) == set(FIELDS) | scanned, set(fields) ^ (set(FIELDS) | scanned)
    return fields


def range_ok(fields: Mapping[str, Expr]) -> Expr:
    """The stream-request invariant; the producer answers ERANGE when it fails."""
    return all_of(
        fields["snap_start"] <= fields["start"],
        fields["start"] <= fields["snap_end"],
        fields["start"] <= fields["end"],
    )


def producer_decision(rules: RuleSet, fields: Mapping[str, Expr]) -> DecisionExprs:
    """The producer's answer: ERANGE first, then the rule set."""
    compiled = compile_rules(rules, dict(fields))
    ok = range_ok(fields)
    return DecisionExprs(
        range_ok=ok,
        rules=compiled,
        outcome=ite(ok, compiled.outcome, const(ERANGE_CODE)),
        seqno=ite(ok, compiled.seqno, const(0)),
        case=ite(ok, compiled.case, const(len(rules.clauses))),
    )


@dataclass(frozen=True)
class DecisionSpace:
    table_entries: int
    distinct_uuids: bool = False

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
    def sorts(self) -> dict[str, Sort]:
        sorts: dict[str, Sort] = dict(REQUEST_VARS)
        sorts.update({"high_seqno": INT, "producer_purge_seqno": INT, "table_len": INT})
        for i in range(self.table_entries):
            sorts[self.uuid_var(i)] = INT
            sorts[self.seq_var(i)] = INT
        return sorts

    def v(self, name: str) -> Expr:
        return var(name, self.sorts[name])

    # -- fields a rule set reads -----------------------------------------------
    @cached_property
    def table(self) -> TableExprs:
        v = self.v
        return TableExprs(
            v("table_len"),
            tuple(v(self.uuid_var(i)) for i in range(self.table_entries)),
            tuple(v(self.seq_var(i)) for i in range(self.table_entries)),
        )

    @cached_property
    def fields(self) -> dict[str, Expr]:
        request = {name: self.v(name) for name in REQUEST_VARS}
        return decision_fields(
            request, self.table, self.v("high_seqno"), self.v("producer_purge_seqno")
        )

    @cached_property
    def range_ok(self) -> Expr:
        return range_ok(self.fields)

    def well_formed(self) -> Expr:
        """Producer states kv_engine can be in (after its table was sanitised).

        Entries beyond ``table_len`` are pinned to 0 so that one producer state
        has one assignment. With ``distinct_uuids`` no two entries share a uuid
        (kv_engine draws 48-bit random ones); without, they may (a loaded table).
        """
        v = self.v
        return all_of(
            self.table.well_formed(self.distinct_uuids),
            self.table.seq[0] <= v("high_seqno"),
            v("producer_purge_seqno") <= v("high_seqno"),
            implies(~v("has_collection_high"), v("collection_high") == 0),
        )

    def decision(self, rules: RuleSet) -> DecisionExprs:
        return producer_decision(rules, self.fields)

    def describe(self) -> str:
        """The space in words, for reports: ``failover tables of at most 3 entries, ...``."""
        uuids = "distinct uuids" if self.distinct_uuids else "uuids may repeat"
        return f"failover tables of at most {self.table_entries} entries ({uuids})"

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


def answers(
    rules: RuleSet, space: DecisionSpace, envs: Sequence[Mapping[str, Value]]
) -> list[tuple[int, int]]:
    """The producer's answer, ``(outcome code, rollback seqno or 0)``, for each assignment.

    The fast path for many rule sets (mutants) on many inputs (vectors): one
    compiled program per rule set, run on assignments made once
    (``space.assignment``; tables shorter than the space are padded as
    ``well_formed`` pins them, which answers as the unpadded table does).
    """
    decision = space.decision(rules)
    program = Compiled([decision.outcome, decision.seqno])
    return [(int(o), int(q)) for o, q in (program(env) for env in envs)]


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
