"""Durability counterexample files read back: what to build the model from, and the actions.

The format (``dcpcheck-durability-counterexample/1``) is written by
``checker.cluster_check.cluster_record``; docs/durability.md describes it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from checker.inputs import load_json
from checker.result import Replayed
from spec.cluster import ClusterBounds
from spec.cluster.actions import Action, action_from_json
from spec.errors import InvalidInput
from spec.reference.cluster_replay import FORMAT

__all__ = ["StoredCounterexample", "load_counterexample"]


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

    def replay(self) -> Replayed:
        """Replay the stored actions on the model and on the reference cluster."""
        from checker.cluster_check import replay_counterexample
        from checker.loading import resolve
        from spec.rules import RULE_SETS, RuleSet

        rules = resolve(RULE_SETS, RuleSet, self.rules)
        return replay_counterexample(
            self.ack_rule, self.branch_rule, self.property, rules, self.bounds, self.actions
        )


def load_counterexample(path: str | Path) -> StoredCounterexample:
    record = load_json(Path(path))
    if not isinstance(record, dict):
        raise InvalidInput(str(path), "expected a JSON object")
    return StoredCounterexample(record, str(path))
