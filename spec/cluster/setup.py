"""What one run of the cluster model is made of: bounds, ack rule, branch rule, rule set.

``decide`` answers stream requests with the rule set (``spec.rules.Decider``),
remembering every answer: a search asks the same question many times. So does
``remembered`` for the effects of actions on one node.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from spec.cluster.bounds import ClusterBounds
from spec.cluster.rules import AckRule, BranchRule
from spec.cluster.state import NodeState
from spec.rules import Decider, RuleSet
from spec.types import Decision, ProducerState, StreamRequest

__all__ = ["Setup"]

_MEMORY = 50_000  # node effects remembered before the memory is cleared


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
    _nodes: dict[tuple[object, ...], NodeState] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )
    _canonical: dict[NodeState, NodeState] = field(
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

    def remembered(self, effect: Callable[..., NodeState], *args: object) -> NodeState:
        """``effect(self, *args)``: what an action makes of a node, when it depends on
        nothing but these arguments (nodes, numbers) and the rules. A search meets the
        same nodes in many states; each answer is computed once and shared (so also
        hashed once). Equal answers to different questions are one node too, so
        that comparing two states finds their nodes identical without comparing
        them field by field (mb-34150: 680,000 node comparisons a search)."""
        key = (effect, *args)
        node = self._nodes.get(key)
        if node is None:
            if len(self._nodes) >= _MEMORY:
                self._nodes.clear()
                self._canonical.clear()
            node = self._nodes[key] = self.canonical(effect(self, *args))
        return node

    def canonical(self, node: NodeState) -> NodeState:
        """The one node equal to ``node`` that the search's states share."""
        return self._canonical.setdefault(node, node)

    def label(self) -> str:
        return f"{self.ack_rule.id}/{self.branch_rule.id}"
