"""Replay a scenario on the reference implementation and re-check the property.

A counterexample is *confirmed* when the reference implementation, run step
by step on the decoded scenario, violates the same property **and** produces
the same trace the symbolic model predicted (every trace field equal). Any
difference means the encoding and the reference disagree: a harness bug,
reported with the fields that differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from checker.result import Replayed
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.errors import InvalidInput
from spec.model.build import ScenarioModel
from spec.model.protocol import ScenarioModelInterface
from spec.properties import Property
from spec.reference.simulate import simulate
from spec.registry import Registry
from spec.rules.language import RuleSet
from spec.run import Run
from spec.scenario import Scenario
from spec.trace import Trace, resume_values, trace_values

__all__ = [
    "PRODUCER_TARGET",
    "Replay",
    "Stored",
    "explain",
    "replay_scenario",
    "replay_stored",
    "stored_definitions",
]

T = TypeVar("T")

# A counterexample file's field naming the build that answered the producer's decisions
# (``dcpcheck review``): such a file replays only with that build (``replay --target``).
PRODUCER_TARGET = "producer_target"


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


def replay_scenario(scenario: Scenario, model: ScenarioModelInterface, prop: Property) -> Replay:
    try:
        trace = simulate(
            scenario,
            model.rules,  # type: ignore[attr-defined]  # every ScenarioModel has it; the
            model.variant,  # type: ignore[attr-defined]  # protocol does not say so yet
            model.bounds.rounds,
        )
    except ValueError as exc:
        return Replay(False, False, None, detail=f"the reference refused the scenario: {exc}")
    reference = trace_values(trace, model.bounds)
    violated = any(not prop.holds_on(v, model.bounds) for v in resume_values(trace, model.bounds))
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


def explain(trace: Trace, prop: Property, bounds: Bounds) -> str:
    """``prop``'s explanation of its violation, on the first resume that violates it (with
    ``--sessions K`` a trace has several; the first one if none does)."""
    resumes = zip(trace.resumes, resume_values(trace, bounds), strict=True)
    culprit = next((t for t, v in resumes if not prop.holds_on(v, bounds)), trace)
    text = prop.explain(culprit, bounds)
    if culprit is not trace:
        text = f"at resume {trace.resumes.index(culprit) + 1}: {text}"
    return text


@dataclass(frozen=True)
class Stored:
    """A counterexample file replayed: its model, the replay's outcome, and (single-node)
    the run the reference trace tells, from which its ITF trace is written."""

    model: str  # "scenario" | "cluster"
    replayed: Replayed
    run: Run | None = None
    explanation: str = ""
    command: str = ""  # the line that reproduces the check that found it


def stored_definitions(
    path: str | Path,
) -> tuple[dict[str, Any], RuleSet, ConsumerVariant, Property]:
    """A single-node counterexample file loaded (``scenario`` and ``bounds`` decoded) with
    the definitions it names: each from its user file (``sources``, relative to where the
    check ran) or by its built-in name."""
    from checker.corpus import model_kind_of
    from checker.corpus.scenario import load_counterexample
    from checker.loading import resolve
    from spec.consumers import CONSUMERS
    from spec.properties import PROPERTIES
    from spec.rules import RULE_SETS

    if model_kind_of(path) != "scenario":
        raise InvalidInput(
            str(path), "is a durability counterexample; this needs a single-node one"
        )
    stored = load_counterexample(path)
    sources = stored.get("sources", {})

    def named(registry: Registry[T], kind: type[T], key: str) -> T:
        text = sources.get(key, stored[key])
        try:
            return resolve(registry, kind, text)
        except InvalidInput as exc:
            if key not in sources:
                raise
            raise InvalidInput(
                str(path),
                f"its {key} comes from {text} ({exc.message}); run this where the check ran "
                "(the path is relative to it)",
            ) from None

    return (
        stored,
        named(RULE_SETS, RuleSet, "rules"),
        named(CONSUMERS, ConsumerVariant, "consumer"),
        named(PROPERTIES, Property, "property"),
    )


def replay_stored(path: str | Path) -> Stored:
    """Replay a counterexample file of either model on the model and the reference.

    The reference must still violate the file's property along the trace the
    model predicts (single node), or along every step (cluster).
    """
    from checker.corpus import model_kind_of
    from checker.inputs import load_json
    from checker.loading import resolve
    from spec.rules import RULE_SETS

    if model_kind_of(path) == "cluster":
        from checker.cluster_check import replay_counterexample
        from checker.corpus import cluster as cluster_corpus

        found = cluster_corpus.load_counterexample(path)
        rules_file = load_json(path).get("sources", {}).get("rules")
        rules = resolve(RULE_SETS, RuleSet, rules_file or found.rules)
        replayed = replay_counterexample(
            found.ack_rule, found.branch_rule, found.property, rules, found.bounds, found.actions
        )
        return Stored("cluster", replayed)
    from spec.model.narrate import run_of

    stored, rules, variant, prop = stored_definitions(path)
    if PRODUCER_TARGET in stored:
        raise InvalidInput(
            str(path),
            f"its producer is a build under review ({stored[PRODUCER_TARGET]}), not a rule set: "
            "replay it with dcpcheck replay --target KIND:CMD FILE",
        )
    model = ScenarioModel(stored["bounds"], rules, variant)
    replay = replay_scenario(stored["scenario"], model, prop)
    if replay.trace is None:
        return Stored("scenario", replay.outcome())
    explanation = explain(replay.trace, prop, stored["bounds"])
    command = stored.get("command", "")
    return Stored("scenario", replay.outcome(), run_of(replay.trace), explanation, command)
