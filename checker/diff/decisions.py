"""Where two rule sets answer differently: the regions of the decision space, by Z3.

The decision space is every stream request and every well-formed producer
state whose failover table has at most ``table_entries`` entries
(``spec.rules.inputs.DecisionSpace``); seqnos and uuids range over all of
uint64. ``search_regions`` asks Z3 for an input on which A and B answer
differently, names its region (A's clause, B's clause, the change), blocks
that region and asks again, until Z3 answers unsat: a proof that no other
region exists. Each region's representative is then minimised (small
seqnos, the fields humpty_dumpty can express) and relabelled with readable
uuids, and both answers are recomputed concretely, on the reference
implementation where the rule set has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from checker.diff.regions import (
    ANSWER_CHANGES,
    FEATURES,
    Region,
    change_of,
    region_condition,
    region_in_fields,
    region_of,
    without,
)
from checker.symbolic.budget import Budget
from checker.symbolic.optimise import Minimiser
from checker.symbolic.session import Session, SolverAnswer
from checker.timing import Stopwatch
from checker.unbounded import other_region
from spec.errors import HarnessBug
from spec.expr import UINT64_MAX, Expr, Value, any_of
from spec.failover_table import FailoverEntry, FailoverTable
from spec.reference.simulate import producer_decision as reference_decision
from spec.rules.inputs import DecisionExprs, DecisionSpace
from spec.rules.language import RuleSet
from spec.types import Decision, ProducerState, StreamRequest

__all__ = ["DecisionExample", "RegionSearch", "search_regions"]


@dataclass(frozen=True)
class DecisionExample:
    """One request and producer state in a region, with both answers."""

    request: StreamRequest
    producer: ProducerState
    decision_a: Decision
    decision_b: Decision


@dataclass
class RegionSearch:
    table_entries: int
    found: list[tuple[Region, DecisionExample]] = field(default_factory=list)
    complete: bool = False  # Z3 proved no other region exists
    note: str = ""  # why the search is incomplete
    seconds: float = 0.0
    interrupted: bool = False  # Ctrl-C stopped the search
    any_length: bool = False  # Z3 also proved no other region exists for longer tables


def search_regions(
    rules_a: RuleSet,
    rules_b: RuleSet,
    table_entries: int,
    max_regions: int,
    budget: Budget,
    deadline: float | None = None,
) -> RegionSearch:
    """Every region where ``rules_a`` and ``rules_b`` answer differently (up to
    ``max_regions``), each Z3 call under ``budget``; Ctrl-C ends the search with the
    regions found so far."""
    clock = Stopwatch()
    search = RegionSearch(table_entries)
    try:
        _search(search, rules_a, rules_b, max_regions, budget, deadline)
    except KeyboardInterrupt:
        search.interrupted = True
        search.note = "interrupted (Ctrl-C): more regions may exist"
    search.seconds = clock.read()[0]
    return search


@dataclass(frozen=True)
class _Queries:
    """What every Z3 query of one region search shares: the decision space, the two
    rule sets, the budget and the deadline."""

    space: DecisionSpace
    rules_a: RuleSet
    rules_b: RuleSet
    budget: Budget
    deadline: float | None

    def session(self, *exprs: Expr) -> Session:
        """A session over the space's variables, its inputs well formed, ``exprs`` added."""
        session = Session(budget=self.budget, deadline=self.deadline)
        session.declare(self.space.sorts)
        session.add(self.space.well_formed(), *exprs)
        return session


def _search(
    search: RegionSearch,
    rules_a: RuleSet,
    rules_b: RuleSet,
    max_regions: int,
    budget: Budget,
    deadline: float | None,
) -> None:
    space = DecisionSpace(search.table_entries)
    queries = _Queries(space, rules_a, rules_b, budget, deadline)
    a, b = space.decision(rules_a), space.decision(rules_b)
    session = queries.session((a.outcome != b.outcome) | (a.seqno != b.seqno))
    while True:
        if sum(not region.via for region, _ in search.found) >= max_regions:
            search.note = f"stopped after --max {max_regions} regions; more may exist"
            return
        outcome = session.check(want=space.sorts)
        if outcome.answer is SolverAnswer.UNSAT:
            search.complete = True
            search.any_length = _none_longer(search, rules_a, rules_b, budget)
            return
        if outcome.answer is SolverAnswer.UNKNOWN:
            search.note = f"the solver answered unknown ({outcome.reason})"
            return
        region = region_of(outcome.values, rules_a, rules_b, a, b, ANSWER_CHANGES)
        condition = region_condition(region, rules_a, rules_b, a, b)
        session.add(~condition)
        plain = _without_features(queries, region)
        if plain is None:
            search.note = f"the solver answered unknown on {region.label}"
            return
        if plain:  # else every input of the region needs a feature: its facets say which
            values = _minimised(queries, condition) or outcome.values
            search.found.append((region, _example(queries, region, values)))
        facets, note = _facets(queries, region)
        search.found += facets
        if note:
            search.note = note
            return


def _none_longer(search: RegionSearch, rules_a: RuleSet, rules_b: RuleSet, budget: Budget) -> bool:
    """No region beyond those found exists with a failover table of any length."""
    plain = list(dict.fromkeys(region.plain for region, _ in search.found))  # found order

    def inside(a: DecisionExprs, b: DecisionExprs) -> Expr:
        return any_of(*(region_condition(r, rules_a, rules_b, a, b) for r in plain))

    return other_region(rules_a, rules_b, inside, budget).answer is SolverAnswer.UNSAT


def _without_features(q: _Queries, region: Region) -> bool | None:
    """Whether ``region`` has an input humpty_dumpty can express (no request feature
    used); None if the solver could not tell."""
    fields = dict(q.space.fields)
    for feature in FEATURES:
        fields = without(fields, feature)
    outcome = q.session().check(region_in_fields(region, q.rules_a, q.rules_b, fields))
    if outcome.answer is SolverAnswer.UNKNOWN:
        return None
    return outcome.answer is SolverAnswer.SAT


def _facets(q: _Queries, region: Region) -> tuple[list[tuple[Region, DecisionExample]], str]:
    """The parts of ``region`` that exist only because of a request feature humpty lacks."""
    session = q.session()
    found: list[tuple[Region, DecisionExample]] = []
    for feature in FEATURES:
        facet = Region(region.case_a, region.case_b, region.change, via=feature)
        condition = region_in_fields(facet, q.rules_a, q.rules_b, q.space.fields)
        outcome = session.check(condition, want=q.space.sorts)
        if outcome.answer is SolverAnswer.UNKNOWN:
            return found, f"the solver answered unknown ({outcome.reason}) on {facet.label}"
        if outcome.answer is SolverAnswer.SAT:
            values = _minimised(q, condition) or outcome.values
            found.append((facet, _example(q, facet, values)))
    return found, ""


def _minimised(q: _Queries, condition: Expr) -> dict[str, Value] | None:
    """The region's most readable input: humpty-expressible, then the smallest seqnos
    (None when the budget, or the outer timeout, does not allow it)."""
    space = q.space
    v = space.v
    minimiser = Minimiser(budget=q.budget, deadline=q.deadline)
    minimiser.add(space.well_formed())
    soft = [
        (~v("strict"), 8),
        (~v("ignore_purged"), 8),
        (v("remote_purge") == 0, 8),
        (~v("has_collection_high"), 8),
        (v("end") == UINT64_MAX, 8),
        (v("producer_purge_seqno") == 0, 1),
    ]
    names = ["table_len", "high_seqno", "start", "snap_start", "snap_end"]
    names += ["producer_purge_seqno", "remote_purge", "collection_high"]
    sizes = [v(name) for name in names]
    sizes += [v(space.seq_var(i)) for i in range(space.table_entries)]
    outcome = minimiser.solve(condition, soft=soft, minimise=sizes, want=space.sorts)
    return outcome.values if outcome.answer is SolverAnswer.SAT else None


def _example(q: _Queries, region: Region, values: dict[str, Value]) -> DecisionExample:
    """Decode ``values``, with readable uuids if the region survives relabelling."""
    decide_a, decide_b = reference_decision(q.rules_a), reference_decision(q.rules_b)
    request, producer = q.space.decode(values)
    for req, prod in (_readable_uuids(request, producer), (request, producer)):
        da, db = decide_a(req, prod), decide_b(req, prod)
        if _in_region(region, da, db) and not (
            region.via
            and _in_region(
                region,
                decide_a(_unused(req, region.via), prod),
                decide_b(_unused(req, region.via), prod),
            )
        ):
            return DecisionExample(req, prod, da, db)
    raise HarnessBug(
        f"Z3 places {request} with {producer} in region {region.label}, but the reference "
        f"answers {da.case} ({da.outcome.value}) and {db.case} ({db.outcome.value})"
    )


def _in_region(region: Region, a: Decision, b: Decision) -> bool:
    return (a.case, b.case, change_of(a, b)) == (region.case_a, region.case_b, region.change)


def _unused(request: StreamRequest, feature: str) -> StreamRequest:
    """``request`` without ``feature`` (see ``checker.diff.regions.FEATURES``)."""
    resets: dict[str, dict[str, Any]] = {
        "strict": {"strict": False},
        "ignore_purged": {"ignore_purged": False},
        "remote_purge": {"remote_purge": 0},
        "collection_high": {"collection_high": None},
        "end": {"end": UINT64_MAX},
    }
    return replace(request, **resets[feature])


def _readable_uuids(
    request: StreamRequest, producer: ProducerState
) -> tuple[StreamRequest, ProducerState]:
    """Oldest table entry 1111, the next 2222, ...; an unknown request uuid the next one."""
    entries = producer.table.entries
    labels = {e.uuid: 1111 * (len(entries) - i) for i, e in enumerate(entries)}
    labels[0] = 0
    uuid = labels.get(request.uuid, 1111 * (len(entries) + 1))
    table = FailoverTable(
        tuple(FailoverEntry(labels[e.uuid], e.seqno) for e in entries), producer.table.max_entries
    )
    return (
        replace(request, uuid=uuid),
        ProducerState(table, producer.high_seqno, producer.purge_seqno),
    )
