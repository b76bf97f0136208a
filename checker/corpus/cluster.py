"""Durability counterexample files: ``counterexamples/durability/<id>.json``.

Format ``dcpcheck-durability-counterexample/1``: the ack rule, branch rule,
rule set and property, the bounds (and preset) searched, how the search went,
the start state and every step (action, narration, resulting state), a
one-line explanation and the command that reproduces it. docs/durability.md
describes it. ``checker.confirm.replay_stored`` replays one on the model and
on the reference cluster (``spec.reference.cluster_replay``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Protocol

from checker.corpus import CLUSTER_FORMAT
from checker.inputs import load_json
from checker.result import Result
from spec.cluster import ClusterBounds
from spec.cluster.actions import Action, action_from_json
from spec.errors import InvalidInput

__all__ = [
    "FORMAT",
    "StoredCounterexample",
    "cluster_record",
    "counterexample_id",
    "load_counterexample",
]

FORMAT = CLUSTER_FORMAT


class Search(Protocol):
    """What a record says of the search that found it (an ``Exploration`` has these)."""

    @property
    def strategy(self) -> str: ...
    @property
    def states(self) -> int: ...
    @property
    def seconds(self) -> float: ...


def counterexample_id(result: Result, actions: list[Action]) -> str:
    digest = hashlib.sha1(
        json.dumps(
            {
                "bounds": result.bounds.to_json(),
                "rules": result.context["rules"],
                "actions": [a.to_json() for a in actions],
            },
            sort_keys=True,
        ).encode()
    ).hexdigest()[:10]
    s = result.subject
    return f"{result.property}--{s['ack_rule']}--{s['branch_rule']}--{digest}"


def cluster_record(r: Result, search: Search) -> dict[str, Any]:
    """The counterexample file of a durability check (format ``FORMAT``)."""
    assert r.run is not None
    return {
        "format": FORMAT,
        "id": r.ident,
        "ack_rule": r.subject["ack_rule"],
        "branch_rule": r.subject["branch_rule"],
        "rules": r.context["rules"],
        "property": r.property,
        "kind": r.kind,
        "verdict": r.verdict.value,
        "explanation": r.explanation,
        "preset": r.preset,
        "bounds": r.bounds.to_json(),
        "search": {
            "strategy": search.strategy,
            "states": search.states,
            "seconds": round(search.seconds, 3),
        },
        "init": dict(r.run.init),
        "steps": [
            {"action": dict(s.action), "description": s.narration, "state": dict(s.state)}
            for s in r.run.steps
        ],
        "command": r.command,
    } | ({"sources": dict(r.sources)} if r.sources else {})


# -- reading ------------------------------------------------------------------------------


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
