"""Check one (ack rule, branch rule, property) of the cluster model, and replay stored runs.

``check_durability`` builds the model (``spec.cluster``) and hands it to an
explicit-state engine (``checker.engines.registry``, default ``explore``;
``durability_checks``: every check of a command as that engine runs them, one
job each); the property is
searched together with ``syncwrite-acknowledged``, so that a ``holds`` says
whether any SyncWrite was acknowledged at all within the bounds (if not, the
``holds`` is vacuous and says so). A violation is replayed
(``replay_counterexample``): its named actions run on the model again, the
property is re-checked on the state they reach, and the same actions run on
the independent reference cluster (``spec.reference.cluster``), which must
reach the same summary after every step and see the same violation. The
``checker.result.Result`` carries the path as a run of named steps
(``spec.cluster.narrate``).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from checker.corpus.cluster import cluster_record, counterexample_id
from checker.engines.explore import Exploration, Progress, replay
from checker.engines.options import DEFAULT, Options
from checker.engines.registry import EXPLORE, Checks, ClusterEngine
from checker.loading import source_of
from checker.result import Replayed, Result, Stats, Verdict, not_run
from checker.timing import Stopwatch
from spec.cluster import (
    PRESETS,
    AckRule,
    BranchRule,
    ClusterBounds,
    ClusterModel,
    ClusterProperty,
    Setup,
)
from spec.cluster.actions import Action
from spec.cluster.narrate import run_of
from spec.cluster.protocol import Expectation
from spec.cluster.state import LEVEL_NAMES, ClusterState
from spec.reference.cluster_replay import reference_knows, replay_on_reference
from spec.reference.producer import REFERENCE_DECISIONS
from spec.rules import RuleSet

__all__ = [
    "SANITY",
    "Check",
    "DurabilityCell",
    "check_durability",
    "durability_checks",
    "model_for",
    "planned",
    "replay_counterexample",
    "reproduce_command",
    "result_of",
]

SANITY = "syncwrite-acknowledged"
# What the reference cluster can replay: its producers and its own properties (a
# user's property file, or a rule set without a reference producer, is model-only).
REFERENCE_RULE_SETS = frozenset(REFERENCE_DECISIONS)

_BOUND_FLAGS = (
    "nodes",
    "majority",
    "keys",
    "prepares",
    "sets",
    "items",
    "failovers",
    "restarts",
    "prefix",
    "prefix_replicas",
    "midpoint_rollback",
)
# bounds added later: named only when they differ from the preset's (or, without a
# preset, from 0), so the commands printed before they existed stay as they were
_LATER_FLAGS = ("partial_flush", "disk_snapshots")


def model_for(
    ack_rule: AckRule,
    branch_rule: BranchRule,
    rules: RuleSet,
    bounds: ClusterBounds,
    extra: tuple[ClusterProperty, ...] = (),
) -> ClusterModel:
    return ClusterModel(Setup(bounds, ack_rule, branch_rule, rules), extra)


def reproduce_command(
    ack_rule: str,
    branch_rule: str,
    prop: str,
    rules: str,
    bounds: ClusterBounds,
    preset: str | None,
    strategy: str = "bfs",
    symmetry: bool = True,
) -> str:
    """The command that searches this check again the same way: its names, bounds and the
    search options a run depends on (``--strategy``, ``--symmetry``; a bfs-spark search
    finds the run the in-process one finds, and fingerprints the states it keeps)."""
    text = (
        f"dcpcheck durability --ack-rule {ack_rule} --branch-rule {branch_rule} --property {prop}"
    )
    if rules != "kv-current":
        text += f" --rules {shlex.quote(rules)}"
    base = PRESETS[preset].bounds if preset else None
    if preset:
        text += f" --preset {preset}"
    for name in _BOUND_FLAGS:
        value = getattr(bounds, name)
        if base is None or getattr(base, name) != value:
            text += f" --{name.replace('_', '-')} {value}"
    for name in _LATER_FLAGS:
        value = getattr(bounds, name)
        if value != (getattr(base, name) if base else 0):
            text += f" --{name.replace('_', '-')} {value}"
    if bounds.levels != (base.levels if base else 0):
        text += f" --level {','.join(LEVEL_NAMES[d] for d in bounds.level_sequence())}"
    if strategy != "bfs":
        text += f" --strategy {strategy}"
    if not symmetry:
        text += " --symmetry off"
    return text


@dataclass(frozen=True)
class DurabilityCell:
    """One check of the cluster model: an ack rule x branch rule x property, streams
    answered by ``rules``, within ``bounds`` (``preset``: the preset they are, if any)."""

    ack_rule: AckRule
    branch_rule: BranchRule
    prop: ClusterProperty
    rules: RuleSet
    bounds: ClusterBounds
    preset: str | None = None


def check_durability(
    cell: DurabilityCell,
    *,
    options: Options = DEFAULT,
    progress: Progress | None = None,
    engine: ClusterEngine = EXPLORE,
) -> Result:
    """The check of ``cell`` searched by ``engine`` under ``options`` (``strategy``,
    ``max_states``, ``timeout_s``)."""
    (check,) = durability_checks(
        engine,
        [cell.ack_rule],
        [cell.branch_rule],
        [cell.prop],
        cell.rules,
        cell.bounds,
        options,
        cell.preset,
    )
    return check(progress)


Check = Callable[[Progress | None], Result]  # one check: given where its progress goes


def durability_checks(
    engine: ClusterEngine,
    ack_rules: Sequence[AckRule],
    branch_rules: Sequence[BranchRule],
    properties: Sequence[ClusterProperty],
    rules: RuleSet,
    bounds: ClusterBounds,
    options: Options = DEFAULT,
    preset: str | None = None,
) -> list[Check]:
    """Every ack rule x branch rule x property, in that order: one check each, searched by
    ``engine`` (``engine.runs``: a search of its own, or its part of one search of all),
    each property with ``syncwrite-acknowledged`` alongside."""
    models = [
        model_for(ack, branch, rules, bounds, tuple(properties))
        for ack in ack_rules
        for branch in branch_rules
    ]
    runs = engine.runs(Checks(models, [p.id for p in properties], [SANITY]), options)
    checks = [(model, prop) for model in models for prop in properties]
    return [
        partial(_checked, model, prop, run, preset)
        for (model, prop), run in zip(checks, runs, strict=True)
    ]


def _checked(
    model: ClusterModel,
    prop: ClusterProperty,
    run: Callable[[Progress | None], Exploration[ClusterState, Action]],
    preset: str | None,
    progress: Progress | None,
) -> Result:
    clock = Stopwatch()
    return result_of(model, prop, run(progress), preset, clock)


def planned(cell: DurabilityCell, strategy: str = "bfs", symmetry: bool = True) -> Result:
    """The check's result before anything is decided: ``unknown``, named and bounded,
    with the command that reproduces it (what an interrupted run reports for it)."""
    rules, prop = cell.rules, cell.prop
    subject = {"ack_rule": cell.ack_rule.id, "branch_rule": cell.branch_rule.id}
    given = source_of(rules, rules.name)
    command = reproduce_command(
        cell.ack_rule.id,
        cell.branch_rule.id,
        prop.id,
        given,
        cell.bounds,
        cell.preset,
        strategy,
        symmetry,
    )
    return not_run(
        "cluster",
        subject,
        prop,
        cell.bounds,
        strategy,
        command,
        context={"rules": rules.name},
        expectation=prop.expectation,
        preset=cell.preset,
        sources={"rules": given} if given != rules.name else {},
    )


def result_of(
    model: ClusterModel,
    prop: ClusterProperty,
    exploration: Exploration[ClusterState, Action],
    preset: str | None = None,
    clock: Stopwatch | None = None,
) -> Result:
    """The verdict on ``prop`` that ``exploration`` of ``model`` reached, explained and
    (a violation) replayed."""
    setup = model.setup
    outcome = exploration.outcomes[prop.id]
    sanity = exploration.outcomes[SANITY].verdict
    cell = DurabilityCell(
        setup.ack_rule, setup.branch_rule, prop, setup.rules, setup.bounds, preset
    )
    result = planned(cell, exploration.strategy, exploration.symmetry).but(
        verdict=outcome.verdict,
        engine=exploration.engine or exploration.strategy,
        reason="" if outcome.verdict is not Verdict.UNKNOWN else exploration.stopped,
    )
    if prop.expectation == Expectation.ALWAYS and outcome.verdict is Verdict.HOLDS:
        result = result.but(vacuous=sanity is Verdict.VIOLATED)
    path = outcome.path
    if path is not None:
        actions = path.actions()
        run = run_of(setup, path.init, [(s.action, s.state) for s in path.steps])
        result = result.but(
            run=run,
            witness=actions,
            explanation=prop.bind(setup).explain(path.last_state),
        )
        if outcome.verdict is Verdict.VIOLATED:
            ident = counterexample_id(result, actions)
            replayed = replay_counterexample(
                setup.ack_rule.id,
                setup.branch_rule.id,
                prop.id,
                setup.rules,
                setup.bounds,
                actions,
                model,
            )
            result = result.but(replay=replayed, ident=ident)
            result = result.but(record=cluster_record(result, exploration))
    wall, cpu = clock.read() if clock is not None else (exploration.seconds, 0.0)
    return result.but(
        stats=Stats(
            wall,
            cpu + exploration.cpu_elsewhere,
            states=exploration.states,
            transitions=exploration.transitions,
            max_depth=exploration.max_depth,
            strategy=exploration.strategy,
            complete=exploration.complete,
            stopped=exploration.stopped,
        )
    )


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
    from spec.cluster import ACK_RULES, BRANCH_RULES

    if model is None:
        model = model_for(ACK_RULES.get(ack_rule), BRANCH_RULES.get(branch_rule), rules, bounds)
    bound = next(p for p in model.properties() if p.name == prop)
    (init,) = model.init_states()
    try:
        path = replay(model, init, actions)
    except ValueError as exc:
        return Replayed(False, str(exc))
    states = path.states()
    if bound.expectation == Expectation.ALWAYS:
        early = [n for n, s in enumerate(states[:-1]) if not bound.holds(s)]
        if early:
            return Replayed(False, f"{prop} already fails after step {early[0]}")
        if bound.holds(states[-1]):
            return Replayed(False, f"{prop} holds at the end of the run")
    elif not bound.holds(states[-1]):
        return Replayed(False, f"{prop} is not satisfied at the end of the run")
    if rules.name in REFERENCE_RULE_SETS and reference_knows(prop):
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
