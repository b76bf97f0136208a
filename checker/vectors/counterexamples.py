"""Confirmed counterexamples as vector sources: the ``decisions`` of ``counterexamples/*.json``.

The model checker writes, per counterexample file, a top-level ``decisions``
list: ``{"rules", "request", "producer", "decision", "property"}``. Each
decision of a rule set being generated becomes a vector (goal
``counterexample:FILE#I``), so the producer answer that took part in a
violation is replayed against every implementation. Files without
``decisions`` (traces, other formats) are not vector sources and are skipped.

The files are named one by one (``--counterexamples FILE...``), never found
by listing a directory: what else lies in ``counterexamples/`` (a check run's
fresh output, an editor's backup) must not change the vectors generated.
They are read in name order, so the order they are given in does not matter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from checker.inputs import load_json
from checker.vectors.format import parse_producer, parse_request
from spec.errors import InvalidInput
from spec.rules import Decider, RuleSet
from spec.types import Decision, ProducerState, StreamRequest

__all__ = ["CounterexampleDecision", "load_counterexamples"]

DECISION_KEYS = ("rules", "request", "producer", "decision", "property")


@dataclass(frozen=True)
class CounterexampleDecision:
    goal: str
    rules: str
    request: StreamRequest
    producer: ProducerState
    property: str


def load_counterexamples(
    files: Sequence[Path], rule_sets: list[RuleSet]
) -> list[CounterexampleDecision]:
    """Every decision of the given rule sets in ``files``, checked against them."""
    deciders = {r.name: Decider(r) for r in rule_sets}
    found = []
    for path in sorted(set(files), key=lambda p: (p.name, str(p))):
        if path.is_dir():
            raise InvalidInput(
                str(path),
                "is a directory; --counterexamples takes files (what else lies in a "
                "directory must not change the vectors): name them, e.g. DIR/*.json",
            )
        if not path.exists():
            raise InvalidInput(str(path), "no such file")
        data = load_json(path)
        if not isinstance(data, dict) or "decisions" not in data:
            continue
        file = str(path)
        decisions = data["decisions"]
        if not isinstance(decisions, list):
            raise InvalidInput(file, "field decisions: expected an array")
        for index, item in enumerate(decisions):
            where = f"decisions[{index}]"
            if not isinstance(item, dict):
                raise InvalidInput(file, f"field {where}: expected an object")
            for key in DECISION_KEYS:
                if key not in item:
                    raise InvalidInput(file, f"field {where}.{key}: missing")
            name = item["rules"]
            if not isinstance(name, str):
                raise InvalidInput(file, f"field {where}.rules: expected a rule-set name")
            if name not in deciders:
                continue
            req = parse_request(file, f"{where}.request", item["request"])
            producer = parse_producer(file, f"{where}.producer", item["producer"])
            _check_recorded(file, where, item["decision"], deciders[name].decide(req, producer))
            prop = item["property"]
            if not isinstance(prop, str) or not prop:
                raise InvalidInput(file, f"field {where}.property: expected a property id")
            goal = f"counterexample:{path.name}#{index}"
            found.append(CounterexampleDecision(goal, name, req, producer, prop))
    return found


def _check_recorded(file: str, where: str, recorded: object, decision: Decision) -> None:
    """The recorded answer must still be the rule set's, or the counterexample is stale."""
    if not isinstance(recorded, dict):
        raise InvalidInput(file, f"field {where}.decision: expected an object")
    now = decision.to_json()
    for key in ("decision", "rollback_seqno", "case"):
        if key not in recorded:
            raise InvalidInput(file, f"field {where}.decision.{key}: missing")
        if recorded[key] != now[key]:
            raise InvalidInput(
                file,
                f"field {where}.decision.{key}: recorded {recorded[key]!r} but the rule set "
                f"now answers {now[key]!r}; the counterexample is stale (re-run the check "
                "that wrote it)",
            )
