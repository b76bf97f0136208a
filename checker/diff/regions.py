"""What a difference between two answers is: a *change*, and a *region*.

Two producers (or two consumers under one producer) answer the same stream
request; where their answers differ, the *change* says how (B rolls back
where A accepts, B rolls back deeper, ...), and the *region* is the pair of
clauses that fired (A's, B's) together with the change. A region is a set of
inputs sharing one explanation: the diff reports one representative of each.

Conditions are expressions over the two decisions (``DecisionExprs``), so the
same region is searched at the decision level (request + producer state) and
recognised inside a scenario (a round of a resume).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from spec.expr import FALSE, UINT64_MAX, Expr, Value, all_of, const, evaluate_many
from spec.rules.inputs import DecisionExprs, producer_decision
from spec.rules.language import RuleSet
from spec.trace import OUTCOME_CODE
from spec.types import Decision, Outcome

__all__ = [
    "ANSWER_CHANGES",
    "FEATURES",
    "REQUEST_CHANGES",
    "Change",
    "Region",
    "answers_differ",
    "change_of",
    "region_condition",
    "region_in_fields",
    "region_of",
    "same_answer",
    "without",
]

DEEPER = "deeper"
SHALLOWER = "shallower"


def same_answer(a: DecisionExprs, b: DecisionExprs) -> Expr:
    """The two decisions give the same answer (outcome and rollback seqno)."""
    return (a.outcome == b.outcome) & (a.seqno == b.seqno)


def answers_differ(a: DecisionExprs, b: DecisionExprs) -> Expr:
    return ~same_answer(a, b)


@dataclass(frozen=True)
class Change:
    """How B's answer differs from A's on the same request."""

    before: Outcome  # A's answer
    after: Outcome  # B's answer
    depth: str = ""  # both roll back: DEEPER (B's seqno is lower) or SHALLOWER

    @property
    def name(self) -> str:
        if self.before is self.after:
            return f"rollback {self.depth}" if self.depth else "same answer"
        return f"{self.before.value} -> {self.after.value}"

    @property
    def direction(self) -> int:
        """+1: B rolls back more (or deeper) than A; -1: less (or shallower); 0: neither."""
        if self.depth:
            return 1 if self.depth == DEEPER else -1
        before = self.before is Outcome.ROLLBACK
        after = self.after is Outcome.ROLLBACK
        return int(after) - int(before)

    def condition(self, a: DecisionExprs, b: DecisionExprs) -> Expr:
        outcomes = (a.outcome == OUTCOME_CODE[self.before]) & (
            b.outcome == OUTCOME_CODE[self.after]
        )
        if self.depth == DEEPER:
            return outcomes & (b.seqno < a.seqno)
        if self.depth == SHALLOWER:
            return outcomes & (b.seqno > a.seqno)
        if self.before is self.after:
            return outcomes & (a.seqno == b.seqno)
        return outcomes


def change_of(a: Decision, b: Decision) -> Change:
    """How concrete answer ``b`` differs from ``a`` (``same answer`` when it does not)."""
    if a.outcome is not b.outcome:
        return Change(a.outcome, b.outcome)
    if a.rollback_seqno == b.rollback_seqno:
        return Change(a.outcome, b.outcome)
    deeper = (b.rollback_seqno or 0) < (a.rollback_seqno or 0)
    return Change(a.outcome, b.outcome, DEEPER if deeper else SHALLOWER)


_OUTCOMES = (Outcome.ACCEPT, Outcome.ROLLBACK, Outcome.ERANGE)

# Every way two answers can differ.
ANSWER_CHANGES: tuple[Change, ...] = (
    *(Change(x, y) for x in _OUTCOMES for y in _OUTCOMES if x is not y),
    Change(Outcome.ROLLBACK, Outcome.ROLLBACK, DEEPER),
    Change(Outcome.ROLLBACK, Outcome.ROLLBACK, SHALLOWER),
)
# Two consumers may send different requests that get the same answer.
REQUEST_CHANGES: tuple[Change, ...] = (
    *ANSWER_CHANGES,
    *(Change(x, x) for x in _OUTCOMES),
)


# Request fields humpty_dumpty cannot express, and the value that leaves each unused.
FEATURES: dict[str, dict[str, Expr]] = {
    "strict": {"strict": FALSE},
    "ignore_purged": {"ignore_purged": FALSE},
    "remote_purge": {"remote_purge": const(0)},
    "collection_high": {"has_collection_high": FALSE, "collection_high": const(0)},
    "end": {"end": const(UINT64_MAX)},
}


def without(fields: Mapping[str, Expr], feature: str) -> dict[str, Expr]:
    """The decision fields with ``feature`` left unused (IgnorePurgedTombstones: real purge)."""
    out = {**fields, **FEATURES[feature]}
    if feature == "ignore_purged":
        out["purge_seqno"] = fields["producer_purge_seqno"]
    return out


@dataclass(frozen=True)
class Region:
    """The clause that fired for A, the clause that fired for B, and how the answer changed.

    ``via``: a request feature (``FEATURES``); the region is then the part of
    the plain region that exists only because of it (leave the feature unused
    and the input leaves the region).
    """

    case_a: str
    case_b: str
    change: Change
    via: str = ""

    @property
    def label(self) -> str:
        text = f"{self.case_a} -> {self.case_b} ({self.change.name})"
        return f"{text} via {self.via}" if self.via else text

    @property
    def plain(self) -> Region:
        return Region(self.case_a, self.case_b, self.change)


def region_condition(
    region: Region, rules_a: RuleSet, rules_b: RuleSet, a: DecisionExprs, b: DecisionExprs
) -> Expr:
    """``a`` (a decision of ``rules_a``) and ``b`` (of ``rules_b``) lie in ``region``
    (its plain part: ``via`` needs the fields, see ``region_in_fields``)."""
    return all_of(
        a.case == rules_a.case_names.index(region.case_a),
        b.case == rules_b.case_names.index(region.case_b),
        region.change.condition(a, b),
    )


def region_in_fields(
    region: Region,
    rules_a: RuleSet,
    rules_b: RuleSet,
    fields: Mapping[str, Expr],
    decisions: tuple[DecisionExprs, DecisionExprs] | None = None,
) -> Expr:
    """Both rule sets, deciding on the same decision ``fields``, land in ``region``.
    ``decisions``: the two rule sets' decisions on ``fields`` where the caller has them
    (``producer_decision``'s own; compiling a rule set is most of a diff's expression work)."""

    def plain(f: Mapping[str, Expr]) -> Expr:
        a, b = producer_decision(rules_a, f), producer_decision(rules_b, f)
        return region_condition(region, rules_a, rules_b, a, b)

    here = region_condition(region, rules_a, rules_b, *decisions) if decisions else plain(fields)
    if not region.via:
        return here
    return here & ~plain(without(fields, region.via))


def region_of(
    values: Mapping[str, Value],
    rules_a: RuleSet,
    rules_b: RuleSet,
    a: DecisionExprs,
    b: DecisionExprs,
    changes: tuple[Change, ...] = ANSWER_CHANGES,
) -> Region:
    """The region the two decisions are in, under ``values`` (every variable given)."""
    conditions = [c.condition(a, b) for c in changes]
    case_a, case_b, *held = evaluate_many([a.case, b.case, *conditions], values)
    matching = [c for c, h in zip(changes, held, strict=True) if h]
    if len(matching) != 1:
        raise AssertionError(f"{len(matching)} changes match one pair of answers")
    return Region(rules_a.case_names[int(case_a)], rules_b.case_names[int(case_b)], matching[0])
