"""One scenario model: a rule set and a consumer variant over bounded scenarios.

``ScenarioModel(bounds, rules, variant)`` gives

* ``constraints``: what every scenario satisfies (an expression over the
  scenario variables of ``spec.model.variables``);
* ``trace``: one expression per trace field (``spec.trace``), denoting what
  happens when the consumer resumes (docs/model.md).

A property is a formula over trace fields; substituting ``trace`` into it
gives a formula over the scenario variables, which Z3 searches and which
evaluates concretely for a given scenario. The model never looks at a
property, and the checkers never look inside the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property

from spec.bounds import Bounds
from spec.consumers import calls
from spec.consumers.api import ConsumerVariant, Reaction, choose_request
from spec.expr import (
    BOOL,
    FALSE,
    TRUE,
    UINT64_MAX,
    Compiled,
    Expr,
    Sort,
    Value,
    all_of,
    any_of,
    const,
    evaluate,
    ite,
    max_of,
    min_of,
    substitute,
)
from spec.model.history import InitialStream, producer_after_failovers
from spec.model.table import count
from spec.model.variables import ScenarioVars
from spec.model.view import ConsumerState, SymbolicView
from spec.properties import Property
from spec.rules.inputs import DecisionExprs, decision_fields, producer_decision
from spec.rules.language import ACCEPT_CODE, ROLLBACK_CODE, RuleSet
from spec.scenario import Scenario
from spec.trace import TraceFields

__all__ = ["SPLIT_DEPTHS", "ScenarioModel"]

# How finely ``split`` can cut a proof: by failovers, then the last two branch points.
SPLIT_DEPTHS = 3


class ScenarioModel:
    def __init__(self, bounds: Bounds, rules: RuleSet, variant: ConsumerVariant) -> None:
        self.bounds = bounds
        self.rules = rules
        self.variant = variant
        self.vars = ScenarioVars(bounds)
        self.stream = InitialStream(self.vars)
        self.producer, self.producer_table = producer_after_failovers(self.vars)
        self.fields = TraceFields(bounds)
        # Per round: the decision inputs (FIELDS names -> expressions) the producer
        # saw, and its decision; filled by ``trace``. A diff of two rule sets
        # compares decisions over these inputs.
        self.round_inputs: list[dict[str, Expr]] = []
        self.round_decisions: list[DecisionExprs] = []

    # -- what a checker may ask ------------------------------------------------------------
    @property
    def variables(self) -> dict[str, Sort]:
        """The scenario's free choices (name -> sort): what a solver declares and decodes."""
        return self.vars.sorts

    @property
    def ranges(self) -> dict[str, tuple[int, int]]:
        """The values each integer variable takes in a scenario (``constraints`` imply them)."""
        return self.vars.ranges

    @cached_property
    def symmetry(self) -> Expr:
        """A canonical form a solver may add to ``constraints``: every scenario is
        equivalent (the same verdict on every property) to one that satisfies it."""
        return self.vars.keys_in_first_use_order()

    def violation(self, prop: Property) -> tuple[Expr, Expr]:
        """(goal, canonical form): every violation of ``prop`` is equivalent (its keys
        renamed, which changes no verdict) to a scenario satisfying both. For a property
        that holds key by key (``Property.per_key``) the goal is a violation at key 0,
        and nothing more is canonical; otherwise the goal is ``~holds(prop)`` and the
        canonical form ``symmetry``."""
        if prop.per_key is None:
            return ~self.holds(prop), self.symmetry
        (at_first_key,) = substitute([~prop.per_key(self.fields, 0)], self.trace)
        return at_first_key, TRUE

    def holds(self, prop: Property) -> Expr:
        """``prop`` as a formula over the scenario variables."""
        (formula,) = substitute([prop.holds(self.fields)], self.trace)
        return formula

    def holds_all(self, props: list[Property]) -> dict[str, Expr]:
        """Several properties as formulas over the scenario variables, by id."""
        formulas = substitute([p.holds(self.fields) for p in props], self.trace)
        return {p.id: f for p, f in zip(props, formulas, strict=True)}

    def decode(self, values: Mapping[str, Value]) -> Scenario:
        """The scenario an assignment of ``variables`` denotes."""
        return self.vars.decode(values)

    def encode(self, scenario: Scenario) -> dict[str, Value]:
        return self.vars.encode(scenario)

    def measures(self) -> list[tuple[str, Expr]]:
        """What minimisation shrinks, most important first (name, size expression)."""
        v = self.vars
        key_vars = [v[name] for name in v.sorts if ".key." in name]
        rounds = [self.trace[f"r{i}.sent"] for i in range(self.bounds.rounds)]
        deletions = [v[name] for name in v.sorts if ".del." in name]
        return [
            ("seqnos", self._seqnos),
            ("keys", max_of(*key_vars) + 1),
            ("failovers", count([v[f"f{f}.on"] for f in v.failover_ids])),
            ("entries", v["t0.len"]),
            ("rounds", count(rounds)),
            ("received", v["received"]),
            ("snapshots", count([v[f"snap.end.{x}"] for x in v.seqnos])),
            ("purge", v["purge"]),
            ("deletions", count(deletions)),
            (
                "table seqnos",
                sum_of([v[f"t0.seq.{i}"] for i in range(v.bounds.first_table_entries)]),
            ),
        ]

    def split(self, depth: int = 1) -> list[Expr]:
        """Conditions that partition the scenarios (each satisfies exactly one): by the
        number of failovers n, then (``depth`` 2) by the branch point of the last
        failover, then (``depth`` 3) also of the one before it. A proof can be cut into
        these cubes, each solved on its own (in process or on executors)."""
        return [condition for _, condition in self.cubes(depth)]

    def cubes(self, depth: int = 1) -> list[tuple[str, Expr]]:
        """``split(depth)`` with each cube's description (``failovers=3, f3.branch=7``).

        The branch points are where a proof of this model divides best of the choices
        measured (docs/spark.md): cut by the last failover's branch point, a cube's
        costliest part costs about two thirds of it, for about four times the work in
        all; by the first table's or history's length, as much as the whole cube."""
        if not 1 <= depth <= SPLIT_DEPTHS:
            raise ValueError(f"split depth {depth}: expected 1 to {SPLIT_DEPTHS}")
        v = self.vars
        on = [v[f"f{f}.on"] for f in v.failover_ids]
        branches = range(0, self.bounds.seqnos + 1)
        out: list[tuple[str, Expr]] = []
        for n in range(len(on) + 1):
            cubes = [(f"failovers={n}", all_of(*on[:n], *(~o for o in on[n:])))]
            for f in range(n, max(0, n - depth + 1), -1):  # the last depth - 1 failovers
                point = v[f"f{f}.branch"]
                cubes = [
                    (f"{label}, f{f}.branch={b}", c & (point == b))
                    for label, c in cubes
                    for b in branches
                ]
            out += cubes
        return out

    def within(self, values: Mapping[str, Value]) -> ScenarioModel:
        """The model holding every scenario with at most as many seqnos as the one
        ``values`` denotes (``with_seqnos``): the scenarios that can come first in the
        order of ``measures()``, so the least one of them is the least one of this model.
        A minimisation runs there."""
        return self.with_seqnos(int(evaluate(self._seqnos, values)))

    @cached_property
    def _seqnos(self) -> Expr:
        """The longest history of the scenario (the first measure)."""
        v = self.vars
        highs = [v["h0.high"]]
        highs += [ite(v[f"f{f}.on"], v[f"f{f}.high"], const(0)) for f in v.failover_ids]
        return max_of(*highs)

    def with_seqnos(self, seqnos: int) -> ScenarioModel:
        """The model over the same rules and variant whose bounds hold exactly the scenarios
        of this one with at most ``seqnos`` seqnos (with any keys they can use)."""
        b = self.bounds
        seqnos = max(1, min(seqnos, b.seqnos))
        keys = min(b.keys, seqnos * (b.failovers + 1))
        smaller = replace(b, seqnos=seqnos, keys=keys)
        return self if smaller == b else ScenarioModel(smaller, self.rules, self.variant)

    def predicted(self, scenario: Scenario) -> dict[str, Value]:
        """The trace fields this model predicts for ``scenario``, in the scenario's uuids."""
        names, compiled = self._compiled_trace
        values = dict(zip(names, compiled(self.vars.encode(scenario)), strict=True))
        uuids = self.vars.uuid_map(scenario)
        for i in range(self.bounds.rounds):
            values[f"r{i}.uuid"] = uuids.get(int(values[f"r{i}.uuid"]), values[f"r{i}.uuid"])
        return values

    @cached_property
    def _compiled_trace(self) -> tuple[list[str], Compiled]:
        """Every trace field as one compiled function (``spec.expr.Compiled``): replay
        and the drift tests evaluate it once per scenario."""
        names = list(self.trace)
        return names, Compiled([self.trace[n] for n in names])

    # -- constraints ------------------------------------------------------------------------
    @cached_property
    def constraints(self) -> Expr:
        v, producer = self.vars, self.producer
        purge = v["purge"]
        at_purge = [(purge == x) & producer.present(x) & producer.deleted[x] for x in v.seqnos]
        return all_of(
            v.well_formed(),
            self.stream.well_formed(),
            # The purge seqno is the seqno of a purged tombstone (or 0).
            any_of(purge == 0, *at_purge),
        )

    # -- the trace ----------------------------------------------------------------------------
    @cached_property
    def trace(self) -> dict[str, Expr]:
        trace: dict[str, Expr] = {}
        trace.update(self._producer_fields())
        trace.update(self._consumer_fields())
        trace.update(self._rounds())
        missing = set(self.fields.sorts) - set(trace)
        assert not missing, missing
        return trace

    def _producer_fields(self) -> dict[str, Expr]:
        p = self.producer
        out = {
            "p.high": p.high,
            "p.purge": self.vars["purge"],
            "p.table_len": self.producer_table.length,
        }
        for x in p.seqnos:
            present = p.present(x)
            out[f"p.key.{x}"] = ite(present, p.key[x], const(0))
            out[f"p.del.{x}"] = present & p.deleted[x]
            out[f"p.epoch.{x}"] = ite(present, p.epoch[x], const(0))
        return out

    def _consumer_fields(self) -> dict[str, Expr]:
        s = self.stream
        out: dict[str, Expr] = {}
        for x in s.seqnos:
            held = s.held[x]
            out[f"c.held.{x}"] = held
            out[f"c.key.{x}"] = ite(held, s.history.key[x], const(0))
            out[f"c.del.{x}"] = held & s.history.deleted[x]
            out[f"c.epoch.{x}"] = const(0)
            out[f"c.boundary.{x}"] = s.boundary[x]
        return out

    def _rounds(self) -> dict[str, Expr]:
        out: dict[str, Expr] = {}
        producer_log = self.producer_table
        state = ConsumerState(
            keep=self.vars["received"],
            log=self.vars.first_table,
            claim=None,
            filter=const(0),
            rolled_back=FALSE,
            rollback_seqno=const(0),
        )
        claim = calls.remembered(self.variant, SymbolicView(self.stream, state, producer_log))
        state = replace(state, claim=claim)
        sent: Expr = TRUE
        final: dict[str, Expr] = {}
        for i in range(self.bounds.rounds):
            view = SymbolicView(self.stream, state, producer_log)
            request = calls.request(self.variant, view)
            fields = decision_fields(
                {
                    "uuid": request.uuid,
                    "start": request.start,
                    "snap_start": request.snap_start,
                    "snap_end": request.snap_end,
                    "end": const(UINT64_MAX),
                    "strict": request.strict,
                    "ignore_purged": request.ignore_purged,
                    "remote_purge": request.remote_purge,
                    "has_collection_high": FALSE,
                    "collection_high": const(0),
                },
                self.producer_table,
                self.producer.high,
                self.vars["purge"],
            )
            decision = producer_decision(self.rules, fields)
            self.round_inputs.append(fields)
            self.round_decisions.append(decision)
            accepted = sent & (decision.outcome == ACCEPT_CODE)
            rolled_back = sent & (decision.outcome == ROLLBACK_CODE)
            out[f"r{i}.sent"] = sent
            for name, value in (
                ("uuid", request.uuid),
                ("start", request.start),
                ("snap_start", request.snap_start),
                ("snap_end", request.snap_end),
                ("strict", request.strict),
                ("ignore_purged", request.ignore_purged),
                ("outcome", decision.outcome),
                ("seqno", decision.seqno),
                ("keep", state.keep),
                ("filter", state.filter),
            ):
                out[f"r{i}.{name}"] = ite(sent, value, _zero_like(value))
            for name, value in self._after_stream(request.start, state.keep, state.filter).items():
                final[name] = ite(accepted, value, final.get(name, _zero_like(value)))
            reaction = calls.reaction(self.variant, view, decision.seqno, producer_log)
            state = _reacted(state, reaction, rolled_back, decision.seqno)
            sent = rolled_back
        out.update(final)
        return out

    def _after_stream(self, start: Expr, keep: Expr, drop_upto: Expr) -> dict[str, Expr]:
        """The consumer's version of each key after the stream from ``start`` completes,
        re-streamed items at or below ``drop_upto`` dropped (the catch-up filter)."""
        s, p, purge = self.stream, self.producer, self.vars["purge"]
        filtering = not (drop_upto.is_const and drop_upto.value == 0)
        out: dict[str, Expr] = {}
        for k in range(self.bounds.keys):
            has: Expr = FALSE
            seq: Expr = const(0)
            deleted: Expr = FALSE
            for x in s.seqnos:
                mine = s.held[x] & (const(x) <= keep) & (s.history.key[x] == k)
                has, seq, deleted = (
                    has | mine,
                    ite(mine, const(x), seq),
                    ite(mine, s.history.deleted[x], deleted),
                )
            epoch: Expr = const(0)  # the consumer's items all come from the first producer
            exists, y = p.last_of_key(const(k), start, p.high)
            _, y_deleted, y_epoch = p.at(y)
            sendable = exists & ~(y_deleted & (y <= purge))
            if filtering:
                sendable = sendable & (y > drop_upto)
            out[f"f.has.{k}"] = has | sendable
            out[f"f.seq.{k}"] = ite(sendable, y, seq)
            out[f"f.epoch.{k}"] = ite(sendable, y_epoch, epoch)
            out[f"f.del.{k}"] = ite(sendable, y_deleted, deleted)
        return out


def _reacted(
    state: ConsumerState, reaction: Reaction, rolled_back: Expr, rollback_seqno: Expr
) -> ConsumerState:
    """``state`` after ``reaction`` when ``rolled_back`` holds (unchanged otherwise)."""
    keep, log, claim, drop_upto = state.keep, state.log, state.claim, state.filter
    assert claim is not None
    if reaction.keep is not None:
        keep = ite(rolled_back, min_of(keep, reaction.keep), keep)
    if reaction.log is not None:
        log = reaction.log.choose(rolled_back, log)  # type: ignore[attr-defined]
    if reaction.claim is not None:
        claim = choose_request(rolled_back, reaction.claim, claim)
    if reaction.filter is not None:
        drop_upto = ite(rolled_back, reaction.filter, drop_upto)
    return ConsumerState(
        keep=keep,
        log=log,
        claim=claim,
        filter=drop_upto,
        rolled_back=state.rolled_back | rolled_back,
        rollback_seqno=ite(rolled_back, rollback_seqno, state.rollback_seqno),
    )


def sum_of(terms: list[Expr]) -> Expr:
    total: Expr = const(0)
    for term in terms:
        total = total + term
    return total


def _zero_like(expr: Expr) -> Expr:
    return FALSE if expr.sort is BOOL else const(0)
