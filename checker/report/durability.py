"""Results of ``dcpcheck durability`` for people and machines.

One-line form, long form (the run as numbered named steps between the
initial and final states, and the command that reproduces it), a summary
table, JSON for ``--json``, and counterexample files written atomically:
``<id>.json`` (format ``dcpcheck-durability-counterexample/1``, replayable
with ``load_counterexample``) and ``<id>.itf.json`` (the Informal Trace
Format of Apalache and Quint: one state per step, the action that led to it
in ``action``; no ITF ``null``, so "no active" is the string ``"none"``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from tabulate import tabulate

from checker.atomic import write_text_atomic
from checker.durability import DurabilityResult
from checker.explore import Verdict
from checker.inputs import load_json
from checker.report.itf import itf_value
from spec.cluster import PRESETS, ClusterBounds
from spec.cluster.actions import Action, action_from_json
from spec.cluster.expected import expected_verdict
from spec.cluster.state import ClusterState
from spec.errors import EXIT_INTERNAL, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, InvalidInput

__all__ = [
    "FORMAT",
    "StoredCounterexample",
    "exit_code",
    "exit_code_against_expected",
    "expected_of",
    "load_counterexample",
    "long_form",
    "one_line",
    "reproduce_command",
    "result_json",
    "summary_table",
    "write_counterexample",
]

FORMAT = "dcpcheck-durability-counterexample/1"

_BOUND_FLAGS = (
    "nodes",
    "majority",
    "keys",
    "prepares",
    "sets",
    "items",
    "failovers",
    "restarts",
    "prefix",
    "prefix_replicas",
)


def reproduce_command(r: DurabilityResult) -> str:
    text = (
        f"dcpcheck durability --ack-rule {r.ack_rule} --branch-rule {r.branch_rule} "
        f"--property {r.property.id}"
    )
    if r.rules != "kv-current":
        text += f" --rules {r.rules}"
    base = PRESETS[r.preset].bounds if r.preset else None
    if r.preset:
        text += f" --preset {r.preset}"
    for name in _BOUND_FLAGS:
        value = getattr(r.bounds, name)
        if base is None or getattr(base, name) != value:
            text += f" --{name.replace('_', '-')} {value}"
    return text


def _size(r: DurabilityResult) -> str:
    e = r.exploration
    return f"{e.states:,} states, {e.seconds:.2f}s"


def one_line(r: DurabilityResult, path: Path | None = None) -> str:
    head = f"{r.ack_rule}/{r.branch_rule}: {r.property.id}: {r.verdict.value}"
    if r.verdict is Verdict.UNKNOWN:
        return f"{head} ({r.exploration.stopped} after {_size(r)}; nothing is claimed)"
    if r.property.expectation == "sometimes":
        if r.verdict is Verdict.HOLDS:
            return f"{head}: example in {len(r.path or ())} steps ({_size(r)}): {r.explanation}"
        return f"{head}: no reachable state within {r.bounds.describe()} ({_size(r)})"
    if r.verdict is Verdict.HOLDS:
        text = f"{head} within {r.bounds.describe()} ({_size(r)})"
        if r.vacuous:
            text += " -- VACUOUS: no SyncWrite is ever acknowledged within these bounds"
        return text
    text = f"{head} in {len(r.path or ())} steps ({_size(r)}): {r.explanation}"
    if r.replay is not None:
        text = text.replace(
            f"{head} in",
            f"{head} ({'confirmed' if r.confirmed else 'NOT CONFIRMED'}) in",
            1,
        )
        if not r.confirmed:
            text += f" -- harness bug: the replay disagrees: {r.replay.detail}"
    if path is not None:
        text += f" [{path}]"
    return text


def long_form(r: DurabilityResult) -> list[str]:
    """The run: start state, numbered steps, end state, and the reproducing command."""
    lines: list[str] = []
    run = r.path
    if run is not None and not (r.property.expectation == "sometimes" and not run.steps):
        model = r.model
        lines.append("start:")
        lines += ["    " + line for line in model.format_state(run.init)]
        state = run.init
        for n, step in enumerate(run.steps, start=1):
            lines.append(
                f"{n:3}. {step.action}: {model.format_step(state, step.action, step.state)}"
            )
            state = step.state
        lines.append("end:")
        lines += ["    " + line for line in model.format_state(state)]
    lines.append(f"reproduce: {reproduce_command(r)}")
    return ["    " + line for line in lines]


def counterexample_id(r: DurabilityResult) -> str:
    assert r.path is not None
    digest = hashlib.sha1(
        json.dumps(
            {
                "bounds": r.bounds.to_json(),
                "rules": r.rules,
                "actions": [a.to_json() for a in r.path.actions()],
            },
            sort_keys=True,
        ).encode()
    ).hexdigest()[:10]
    return f"{r.property.id}--{r.ack_rule}--{r.branch_rule}--{digest}"


def _record(r: DurabilityResult, ident: str) -> dict[str, Any]:
    assert r.path is not None
    model = r.model
    steps = []
    state = r.path.init
    for step in r.path.steps:
        steps.append(
            {
                "action": step.action.to_json(),
                "description": model.format_step(state, step.action, step.state),
                "state": step.state.to_json(),
            }
        )
        state = step.state
    e = r.exploration
    return {
        "format": FORMAT,
        "id": ident,
        "ack_rule": r.ack_rule,
        "branch_rule": r.branch_rule,
        "rules": r.rules,
        "property": r.property.id,
        "kind": r.property.kind,
        "verdict": r.verdict.value,
        "explanation": r.explanation,
        "preset": r.preset,
        "bounds": r.bounds.to_json(),
        "search": {"strategy": e.strategy, "states": e.states, "seconds": round(e.seconds, 3)},
        "init": r.path.init.to_json(),
        "steps": steps,
        "command": reproduce_command(r),
    }


def _itf_state(state: ClusterState, index: int, action: dict[str, Any], note: str) -> dict:
    record = state.to_json()
    record["active"] = record["active"] or "none"
    return {
        "#meta": {"index": index, "description": note},
        "action": itf_value(action),
        **{name: itf_value(value) for name, value in record.items()},
    }


def to_itf(r: DurabilityResult, ident: str) -> dict[str, Any]:
    assert r.path is not None
    states = [_itf_state(r.path.init, 0, {"name": "Init"}, "initial state")]
    state = r.path.init
    for n, step in enumerate(r.path.steps, start=1):
        note = r.model.format_step(state, step.action, step.state)
        states.append(_itf_state(step.state, n, step.action.to_json(), note))
        state = step.state
    return {
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": f"{ident}.json",
            "description": r.explanation,
        },
        "vars": ["action", *r.path.init.to_json().keys()],
        "states": states,
    }


def write_counterexample(r: DurabilityResult, out_dir: str | Path) -> Path | None:
    """Write ``<id>.json`` and ``<id>.itf.json`` (atomically); return the JSON path."""
    if r.path is None or r.verdict is not Verdict.VIOLATED:
        return None
    ident = counterexample_id(r)
    out = Path(out_dir)
    path = write_text_atomic(out / f"{ident}.json", json.dumps(_record(r, ident), indent=2) + "\n")
    write_text_atomic(out / f"{ident}.itf.json", json.dumps(to_itf(r, ident), indent=1) + "\n")
    return path


def expected_of(r: DurabilityResult) -> str | None:
    """The recorded verdict for ``r``'s combination, if its bounds are exactly a preset's."""
    if r.preset is None or r.bounds != PRESETS[r.preset].bounds:
        return None
    return expected_verdict(r.preset, r.ack_rule, r.branch_rule, r.property.id)


def result_json(r: DurabilityResult, path: Path | None) -> dict[str, Any]:
    e = r.exploration
    return {
        "ack_rule": r.ack_rule,
        "branch_rule": r.branch_rule,
        "rules": r.rules,
        "property": r.property.id,
        "kind": r.property.kind,
        "verdict": r.verdict.value,
        "expected": expected_of(r),
        "preset": r.preset,
        "bounds": r.bounds.to_json(),
        "steps": len(r.path) if r.path is not None else None,
        "explanation": r.explanation or None,
        "vacuous": r.vacuous,
        "counterexample": str(path) if path else None,
        "replay": None if r.replay is None else ("confirmed" if r.confirmed else "not-confirmed"),
        "replay_detail": None if r.replay is None else r.replay.detail,
        "states": e.states,
        "transitions": e.transitions,
        "max_depth": e.max_depth,
        "complete": e.complete,
        "stopped": e.stopped or None,
        "strategy": e.strategy,
        "seconds": round(e.seconds, 3),
        "command": reproduce_command(r),
    }


def summary_table(results: list[DurabilityResult]) -> str:
    rows = []
    for r in results:
        want = expected_of(r)
        rows.append(
            [
                r.ack_rule,
                r.branch_rule,
                r.property.id,
                r.verdict.value
                + (" (vacuous)" if r.vacuous else "")
                + (" NOT CONFIRMED" if r.replay is not None and not r.confirmed else ""),
                len(r.path) if r.path is not None else "-",
                f"{r.exploration.states:,}",
                f"{r.exploration.seconds:.2f}",
                "-" if want is None else ("ok" if want == r.verdict.value else f"EXPECTED {want}"),
            ]
        )
    headers = ["ack rule", "branch rule", "property", "verdict", "steps", "states", "seconds"]
    return tabulate(rows, headers=[*headers, "as expected"])


def _unconfirmed(results: list[DurabilityResult]) -> bool:
    return any(r.replay is not None and not r.confirmed for r in results)


def exit_code(results: list[DurabilityResult]) -> int:
    if _unconfirmed(results):
        return EXIT_INTERNAL
    if any(r.verdict is Verdict.VIOLATED for r in results):
        return EXIT_VIOLATION
    if any(r.verdict is Verdict.UNKNOWN for r in results):
        return EXIT_UNKNOWN
    return EXIT_OK


def exit_code_against_expected(results: list[DurabilityResult]) -> int:
    """``dcpcheck verify``'s reading: 1 when a verdict is not the recorded one (a
    violation without a record counts), else 3 when one is unknown, else 0; 4 before
    all of these when a violation was not confirmed by its replay (a harness bug)."""
    if _unconfirmed(results):
        return EXIT_INTERNAL
    for r in results:
        if r.verdict is not Verdict.UNKNOWN and (expected_of(r) or "holds") != r.verdict.value:
            return EXIT_VIOLATION
    if any(r.verdict is Verdict.UNKNOWN for r in results):
        return EXIT_UNKNOWN
    return EXIT_OK


class StoredCounterexample:
    """A counterexample file read back: what to build the model from, and the actions."""

    def __init__(self, record: dict[str, Any], where: str) -> None:
        self.where = where
        if record.get("format") != FORMAT:
            raise InvalidInput(where, f"not a {FORMAT} file (format {record.get('format')!r})")
        for name in ("ack_rule", "branch_rule", "rules", "property"):
            if not isinstance(record.get(name), str):
                raise InvalidInput(where, f"field '{name}' must be a string")
        self.ack_rule: str = record["ack_rule"]
        self.branch_rule: str = record["branch_rule"]
        self.rules: str = record["rules"]
        self.property: str = record["property"]
        self.verdict: str = record.get("verdict", "")
        bounds = record.get("bounds")
        if not isinstance(bounds, dict):
            raise InvalidInput(where, "field 'bounds' must be an object")
        try:
            self.bounds = ClusterBounds(**{k: int(v) for k, v in bounds.items()})
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"{where}: bounds", str(exc)) from None
        steps = record.get("steps")
        if not isinstance(steps, list):
            raise InvalidInput(where, "field 'steps' must be a list")
        self.actions: list[Action] = [
            action_from_json(step.get("action", {}), f"{where}: step {n}")
            for n, step in enumerate(steps, start=1)
        ]


def load_counterexample(path: str | Path) -> StoredCounterexample:
    record = load_json(Path(path))
    if not isinstance(record, dict):
        raise InvalidInput(str(path), "expected a JSON object")
    return StoredCounterexample(record, str(path))
