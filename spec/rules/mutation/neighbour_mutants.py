"""Named mutants drawn from a rule set's neighbourhood (``spec.rules.mutation.neighbourhood``).

Each is one instance of the symbolic neighbourhood: a selector value for one
change, turned into a plain rule set by ``Neighbourhood.instance``. So the
mutants ``dcpcheck vectors score`` counts and the class Z3 reasons about when
it proves what a vector set exposes are one definition.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from spec.expr import COMPARISONS, walk
from spec.rules.language import Adjust, Clause, RuleSet
from spec.rules.mutation.holes import QUANTITIES, RELATIONS, quantity_name
from spec.rules.mutation.neighbourhood import Neighbourhood

__all__ = ["boundaries", "neighbourhood_candidates", "structure"]

Candidate = tuple[str, str, str, Callable[[], RuleSet]]

# Position codes (Neighbourhood.position_holes) -> operator; "drop" is in
# spec.rules.mutation.operators.
_POSITION_OPERATORS = {"move": "move", "again": "duplicate"}


def structure(rules: RuleSet) -> tuple[object, ...]:
    """What a rule set decides by, without names or reasons: equal structures decide alike."""
    steps: list[tuple[str, ...]] = []
    for step in rules.steps:
        if isinstance(step, Clause):
            steps.append(("clause", str(step.when), str(step.then)))
        else:
            steps.append(("adjust", str(step.when), step.field, str(step.to)))
    return (rules.table_scan, tuple(steps))


def boundaries(rules: RuleSet) -> list[tuple[str, str]]:
    """The (left, right) quantity pairs the rule set compares, in order of appearance."""
    pairs: list[tuple[str, str]] = []
    for step in rules.steps:
        roots = [step.when] + ([step.to] if isinstance(step, Adjust) else [])
        for node in walk(roots):
            if node.op not in COMPARISONS:
                continue
            left, right = (quantity_name(a) for a in node.args)
            if left and right and left != right and (left, right) not in pairs:
                pairs.append((left, right))
    return pairs


def neighbourhood_candidates(rules: RuleSet) -> Iterator[Candidate]:
    """(operator, where, description, build), in a fixed order."""
    hood = Neighbourhood(rules)
    edges = boundaries(rules)
    positions = {hole.name: codes for hole, codes in filter(None, hood.position_holes)}
    for change in hood.changes:
        selections: list[tuple[str, dict[str, int]]] = []
        holes = {h.name.rsplit(".", 1)[-1]: h for h in change.holes}
        if change.operator == "comparison":
            rel = holes["rel"]
            selections += [("relation", {rel.name: a}) for a in range(1, rel.size)]
            for side in ("left", "right"):
                if side in holes:
                    hole = holes[side]
                    selections += [("operand", {hole.name: a}) for a in range(1, hole.size)]
        elif change.operator in ("return", "adjust-to", "adjust-field", "scan"):
            (hole,) = change.holes
            selections += [(change.operator, {hole.name: a}) for a in range(1, hole.size)]
        elif change.operator == "position":
            (hole,) = change.holes
            for code, (kind, _) in enumerate(positions[hole.name]):
                if kind in _POSITION_OPERATORS:
                    selections.append((_POSITION_OPERATORS[kind], {hole.name: code}))
        elif change.operator == "early":
            eq = 1 + RELATIONS.index("eq")
            outcomes = (0, 1 + QUANTITIES.index("0"))  # accept(), rollback(0)
            for left, right in edges:
                for out in outcomes:
                    selection = {
                        holes["guard"].name: eq,
                        holes["left"].name: QUANTITIES.index(left),
                        holes["right"].name: QUANTITIES.index(right),
                        holes["out"].name: out,
                    }
                    selections.append(("early", selection))
        for operator, selection in selections:
            description = hood.describe(selection)
            build = partial(hood.instance, selection, rules.name, description)
            yield operator, change.step, description, build
