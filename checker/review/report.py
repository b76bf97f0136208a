"""A review as ``Result``s (for ``emit``: JSON, JUnit, HTML, exit code) and as text.

One result per region: ``violated`` for a safety regression confirmed on
the target (its run is the target's run; its counterexample file, written by
``emit`` as every command's, records the scenario, BASE, the consumer, the
property and the target, and ``dcpcheck replay --target KIND:CMD FILE``
replays it: ``reproduction``), ``unknown`` when the judge could
not decide it or the target did not repeat its answers on replay, ``holds``
otherwise (a cost change, neutral, a fix). One ``unknown`` per kind of
problem the target had (crash, timeout, garbage): those inputs were not
learnt, so nothing is claimed about them. A target with no region and no
problem gets one ``holds``: equivalent to BASE within the bounds.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checker.confirm import PRODUCER_TARGET
from checker.corpus.scenario import counterexample_id, decisions_json, scenario_record
from checker.diff.classify import Classification
from checker.diff.report import PLURAL, answer_text, region_label, request_text
from checker.diff.report import long_form as region_long_form
from checker.diff.report import table as region_table
from checker.result import Replayed, Result, Stats, Verdict
from checker.review.findings import Review, Within
from spec.model.narrate import run_of
from spec.properties import PROPERTIES

__all__ = ["Reproduction", "reproductions", "results", "summary", "summary_json", "text"]

SAFETY = (Classification.SAFETY_REGRESSION, Classification.SAFETY_FIX)
# The counterexample id's rule-set part: the target answered, under no rule set's name.
TARGET_RULES = "target"


@dataclass(frozen=True)
class Reproduction:
    """A confirmed safety regression's counterexample file and the line replaying it."""

    ident: str
    path: Path
    command: str


def reproductions(review: Review, out: str | Path) -> dict[int, Reproduction]:
    """Region index -> its counterexample file in ``out`` and its ``dcpcheck replay
    --target`` line, for each safety regression confirmed on the target."""
    found = {}
    for n, region in enumerate(review.diff.regions if review.diff is not None else []):
        replayed, witness = review.confirmed.get(n), region.witness
        if region.classification is not Classification.SAFETY_REGRESSION:
            continue
        if replayed is None or not replayed.confirmed or witness is None:
            continue
        ident = counterexample_id(TARGET_RULES, witness.pair, witness.prop, witness.scenario)
        path = Path(out) / f"{ident}.json"
        words = ["dcpcheck", "replay", "--target", review.target, str(path)]
        found[n] = Reproduction(ident, path, shlex.join(words))
    return found


def results(
    review: Review,
    command: str,
    stats: Stats,
    out_dir: str | Path,
    sources: Mapping[str, str] = {},
) -> list[Result]:
    """``sources``: the user's files among BASE and the consumers, by name (what a
    counterexample file records to load them again)."""
    within = Within(review.space, review.bounds, review.humpty)
    target = review.target
    replays = reproductions(review, out_dir)

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
        label = f"{region_label(region)} ({inputs:,} inputs)"
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
            again = replays[n]
            found = result(
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
                ident=again.ident,
            )
            found = found.but(command=again.command)
            record = _record(review, n, found, witness.pair, inputs, command, sources)
            out.append(found.but(record=record))
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


def _record(
    review: Review,
    n: int,
    found: Result,
    consumer: str,
    inputs: int,
    review_command: str,
    sources: Mapping[str, str],
) -> dict[str, Any]:
    """The counterexample file of a confirmed regression: the single-node format
    (``checker.corpus.scenario``) with BASE as its rule set, the target's run as its trace
    and its decisions labelled with the target (no rule set gives them), plus the target
    (``producer_target``) and the review that found it."""
    trace = review.confirmed[n].trace
    assert trace is not None and review.diff is not None
    named = {"rules": review.base.name, "consumer": consumer}
    given = {k: sources[v] for k, v in named.items() if v in sources}
    as_check = found.but(subject=named, bounds=review.bounds, sources=given)
    record = scenario_record(as_check, found.ident, trace, found.explanation)
    record["decisions"] = decisions_json(trace, review.target, found.property)
    region = review.diff.regions[n]
    return record | {
        PRODUCER_TARGET: review.target,
        "review": {
            "command": review_command,
            "region": region_label(region),
            "classification": region.shown,
            "inputs": inputs,
            "space": review.space.to_json(),
            "humpty_only": review.humpty,
        },
    }


def text(review: Review, replays: Mapping[int, Reproduction] = {}) -> list[str]:
    """The review for people: what was learnt, the regions, each region's long form."""
    learnt = review.learnt
    answered = learnt.asked - learnt.unanswered
    learning = (
        f"asked {learnt.asked:,} inputs in {learnt.parts} parts, {answered:,} answered"
        if learnt.problems
        else f"learnt {learnt.asked:,} inputs in {learnt.parts} parts"
    )
    lines = [
        f"review of {review.target} against {review.base.name} (A = {review.base.name}, "
        "B = the target)",
        f"{learning}: {review.asked_space()}",
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
        return [*lines, summary(review)]
    if not learnt.counts:
        if answered == 0:
            lines.append(
                f"nothing was compared with {review.base.name}: the target answered none of "
                "the inputs asked; nothing is claimed"
            )
        elif learnt.problems:
            lines.append(
                f"the {answered:,} inputs answered are answered as {review.base.name}; "
                f"nothing is claimed about the {learnt.unanswered:,} not answered"
            )
        else:
            lines.append(f"no input answered differently from {review.base.name}")
        return [*lines, summary(review)]
    diff = review.diff
    assert diff is not None
    regions = len(learnt.counts)
    lines.append(
        f"{regions} region{'' if regions == 1 else 's'}, {learnt.differing:,} inputs where "
        "the target answers "
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
        again = replays.get(n - 1)
        if again is not None:
            body.insert(-1, f"    counterexample: {again.path}")
            body.insert(-1, f"    reproduce: {again.command}")
        lines += body
    lines.append(summary(review))
    return [line.rstrip() for line in lines]


def summary(review: Review) -> str:
    """The last line, as ``dcpcheck diff`` ends: the regions by classification (unknown:
    not judged), the inputs the target did not answer, the time."""
    learnt, diff = review.learnt, review.diff
    if review.equivalent:
        counts = [f"equivalent to {review.base.name} on all {learnt.asked:,} inputs"]
    elif diff is not None:
        counts = [f"{PLURAL[c]} {diff.count(c)}" for c in PLURAL if diff.count(c) or c is not None]
    else:
        counts = ["no region" if learnt.asked > learnt.unanswered else "nothing compared"]
    if learnt.problems:
        counts.append(f"{learnt.unanswered:,} of {learnt.asked:,} inputs not answered")
    return f"summary: {', '.join(counts)} ({sum(review.seconds.values()):.1f}s)"


def summary_json(review: Review) -> dict[str, Any]:
    learnt = review.learnt
    diff = review.diff
    regions = []
    for n, region in enumerate(diff.regions if diff is not None else []):
        replayed = review.confirmed.get(n)
        ex = region.example
        regions.append(
            {
                "label": region_label(region),
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
