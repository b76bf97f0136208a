"""A diff for people (a table, then one paragraph per region) and for machines (JSON)."""

from __future__ import annotations

import json
import shlex
from itertools import takewhile
from typing import Any

from tabulate import tabulate

from checker.corpus.scenario import scenario_to_json, trace_to_json
from checker.diff.classify import Classification, Witness
from checker.diff.decisions import DecisionExample
from checker.diff.engine import DiffReport, RegionResult
from spec.failover_table import UINT64_MAX
from spec.model.narrate import run_of
from spec.properties import PROPERTIES
from spec.trace import Trace
from spec.types import Decision, Outcome, StreamRequest

__all__ = [
    "answer_text",
    "change_text",
    "decide_command",
    "example_json",
    "long_form",
    "region_label",
    "report_json",
    "request_text",
    "summary",
    "table",
    "text",
]

PLURAL: dict[Classification | None, str] = {
    Classification.SAFETY_REGRESSION: "safety regressions",
    Classification.SAFETY_FIX: "safety fixes",
    Classification.COST_REGRESSION: "cost regressions",
    Classification.COST_IMPROVEMENT: "cost improvements",
    Classification.NEUTRAL: "neutral",
    None: "unknown",
}


def _headline(report: DiffReport) -> list[str]:
    a, b = report.name_a, report.name_b
    if report.subject == "rules":
        space = (
            f"every stream request, against every producer whose failover table has at most "
            f"{report.table_entries} entries"
        )
        scope = (
            f"classified with consumer{'s' if len(report.context) > 1 else ''} "
            f"{', '.join(report.context)} in scenarios within {report.bounds.describe()}"
        )
        lines = [f"diff of rule sets: A = {a} (base), B = {b} (candidate)"]
    else:
        space = f"every scenario within {report.bounds.describe()}"
        scope = f"under rule set {report.context[0]}"
        lines = [f"diff of consumer variants: A = {a} (base), B = {b} (candidate) ({scope})"]
    longer = (
        " (nor with a failover table of any length, if no older entry repeats the newest uuid)"
        if report.any_length
        else ""
    )
    if report.equivalent:
        lines.append(f"equivalent: Z3 proved that A and B never differ, over {space}{longer}")
    elif report.complete:
        n = len(report.regions)
        what = "answer" if report.subject == "rules" else "run"
        lines.append(
            f"{n} region{'s' if n != 1 else ''} where A and B {what} differently, over {space}; "
            f"Z3 proved there are no others{longer}"
        )
    else:
        n = len(report.regions)
        lines.append(
            f"{n} region{'s' if n != 1 else ''} found over {space}, the search is INCOMPLETE: "
            f"{report.note}"
        )
    if report.subject == "rules" and report.regions:
        lines.append(scope)
    return lines


def change_text(r: RegionResult) -> str:
    """How the answer changed, in words: the change's name, except that a rollback above the
    request's start (no rollback at all: 2^64-1, say, a snap_start - 1 that wrapped) is
    called that rather than "rollback shallower" (the region's example shows it)."""
    change, ex = r.region.change, r.example
    if ex is None or ex.decision_b.outcome is not Outcome.ROLLBACK:
        return change.name
    if (ex.decision_b.rollback_seqno or 0) <= ex.request.start:
        return change.name
    if change.before is Outcome.ROLLBACK:
        return "rollback above start"
    return f"{change.before.value} -> rollback above start"


def region_label(r: RegionResult) -> str:
    """The region as the text names it: its two clauses and how the answer changed
    (``change_text``), and the clause it went through."""
    region = r.region
    text = f"{region.case_a} -> {region.case_b} ({change_text(r)})"
    return f"{text} via {region.via}" if region.via else text


def table(report: DiffReport) -> str:
    rows = []
    for n, r in enumerate(report.regions, start=1):
        reached = [e.pair for e in r.evidence if e.reached]
        rows.append(
            [
                n,
                r.region.case_a,
                r.region.case_b,
                change_text(r),
                r.region.via or "-",
                r.shown + (" (unsafe consumers only)" if r.fix_only_for_unsafe else ""),
                ", ".join(reached) or ("none" if r.classification is not None else "-"),
            ]
        )
    headers = ["#", f"A: {report.name_a}", f"B: {report.name_b}", "change", "via"]
    headers += ["verdict", "reached by"]
    if report.subject == "consumers":  # every region was found in a scenario; no facets
        headers = ["#", f"A's clause ({report.name_a})", f"B's clause ({report.name_b})"]
        headers += ["change", "verdict"]
        rows = [row[:4] + row[5:6] for row in rows]
    return tabulate(rows, headers=headers)


def summary(report: DiffReport) -> str:
    counts = [f"{PLURAL[c]} {report.count(c)}" for c in PLURAL if report.count(c) or c is not None]
    unreached = sum(
        r.classification is not None and not any(e.reached for e in r.evidence)
        for r in report.regions
    )  # a region never classified (Ctrl-C) is unknown, not unreached
    text = ", ".join(counts)
    if unreached:
        text += f" ({unreached} not reached by these consumers)"
    spent = f"{report.units / 1e6:,.1f}M Z3 units"
    return f"summary: {text} ({report.seconds:.1f}s, {spent})"


def text(report: DiffReport, rules_args: tuple[str, str] | None = None) -> list[str]:
    lines = _headline(report)
    if report.interrupted:
        lines.append("interrupted (Ctrl-C): the regions not classified are unknown")
    if report.regions:
        lines += ["", table(report), ""]
        for n, r in enumerate(report.regions, start=1):
            lines += long_form(n, r, report, rules_args)
        lines.append(summary(report))
    return [line.rstrip() for line in lines]


def long_form(
    n: int, r: RegionResult, report: DiffReport, rules_args: tuple[str, str] | None = None
) -> list[str]:
    lines = [f"region {n}: {region_label(r)}: {r.shown}"]
    body: list[str] = []
    if r.region.via:
        body.append(
            f"exists only because of the request's {r.region.via}: leave it unused and the "
            "request leaves the region"
        )
    if r.example is not None:
        body += _example(r.example, report, rules_args)
    if r.note:
        body.append(r.note)
    for e in r.evidence:
        if e.regressions:
            body.append(f"{e.pair}: B violates {', '.join(e.regressions)} where A does not")
        if e.fixes:
            body.append(f"{e.pair}: A violates {', '.join(e.fixes)} where B does not")
    if r.fix_only_for_unsafe:
        unsafe = ", ".join(e.pair for e in r.evidence if e.fixes)
        body.append(
            f"only {unsafe} shows this fix, and B leaves {unsafe} unsafe anyway (it violates a "
            "safety property elsewhere within the bounds): B changes how an unsafe consumer "
            "fails here, which is no evidence that B is safer for a correct one"
        )
    if r.witness is not None:
        body += _witness(r.witness, report)
        cost = (Classification.COST_REGRESSION, Classification.COST_IMPROVEMENT)
        if r.classification in cost and not r.witness.prop:
            further = (
                "more or deeper"
                if r.classification is Classification.COST_REGRESSION
                else "less or shallower"
            )
            body.append(
                f"a {r.shown} by the answer alone: B rolls back {further} here "
                f"({r.region.change.name}); no-needless-rollback does not tell the runs apart "
                "(in every scenario within the bounds, both rollbacks are needless or neither is)"
            )
    elif r.classification is not None and any(e.reached for e in r.evidence):
        body.append("no safety difference in any scenario within the bounds")
    return lines + ["    " + line for line in body] + [""]


def answer_text(d: Decision) -> str:
    if d.outcome is Outcome.ROLLBACK:
        return f"ROLLBACK to {d.rollback_seqno}"
    return "OK" if d.outcome is Outcome.ACCEPT else "ERANGE"


def request_text(req: StreamRequest) -> str:
    text = f"uuid {req.uuid} snapshot {{{req.snap_start},{req.snap_end}}} start {req.start}"
    extras = [
        "strict" if req.strict else "",
        "ignore-purged" if req.ignore_purged else "",
        f"remote-purge {req.remote_purge}" if req.remote_purge else "",
        f"collection-high {req.collection_high}" if req.collection_high is not None else "",
        f"end {req.end}" if req.end != UINT64_MAX else "",
    ]
    return " ".join([text, *(x for x in extras if x)])


def _example(ex: DecisionExample, report: DiffReport, args: tuple[str, str] | None) -> list[str]:
    p = ex.producer
    table_text = ", ".join(f"{e.uuid}@{e.seqno}" for e in p.table.entries)
    width = max(len(report.name_a), len(report.name_b)) + 1
    lines = [
        f"request {request_text(ex.request)}; producer table [{table_text}] "
        f"high {p.high_seqno} purge {p.purge_seqno}",
    ]
    for name, d in ((report.name_a, ex.decision_a), (report.name_b, ex.decision_b)):
        reason = f": {d.reason}" if d.reason else ""
        above = (
            f", above the request's start {ex.request.start}: bounded-rollback breaks"
            if d.outcome is Outcome.ROLLBACK and (d.rollback_seqno or 0) > ex.request.start
            else ""
        )
        lines.append(f"{name + ':':<{width}} {answer_text(d)} ({d.case}{reason}{above})")
    for rules in args or (report.name_a, report.name_b):
        lines.append(f"decide: {decide_command(ex, rules)}")
    return lines


def decide_command(ex: DecisionExample, rules: str) -> str:
    """A shell line (bash) that asks ``dcpcheck decide`` the example's question."""
    req, p = ex.request, ex.producer
    table_json = json.dumps([e.to_json() for e in p.table.entries], separators=(",", ":"))
    words = ["dcpcheck", "decide", f"<(echo {shlex.quote(table_json)})"]
    words += [str(p.high_seqno), str(p.purge_seqno), "--rules", shlex.quote(rules)]
    if req.strict:
        words.append("--strict")
    if req.ignore_purged:
        words.append("--ignore-purged")
    if req.remote_purge:
        words += ["--remote-purge", str(req.remote_purge)]
    if req.collection_high is not None:
        words += ["--collection-high", str(req.collection_high)]
    if req.end != UINT64_MAX:
        words += ["--end", str(req.end)]
    line = f"{req.uuid} {req.snap_start} {req.snap_end} {req.start}"
    return f'echo "{line}" | ' + " ".join(words)


def _run(name: str, trace: Trace | None) -> list[str]:
    if trace is None:
        return [f"under {name}: not replayed"]
    steps = [
        f"{request_text(r.request)} -> {answer_text(r.decision)} ({r.decision.case})"
        for r in trace.rounds
    ]
    end = "stream runs" if trace.accepted else "no stream"
    return [f"under {name}: " + "; then ".join(steps) + f"; {end}"]


def _witness(w: Witness, report: DiffReport) -> list[str]:
    status = "confirmed on the reference" if w.confirmed else "NOT CONFIRMED: " + w.detail
    where = f"the runs part in round {w.round}"
    claim = f"{w.claim}; {where}" if w.prop else where
    lines = [f"witness ({w.pair}, {status}): {claim}"]
    if w.trace_b is not None:
        run = run_of(w.trace_b)
        before = takewhile(lambda s: s.name != "StreamRequest", run.steps)
        scenario = [*run.init_lines, *(s.narration for s in before if s.narration)]
        lines += ["  " + s for s in scenario]
    lines += ["  " + s for s in _run(f"A ({report.name_a})", w.trace_a)]
    lines += ["  " + s for s in _run(f"B ({report.name_b})", w.trace_b)]
    if w.prop and w.culprit_trace is not None:
        explanation = PROPERTIES.get(w.prop).explain(w.culprit_trace, report.bounds)
        lines.append(f"  {w.prop}: {explanation}")
    return lines


# -- JSON -----------------------------------------------------------------------------


def report_json(report: DiffReport) -> dict[str, Any]:
    return {
        "subject": report.subject,
        "a": report.name_a,
        "b": report.name_b,
        "context": report.context,
        "bounds": report.bounds.to_json(),
        "table_entries": report.table_entries,
        "complete": report.complete,
        "any_table_length": report.any_length,
        "equivalent": report.equivalent,
        "note": report.note or None,
        "seconds": round(report.seconds, 3),
        "budget": report.units,
        "interrupted": report.interrupted,
        "summary": {(c.value if c else "unknown"): report.count(c) for c in PLURAL},
        "regions": [_region_json(r) for r in report.regions],
    }


def _region_json(r: RegionResult) -> dict[str, Any]:
    return {
        "case_a": r.region.case_a,
        "case_b": r.region.case_b,
        "change": r.region.change.name,
        "change_shown": change_text(r),  # "rollback above start" where the example is
        "via": r.region.via or None,
        "verdict": r.verdict.value,
        "classification": r.shown,
        "fix_only_for_unsafe": r.fix_only_for_unsafe,
        "note": r.note or None,
        "example": None if r.example is None else example_json(r.example),
        "evidence": [
            {
                "consumer": e.pair,
                "reached": e.reached,
                "regressions": e.regressions,
                "fixes": e.fixes,
                "needless_a": e.needless_a,
                "needless_b": e.needless_b,
                "unknown": e.unknown,
            }
            for e in r.evidence
        ],
        "witness": None if r.witness is None else _witness_json(r.witness),
    }


def example_json(ex: DecisionExample) -> dict[str, Any]:
    return {
        "request": ex.request.to_json(),
        "producer": {
            "table": ex.producer.table.to_json(),
            "high_seqno": ex.producer.high_seqno,
            "purge_seqno": ex.producer.purge_seqno,
        },
        "decision_a": ex.decision_a.to_json(),
        "decision_b": ex.decision_b.to_json(),
    }


def _witness_json(w: Witness) -> dict[str, Any]:
    return {
        "claim": w.claim,
        "consumer": w.pair,
        "confirmed": w.confirmed,
        "detail": w.detail or None,
        "round": w.round,
        "size": w.size or None,
        "scenario": scenario_to_json(w.scenario),
        "trace_a": None if w.trace_a is None else trace_to_json(w.trace_a),
        "trace_b": None if w.trace_b is None else trace_to_json(w.trace_b),
    }
