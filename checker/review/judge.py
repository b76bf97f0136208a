"""``dcpcheck replay``'s judge: a target's wrong answers classified as ``review`` does.

A vector expects one answer; what a different answer does depends on the answer, not
on the clause that should have decided. The target's wrong answers are written as
``dcpcheck review`` writes a build's (``checker.review.table.override_rules``: the
expected rule set, except on those inputs), each answer's region is the pair (expected
clause, the target's answer) with how the answer changed, and the regions are classified
by ``checker.diff.engine.classify_rule_regions``, the classifier of ``diff`` and
``review``, with the same consumers, in resume scenarios big enough to hold the vectors'
producers. A region classified a safety regression breaks the property its witness
violates (confirmed on the reference); a cost regression is *cost only*; a safety fix,
a cost improvement or a neutral region *differs, no property broken*. An answer no
scenario within the bounds reaches, an ERANGE one (the clause language cannot answer
ERANGE) or one the classification left unknown is *not judged*. An answer that rolls
back above the request's start breaks ``bounded-rollback`` whatever the scenarios.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from checker.diff.classify import Classification
from checker.diff.engine import DIFF_BUDGET, DiffReport, RegionResult, classify_rule_regions
from checker.diff.regions import DEEPER, Region, change_of
from checker.review.learn import TARGET_CASES
from checker.review.table import KEY, Overrides, override_rules
from checker.symbolic.budget import Budget
from checker.vectors.replay import Judgement, VectorResult
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.expr import evaluate_many, substitute
from spec.rules.inputs import DecisionSpace
from spec.rules.language import ACCEPT_CODE, ROLLBACK_CODE, RuleSet, scanned
from spec.types import Decision, Outcome

__all__ = ["judge", "judged_bounds"]

# The largest seqno a judging scenario may hold: a vector with a larger one (2^64-1 ends,
# say) is out of every scenario's reach and stays not judged.
MOST_SEQNOS = 6


def judged_bounds(wrong: Sequence[VectorResult]) -> Bounds:
    """Resume scenarios big enough to hold the wrong answers' producers: a failover table as
    long as the longest (grown by failovers from one entry), seqnos up to the largest."""
    entries = max(len(r.vector.producer.table) for r in wrong)
    seqnos = [
        s
        for r in wrong
        for s in (
            r.vector.producer.high_seqno,
            r.vector.request.snap_end,
            *(e.seqno for e in r.vector.producer.table),
        )
        if s <= MOST_SEQNOS
    ]
    return Bounds(
        seqnos=max([1, *seqnos]), keys=2, entries=max(2, entries), failovers=max(1, entries - 1)
    )


def _key(rules: RuleSet, result: VectorResult) -> tuple[int, ...]:
    """What a rule set reads of the vector's input (``checker.review.table.KEY``)."""
    space = DecisionSpace(len(result.vector.producer.table))
    fields = scanned(dict(space.fields), rules.table_scan)
    values = evaluate_many(
        substitute(list(KEY.values()), fields),
        space.assignment(result.vector.request, result.vector.producer),
    )
    return tuple(int(v) for v in values)


def _region(result: VectorResult) -> Region:
    expected, actual = result.expected, result.actual
    assert actual is not None
    a = Decision(expected.outcome, result.clause, expected.rollback_seqno)
    b = Decision(actual.outcome, "", actual.rollback_seqno)
    case_b = TARGET_CASES[0 if actual.outcome is Outcome.ACCEPT else 1]
    return Region(result.clause, case_b, change_of(a, b))


def judge(
    results: Sequence[VectorResult],
    rules: RuleSet,
    consumers: list[ConsumerVariant],
    budget: int | None = DIFF_BUDGET,
) -> list[VectorResult]:
    """``results`` with each wrong answer (status ``fail``) judged against ``rules``."""
    wrong = [r for r in results if r.status == "fail" and r.actual is not None]
    if not wrong:
        return list(results)
    bounds = judged_bounds(wrong)
    within = f"{bounds.describe()}, with {', '.join(c.name for c in consumers)}"
    verdicts: dict[int, Judgement] = {}
    answers: dict[tuple[int, ...], tuple[int, int]] = {}
    keyed: dict[int, tuple[int, ...]] = {}
    for n, r in enumerate(results):
        if r.status != "fail" or r.actual is None:
            continue
        if Outcome.ERANGE in (r.expected.outcome, r.actual.outcome):
            why = "not judged: the clause language cannot answer ERANGE to a request"
            verdicts[n] = Judgement("unjudged", why, r.property, within=within)
            continue
        key = _key(rules, r)
        answer = (
            ACCEPT_CODE if r.actual.outcome is Outcome.ACCEPT else ROLLBACK_CODE,
            r.actual.rollback_seqno or 0,
        )
        answers.setdefault(key, answer)
        keyed[n] = key
    torn = {k for n, k in keyed.items() if answers[k] != _answer(results[n])}
    for n, key in list(keyed.items()):
        if key in torn:
            why = (
                "not judged: the target answers inputs a rule set cannot tell apart "
                "differently (as review refuses them)"
            )
            verdicts[n] = Judgement("unjudged", why, results[n].property, within=within)
            del keyed[n]
    regions = {n: _region(results[n]) for n in keyed}
    by_region: dict[Region, RegionResult] = {}
    if keyed:
        keys = sorted({keyed[n] for n in keyed})
        overrides = Overrides(
            np.array(keys, dtype=np.uint64),
            np.array([answers[k][0] for k in keys], dtype=np.uint8),
            np.array([answers[k][1] for k in keys], dtype=np.uint64),
        )
        report = DiffReport(
            "rules", rules.name, "target", [c.name for c in consumers], bounds, None
        )
        wanted = list(dict.fromkeys(regions.values()))
        override = override_rules(rules, overrides)
        classify_rule_regions(
            report, rules, override, consumers, wanted, Budget(budget), len(wanted) + 1
        )
        by_region = {r.region: r for r in report.regions}
    for n, region in regions.items():
        verdicts[n] = _judgement(results[n], region, by_region.get(region), within)
    out = []
    for n, r in enumerate(results):
        judgement = verdicts.get(n)
        if judgement is not None and "bounded-rollback" in r.also_broken:
            judgement = Judgement(
                "safety",
                "breaks bounded-rollback: rolls back above the request's start",
                "bounded-rollback",
                judgement.region,
                within,
            )
        out.append(r if judgement is None else _with(r, judgement))
    return out


def _answer(result: VectorResult) -> tuple[int, int]:
    assert result.actual is not None
    code = ACCEPT_CODE if result.actual.outcome is Outcome.ACCEPT else ROLLBACK_CODE
    return code, result.actual.rollback_seqno or 0


def _with(result: VectorResult, judgement: Judgement) -> VectorResult:
    from dataclasses import replace

    return replace(result, judgement=judgement)


def _judgement(
    result: VectorResult, region: Region, found: RegionResult | None, within: str
) -> Judgement:
    label = region.label
    if found is None or found.classification is None:
        why = found.note if found is not None else "not classified"
        return Judgement("unjudged", f"not judged: {why}", result.property, label, within)
    if not any(e.reached for e in found.evidence):
        why = "no resume scenario within the bounds reaches this input"
        return Judgement("unjudged", f"not judged: {why}", result.property, label, within)
    if found.witness is not None and not found.witness.confirmed:
        why = f"the witness is not confirmed by the reference ({found.witness.detail})"
        return Judgement("unjudged", f"not judged: {why}", result.property, label, within)
    shown = found.classification.value
    if found.classification is Classification.SAFETY_REGRESSION:
        prop = found.witness.prop if found.witness is not None else result.property
        return Judgement("safety", f"breaks {prop} ({shown})", prop, label, within)
    if found.classification is Classification.COST_REGRESSION:
        how = (
            "rolls back deeper than needed"
            if region.change.depth == DEEPER
            else "rolls back where it need not"
        )
        return Judgement("cost", f"cost only: {how} ({shown})", "no-needless-rollback", label,
                         within)  # fmt: skip
    return Judgement("none", f"differs, no property broken ({shown})", "", label, within)
