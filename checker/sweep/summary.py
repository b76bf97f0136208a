"""What a sweep found: inputs per rule set and clause, inputs per region, and the cross-check.

``summarise`` turns the tally the executors counted into a ``SweepSummary``
and checks it: every rule set decided every input once, and the first input
of each clause and of each region, decided again one at a time by
``Decider`` (the compiled concrete interpretation, not the vectorised one),
lands in that clause or region. ``text`` and ``summary_json`` print it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tabulate import tabulate

from checker.columns.decisions import region_table
from checker.diff.decisions import DecisionExample
from checker.diff.regions import Region, change_of
from checker.diff.report import answer_text, decide_command, example_json, request_text
from checker.sweep.crosscheck import Agreement, CrossCheck
from checker.sweep.space import SweepSpace
from spec.errors import EXIT_INTERNAL, EXIT_OK, EXIT_UNKNOWN, HarnessBug
from spec.rules.inputs import Decider
from spec.rules.language import RuleSet
from spec.types import Decision, ProducerState, StreamRequest

__all__ = ["ClauseCount", "RegionCount", "SweepSummary", "summarise", "summary_json", "text"]


@dataclass(frozen=True)
class ClauseCount:
    rules: str
    clause: str
    decision: str
    inputs: int
    first: int  # index of the first input decided by this clause


@dataclass(frozen=True)
class RegionCount:
    a: str
    b: str
    region: Region
    inputs: int
    example: DecisionExample  # the first input in the region, and both answers
    first: int


@dataclass
class SweepSummary:
    space: SweepSpace
    rules: list[str]
    parts: int
    clauses: list[ClauseCount]
    regions: list[RegionCount]
    specs: dict[str, str] = field(default_factory=dict)  # rule set -> as given (name or file)
    dataset: str = ""
    seconds: float = 0.0
    crosscheck: CrossCheck | None = None  # None: fewer than two rule sets
    notes: list[str] = field(default_factory=list)

    @property
    def decisions(self) -> int:
        return self.space.size * len(self.rules)

    def found(self) -> dict[tuple[str, str], set[Region]]:
        found: dict[tuple[str, str], set[Region]] = {}
        for r in self.regions:
            found.setdefault((r.a, r.b), set()).add(r.region)
        return found

    @property
    def exit_code(self) -> int:
        if self.crosscheck is None or self.crosscheck.agreement is Agreement.AGREE:
            return EXIT_OK
        if self.crosscheck.agreement is Agreement.MISMATCH:
            return EXIT_INTERNAL
        return EXIT_UNKNOWN


def summarise(
    space: SweepSpace, rule_sets: list[RuleSet], parts: int, rows: list[Any]
) -> SweepSummary:
    """``rows``: the reduced tally (``kind``, ``subject``, ``code``, ``inputs``, ``first``)."""
    deciders = [Decider(r) for r in rule_sets]
    clauses, regions = [], []
    pairs = [(i, j) for i in range(len(rule_sets)) for j in range(i + 1, len(rule_sets))]
    for row in sorted(rows, key=lambda r: (r.kind, r.subject, r.code)):
        if row.kind == "clause":
            rules = rule_sets[row.subject]
            clause = rules.case_names[row.code]
            request, producer = _input(space, row.first)
            decided = deciders[row.subject].decide(request, producer)
            if decided.case != clause:
                raise HarnessBug(
                    f"{rules.name}: input #{row.first} ({request} with {producer}) is decided by "
                    f"{clause} in the sweep and by {decided.case} in Decider"
                )
            clauses.append(
                ClauseCount(rules.name, clause, decided.outcome.value, row.inputs, row.first)
            )
        else:
            i, j = pairs[row.subject]
            region = region_table(rule_sets[i], rule_sets[j])[row.code]
            request, producer = _input(space, row.first)
            da = deciders[i].decide(request, producer)
            db = deciders[j].decide(request, producer)
            if (da.case, db.case, change_of(da, db)) != (
                region.case_a,
                region.case_b,
                region.change,
            ):
                raise HarnessBug(
                    f"input #{row.first} ({request} with {producer}) is in region "
                    f"{region.label} in the sweep, but Decider answers {da.case} and {db.case}"
                )
            example = DecisionExample(request, producer, da, db)
            regions.append(
                RegionCount(
                    rule_sets[i].name, rule_sets[j].name, region, row.inputs, example, row.first
                )
            )
    for rules in rule_sets:
        total = sum(c.inputs for c in clauses if c.rules == rules.name)
        if total != space.size:
            raise HarnessBug(f"{rules.name} decided {total:,} inputs of {space.size:,}")
    return SweepSummary(space, [r.name for r in rule_sets], parts, clauses, regions)


def _input(space: SweepSpace, index: int) -> tuple[StreamRequest, ProducerState]:
    return next(space.inputs(index, index + 1))


# -- printing -------------------------------------------------------------------------


def text(summary: SweepSummary) -> list[str]:
    s = summary
    lines = [
        f"sweep: {s.space.size:,} inputs ({s.space.describe()}) x {len(s.rules)} rule "
        f"set{'s' if len(s.rules) != 1 else ''} = {s.decisions:,} decisions in "
        f"{s.seconds:.1f}s ({s.parts} parts) -> {s.dataset}",
        "",
    ]
    rows = [
        [c.rules, c.clause, c.decision, f"{c.inputs:,}", f"{100 * c.inputs / s.space.size:.1f}%"]
        for c in s.clauses
    ]
    lines += tabulate(rows, headers=["rules", "clause", "decision", "inputs", "share"]).split("\n")
    for a, b in _pairs(s.rules):
        mine = [r for r in s.regions if (r.a, r.b) == (a, b)]
        lines.append("")
        if not mine:
            lines.append(f"{a} vs {b}: the same answer to every input")
            continue
        total = sum(r.inputs for r in mine)
        lines.append(
            f"{a} (A) vs {b} (B): {total:,} inputs answered differently, in "
            f"{len(mine)} region{'s' if len(mine) != 1 else ''}"
        )
        for r in mine:
            ex = r.example
            lines += [
                f"  {r.region.label}: {r.inputs:,} inputs; the first, #{r.first}:",
                f"    request {request_text(ex.request)}; producer {_producer(ex.producer)}",
                f"    A: {_answer(ex.decision_a)}; B: {_answer(ex.decision_b)}",
                f"    decide (A): {decide_command(ex, s.specs.get(a, a))}",
                f"    decide (B): {decide_command(ex, s.specs.get(b, b))}",
            ]
    if s.crosscheck is not None:
        lines += ["", *_crosscheck_lines(s)]
    lines += s.notes
    return [line.rstrip() for line in lines]


def _producer(p: ProducerState) -> str:
    table = ", ".join(f"{e.uuid}@{e.seqno}" for e in p.table.entries)
    return f"table [{table}] high {p.high_seqno} purge {p.purge_seqno}"


def _answer(d: Decision) -> str:
    return f"{answer_text(d)} ({d.case})"


def _crosscheck_lines(s: SweepSummary) -> list[str]:
    check = s.crosscheck
    assert check is not None
    lines = [
        f"cross-check with dcpcheck diff (tables of <= {s.space.entries} entries): "
        f"{check.agreement.value} ({check.seconds:.1f}s)"
    ]
    for pair in check.pairs:
        in_diff = [r for r in pair.regions if r.in_diff]
        reachable = [r for r in in_diff if r.within_bounds]
        lines.append(
            f"  {pair.a} vs {pair.b}: {pair.agreement.value}: diff reports {len(in_diff)} "
            f"region{'s' if len(in_diff) != 1 else ''}, {len(reachable)} with inputs within "
            f"the bounds; the sweep found {sum(r.in_sweep for r in pair.regions)}"
        )
        for r in pair.regions:
            if r.problem:
                lines.append(f"    MISMATCH {r.region.label}: {r.problem}")
                if r.witness is not None:
                    request, producer = r.witness
                    lines.append(
                        f"      Z3's input: request {request_text(request)}; producer "
                        f"{_producer(producer)}"
                    )
            elif r.in_diff and not r.within_bounds and r.within_bounds is not None:
                lines.append(f"    {r.region.label}: no input within the bounds (Z3)")
        if pair.note:
            lines.append(f"    unknown: {pair.note}")
    return lines


def _pairs(names: list[str]) -> list[tuple[str, str]]:
    return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


def summary_json(s: SweepSummary) -> dict[str, Any]:
    out: dict[str, Any] = {
        "space": s.space.to_json(),
        "rules": s.rules,
        "decisions": s.decisions,
        "parts": s.parts,
        "dataset": s.dataset,
        "seconds": round(s.seconds, 3),
        "clauses": [
            {
                "rules": c.rules,
                "clause": c.clause,
                "decision": c.decision,
                "inputs": c.inputs,
                "first": c.first,
            }
            for c in s.clauses
        ],
        "regions": [
            {
                "a": r.a,
                "b": r.b,
                "case_a": r.region.case_a,
                "case_b": r.region.case_b,
                "change": r.region.change.name,
                "label": r.region.label,
                "inputs": r.inputs,
                "first": r.first,
                "example": example_json(r.example),
            }
            for r in s.regions
        ],
        "crosscheck": None,
        "exit_code": s.exit_code,
    }
    if s.crosscheck is not None:
        out["crosscheck"] = {
            "agreement": s.crosscheck.agreement.value,
            "seconds": round(s.crosscheck.seconds, 3),
            "pairs": [
                {
                    "a": p.a,
                    "b": p.b,
                    "agreement": p.agreement.value,
                    "note": p.note,
                    "regions": [
                        {
                            "label": r.region.label,
                            "in_diff": r.in_diff,
                            "in_sweep": r.in_sweep,
                            "within_bounds": r.within_bounds,
                            "problem": r.problem,
                        }
                        for r in p.regions
                    ],
                }
                for p in s.crosscheck.pairs
            ],
        }
    return out
