"""Replay a scenario on the reference implementation and re-check the property.

A counterexample is *confirmed* when the reference implementation, run step
by step on the decoded scenario, violates the same property **and** produces
the same trace the symbolic model predicted (every trace field equal). Any
difference means the encoding and the reference disagree: a harness bug,
reported with the fields that differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.result import Replayed
from spec.expr import evaluate
from spec.model.build import ScenarioModel
from spec.properties import Property
from spec.reference.simulate import simulate
from spec.scenario import Scenario
from spec.trace import Trace, TraceFields, trace_values

__all__ = ["Replay", "replay_scenario"]


@dataclass
class Replay:
    confirmed: bool
    violated_on_reference: bool
    trace: Trace | None
    mismatches: list[str] = field(default_factory=list)
    detail: str = ""

    @property
    def status(self) -> str:
        return "confirmed" if self.confirmed else "not-confirmed"

    def outcome(self) -> Replayed:
        """What a ``Result`` records of this replay."""
        return Replayed(self.confirmed, self.detail, tuple(self.mismatches))


def replay_scenario(scenario: Scenario, model: ScenarioModel, prop: Property) -> Replay:
    try:
        trace = simulate(scenario, model.rules, model.variant, model.bounds.rounds)
    except ValueError as exc:
        return Replay(False, False, None, detail=f"the reference refused the scenario: {exc}")
    reference = trace_values(trace, model.bounds)
    violated = not evaluate(prop.holds(TraceFields(model.bounds)), reference)
    predicted = model.predicted(scenario)
    mismatches = [
        f"{name}: model {predicted[name]!r}, reference {reference[name]!r}"
        for name in sorted(reference)
        if predicted[name] != reference[name]
    ]
    detail = ""
    if not violated:
        detail = f"the reference implementation does not violate {prop.id} on this scenario"
    elif mismatches:
        detail = "the model and the reference implementation disagree on the trace"
    return Replay(violated and not mismatches, violated, trace, mismatches, detail)
