"""What one run of the cluster model is made of: bounds, ack rule, branch rule, rule set.

``decide`` answers stream requests with the rule set (``spec.rules.Decider``),
remembering every answer: a search asks the same question many times.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spec.cluster.bounds import ClusterBounds
from spec.cluster.rules import AckRule, BranchRule
from spec.rules import Decider, RuleSet
from spec.types import Decision, ProducerState, StreamRequest

__all__ = ["Setup"]


@dataclass(frozen=True)
class Setup:
    bounds: ClusterBounds
    ack_rule: AckRule
    branch_rule: BranchRule
    rules: RuleSet
    _decider: Decider = field(init=False, repr=False, compare=False)
    _answers: dict[tuple[StreamRequest, ProducerState], Decision] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_decider", Decider(self.rules))

    def decide(self, request: StreamRequest, producer: ProducerState) -> Decision:
        """The producer's answer (ERANGE first, then the rule set)."""
        key = (request, producer)
        answer = self._answers.get(key)
        if answer is None:
            answer = self._decider.decide(request, producer)
            self._answers[key] = answer
        return answer

    def label(self) -> str:
        return f"{self.ack_rule.id}/{self.branch_rule.id}"
