"""Confirm a counterexample on the target: the reference consumer talking to the build.

A witness of the judge is a scenario run under the override rule set
(``checker.review.table``). ``on_target`` runs the same scenario on the
reference implementation (``spec.reference.simulate``) with every one of
the final producer's decisions answered by the **target** (``Target.replies``;
for a humpty target the producer's range check comes first, as kv_engine's
DcpProducer applies it before needsRollback). It is *confirmed on TARGET*
when every round's request and answer are those of the witness's run and
the property claimed is violated (or not) as the witness says.

``replay_on_target(path, target)`` replays a stored counterexample file the
same way (``dcpcheck replay --target KIND:CMD FILE``): its scenario, consumer,
bounds and property, with ``target`` answering; violated or not, and whether
each round got the answers the file records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from checker.confirm import explain
from checker.diff.classify import Witness
from checker.vectors.format import Vector
from checker.vectors.targets import Target, humpty_limits
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.errors import InvalidInput
from spec.expr import evaluate
from spec.properties import PROPERTIES, Property
from spec.reference.simulate import simulate
from spec.rules.language import RuleSet
from spec.scenario import Scenario
from spec.trace import Trace, TraceFields, resume_values
from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = ["OnTarget", "TargetReplay", "on_target", "play_on_target", "replay_on_target"]

TARGET_CASE = "target"


@dataclass
class OnTarget:
    confirmed: bool
    detail: str
    asked: int = 0  # decisions the target answered
    trace: Trace | None = None
    answers: list[str] = field(default_factory=list)


class Unanswered(Exception):
    """The target gave no answer to a decision (crash, timeout, garbage) or cannot be
    asked it (a request humpty_dumpty cannot express)."""

    asked = 0  # the decisions it answered before


def _asker(target: Target, asked: list[str]) -> Callable[[StreamRequest, ProducerState], Decision]:
    def decide(request: StreamRequest, producer: ProducerState) -> Decision:
        if target.rules_only:
            limits = humpty_limits(request)
            if limits:
                raise Unanswered(f"round {len(asked)}: {limits}")
            in_range = request.snap_start <= request.start <= request.snap_end
            if not (in_range and request.start <= request.end):
                return Decision(Outcome.ERANGE, "erange", None, "the producer's range check")
        vector = Vector(f"confirm-{len(asked)}", "review", request, producer, {})
        (reply,) = target.replies([vector])
        if reply.answer is None:
            raise Unanswered(f"round {len(asked)}: the target's {reply.kind}: {reply.detail}")
        asked.append(str(reply.answer))
        return Decision(
            reply.answer.outcome, TARGET_CASE, reply.answer.rollback_seqno, "the target's answer"
        )

    return decide


def play_on_target(
    scenario: Scenario, rules: RuleSet, variant: ConsumerVariant, rounds: int, target: Target
) -> tuple[Trace, list[str]]:
    """Run ``scenario`` on the reference with ``target`` answering every decision of the
    final producer (``rules`` is never asked); the trace and the target's answers.
    ``Unanswered`` when the target gave no answer (or cannot be asked a request),
    ``ValueError`` when the reference refuses the scenario."""
    asked: list[str] = []
    try:
        return simulate(scenario, rules, variant, rounds, _asker(target, asked)), asked
    except Unanswered as exc:
        exc.asked = len(asked)
        raise


def on_target(
    witness: Witness,
    override: RuleSet,
    variant: ConsumerVariant,
    bounds: Bounds,
    target: Target,
) -> OnTarget:
    """Replay ``witness`` (found under ``override``) with ``target`` answering."""
    try:
        trace, asked = play_on_target(witness.scenario, override, variant, bounds.rounds, target)
    except Unanswered as exc:
        return OnTarget(False, f"not asked to the end: {exc}", exc.asked)
    except ValueError as exc:
        return OnTarget(False, f"the reference refused the scenario: {exc}")
    expected = witness.trace_b
    if expected is None:
        return OnTarget(False, "the witness has no run to compare with", len(asked), trace)
    for n, (got, want) in enumerate(zip(_rounds(trace), _rounds(expected), strict=False)):
        if got != want:
            return OnTarget(
                False,
                f"round {n}: the target's run has {got}, the witness's {want}",
                len(asked),
                trace,
                asked,
            )
    if len(_rounds(trace)) != len(_rounds(expected)):
        return OnTarget(False, "the target's run has a different number of rounds", len(asked))
    if witness.prop:
        violated = _violates(trace, PROPERTIES.get(witness.prop), bounds)
        if violated is not (witness.culprit == "b"):
            state = "violates" if violated else "does not violate"
            return OnTarget(
                False, f"with the target the run {state} {witness.prop}", len(asked), trace, asked
            )
    return OnTarget(True, "", len(asked), trace, asked)


def _violates(trace: Trace, prop: Property, bounds: Bounds) -> bool:
    formula = prop.holds(TraceFields(bounds))
    return any(not evaluate(formula, v) for v in resume_values(trace, bounds))


@dataclass(frozen=True)
class TargetReplay:
    """A counterexample file replayed with a target answering the producer's decisions:
    ``violated`` (its property, on the target's run), or the target's ``fault``;
    ``differs``: the first round whose request or answer is not the file's ("" if none)."""

    property: str
    violated: bool
    explanation: str = ""
    fault: str = ""
    differs: str = ""
    asked: int = 0


def replay_on_target(path: str | Path, target: Target) -> TargetReplay:
    """Replay the single-node counterexample file ``path`` with ``target`` answering each
    decision of the final producer: the file's scenario, consumer, bounds and property."""
    from checker.confirm import stored_definitions

    stored, rules, variant, prop = stored_definitions(path)
    bounds = stored["bounds"]
    try:
        trace, asked = play_on_target(stored["scenario"], rules, variant, bounds.rounds, target)
    except Unanswered as exc:
        return TargetReplay(prop.id, False, fault=f"not asked to the end: {exc}", asked=exc.asked)
    except ValueError as exc:
        raise InvalidInput(str(path), f"the reference refuses its scenario: {exc}") from None
    violated = _violates(trace, prop, bounds)
    explanation = explain(trace, prop, bounds) if violated else ""
    recorded = [
        (r["request"], r["decision"]["decision"], r["decision"]["rollback_seqno"])
        for r in stored.get("trace", {}).get("rounds", [])
    ]
    played = [
        (r.request.to_json(), r.decision.outcome.value, r.decision.rollback_seqno)
        for r in trace.rounds
    ]
    differs = ""
    for n, (got, want) in enumerate(zip(played, recorded, strict=False)):
        if got != want:
            differs = f"round {n}: the file has {_answer(want)}, the target {_answer(got)}"
            break
    else:
        if recorded and len(played) != len(recorded):
            differs = f"the file has {len(recorded)} rounds, the target's run {len(played)}"
    return TargetReplay(prop.id, violated, explanation, differs=differs, asked=len(asked))


def _answer(round_: tuple[object, object, object]) -> str:
    _, outcome, seqno = round_
    return f"{outcome} to {seqno}" if outcome == "rollback" else str(outcome)


def _rounds(trace: Trace) -> list[tuple[object, ...]]:
    rounds = [*trace.rounds, *(r for later in trace.later for r in later.rounds)]
    return [(r.request, r.decision.outcome, r.decision.rollback_seqno) for r in rounds]
