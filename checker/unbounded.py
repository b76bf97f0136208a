"""Proofs beyond the bounds: decision-level properties for every table length and seqno.

1. *The lookup abstraction* (``spec.rules.abstract``): Z3 proves that
   kv_engine's lookup gives the abstract table facts for each table length
   from 1 to ``DIRECT_LENGTHS`` directly, and for every length by induction
   over the lookup's own loop step (base: the newest entry; step: one more
   entry keeps them), for tables in which no older entry repeats the newest
   uuid (kv_engine's own tables never repeat a uuid; a table it loads may,
   and the decision space of ``diff`` and ``vectors`` holds such tables:
   every claim here leaves them out).
2. *Decision properties* over the abstract space, hence over every producer
   whose table has any number of entries and every uint64 seqno:
   ``bounded-rollback`` (a rollback seqno is never above the request's start)
   and ``valid-request`` (the producer answers ERANGE exactly when the request
   breaks ``snap_start <= start <= snap_end``, ``start <= end``).
3. *Diff completeness* (``other_region``): no pair of answers outside the
   regions a bounded search found, for any table length.

Each result is an ordinary ``Result`` (model ``decision``) whose bounds say
what it covers; an unknown stays unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from checker.engines.registry import Z3_ENGINE
from checker.result import Result, Stats, Verdict
from checker.symbolic.budget import Budget
from checker.symbolic.session import Session, SolverAnswer, SolverReply
from checker.timing import Stopwatch
from spec.consumers import ConsumerVariant, ResumeRequest, calls
from spec.errors import InvalidInput
from spec.expr import TRUE, Expr, Sort, all_of, any_of, implies
from spec.model.abstract_view import AbstractView, Fresh
from spec.model.scans import SCAN_FACTS
from spec.rules.abstract import AbstractDecisionSpace, LookupInduction, table_facts
from spec.rules.inputs import DecisionExprs, DecisionSpace
from spec.rules.language import ERANGE_CODE, ROLLBACK_CODE, RuleSet

__all__ = [
    "DECISION_PROPERTIES",
    "DIRECT_LENGTHS",
    "EVERY_HISTORY",
    "EVERY_TABLE",
    "Beyond",
    "decision_results",
    "lookup_abstraction_holds",
    "other_region",
    "scan_facts_hold",
    "valid_request_every_history",
]

DIRECT_LENGTHS = 25  # kv_engine's default max_failover_entries


@dataclass(frozen=True)
class Beyond:
    """What a result beyond the bounds covers, in words (it has no bound to list)."""

    covers: str

    def describe(self) -> str:
        return self.covers

    def to_json(self) -> dict[str, int]:
        return {}


# a decision-level result: every request and producer state
EVERY_TABLE = Beyond(
    "every failover-table length (no older entry repeating the newest uuid), every uint64 seqno"
)
# a consumer-level result over the abstract view
EVERY_HISTORY = Beyond(
    "every history length, number of keys, failover-table length, failovers and resumes "
    "(the abstract consumer view)"
)


def _refuted(sorts: dict[str, Sort], facts: Expr, claim: Expr, budget: Budget) -> SolverReply:
    """Z3 looks for ``facts`` without ``claim``: unsat proves the claim."""
    session = Session(budget=budget)
    session.declare(sorts)
    session.add(facts, ~claim)
    return session.check()


def lookup_abstraction_holds(budget: Budget) -> tuple[bool | None, str]:
    """(True: proved, False: refuted, None: unknown; what was proved or why not)."""
    for length in range(1, DIRECT_LENGTHS + 1):
        space = DecisionSpace(length)
        f = space.fields
        facts = table_facts(
            f["uuid"],
            f["high_seqno"],
            f["table_len"],
            f["latest_uuid"],
            f["uuid_found"],
            f["upper"],
        )
        # The induction's premise on every entry after the newest: it does not repeat the
        # newest uuid (the decision space itself also holds tables that do).
        table = space.table
        newest_once = all_of(
            *(implies(table.live(i), table.uuid[i] != table.uuid[0]) for i in range(1, length))
        )
        outcome = _refuted(
            space.sorts,
            all_of(space.well_formed(), newest_once),
            facts,
            budget,
        )
        if outcome.answer is not SolverAnswer.UNSAT:
            return _verdict(outcome), f"the lookup of a {length}-entry table"
    induction = LookupInduction()
    for name, (premise, conclusion) in (("base", induction.base()), ("step", induction.step())):
        outcome = _refuted(induction.sorts, premise, conclusion, budget)
        if outcome.answer is not SolverAnswer.UNSAT:
            return _verdict(outcome), f"the induction {name}"
    return True, f"directly for 1..{DIRECT_LENGTHS} entries, by induction for every length"


def _planned(model: str, subject: dict[str, str], prop: str, covers: Beyond, note: str) -> Result:
    """A safety result of Z3's beyond the bounds, unknown until a proof decides it."""
    return Result(
        model=model,
        subject=subject,
        property=prop,
        kind="safety",
        verdict=Verdict.UNKNOWN,
        bounds=covers,
        engine=Z3_ENGINE.name,
        note=note,
    )


def _verdict(outcome: SolverReply) -> bool | None:
    return False if outcome.answer is SolverAnswer.SAT else None


def _rollback_at_most_start(space: AbstractDecisionSpace, d: DecisionExprs) -> Expr:
    return ~(d.outcome == ROLLBACK_CODE) | (d.seqno <= space.fields["start"])


def _erange_exactly_when_invalid(space: AbstractDecisionSpace, d: DecisionExprs) -> Expr:
    return (d.outcome == ERANGE_CODE) == ~space.range_ok


DECISION_PROPERTIES: dict[
    str, tuple[str, Callable[[AbstractDecisionSpace, DecisionExprs], Expr]]
] = {
    "bounded-rollback": ("a rollback seqno is never above the start", _rollback_at_most_start),
    "valid-request": ("ERANGE exactly for an invalid request", _erange_exactly_when_invalid),
}


def decision_results(rule_sets: Sequence[RuleSet], budget: Budget) -> list[Result]:
    """Each decision property of each rule set, over every table and seqno."""
    clock = Stopwatch()
    lookup, how = lookup_abstraction_holds(budget)
    space = AbstractDecisionSpace()
    results = []
    for rules in rule_sets:
        decision = space.decision(rules)
        for prop, (summary, formula) in DECISION_PROPERTIES.items():
            before = budget.spent
            subject = {"rules": rules.name}
            note = f"{summary}; the table abstraction holds {how}"
            result = _planned("decision", subject, prop, EVERY_TABLE, note)
            if lookup is not True:
                state = "refuted" if lookup is False else "unknown"
                results.append(result.but(reason=f"the table abstraction is {state} at {how}"))
                continue
            outcome = _refuted(space.sorts, space.well_formed(), formula(space, decision), budget)
            verdict = {
                SolverAnswer.UNSAT: Verdict.HOLDS,
                SolverAnswer.SAT: Verdict.VIOLATED,
                SolverAnswer.UNKNOWN: Verdict.UNKNOWN,
            }[outcome.answer]
            stats = Stats(*clock.read(), budget=budget.spent - before)
            results.append(result.but(verdict=verdict, reason=outcome.reason, stats=stats))
    return results


def other_region(
    rules_a: RuleSet,
    rules_b: RuleSet,
    inside: Callable[[DecisionExprs, DecisionExprs], Expr],
    budget: Budget,
) -> SolverReply:
    """Is there, with a table of any length, a request on which the two rule sets answer
    differently outside the regions ``inside`` describes? Unsat: no."""
    space = AbstractDecisionSpace()
    a, b = space.decision(rules_a), space.decision(rules_b)
    session = Session(budget=budget)
    session.declare(space.sorts)
    differ = any_of(a.outcome != b.outcome, a.seqno != b.seqno)
    session.add(space.well_formed(), differ, ~inside(a, b))
    return session.check(want=space.sorts)


# -- consumer level: valid-request for every history length ----------------------------------


def scan_facts_hold(budget: Budget) -> tuple[bool | None, str]:
    """Z3 proves each scan fact of spec/model/scans.py by induction over the scan's step
    (True: every fact proved; False: one refuted; None: unknown), and says which."""
    for build in SCAN_FACTS:
        fact = build()
        for part, (premise, conclusion) in (("base", fact.base), ("step", fact.step)):
            outcome = _refuted(fact.sorts, premise, conclusion, budget)
            if outcome.answer is not SolverAnswer.UNSAT:
                return _verdict(outcome), f"the {part} of the scan fact '{fact.name}'"
    return True, f"{len(SCAN_FACTS)} scan facts, by induction over their steps"


def _valid(request: ResumeRequest) -> Expr:
    return all_of(request.snap_start <= request.start, request.start <= request.snap_end)


def _obligations(variant: ConsumerVariant) -> list[tuple[str, Fresh, Expr, Expr]]:
    """(what, its variables, assumed, claimed) for each step that sets or sends a request:
    the request remembered when a stream ends, the request sent from a state whose
    remembered request is valid, and the one a rollback reaction remembers."""
    out = []
    ended = Fresh("ended")
    remembered = calls.remembered(variant, AbstractView(ended, None))
    out.append(("the request remembered when a stream ends", ended, TRUE, _valid(remembered)))
    sending = Fresh("sending")
    claim = sending.request("claim")
    sent = calls.request(variant, AbstractView(sending, claim))
    out.append(("the request sent", sending, _valid(claim), _valid(sent)))
    reacting = Fresh("reacting")
    claim = reacting.request("claim")
    view = AbstractView(reacting, claim)
    rollback_seqno = reacting.value("R")
    reaction = calls.reaction(
        variant,
        view,
        rollback_seqno,
        view.producer_log,
    )
    if reaction.claim is not None:
        what = "the request remembered after a rollback"
        out.append((what, reacting, _valid(claim), _valid(reaction.claim)))
    return out


def valid_request_every_history(
    variants: Sequence[ConsumerVariant], budget: Budget
) -> list[Result]:
    """``valid-request`` of each consumer variant for histories of any length: an induction
    over the steps that set the remembered request (a stream ending, a rollback), each
    evaluated over the abstract view (spec/model/abstract_view.py), whose premises are
    the scan facts Z3 proves first. Holds or unknown: the abstraction over-approximates,
    so a step it cannot prove is not a violation."""
    clock = Stopwatch()
    scans, how = scan_facts_hold(budget)
    results = []
    for variant in variants:
        before = budget.spent
        subject = {"rules": "any", "consumer": variant.name}
        note = f"every request has snap_start <= start <= snap_end; the premises: {how}"
        result = _planned("consumer", subject, "valid-request", EVERY_HISTORY, note)
        if scans is not True:
            state = "refuted" if scans is False else "unknown"
            results.append(result.but(reason=f"a premise is {state}: {how}"))
            continue
        reason = ""
        try:
            obligations = _obligations(variant)
        except (InvalidInput, AttributeError, TypeError, ValueError) as exc:
            # a user's variant that reads more than the ConsumerView interface (a
            # SymbolicView's own attributes, say) cannot be evaluated over the abstract view
            message = exc.message if isinstance(exc, InvalidInput) else f"{exc}"
            obligations, reason = [], f"not evaluable over the abstract view: {message}"
        for what, fresh, assumed, claimed in obligations:
            outcome = _refuted(fresh.sorts, all_of(assumed, *fresh.premises), claimed, budget)
            if outcome.answer is not SolverAnswer.UNSAT:
                kind = "not proved" if outcome.answer is SolverAnswer.SAT else "unknown"
                reason = f"{what}: {kind} over the abstract view ({outcome.reason or 'a model'})"
                break
        stats = Stats(*clock.read(), budget=budget.spent - before)
        verdict = Verdict.UNKNOWN if reason else Verdict.HOLDS
        results.append(result.but(verdict=verdict, reason=reason, stats=stats))
    return results
