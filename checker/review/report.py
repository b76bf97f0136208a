"""A review as ``Result``s (for ``emit``: JSON, JUnit, HTML, exit code) and as text.

One result per region: ``violated`` for a safety regression confirmed on
the target (its run is the target's run), ``unknown`` when the judge could
not decide it or the target did not repeat its answers on replay, ``holds``
otherwise (a cost change, neutral, a fix). One ``unknown`` per kind of
problem the target had (crash, timeout, garbage): those inputs were not
learnt, so nothing is claimed about them. A target with no region and no
problem gets one ``holds``: equivalent to BASE within the bounds.
"""

from __future__ import annotations

from typing import Any

from checker.diff.classify import Classification
from checker.diff.report import answer_text, request_text
from checker.diff.report import long_form as region_long_form
from checker.diff.report import table as region_table
from checker.result import Replayed, Result, Stats, Verdict
from checker.review.review import Review, Within
from spec.model.narrate import run_of
from spec.properties import PROPERTIES

__all__ = ["results", "summary_json", "text"]

SAFETY = (Classification.SAFETY_REGRESSION, Classification.SAFETY_FIX)


def results(review: Review, command: str, stats: Stats) -> list[Result]:
    within = Within(review.space, review.bounds, review.humpty)
    target = review.target

    def result(region: str, prop: str, kind: str, verdict: Verdict, **more: Any) -> Result:
        subject = {"target": target, "region": region}
        return Result(
            "scenario",
            subject,
            prop,
            kind,
            verdict,
            within,
            "review",
            command=command,
            stats=stats,
            context={"rules": review.base.name},
            **more,
        )

    out: list[Result] = []
    if review.equivalent:
        note = f"the target answers as {review.base.name} on all {review.learnt.asked:,} inputs"
        out.append(result("-", "same-answers", "safety", Verdict.HOLDS, note=note))
    for p in review.learnt.problems:
        reason = (
            f"the target's {p.kind} on {p.inputs:,} inputs (first: input {p.first}: {p.detail})"
        )
        out.append(result(f"{p.kind}s", "answers", "safety", Verdict.UNKNOWN, reason=reason))
    diff = review.diff
    for n, region in enumerate(diff.regions if diff is not None else []):
        inputs = review.counts[n][0] if n < len(review.counts) else 0
        kind = "safety" if region.classification in SAFETY else "cost"
        witness = region.witness
        prop = witness.prop if witness is not None and witness.prop else "-"
        label = f"{region.region.label} ({inputs:,} inputs)"
        if region.classification is None:
            out.append(result(label, prop, kind, Verdict.UNKNOWN, reason=region.note))
            continue
        replayed = review.confirmed.get(n)
        shown = region.classification.value
        if region.classification is Classification.SAFETY_REGRESSION:
            if replayed is None or not replayed.confirmed or witness is None:
                why = replayed.detail if replayed is not None else "no witness to replay"
                reason = f"{shown}, not confirmed on TARGET: {why}"
                out.append(result(label, prop, kind, Verdict.UNKNOWN, reason=reason))
                continue
            trace = replayed.trace
            assert trace is not None
            out.append(
                result(
                    label,
                    prop,
                    kind,
                    Verdict.VIOLATED,
                    run=run_of(trace),
                    replay=Replayed(True, f"confirmed on {target}"),
                    explanation=PROPERTIES.get(prop).explain(trace, review.bounds),
                    witness=witness.scenario,
                    size=witness.size,
                    note=shown,
                )
            )
            continue
        note = shown
        if replayed is not None:
            note += (
                " (witness confirmed on TARGET)"
                if replayed.confirmed
                else (f" (witness not confirmed on TARGET: {replayed.detail})")
            )
        out.append(result(label, prop, kind, Verdict.HOLDS, note=note))
    return out


def text(review: Review) -> list[str]:
    """The review for people: what was learnt, the regions, each region's long form."""
    learnt = review.learnt
    lines = [
        f"review of {review.target} against {review.base.name} (A = {review.base.name}, "
        "B = the target)",
        f"learnt {learnt.asked:,} inputs in {learnt.parts} parts: {review.asked_space()}",
    ]
    if review.humpty:
        lines.append(
            "  (other requests were not asked: humpty_dumpty cannot express them; the judge "
            f"takes {review.base.name}'s answers there)"
        )
    for p in learnt.problems:
        lines.append(
            f"NO ANSWER ({p.kind}) on {p.inputs:,} inputs; first: input {p.first}: {p.detail}"
        )
    if review.equivalent:
        lines.append(
            f"equivalent within the bounds: the target answers as {review.base.name} on every "
            f"input asked ({review.space.describe()}); nothing is claimed beyond them"
        )
        return lines
    if not learnt.counts:
        lines.append(f"no input answered differently from {review.base.name}")
        return lines
    diff = review.diff
    assert diff is not None
    lines.append(
        f"{len(learnt.counts)} regions, {learnt.differing:,} inputs where the target answers "
        f"differently from {review.base.name}; judged with "
        f"{', '.join(diff.context)} in scenarios within {review.bounds.describe()}"
    )
    if review.conflicts:
        a, b = review.conflicts[0]
        lines.append(
            f"NOT A RULE SET: inputs {a} and {b} read the same to a rule set and the target "
            "answers them differently; the regions are not judged"
        )
    counts = [f"{inputs:,}" for inputs, _ in review.counts]
    table = region_table(diff).splitlines()
    lines += ["", f"{'inputs':>10}  {table[0]}", f"{'':->10}  {table[1]}"]
    lines += [f"{c:>10}  {row}" for c, row in zip(counts, table[2:], strict=True)]
    lines.append("")
    for n, region in enumerate(diff.regions, start=1):
        body = [  # the target is not a rule set dcpcheck decide can name
            line for line in region_long_form(n, region, diff) if "--rules target" not in line
        ]
        replayed = review.confirmed.get(n - 1)
        if replayed is not None:
            status = (
                f"confirmed on TARGET ({replayed.asked} decisions asked to the target)"
                if replayed.confirmed
                else f"NOT confirmed on TARGET: {replayed.detail}"
            )
            body.insert(-1, f"    witness replayed with the target answering: {status}")
        lines += body
    return [line.rstrip() for line in lines]


def summary_json(review: Review) -> dict[str, Any]:
    learnt = review.learnt
    diff = review.diff
    regions = []
    for n, region in enumerate(diff.regions if diff is not None else []):
        replayed = review.confirmed.get(n)
        ex = region.example
        regions.append(
            {
                "label": region.region.label,
                "clause": region.region.case_a,
                "change": region.region.change.name,
                "inputs": review.counts[n][0],
                "first": review.counts[n][1],
                "example": None
                if ex is None
                else {
                    "request": request_text(ex.request),
                    "table": ex.producer.table.to_json(),
                    "high_seqno": ex.producer.high_seqno,
                    "purge_seqno": ex.producer.purge_seqno,
                    "base": answer_text(ex.decision_a),
                    "target": answer_text(ex.decision_b),
                },
                "classification": region.shown,
                "confirmed_on_target": None if replayed is None else replayed.confirmed,
            }
        )
    return {
        "target": review.target,
        "rules": review.base.name,
        "space": review.space.to_json(),
        "humpty_only": review.humpty,
        "asked": learnt.asked,
        "parts": learnt.parts,
        "differing": learnt.differing,
        "problems": [p.__dict__ for p in learnt.problems],
        "regions": regions,
        "equivalent": review.equivalent,
        "seconds": {k: round(v, 3) for k, v in review.seconds.items()},
    }
