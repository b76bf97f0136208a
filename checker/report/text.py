"""Results for people and machines: one-line form, long form, summary table, JSON, exit codes.

Every function reads ``checker.result.Result`` only, so the same code
reports single-node checks and durability checks, whichever engine ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabulate import tabulate

from checker.result import Result, Verdict
from spec.cluster.protocol import Expectation
from spec.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION

__all__ = [
    "exit_code",
    "exit_code_against_expected",
    "long_form",
    "narrative",
    "one_line",
    "result_json",
    "shows_run",
    "summary_table",
    "units",
]


def units(count: int | None) -> str:
    """Z3 resource units, in millions as ``--budget`` takes them."""
    return "-" if count is None else f"{count / 1e6:,.1f}M"


def _size(r: Result) -> str:
    parts = [] if r.stats.states is None else [f"{r.stats.states:,} states"]
    if r.stats.budget is not None:
        parts.append(f"{units(r.stats.budget)} units")
    if r.stats.cubes is not None:
        parts.append(f"{r.stats.cubes} cubes")
    return ", ".join([*parts, f"{r.seconds:.2f}s"])


def one_line(r: Result, path: Path | None = None) -> str:
    head = f"{r.label}: {r.property}: {r.verdict.value}"
    if r.verdict is Verdict.UNKNOWN:
        if r.interrupted and not r.seconds:
            return f"{head} (interrupted before it ran; nothing is claimed)"
        return f"{head} ({r.reason} after {_size(r)}; nothing is claimed)"
    steps = f" in {len(r.run)} steps ({_size(r)})" if r.run is not None and r.run.numbered else ""
    if r.expectation == Expectation.SOMETIMES:
        if r.verdict is Verdict.HOLDS:
            return f"{head}: example{steps}: {r.explanation}"
        return f"{head}: no reachable state within {r.bounds.describe()} ({_size(r)})"
    if r.verdict is Verdict.HOLDS:
        text = f"{head} within {r.bounds.describe()} ({_size(r)})"
        if r.vacuous:
            text += " -- VACUOUS: no SyncWrite is ever acknowledged within these bounds"
        return text
    status = "not replayed" if r.replay is None else r.replay.status
    text = f"{head} ({status.replace('not-confirmed', 'NOT CONFIRMED')}){steps}: {r.explanation}"
    if r.also_by:
        text += (
            f" -- {r.also_by} gets this too under the same rules and bounds: it comes from "
            "the rule set, not from this consumer"
        )
    if r.replay is not None and r.harness_bug:
        text += f" -- HARNESS BUG: {r.replay.detail}"
    if path is not None:
        text += f" [{path}]"
    return text


def narrative(r: Result) -> list[str]:
    """The run in words: the start state, each told step (numbered if the model's runs
    read that way), the end state."""
    run = r.run
    if run is None:
        return []
    lines = list(run.init_lines)
    told = [(n, s) for n, s in enumerate(run.steps, start=1) if s.narration]
    for n, step in told:
        lines.append(f"{n:3}. {step.label}: {step.narration}" if run.numbered else step.narration)
    return lines + list(run.end_lines)


def shows_run(r: Result) -> bool:
    """Whether the long form has a run to tell: a violation, or a *sometimes* example."""
    if r.run is None:
        return False
    if r.expectation == Expectation.SOMETIMES:
        return r.verdict is Verdict.HOLDS and bool(r.run.steps)
    return r.verdict is Verdict.VIOLATED


def long_form(r: Result) -> list[str]:
    lines = narrative(r) if shows_run(r) else []
    if r.replay is not None and r.replay.mismatches:
        lines.append("model and reference disagree on: " + "; ".join(r.replay.mismatches[:5]))
    if r.size:
        lines.append("minimised to: " + ", ".join(f"{k} {v}" for k, v in r.size.items()))
    if r.note:
        lines.append(r.note)
    if r.long_text:
        lines.append(r.long_text)
    lines.append(f"reproduce: {r.command}")
    return ["    " + line for line in lines]


def result_json(r: Result, path: Path | None = None) -> dict[str, Any]:
    s = r.stats
    return {
        "model": r.model,
        **r.subject,
        **r.context,
        "property": r.property,
        "kind": r.kind,
        "verdict": r.verdict.value,
        "reason": r.reason or None,
        "expected": r.expected,
        "bounds": r.bounds.to_json(),
        "preset": r.preset,
        "engine": r.engine,
        "replay": None if r.replay is None else r.replay.status,
        "replay_detail": None if r.replay is None else r.replay.detail or None,
        "counterexample": str(path) if path else None,
        "explanation": r.explanation or None,
        "steps": None if r.run is None else len(r.run),
        "size": dict(r.size) or None,
        "note": "\n".join(t for t in (r.note, r.long_text) if t) or None,
        "vacuous": r.vacuous,
        "also_violated_by": r.also_by or None,
        "seconds": round(s.seconds, 3),
        "cpu_seconds": round(s.cpu_seconds, 3),
        "states": s.states,
        "transitions": s.transitions,
        "max_depth": s.max_depth,
        "complete": s.complete,
        "stopped": s.stopped or None,
        "strategy": s.strategy or None,
        "examined": s.examined,
        "budget": s.budget,
        "cubes": s.cubes,
        "interrupted": r.interrupted,
        "command": r.command,
        "sources": dict(r.sources),
    }


def _verdict_cell(r: Result) -> str:
    if r.interrupted and r.verdict is Verdict.UNKNOWN:
        return "unknown (interrupted)"
    text = r.verdict.value + (" (vacuous)" if r.vacuous else "")
    text += f" ({r.also_by} too)" if r.also_by else ""
    return text + (" NOT CONFIRMED" if r.harness_bug else "")


def _expected_cell(r: Result) -> str:
    if r.expected is None or (r.interrupted and r.verdict is Verdict.UNKNOWN):
        return "-"  # nothing recorded, or nothing decided to compare
    return "ok" if r.expected == r.verdict.value else f"EXPECTED {r.expected}"


def summary_table(results: Sequence[Result], expected: bool = False) -> str:
    """One row per result: its names, property, kind, verdict, run length and states
    where the engine counts them, seconds, and (``expected``) whether it is as recorded."""
    if not results:
        return ""
    names = list(results[0].subject)
    steps = any(r.run is not None and r.run.numbered for r in results)
    states = any(r.stats.states is not None for r in results)
    budget = any(r.stats.budget is not None for r in results)
    headers = [n.replace("_", " ") for n in names] + ["property", "kind", "verdict"]
    headers += (["steps"] if steps else []) + (["states"] if states else [])
    headers += (["Z3 units"] if budget else []) + ["seconds", "cpu s"]
    rows = []
    for r in results:
        row: list[object] = [r.subject.get(n, "-") for n in names]
        row += [r.property, r.kind, _verdict_cell(r)]
        if steps:
            row.append(len(r.run) if r.run is not None else "-")
        if states:
            row.append("-" if r.stats.states is None else f"{r.stats.states:,}")
        if budget:
            row.append(units(r.stats.budget))
        row += [f"{r.seconds:.2f}", f"{r.stats.cpu_seconds:.2f}"]
        if expected:
            row.append(_expected_cell(r))
        rows.append(row)
    return tabulate(rows, headers=headers + (["as expected"] if expected else []))


def exit_code(results: Sequence[Result], fail_on_cost: bool = False) -> int:
    """130 when Ctrl-C stopped the run, else 4 when a counterexample was not confirmed
    (a harness bug), else 1 on a violation (of a cost property too only with
    ``fail_on_cost``: the cost is reported, not failed, by default), else 3 when a
    verdict is unknown, else 0."""
    if any(r.interrupted for r in results):
        return EXIT_INTERRUPTED
    if any(r.harness_bug for r in results):
        return EXIT_INTERNAL
    if any(r.verdict is Verdict.VIOLATED and (r.kind != "cost" or fail_on_cost) for r in results):
        return EXIT_VIOLATION
    if any(r.verdict is Verdict.UNKNOWN for r in results):
        return EXIT_UNKNOWN
    return EXIT_OK


def exit_code_against_expected(results: Sequence[Result]) -> int:
    """``dcpcheck verify``'s reading: 1 when a verdict is not the recorded one (a
    violation without a record counts), else 3 when one is unknown, else 0; 4 before
    all of these when a violation was not confirmed by its replay (a harness bug);
    130 before everything when Ctrl-C stopped the run."""
    if any(r.interrupted for r in results):
        return EXIT_INTERRUPTED
    if any(r.harness_bug for r in results):
        return EXIT_INTERNAL
    for r in results:
        if r.verdict is not Verdict.UNKNOWN and (r.expected or "holds") != r.verdict.value:
            return EXIT_VIOLATION
    if any(r.verdict is Verdict.UNKNOWN for r in results):
        return EXIT_UNKNOWN
    return EXIT_OK
