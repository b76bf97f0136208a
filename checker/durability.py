"""Check one (ack rule, branch rule, property) of the cluster model, and replay stored runs.

``check_durability`` builds the model (``spec.cluster``) and hands it to the
explicit-state checker (``checker.explore``); the property is searched
together with ``syncwrite-acknowledged``, so that a ``holds`` says whether
any SyncWrite was acknowledged at all within the bounds (if not, the
``holds`` is vacuous and says so). ``replay_counterexample`` runs the named
actions of a stored counterexample on the model again and re-checks the
property on the state they reach.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from checker.explore import Exploration, Verdict, explore, replay
from checker.explore import Path as Run
from spec.cluster import (
    ACK_RULES,
    BRANCH_RULES,
    CLUSTER_PROPERTIES,
    AckRule,
    BranchRule,
    ClusterBounds,
    ClusterModel,
    ClusterProperty,
    Setup,
    preset,
)
from spec.cluster.actions import Action
from spec.cluster.state import ClusterState
from spec.rules import RULE_SETS, RuleSet

__all__ = [
    "SANITY",
    "DurabilityResult",
    "DurabilityTask",
    "Replayed",
    "check_durability",
    "model_for",
    "replay_counterexample",
    "result_of",
]

SANITY = "syncwrite-acknowledged"


@dataclass(frozen=True)
class DurabilityResult:
    ack_rule: str
    branch_rule: str
    rules: str
    property: ClusterProperty
    preset: str | None  # the preset the bounds are, if they are one
    bounds: ClusterBounds
    verdict: Verdict
    exploration: Exploration[ClusterState, Action]
    model: ClusterModel
    explanation: str = ""
    acknowledged_reachable: bool | None = None  # None: not known (search stopped early)

    @property
    def path(self) -> Run[ClusterState, Action] | None:
        """The counterexample (or, for a *sometimes* property, the example)."""
        return self.exploration.outcomes[self.property.id].path

    @property
    def vacuous(self) -> bool:
        """A 'holds' of a safety property in bounds where no SyncWrite is ever acknowledged."""
        return (
            self.verdict is Verdict.HOLDS
            and self.property.expectation == "always"
            and self.acknowledged_reachable is False
        )


def model_for(
    ack_rule: AckRule,
    branch_rule: BranchRule,
    rules: RuleSet,
    bounds: ClusterBounds,
    extra: tuple[ClusterProperty, ...] = (),
) -> ClusterModel:
    return ClusterModel(Setup(bounds, ack_rule, branch_rule, rules), extra)


def check_durability(
    ack_rule: AckRule,
    branch_rule: BranchRule,
    prop: ClusterProperty,
    rules: RuleSet,
    bounds: ClusterBounds,
    *,
    preset: str | None = None,
    strategy: str = "bfs",
    max_states: int | None = None,
    timeout_s: float | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> DurabilityResult:
    model = model_for(ack_rule, branch_rule, rules, bounds, (prop,))
    wanted = [prop.id] if prop.id == SANITY else [prop.id, SANITY]
    result = explore(
        model,
        wanted,
        strategy=strategy,
        max_states=max_states,
        timeout_s=timeout_s,
        progress=progress,
    )
    return result_of(model, prop, result, preset)


def result_of(
    model: ClusterModel,
    prop: ClusterProperty,
    exploration: Exploration[ClusterState, Action],
    preset: str | None = None,
) -> DurabilityResult:
    """The verdict on ``prop`` that ``exploration`` of ``model`` reached, explained."""
    outcome = exploration.outcomes[prop.id]
    explanation = ""
    if outcome.path is not None:
        explanation = prop.bind(model.setup).explain(outcome.path.last_state)
    sanity = exploration.outcomes[SANITY].verdict
    setup = model.setup
    return DurabilityResult(
        ack_rule=setup.ack_rule.id,
        branch_rule=setup.branch_rule.id,
        rules=setup.rules.name,
        property=prop,
        preset=preset,
        bounds=setup.bounds,
        verdict=outcome.verdict,
        exploration=exploration,
        model=model,
        explanation=explanation,
        acknowledged_reachable=None if sanity is Verdict.UNKNOWN else sanity is Verdict.HOLDS,
    )


@dataclass(frozen=True)
class DurabilityTask:
    """A combination of built-ins named by id, at a preset's bounds.

    What ``dcpcheck verify`` ships to a Spark executor: ``run`` checks it and
    returns only picklable parts (rules and properties hold functions), and
    ``result`` rebuilds the full ``DurabilityResult`` on the driver.
    """

    ack_rule: str
    branch_rule: str
    property: str
    preset: str
    rules: str = "kv-current"

    def run(
        self, *, max_states: int | None = None, timeout_s: float | None = None
    ) -> Exploration[ClusterState, Action]:
        """The search alone: picklable, unlike the model it explored."""
        return check_durability(
            ACK_RULES.get(self.ack_rule),
            BRANCH_RULES.get(self.branch_rule),
            CLUSTER_PROPERTIES.get(self.property),
            RULE_SETS.get(self.rules),
            preset(self.preset).bounds,
            max_states=max_states,
            timeout_s=timeout_s,
        ).exploration

    def result(self, exploration: Exploration[ClusterState, Action]) -> DurabilityResult:
        prop = CLUSTER_PROPERTIES.get(self.property)
        model = model_for(
            ACK_RULES.get(self.ack_rule),
            BRANCH_RULES.get(self.branch_rule),
            RULE_SETS.get(self.rules),
            preset(self.preset).bounds,
            (prop,),
        )
        return result_of(model, prop, exploration, self.preset)


@dataclass(frozen=True)
class Replayed:
    confirmed: bool
    detail: str


def replay_counterexample(
    ack_rule: str,
    branch_rule: str,
    prop: str,
    rules: RuleSet,
    bounds: ClusterBounds,
    actions: list[Action],
) -> Replayed:
    """Run ``actions`` from the model's initial state; confirmed if each is enabled
    where it is taken and the property is violated at the end (and not before)."""
    model = model_for(ACK_RULES.get(ack_rule), BRANCH_RULES.get(branch_rule), rules, bounds)
    bound = CLUSTER_PROPERTIES.get(prop).bind(model.setup)
    (init,) = model.init_states()
    try:
        path = replay(model, init, actions)
    except ValueError as exc:
        return Replayed(False, str(exc))
    states = path.states()
    if bound.expectation == "always":
        early = [n for n, s in enumerate(states[:-1]) if not bound.holds(s)]
        if early:
            return Replayed(False, f"{prop} already fails after step {early[0]}")
        if bound.holds(states[-1]):
            return Replayed(False, f"{prop} holds at the end of the run")
        return Replayed(True, bound.explain(states[-1]))
    if not bound.holds(states[-1]):
        return Replayed(False, f"{prop} is not satisfied at the end of the run")
    return Replayed(True, bound.explain(states[-1]))
