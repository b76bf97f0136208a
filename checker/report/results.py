"""Check results for people and machines: one-line form, long form, table, JSON, files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tabulate import tabulate

from checker.atomic import write_text_atomic
from checker.check import CheckResult, Verdict
from checker.report.counterexample import (
    FORMAT,
    counterexample_id,
    decisions_json,
    scenario_to_json,
    trace_to_json,
)
from checker.report.itf import to_itf
from checker.report.timeline import explain, timeline
from spec.errors import EXIT_INTERNAL, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION

__all__ = [
    "exit_code",
    "long_form",
    "one_line",
    "reproduce_command",
    "result_json",
    "summary_table",
    "write_counterexample",
]


def reproduce_command(r: CheckResult) -> str:
    b = r.bounds
    return (
        f"dcpcheck check --rules {r.rules} --consumer {r.consumer} --property {r.property} "
        f"--seqnos {b.seqnos} --keys {b.keys} --entries {b.entries} --failovers {b.failovers}"
        + (f" --max-entries {b.max_entries}" if b.max_entries < b.entries else "")
    )


def _explanation(r: CheckResult) -> str:
    if r.replay is None or r.replay.trace is None:
        return ""
    return explain(r.property, r.replay.trace)


def one_line(r: CheckResult, path: Path | None = None) -> str:
    head = f"{r.rules}/{r.consumer}: {r.property}: {r.verdict.value}"
    if r.verdict is Verdict.HOLDS:
        return f"{head} within {r.bounds.describe()} ({r.seconds:.2f}s)"
    if r.verdict is Verdict.UNKNOWN:
        return f"{head} ({r.note}; nothing is claimed)"
    status = r.replay.status if r.replay else "not replayed"
    text = f"{head} ({status}): {_explanation(r)}"
    if r.replay and not r.replay.confirmed:
        text += f" -- HARNESS BUG: {r.replay.detail}"
    if path is not None:
        text += f" [{path}]"
    return text


def long_form(r: CheckResult) -> list[str]:
    lines = []
    if r.replay and r.replay.trace is not None:
        lines += timeline(r.replay.trace)
    if r.replay and r.replay.mismatches:
        lines.append("model and reference disagree on: " + "; ".join(r.replay.mismatches[:5]))
    if r.size:
        lines.append("minimised to: " + ", ".join(f"{k} {v}" for k, v in r.size.items()))
    if r.note:
        lines.append(r.note)
    lines.append(f"reproduce: {reproduce_command(r)}")
    return ["    " + line for line in lines]


def write_counterexample(r: CheckResult, out_dir: str | Path) -> Path | None:
    """Write ``<id>.json`` and ``<id>.itf.json``; return the JSON path."""
    if r.scenario is None or r.replay is None or r.replay.trace is None:
        return None
    ident = counterexample_id(r.rules, r.consumer, r.property, r.scenario)
    record: dict[str, Any] = {
        "format": FORMAT,
        "id": ident,
        "rules": r.rules,
        "consumer": r.consumer,
        "property": r.property,
        "kind": r.kind,
        "verdict": r.verdict.value,
        "replay": r.replay.status,
        "explanation": _explanation(r),
        "bounds": r.bounds.to_json(),
        "size": r.size,
        "scenario": scenario_to_json(r.scenario),
        "trace": trace_to_json(r.replay.trace),
        "decisions": decisions_json(r.replay.trace, r.rules, r.property),
        "command": reproduce_command(r),
    }
    out = Path(out_dir)
    path = write_text_atomic(out / f"{ident}.json", json.dumps(record, indent=2) + "\n")
    meta = {"source": f"{ident}.json", "description": record["explanation"]}
    write_text_atomic(
        out / f"{ident}.itf.json", json.dumps(to_itf(r.replay.trace, meta), indent=1) + "\n"
    )
    return path


def result_json(r: CheckResult, path: Path | None) -> dict[str, Any]:
    return {
        "rules": r.rules,
        "consumer": r.consumer,
        "property": r.property,
        "kind": r.kind,
        "verdict": r.verdict.value,
        "bounds": r.bounds.to_json(),
        "replay": r.replay.status if r.replay else None,
        "counterexample": str(path) if path else None,
        "explanation": _explanation(r) or None,
        "size": r.size or None,
        "note": r.note or None,
        "seconds": round(r.seconds, 3),
    }


def summary_table(results: list[CheckResult], expected: dict | None = None) -> str:
    rows = []
    for r in results:
        verdict = r.verdict.value
        if r.verdict is Verdict.VIOLATED and r.replay is not None:
            verdict += "" if r.replay.confirmed else " (NOT CONFIRMED)"
        row = [r.rules, r.consumer, r.property, r.kind, verdict, f"{r.seconds:.2f}"]
        if expected is not None:
            want = expected.get((r.rules, r.consumer, r.property))
            row.append(
                "-" if want is None else ("ok" if want == r.verdict.value else f"EXPECTED {want}")
            )
        rows.append(row)
    headers = ["rules", "consumer", "property", "kind", "verdict", "seconds"]
    if expected is not None:
        headers.append("as expected")
    return tabulate(rows, headers=headers)


def exit_code(results: list[CheckResult]) -> int:
    if any(r.replay is not None and not r.replay.confirmed for r in results):
        return EXIT_INTERNAL
    if any(r.verdict is Verdict.VIOLATED for r in results):
        return EXIT_VIOLATION
    if any(r.verdict is Verdict.UNKNOWN for r in results):
        return EXIT_UNKNOWN
    return EXIT_OK
