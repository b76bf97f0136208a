"""Holes: the places of a rule set where one change can be made, and their alternatives.

A ``Hole`` is an integer *selector* variable (``change.N.suffix``) choosing
among ``size`` alternatives, 0 being the rule set's own; ``pick`` writes the
choice as an ``ite`` over expressions. A ``Change`` groups the holes of one
place (a comparison's relation, left and right side; a new clause's guard,
sides and answer...) and describes what a choice of them makes. The
quantities and relations a change may use are named here; the
neighbourhood that puts holes into a rule set is ``spec.rules.mutation.neighbourhood``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from spec.expr import (
    BOOL,
    FALSE,
    INT,
    TRUE,
    Expr,
    any_of,
    const,
    ite,
    rebuild,
    substitute,
    var,
    variables,
)

__all__ = [
    "BOOLEAN_ATOMS",
    "QUANTITIES",
    "RELATIONS",
    "SYMBOL",
    "Change",
    "Hole",
    "HoleBuilder",
    "Selection",
    "is_seqno",
    "quantity",
    "quantity_name",
    "relate",
]

# The seqno quantities a decision compares and returns (the fields as a step reads them).
QUANTITIES: tuple[str, ...] = (
    "0",
    "start",
    "snap_start",
    "snap_end",
    "purge_seqno",
    "upper",
    "entry_seqno",
    "high_seqno",
    "remote_purge",
    "collection_high",
)
RELATIONS: tuple[str, ...] = ("lt", "le", "eq", "ne", "gt", "ge")
BOOLEAN_ATOMS: tuple[str, ...] = ("strict", "uuid_found", "has_collection_high")
SYMBOL = {"lt": "<", "le": "<=", "eq": "==", "ne": "!=", "gt": ">", "ge": ">="}

Selection = Mapping[str, int]  # selector name -> chosen alternative (absent: 0)


def quantity(name: str) -> Expr:
    return const(0) if name == "0" else var(name, INT)


def quantity_name(expr: Expr) -> str | None:
    if expr.is_const and expr.value == 0:
        return "0"
    if expr.op == "var" and expr.name in QUANTITIES:
        return expr.name
    return None


def is_seqno(expr: Expr) -> bool:
    """An integer expression over seqno quantities only (not a uuid or a count)."""
    return expr.sort is INT and set(variables([expr])) <= set(QUANTITIES)


def relate(op: str, left: Expr, right: Expr) -> Expr:
    if op == "true":
        return TRUE
    if op == "false":
        return FALSE
    return rebuild(Expr(op, BOOL, (left, right)), (left, right))


@dataclass(frozen=True)
class Hole:
    """One selector: ``size`` alternatives, 0 being the rule set's own."""

    name: str
    size: int

    @property
    def var(self) -> Expr:
        return var(self.name, INT)

    def pick(self, choices: Sequence[Expr]) -> Expr:
        assert len(choices) == self.size, (self.name, len(choices), self.size)
        result = choices[-1]
        for index in range(self.size - 2, -1, -1):
            result = ite(self.var == index, choices[index], result)
        return result


@dataclass(frozen=True)
class Change:
    """A place where one change can happen, with the holes that make it."""

    operator: str
    step: str  # the step it is at (or, for early/position, the step it is before)
    holes: tuple[Hole, ...]
    # How to describe an instance: hole name -> label per alternative.
    labels: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    template: str = field(default="", compare=False)  # "{hole}" placeholders by hole suffix
    # The symbolic expression the change makes, if any: "{new}" in the template prints it.
    expr: Expr | None = field(default=None, compare=False)

    def changed(self) -> Expr:
        return any_of(*(h.var != 0 for h in self.holes))

    def is_changed(self, selection: Selection) -> bool:
        return any(selection.get(h.name, 0) != 0 for h in self.holes)

    def describe(self, selection: Selection) -> str:
        values = {
            h.name.rsplit(".", 1)[-1]: self.labels[h.name][selection.get(h.name, 0)]
            for h in self.holes
        }
        if self.expr is not None:
            chosen = {h.name: const(int(selection.get(h.name, 0))) for h in self.holes}
            (values["new"],) = (str(e) for e in substitute([self.expr], chosen))
        return self.template.format(**values)


class HoleBuilder:
    """Collects changes and numbers their holes."""

    def __init__(self) -> None:
        self.changes: list[Change] = []

    def change(
        self,
        operator: str,
        step: str,
        holes: Mapping[str, Sequence[str]],
        template: str,
    ) -> tuple[Hole, ...]:
        """A change with one hole per ``holes`` item (suffix -> alternative labels)."""
        index = len(self.changes)
        made = tuple(
            Hole(f"change.{index}.{suffix}", len(labels)) for suffix, labels in holes.items()
        )
        labels = {h.name: tuple(lbl) for h, lbl in zip(made, holes.values(), strict=True)}
        self.changes.append(Change(operator, step, made, labels, template))
        return made

    def makes(self, expr: Expr) -> Expr:
        """Record ``expr`` as what the last change makes (for its description); return it."""
        self.changes[-1] = dataclasses.replace(self.changes[-1], expr=expr)
        return expr
