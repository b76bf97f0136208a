"""Check one (ack rule, branch rule, property) of the cluster model, and replay stored runs.

``check_durability`` builds the model (``spec.cluster``) and hands it to the
explicit-state checker (``checker.explore``); the property is searched
together with ``syncwrite-acknowledged``, so that a ``holds`` says whether
any SyncWrite was acknowledged at all within the bounds (if not, the
``holds`` is vacuous and says so). ``replay_counterexample`` runs the named
actions of a stored counterexample on the model again and re-checks the
property on the state they reach; it then replays the same actions on the
independent reference cluster (``spec.reference.cluster``), which must reach
the same summary after every step and see the same violation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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
from spec.reference.cluster_replay import replay_on_reference
from spec.reference.producer import REFERENCE_DECISIONS
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
# What the reference cluster can replay: its producers and its own properties (a
# user's property file, or a rule set without a reference producer, is model-only).
REFERENCE_RULE_SETS = frozenset(REFERENCE_DECISIONS)
REFERENCE_PROPERTIES = frozenset({"no-lost-syncwrite", "prepare-ack-progress", SANITY})


@dataclass(frozen=True)
class Replayed:
    confirmed: bool
    detail: str


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
    replay: Replayed | None = None  # a violation replayed on the model and the reference

    @property
    def confirmed(self) -> bool:
        return self.replay is not None and self.replay.confirmed

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
    result = _search(
        model,
        prop,
        strategy=strategy,
        max_states=max_states,
        timeout_s=timeout_s,
        progress=progress,
    )
    return result_of(model, prop, result, preset)


def _search(
    model: ClusterModel, prop: ClusterProperty, **limits: Any
) -> Exploration[ClusterState, Action]:
    """Explore ``model`` for ``prop`` and the sanity search that flags a vacuous holds."""
    return explore(model, [prop.id] if prop.id == SANITY else [prop.id, SANITY], **limits)


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
    replayed = None
    if outcome.verdict is Verdict.VIOLATED and outcome.path is not None:
        replayed = replay_counterexample(
            setup.ack_rule.id,
            setup.branch_rule.id,
            prop.id,
            setup.rules,
            setup.bounds,
            outcome.path.actions(),
            model,
        )
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
        replay=replayed,
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
        model, prop = self._model()
        return _search(model, prop, max_states=max_states, timeout_s=timeout_s)

    def result(self, exploration: Exploration[ClusterState, Action]) -> DurabilityResult:
        """The verdict ``run`` reached, explained and (a violation) replayed."""
        model, prop = self._model()
        return result_of(model, prop, exploration, self.preset)

    def _model(self) -> tuple[ClusterModel, ClusterProperty]:
        prop = CLUSTER_PROPERTIES.get(self.property)
        model = model_for(
            ACK_RULES.get(self.ack_rule),
            BRANCH_RULES.get(self.branch_rule),
            RULE_SETS.get(self.rules),
            preset(self.preset).bounds,
            (prop,),
        )
        return model, prop


def replay_counterexample(
    ack_rule: str,
    branch_rule: str,
    prop: str,
    rules: RuleSet,
    bounds: ClusterBounds,
    actions: list[Action],
    model: ClusterModel | None = None,
) -> Replayed:
    """Run ``actions`` from the model's initial state; confirmed if each is enabled
    where it is taken and the property is violated at the end (and not before),
    and if the reference cluster, replaying the same actions, observes the model's
    state after every step and sees the same violation (``spec.reference``)."""
    if model is None:
        model = model_for(ACK_RULES.get(ack_rule), BRANCH_RULES.get(branch_rule), rules, bounds)
    bound = next(p for p in model.properties() if p.name == prop)
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
    elif not bound.holds(states[-1]):
        return Replayed(False, f"{prop} is not satisfied at the end of the run")
    if rules.name in REFERENCE_RULE_SETS and prop in REFERENCE_PROPERTIES:
        record = {
            "ack_rule": ack_rule,
            "branch_rule": branch_rule,
            "rules": rules.name,
            "property": prop,
            "bounds": bounds.to_json(),
            "init": init.to_json(),
            "steps": [
                {"action": a.to_json(), "state": s.to_json()}
                for a, s in zip(actions, states[1:], strict=True)
            ],
        }
        confirmed, detail = replay_on_reference(record)
        if not confirmed:
            return Replayed(False, f"the reference disagrees: {detail}")
    return Replayed(True, bound.explain(states[-1]))
