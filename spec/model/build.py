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
    implies,
    ite,
    max_of,
    min_of,
    substitute,
)
from spec.model.held import CutVars, HeldData, highest_whole
from spec.model.history import History, InitialStream, producer_after_failovers
from spec.model.variables import ScenarioVars
from spec.model.view import ConsumerState, SymbolicView, first_offset, offset_after_cut
from spec.properties import Property
from spec.rules.inputs import DecisionExprs, decision_fields, producer_decision
from spec.rules.language import ACCEPT_CODE, ROLLBACK_CODE, RuleSet
from spec.scenario import Scenario
from spec.table_exprs import TableExprs, count
from spec.trace import TraceFields, session_name

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
        self._smaller: dict[int, ScenarioModel] = {}  # with_seqnos: each made once

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
        per_key = prop.per_key
        goals = [
            happens & substitute([~per_key(self.fields, 0)], trace)[0]
            for happens, trace in self.sessions
        ]
        return (goals[0] if len(goals) == 1 else any_of(*goals)), TRUE

    def holds(self, prop: Property) -> Expr:
        """``prop`` as a formula over the scenario variables: on every resume that happens."""
        return self.holds_all([prop])[prop.id]

    def holds_all(self, props: list[Property]) -> dict[str, Expr]:
        """Several properties as formulas over the scenario variables, by id."""
        per_session = [
            substitute([p.holds(self.fields) for p in props], trace) for _, trace in self.sessions
        ]
        if len(per_session) == 1:
            return {p.id: f for p, f in zip(props, per_session[0], strict=True)}
        return {
            p.id: all_of(
                *(
                    implies(happens, formulas[n])
                    for (happens, _), formulas in zip(self.sessions, per_session, strict=True)
                )
            )
            for n, p in enumerate(props)
        }

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
        sessions = [("sessions", count([v[f"s{j}.on"] for j in v.cut_ids]))] if v.cut_ids else []
        return [
            ("seqnos", self._seqnos),
            *sessions,
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
        if smaller == b:
            return self
        if seqnos not in self._smaller:  # a search and its minimisation ask for the same ones
            self._smaller[seqnos] = ScenarioModel(smaller, self.rules, self.variant)
        return self._smaller[seqnos]

    def predicted(self, scenario: Scenario) -> dict[str, Value]:
        """The trace fields this model predicts for ``scenario``, in the scenario's uuids;
        resume j + 1's (j >= 1) named with the prefix ``sj:`` (``spec.trace.session_name``)."""
        names, compiled = self._compiled_trace
        values = dict(zip(names, compiled(self.vars.encode(scenario)), strict=True))
        uuids = self.vars.uuid_map(scenario)
        for r in range(self.bounds.sessions):
            for i in range(self.bounds.rounds):
                name = session_name(r, f"r{i}.uuid")
                values[name] = uuids.get(int(values[name]), values[name])
        return values

    @cached_property
    def _compiled_trace(self) -> tuple[list[str], Compiled]:
        """Every trace field of every resume as one compiled function
        (``spec.expr.Compiled``): replay and the drift tests evaluate it once per scenario."""
        names, exprs = [], []
        for r, (_, trace) in enumerate(self.sessions):
            names += [session_name(r, n) for n in trace]
            exprs += list(trace.values())
        return names, Compiled(exprs)

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
            *self._cuts_within_histories(),
            *self._mitigated(),
        )

    def _mitigated(self) -> list[Expr]:
        """With rollback mitigation (``ConsumerVariant.rollback_mitigation``) the client
        is only sent items every replica has persisted. A promoted replica's failover
        entry is the end of the last snapshot it received whole (kv_engine eba4298,
        ``CheckpointManager::getFailoverSeqno`` = ``lastSnapshotHighSeqno``), which can lie
        below a seqno every replica persisted (a flush can stop mid-snapshot). The
        replica's markers read as the consumer's, each failover of a gap branches at or
        above the end of every snapshot the consumer held whole then (it persisted past
        them): ``boundary`` before the first resume; after cut j, the consumer's once that
        stream was cut, when that resume happens."""
        if not self.variant.rollback_mitigation:
            return []
        v = self.vars
        parts = []
        for f in v.failover_ids:
            for gap, (happens, whole) in enumerate(self._held_before_gaps):
                in_gap = v[f"f{f}.on"] & (v.gap(f) == gap) & happens
                parts.append(implies(in_gap, v[f"f{f}.branch"] >= highest_whole(whole)))
        return parts

    @cached_property
    def _held_before_gaps(self) -> list[tuple[Expr, dict[int, Expr]]]:
        """Per gap (0: before the first resume; j: after cut j): (whether the gap's
        failovers happen, the ends of the snapshots the consumer holds whole when they do)."""
        _ = self.sessions  # fills _held_after_cuts
        return [(TRUE, self.stream.boundary), *self._held_after_cuts]

    def _cuts_within_histories(self) -> list[Expr]:
        """A cut's snapshot ends and ``received`` lie within the history of the producer
        that streamed; its purge seqno is a tombstone's of the next producer (or 0), and
        does not go down unless a failover came between."""
        v, parts = self.vars, []
        previous_purge = v["purge"]
        for j in v.cut_ids:
            streamed, _ = self._producers[j - 1]
            following, _ = self._producers[j]
            on, purge = v[f"s{j}.on"], v[f"s{j}.purge"]
            parts.append(v[f"s{j}.received"] <= streamed.high)
            parts += [implies(v[f"s{j}.end.{x}"], streamed.present(x)) for x in v.seqnos]
            tombstones = [
                (purge == x) & following.present(x) & following.deleted[x] for x in v.seqnos
            ]
            parts.append(any_of(purge == 0, *tombstones))
            failover_between = any_of(*(v[f"f{f}.on"] & (v.gap(f) == j) for f in v.failover_ids))
            parts.append(implies(on & ~failover_between, previous_purge <= purge))
            previous_purge = ite(on, purge, previous_purge)
        return parts

    @cached_property
    def _producers(self) -> list[tuple[History, TableExprs]]:
        """The producer each resume talks to (history, table): after the failovers before it."""
        if self.bounds.sessions == 1:
            return [(self.producer, self.producer_table)]
        return [producer_after_failovers(self.vars, r) for r in range(self.bounds.sessions)]

    # -- the trace ----------------------------------------------------------------------------
    @cached_property
    def trace(self) -> dict[str, Expr]:
        """The trace of the first resume (the only one with ``sessions`` 1)."""
        return self.sessions[0][1]

    @cached_property
    def sessions(self) -> list[tuple[Expr, dict[str, Expr]]]:
        """Per resume: (whether it happens, its trace). Resume j + 1 happens when resume j
        was accepted and its stream was cut (``sj.on``); a property holds when it holds on
        the trace of every resume that happens (each trace's ``f.*`` fields are the
        consumer's versions had that resume's stream run to completion: the scenario in
        which that resume is the last)."""
        v = self.vars
        data = HeldData.initial(self.stream)
        state = ConsumerState(
            keep=v["received"],
            log=v.first_table,
            claim=None,
            filter=const(0),
            rolled_back=FALSE,
            rollback_seqno=const(0),
            offset=first_offset(data, v["received"]),
        )
        purges = [v["purge"], *(v[f"s{j}.purge"] for j in v.cut_ids)]
        happens: Expr = TRUE
        self._held_after_cuts: list[tuple[Expr, dict[int, Expr]]] = []
        out: list[tuple[Expr, dict[str, Expr]]] = []
        for r in range(self.bounds.sessions):
            producer, table = self._producers[r]
            purge = purges[r]
            trace, accepted = self.resume(data, state, producer, table, purge, record=r == 0)
            if r > 0:
                trace = {name: ite(happens, e, _zero_like(e)) for name, e in trace.items()}
            out.append((happens, trace))
            if r + 1 == self.bounds.sessions:
                break
            cut = CutVars(
                v[f"s{r + 1}.disk"],
                {x: v[f"s{r + 1}.end.{x}"] for x in v.seqnos},
                v[f"s{r + 1}.received"],
            )
            keep, drop_upto, start, snap_start, snap_end = accepted
            data, keep, _, last_got = data.after_cut(
                keep, drop_upto, start, snap_start, snap_end, producer, purge, cut
            )
            state = ConsumerState(
                keep=keep,
                log=table,  # the producer sends its failover log when it accepts a stream
                claim=None,
                filter=drop_upto,
                rolled_back=FALSE,
                rollback_seqno=const(0),
                offset=offset_after_cut(
                    data, last_got, (start, snap_start, snap_end), self.variant.seqno_advanced
                ),
            )
            happens = happens & self._accepted(trace) & v[f"s{r + 1}.on"]
            self._held_after_cuts.append((happens, data.boundary))
        return out

    def resume(
        self,
        data: HeldData,
        state: ConsumerState,
        producer: History,
        table: TableExprs,
        purge: Expr,
        record: bool = False,
    ) -> tuple[dict[str, Expr], tuple[Expr, ...]]:
        """One resume from any consumer state (``data``, ``state`` without its claim) to
        any producer (``producer``, ``table``, ``purge``): its trace (every trace field),
        and (keep, filter, start, snap_start, snap_end) at the request accepted (only with
        ``sessions`` >= 2; zeros otherwise). ``sessions`` chains these; the induction over
        resumes (``checker.induction``) applies it to an arbitrary boundary state."""
        trace: dict[str, Expr] = {}
        trace.update(self._producer_fields(producer, table, purge))
        trace.update(self._consumer_fields(data))
        rounds, accepted = self._rounds(data, state, producer, table, purge, record=record)
        trace.update(rounds)
        missing = set(self.fields.sorts) - set(trace)
        assert not missing, missing
        return trace, accepted

    def accepted(self, trace: Mapping[str, Expr]) -> Expr:
        """Some request of the resume whose ``trace`` this is was accepted."""
        return self._accepted(dict(trace))

    def _accepted(self, trace: dict[str, Expr]) -> Expr:
        return any_of(
            *(
                trace[f"r{i}.sent"] & (trace[f"r{i}.outcome"] == ACCEPT_CODE)
                for i in range(self.bounds.rounds)
            )
        )

    def _producer_fields(self, p: History, table: TableExprs, purge: Expr) -> dict[str, Expr]:
        out = {
            "p.high": p.high,
            "p.purge": purge,
            "p.table_len": table.length,
        }
        for x in p.seqnos:
            present = p.present(x)
            out[f"p.key.{x}"] = ite(present, p.key[x], const(0))
            out[f"p.del.{x}"] = present & p.deleted[x]
            out[f"p.epoch.{x}"] = ite(present, p.epoch[x], const(0))
        return out

    def _consumer_fields(self, s: HeldData) -> dict[str, Expr]:
        out: dict[str, Expr] = {}
        for x in s.seqnos:
            held = s.held[x]
            out[f"c.held.{x}"] = held
            out[f"c.key.{x}"] = ite(held, s.key[x], const(0))
            out[f"c.del.{x}"] = held & s.deleted[x]
            out[f"c.epoch.{x}"] = ite(held, s.epoch[x], const(0)) if self._epochs(s) else const(0)
            out[f"c.boundary.{x}"] = s.boundary[x]
        return out

    def _epochs(self, s: HeldData) -> bool:
        """The consumer may hold items of a later epoch (only after a cut)."""
        return not all(e.is_const and e.value == 0 for e in s.epoch.values())

    def _rounds(
        self,
        data: HeldData,
        state: ConsumerState,
        producer: History,
        producer_log: TableExprs,
        purge: Expr,
        record: bool,
    ) -> tuple[dict[str, Expr], tuple[Expr, ...]]:
        """The trace fields of one resume's rounds and final versions, and (keep, filter,
        start, snap_start, snap_end) when its request was accepted."""
        out: dict[str, Expr] = {}
        claim = calls.remembered(self.variant, SymbolicView(data, state, producer_log))
        state = replace(state, claim=claim)
        sent: Expr = TRUE
        final: dict[str, Expr] = {}
        at_accept: tuple[Expr, ...] = (const(0),) * 5
        for i in range(self.bounds.rounds):
            view = SymbolicView(data, state, producer_log)
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
                producer_log,
                producer.high,
                purge,
            )
            decision = producer_decision(self.rules, fields)
            if record:
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
            after = self._after_stream(
                data, producer, purge, request.start, state.keep, state.filter
            )
            for name, value in after.items():
                final[name] = ite(accepted, value, final.get(name, _zero_like(value)))
            if self.bounds.sessions > 1:
                at_accept = (
                    ite(accepted, state.keep, at_accept[0]),
                    ite(accepted, state.filter, at_accept[1]),
                    ite(accepted, request.start, at_accept[2]),
                    ite(accepted, request.snap_start, at_accept[3]),
                    ite(accepted, request.snap_end, at_accept[4]),
                )
            reaction = calls.reaction(self.variant, view, decision.seqno, producer_log)
            state = _reacted(state, reaction, rolled_back, decision.seqno)
            sent = rolled_back
        out.update(final)
        return out, at_accept

    def _after_stream(
        self,
        s: HeldData,
        p: History,
        purge: Expr,
        start: Expr,
        keep: Expr,
        drop_upto: Expr,
    ) -> dict[str, Expr]:
        """The consumer's version of each key after the stream from ``start`` completes,
        re-streamed items at or below ``drop_upto`` dropped (the catch-up filter)."""
        filtering = not (drop_upto.is_const and drop_upto.value == 0)
        epochs = self._epochs(s)
        out: dict[str, Expr] = {}
        for k in range(self.bounds.keys):
            has: Expr = FALSE
            seq: Expr = const(0)
            deleted: Expr = FALSE
            epoch: Expr = const(0)  # the initial stream's items all come from the first producer
            for x in s.seqnos:
                mine = s.held[x] & (const(x) <= keep) & (s.key[x] == k)
                has, seq, deleted = (
                    has | mine,
                    ite(mine, const(x), seq),
                    ite(mine, s.deleted[x], deleted),
                )
                if epochs:
                    epoch = ite(mine, s.epoch[x], epoch)
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
        chosen = reaction.log.choose(rolled_back, log)
        assert isinstance(chosen, TableExprs)  # a log from the view: the symbolic one
        log = chosen
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
        offset=state.offset,
    )


def sum_of(terms: list[Expr]) -> Expr:
    total: Expr = const(0)
    for term in terms:
        total = total + term
    return total


def _zero_like(expr: Expr) -> Expr:
    return FALSE if expr.sort is BOOL else const(0)
