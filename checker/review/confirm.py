"""Confirm a counterexample on the target: the reference consumer talking to the build.

A witness of the judge is a scenario run under the override rule set
(``checker.review.table``). ``on_target`` runs the same scenario on the
reference implementation (``spec.reference.simulate``) with every one of
the final producer's decisions answered by the **target** (``Target.replies``;
for a humpty target the producer's range check comes first, as kv_engine's
DcpProducer applies it before needsRollback). It is *confirmed on TARGET*
when every round's request and answer are those of the witness's run and
the property claimed is violated (or not) as the witness says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.diff.classify import Witness
from checker.vectors.format import Vector
from checker.vectors.targets import Target, humpty_limits
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.expr import evaluate
from spec.properties import PROPERTIES
from spec.reference.simulate import simulate
from spec.rules.language import RuleSet
from spec.trace import Trace, TraceFields, resume_values
from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = ["OnTarget", "on_target"]

TARGET_CASE = "target"


@dataclass
class OnTarget:
    confirmed: bool
    detail: str
    asked: int = 0  # decisions the target answered
    trace: Trace | None = None
    answers: list[str] = field(default_factory=list)


class _Unanswered(Exception):
    pass


def _asker(target: Target, asked: list[str]):  # type: ignore[no-untyped-def]
    def decide(request: StreamRequest, producer: ProducerState) -> Decision:
        if target.rules_only:
            limits = humpty_limits(request)
            if limits:
                raise _Unanswered(f"round {len(asked)}: {limits}")
            in_range = request.snap_start <= request.start <= request.snap_end
            if not (in_range and request.start <= request.end):
                return Decision(Outcome.ERANGE, "erange", None, "the producer's range check")
        vector = Vector(f"confirm-{len(asked)}", "review", request, producer, {})
        (reply,) = target.replies([vector])
        if reply.answer is None:
            raise _Unanswered(f"round {len(asked)}: the target's {reply.kind}: {reply.detail}")
        asked.append(str(reply.answer))
        return Decision(
            reply.answer.outcome, TARGET_CASE, reply.answer.rollback_seqno, "the target's answer"
        )

    return decide


def on_target(
    witness: Witness,
    override: RuleSet,
    variant: ConsumerVariant,
    bounds: Bounds,
    target: Target,
) -> OnTarget:
    """Replay ``witness`` (found under ``override``) with ``target`` answering."""
    asked: list[str] = []
    try:
        trace = simulate(witness.scenario, override, variant, bounds.rounds, _asker(target, asked))
    except _Unanswered as exc:
        return OnTarget(False, f"not asked to the end: {exc}", len(asked))
    except ValueError as exc:
        return OnTarget(False, f"the reference refused the scenario: {exc}", len(asked))
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
        prop = PROPERTIES.get(witness.prop)
        formula = prop.holds(TraceFields(bounds))
        violated = any(not evaluate(formula, v) for v in resume_values(trace, bounds))
        if violated is not (witness.culprit == "b"):
            state = "violates" if violated else "does not violate"
            return OnTarget(
                False, f"with the target the run {state} {witness.prop}", len(asked), trace, asked
            )
    return OnTarget(True, "", len(asked), trace, asked)


def _rounds(trace: Trace) -> list[tuple[object, ...]]:
    rounds = [*trace.rounds, *(r for later in trace.later for r in later.rounds)]
    return [(r.request, r.decision.outcome, r.decision.rollback_seqno) for r in rounds]
