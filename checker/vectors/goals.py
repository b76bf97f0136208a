"""Coverage goals for one rule set: what a regression vector set must exercise.

A goal is a condition over the decision inputs (``DecisionSpace``): a vector
*covers* it when the condition holds for the vector's request and producer.
``required`` must hold; ``preferred`` is kept when it can hold (the generator
drops it when Z3 proves it cannot). Goal names are stable ids:

* ``RULES:clause:NAME`` — the clause decides (``RULES:clause:erange``: the
  producer refuses the request);
* ``RULES:adjust:NAME:on|off`` — the adjustment is reached, and fires / does not;
* ``RULES:boundary:STEP:COMPARISON:eq|below|above`` — the step is reached
  and the comparison's left side equals its right side, is one below or one
  above it (no wrap-around), with both sides read at that step (after the
  adjustments before it). Preferred: the comparison *matters* — the
  decision with it forced true differs from the decision with it forced
  false. ``producer:boundary:erange:...`` are the range check's comparisons;
* ``RULES:lookup:entry-I`` — the request's uuid matches table entry I
  (preferred: the answer is a rollback to upper, so a wrong upper shows);
  ``RULES:lookup:repeated`` — it matches two entries (the table repeats it;
  preferred: the two scan orders read different uppers);
* ``RULES:kill:MUTANT`` — the decision differs from that mutant's
  (``spec.rules.mutation.operators``); added by the generator for mutants that the
  goals above left alive.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec.expr import FALSE, TRUE, Expr, all_of, any_of, ite, substitute
from spec.rules.inputs import DecisionExprs, DecisionSpace
from spec.rules.language import Adjust, RuleSet
from spec.rules.mutation.operators import comparisons, with_node

__all__ = [
    "Goal",
    "StepContext",
    "coverage_goals",
    "differs",
    "kill_goal",
    "producer_goals",
    "step_contexts",
]


@dataclass(frozen=True)
class Goal:
    name: str
    required: Expr
    preferred: Expr = TRUE


@dataclass(frozen=True)
class StepContext:
    """A step as evaluated: whether it is reached, and the fields as they read there."""

    reached: Expr
    fields: dict[str, Expr]


def step_contexts(rules: RuleSet, fields: dict[str, Expr]) -> list[StepContext]:
    """The fold of ``compile_rules``, keeping each step's context."""
    env = dict(fields)
    reached: Expr = TRUE
    contexts = []
    for step in rules.steps:
        contexts.append(StepContext(reached, dict(env)))
        (when,) = substitute([step.when], env)
        if isinstance(step, Adjust):
            (to,) = substitute([step.to], env)
            env[step.field] = ite(when, to, env[step.field])
        else:
            reached = all_of(reached, ~when)
    return contexts


def differs(a: DecisionExprs, b: DecisionExprs) -> Expr:
    """The two decisions differ in outcome or rollback seqno."""
    return any_of(a.outcome != b.outcome, a.seqno != b.seqno)


def boundaries(left: Expr, right: Expr) -> dict[str, Expr]:
    return {
        "eq": left == right,
        "below": (right >= 1) & (left + 1 == right),
        "above": (left >= 1) & (left - 1 == right),
    }


def coverage_goals(space: DecisionSpace, rules: RuleSet) -> list[Goal]:
    decision = space.decision(rules)
    ok = decision.range_ok
    prefix = rules.name
    goals = [
        Goal(f"{prefix}:clause:{c.name}", all_of(ok, decision.rules.guards[c.name]))
        for c in rules.clauses
    ]
    goals.append(Goal(f"{prefix}:clause:erange", ~ok))
    contexts = step_contexts(rules, space.fields)
    for step, context in zip(rules.steps, contexts, strict=True):
        if isinstance(step, Adjust):
            (when,) = substitute([step.when], context.fields)
            goals.append(Goal(f"{prefix}:adjust:{step.name}:on", all_of(ok, context.reached, when)))
            goals.append(
                Goal(f"{prefix}:adjust:{step.name}:off", all_of(ok, context.reached, ~when))
            )
    seen: dict[str, int] = {}
    for site, node in comparisons(rules):
        step = rules.steps[site.step]
        context = contexts[site.step]
        reached = context.reached
        if site.attr != "when":
            (when,) = substitute([step.when], context.fields)
            reached = all_of(reached, when)
        left, right = substitute(list(node.args), context.fields)
        label = f"{step.name}:{node}"
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label += f"#{seen[label]}"
        forced_true = space.decision(with_node(rules, site, node, TRUE))
        forced_false = space.decision(with_node(rules, site, node, FALSE))
        matters = differs(forced_true, forced_false)
        for where, relation in boundaries(left, right).items():
            goals.append(
                Goal(f"{prefix}:boundary:{label}:{where}", all_of(ok, reached, relation), matters)
            )
    table = space.table
    upper = space.fields["upper"]
    uuid = space.fields["uuid"]
    shows_upper = all_of(decision.outcome == 1, decision.seqno == upper)
    for i in range(space.table_entries):
        match = all_of(table.live(i), table.uuid[i] == uuid, ok)
        goals.append(Goal(f"{prefix}:lookup:entry-{i}", match, shows_upper))
    if not space.distinct_uuids and space.table_entries > 1:
        matches = [all_of(table.live(i), table.uuid[i] == uuid) for i in range(space.table_entries)]
        twice = any_of(*(all_of(a, b) for i, a in enumerate(matches) for b in matches[i + 1 :]))
        scans_differ = upper != space.fields["upper@newest-first"]
        goals.append(Goal(f"{prefix}:lookup:repeated", all_of(twice, ok), scans_differ))
    return goals


def producer_goals(space: DecisionSpace) -> list[Goal]:
    """The producer's range check, whatever the rule set: each comparison's boundaries."""
    f = space.fields
    checks = [
        ("snap_start <= start", f["snap_start"], f["start"]),
        ("start <= snap_end", f["start"], f["snap_end"]),
        ("start <= end", f["start"], f["end"]),
    ]
    goals = []
    for label, left, right in checks:
        others = all_of(*(a <= b for other, a, b in checks if other != label))
        for where, relation in boundaries(left, right).items():
            goals.append(Goal(f"producer:boundary:erange:{label}:{where}", relation, others))
    return goals


def kill_goal(space: DecisionSpace, rules: RuleSet, mutant_id: str, mutated: RuleSet) -> Goal:
    return Goal(
        f"{rules.name}:kill:{mutant_id}",
        differs(space.decision(rules), space.decision(mutated)),
    )
