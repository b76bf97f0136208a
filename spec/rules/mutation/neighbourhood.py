"""The neighbourhood of a rule set: every rule set one change away, as one symbolic rule set.

A *change* is one of (the mutation operators of ``spec.rules.mutation.operators``,
with every choice of quantity and relation instead of a few):

* ``comparison``: a comparison of two seqno quantities becomes any relation
  (``< <= == != > >=``, or always true / always false) between any two of
  ``QUANTITIES`` as they read at that step (a comparison with another
  operand, such as ``uuid == 0``, changes its relation only);
* ``flip``: a boolean field (``strict``, ``uuid_found``...) negated;
* ``return``: a clause accepts, or rolls back to any quantity;
* ``adjust-to``: an adjustment sets its field to any quantity;
* ``adjust-field``: an adjustment of ``snap_start`` adjusts ``snap_end``
  instead, or the other way round;
* ``position``: a step (not the last clause) is dropped, moved to any other
  position (for example across a snapshot adjustment), or, for an
  adjustment, applied once more at any later position;
* ``early``: a new clause at any position: when one comparison of two
  quantities holds (or a boolean field is true / false), accept or roll
  back to any quantity;
* ``scan``: the failover table scanned in the other order.

``Neighbourhood(rules)`` builds them all into one rule set whose expressions
contain *selector* variables (``change.N.hole``, integers; 0 is "as in the
rule set"): the steps of ``rules`` with each hole written as a choice
(``ite``) over its alternatives, plus guarded copies for the positional and
early changes. Z3 then searches the whole neighbourhood at once
(``checker.vectors.guarantee``); ``instance(selection)`` turns selector
values back into a plain ``RuleSet`` by substituting them and folding, so
the rule set Z3 reasoned about and the one replayed are the same
definition. ``spec.rules.mutation.operators`` enumerates some of these instances as
named mutants.

Not in the neighbourhood: arithmetic (``start + 1``), comparisons of three
quantities or more in one new clause, two changes at once, and any field
outside ``QUANTITIES`` (``spec.rules.mutation.holes``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from functools import cached_property

from spec.expr import (
    BOOL,
    COMPARISONS,
    FALSE,
    TRUE,
    Expr,
    all_of,
    any_of,
    const,
    not_,
    rebuild,
    substitute,
    var,
    variables,
    walk,
)
from spec.rules.language import (
    Adjust,
    Clause,
    ClauseOutcome,
    RuleSet,
    RuleStep,
    accept,
    rollback,
    scanned,
)
from spec.rules.lookup import SCANNED_FIELDS, TABLE_SCANS
from spec.rules.mutation.holes import (
    BOOLEAN_ATOMS,
    QUANTITIES,
    RELATIONS,
    SYMBOL,
    Change,
    Hole,
    HoleBuilder,
    Selection,
    is_seqno,
    quantity,
    quantity_name,
    relate,
)

__all__ = ["Neighbourhood"]


class Neighbourhood:
    """Every rule set one change away from ``rules`` (``within(1)``), as one symbolic rule set."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self._builder = HoleBuilder()
        # clause part name -> (its outcome hole, the accepting alternatives, is the accepting part)
        self._parts: dict[str, tuple[Hole, frozenset[int], bool]] = {}
        b = self._builder
        self.scan_hole = b.change(
            "scan",
            "table",
            {"scan": [f"scan the table {s}" for s in _scans_from(rules.table_scan)]},
            "{scan}",
        )[0]
        steps = rules.steps
        n = len(steps)
        self.position_holes: list[tuple[Hole, list[tuple[str, int]]] | None] = []
        for i, step in enumerate(steps):
            if i == n - 1:
                self.position_holes.append(None)
                continue
            codes: list[tuple[str, int]] = [("stay", i), ("drop", i)]
            codes += [("move", p) for p in range(n) if p not in (i, i + 1)]
            if isinstance(step, Adjust):
                codes += [("again", p) for p in range(i + 1, n)]
            labels = [_position_label(rules, step, kind, p) for kind, p in codes]
            (hole,) = b.change("position", step.name, {"pos": labels}, "{pos}")
            self.position_holes.append((hole, codes))
        symbolic: list[RuleStep] = []
        for p in range(n):
            symbolic += self._early(p)
            symbolic += self._copies(p)
            symbolic += self._original(p)
        self.steps = tuple(symbolic)
        self.changes: tuple[Change, ...] = tuple(b.changes)
        self.symbolic = RuleSet(
            f"{rules.name}.neighbourhood",
            rules.summary,
            self.steps,
            rules.source,
            rules.where,
            rules.table_scan,
        )

    # -- building --------------------------------------------------------------------
    def _early(self, p: int) -> list[RuleStep]:
        """A new clause before step ``p``, off unless its guard hole says otherwise."""
        before = self.rules.steps[p].name
        guards = ["none", *RELATIONS]
        guard_labels = ["", *(SYMBOL[r] for r in RELATIONS)]
        for atom in BOOLEAN_ATOMS:
            guards += [atom, f"~{atom}"]
            guard_labels += [atom, f"~{atom}"]
        outcomes = ["accept()", *(f"rollback({q})" for q in QUANTITIES)]
        guard, left, right, out = self._builder.change(
            "early",
            before,
            {
                "guard": guard_labels,
                "left": list(QUANTITIES),
                "right": list(QUANTITIES),
                "out": outcomes,
            },
            f"new clause before '{before}': when {{new}} -> {{out}}",
        )
        quantities = [quantity(q) for q in QUANTITIES]
        left_value, right_value = left.pick(quantities), right.pick(quantities)
        relation = [FALSE, *(relate(r, left_value, right_value) for r in RELATIONS)]
        for atom in BOOLEAN_ATOMS:
            relation += [var(atom, BOOL), not_(var(atom, BOOL))]
        when = self._builder.makes(guard.pick(relation))
        seqnos = [quantity(q) for q in QUANTITIES]
        return self._split(f"new-clause@{p}", when, out, [None, *seqnos], "")

    def _copies(self, p: int) -> list[RuleStep]:
        """Copies of other steps moved (or applied again) to position ``p``."""
        out: list[RuleStep] = []
        for j, step in enumerate(self.rules.steps):
            entry = self.position_holes[j]
            if entry is None:
                continue
            hole, codes = entry
            active = [
                hole.var == code
                for code, (kind, at) in enumerate(codes)
                if kind in ("move", "again") and at == p
            ]
            if not active:
                continue
            when = all_of(any_of(*active), step.when)
            out.append(dataclasses.replace(step, name=f"{step.name}@{p}", when=when))
        return out

    def _original(self, i: int) -> list[RuleStep]:
        step = self.rules.steps[i]
        when = self._holes_in(step)
        entry = self.position_holes[i]
        if entry is not None:
            hole, codes = entry
            stays = any_of(
                *(hole.var == c for c, (kind, _) in enumerate(codes) if kind in ("stay", "again"))
            )
            when = all_of(stays, when)
        if isinstance(step, Adjust):
            return self._adjust(step, when)
        return self._clause(step, when, last=i == len(self.rules.steps) - 1)

    def _holes_in(self, step: RuleStep) -> Expr:
        """``step.when`` with a hole at each comparison and boolean field."""
        b = self._builder
        done: dict[int, Expr] = {}
        for node in walk([step.when]):
            args = tuple(done[id(a)] for a in node.args)
            if node.op in COMPARISONS:
                done[id(node)] = self._comparison(step, node, args)
            elif node.op == "var" and node.sort is BOOL:
                (flip,) = b.change(
                    "flip",
                    step.name,
                    {"flip": [node.var_name, f"~{node.name}"]},
                    f"{step.name}: {node.name} -> {{new}}",
                )
                done[id(node)] = b.makes(flip.pick([node, not_(node)]))
            elif node.args:
                same = all(a is b for a, b in zip(args, node.args, strict=True))
                done[id(node)] = node if same else rebuild(node, args)
            else:
                done[id(node)] = node
        return done[id(step.when)]

    def _comparison(self, step: RuleStep, node: Expr, args: tuple[Expr, ...]) -> Expr:
        left, right = args
        ops = [node.op, *(r for r in RELATIONS if r != node.op), "true", "false"]
        holes: dict[str, list[str]] = {"rel": [SYMBOL.get(o, o) for o in ops]}
        lefts, rights = [left], [right]
        if is_seqno(node.args[0]) and is_seqno(node.args[1]):
            lefts += [quantity(q) for q in QUANTITIES if q != quantity_name(node.args[0])]
            rights += [quantity(q) for q in QUANTITIES if q != quantity_name(node.args[1])]
            holes["left"] = [str(node.args[0])] + [str(e) for e in lefts[1:]]
            holes["right"] = [str(node.args[1])] + [str(e) for e in rights[1:]]
        template = f"{step.name}: {node} -> {{new}}"
        made = self._builder.change("comparison", step.name, holes, template)
        rel = made[0]
        l_expr = made[1].pick(lefts) if len(made) > 1 else left
        r_expr = made[2].pick(rights) if len(made) > 1 else right
        return self._builder.makes(rel.pick([relate(o, l_expr, r_expr) for o in ops]))

    def _clause(self, step: Clause, when: Expr, last: bool) -> list[RuleStep]:
        original = step.then
        choices: list[Expr | None] = [original.seqno]
        labels = [str(original)]
        if original.seqno is not None:
            choices.append(None)
            labels.append("accept()")
        for q in QUANTITIES:
            if original.seqno is None or not original.seqno.same(quantity(q)):
                choices.append(quantity(q))
                labels.append(f"rollback({q})")
        (out,) = self._builder.change(
            "return", step.name, {"out": labels}, f"{step.name}: {original} -> {{out}}"
        )
        return self._split(step.name, TRUE if last else when, out, choices, step.reason)

    def _split(
        self, name: str, when: Expr, out: Hole, seqnos: Sequence[Expr | None], reason: str
    ) -> list[RuleStep]:
        """A clause whose outcome is a hole: an accepting part, then a rolling-back part."""
        accepting = frozenset(i for i, s in enumerate(seqnos) if s is None)
        seqno = out.pick([s if s is not None else const(0) for s in seqnos])
        parts: list[RuleStep] = []
        if accepting:
            chosen = any_of(*(out.var == i for i in sorted(accepting)))
            parts.append(Clause(name, all_of(when, chosen), accept(), reason))
            self._parts[name] = (out, accepting, True)
        if len(accepting) < len(seqnos):
            parts.append(Clause(f"{name}#rollback", when, rollback(seqno), reason))
            self._parts[f"{name}#rollback"] = (out, accepting, False)
        return parts

    def _adjust(self, step: Adjust, when: Expr) -> list[RuleStep]:
        b = self._builder
        tos = [step.to]
        labels = [str(step.to)]
        if is_seqno(step.to) or quantity_name(step.to):
            tos += [quantity(q) for q in QUANTITIES if q != quantity_name(step.to)]
            labels += [q for q in QUANTITIES if q != quantity_name(step.to)]
        (to_hole,) = b.change(
            "adjust-to",
            step.name,
            {"to": labels},
            f"{step.name}: {step.field} := {step.to} -> {step.field} := {{to}}",
        )
        to = to_hole.pick(tos)
        other = {"snap_start": "snap_end", "snap_end": "snap_start"}.get(step.field)
        if other is None:
            return [dataclasses.replace(step, when=when, to=to)]
        (field_hole,) = b.change(
            "adjust-field",
            step.name,
            {"field": [step.field, other]},
            f"{step.name}: adjusts {{field}} (not {step.field})",
        )
        return [
            dataclasses.replace(step, when=all_of(when, field_hole.var == 0), to=to),
            Adjust(f"{step.name}#other", all_of(when, field_hole.var == 1), other, to),
        ]

    # -- reading it ------------------------------------------------------------------
    def fields(self, fields: Mapping[str, Expr]) -> dict[str, Expr]:
        """Decision fields as the neighbourhood reads them: the scan is a hole too."""
        scans = _scans_from(self.rules.table_scan)
        readings = [scanned(dict(fields), scan) for scan in scans]
        out = dict(readings[0])
        for name in SCANNED_FIELDS:
            out[name] = self.scan_hole.pick([r[name] for r in readings])
        return out

    @cached_property
    def selectors(self) -> tuple[str, ...]:
        return tuple(h.name for c in self.changes for h in c.holes)

    def describe(self, selection: Selection) -> str:
        parts = [c.describe(selection) for c in self.changes if c.is_changed(selection)]
        return "; ".join(parts) if parts else "no change"

    def instance(
        self, selection: Selection, name: str | None = None, summary: str | None = None
    ) -> RuleSet:
        """The plain rule set the selector values ``selection`` stand for (its summary
        describes the change unless given)."""
        scans = _scans_from(self.rules.table_scan)
        return RuleSet(
            name or f"{self.rules.name}.changed",
            self.describe(selection) if summary is None else summary,
            tuple(_renamed(self._folded(selection, free=()))),
            self.rules.source,
            self.rules.where,
            scans[int(selection.get(self.scan_hole.name, 0))],
        )

    def only(self, change: Change) -> RuleSet:
        """Every rule set ``change`` makes, at once: its holes free, the others as in the rules.

        Its decision must be compiled over ``fields_for(change, fields)``.
        """
        return RuleSet(
            f"{self.rules.name}.{change.operator}",
            self.rules.summary,
            tuple(self._folded({}, free=tuple(h.name for h in change.holes))),
            self.rules.source,
            self.rules.where,
            self.rules.table_scan,
        )

    def fields_for(self, change: Change, fields: Mapping[str, Expr]) -> dict[str, Expr]:
        """The decision fields ``only(change)`` reads (the scan order is a hole of its own)."""
        if change.operator == "scan":
            return self.fields(fields)
        return scanned(dict(fields), self.rules.table_scan)

    def _folded(self, selection: Selection, free: Sequence[str]) -> list[RuleStep]:
        """The steps with every selector not in ``free`` replaced by its value, folded."""
        chosen = {s for s in self.selectors if s in free or selection.get(s, 0) != 0}
        values = {s: const(int(selection.get(s, 0))) for s in self.selectors if s not in free}
        kept: list[RuleStep] = []
        for step, uses, zero in zip(self.steps, self._uses, self._zero, strict=True):
            if step.name in self._parts:
                hole, accepting, is_accepting = self._parts[step.name]
                picked = int(selection.get(hole.name, 0)) in accepting
                if hole.name not in free and picked != is_accepting:
                    continue  # the other part of this clause is the one chosen
            folded = zero if not uses & chosen else _substituted(step, values)
            if folded.when.is_const and folded.when.value is False:
                continue
            kept.append(folded)
            if isinstance(folded, Clause) and folded.when.is_const and folded.when.value is True:
                break  # later steps are never reached
        return kept

    @cached_property
    def _uses(self) -> list[frozenset[str]]:
        """Per step, the selectors its expressions read."""
        names = set(self.selectors)
        return [frozenset(variables(_roots(step))) & names for step in self.steps]

    @cached_property
    def _zero(self) -> list[RuleStep]:
        """Per step, the step with every selector 0 (as in the rule set), folded."""
        zeros = {s: const(0) for s in self.selectors}
        return [_substituted(step, zeros) for step in self.steps]


def _roots(step: RuleStep) -> list[Expr]:
    if isinstance(step, Adjust):
        return [step.when, step.to]
    return [step.when] + ([step.then.seqno] if step.then.seqno is not None else [])


def _substituted(step: RuleStep, values: Mapping[str, Expr]) -> RuleStep:
    if isinstance(step, Adjust):
        when, to = substitute([step.when, step.to], values)
        return dataclasses.replace(step, when=when, to=to)
    if step.then.seqno is None:
        (when,) = substitute([step.when], values)
        return dataclasses.replace(step, when=when)
    when, seqno = substitute([step.when, step.then.seqno], values)
    return dataclasses.replace(step, when=when, then=ClauseOutcome(step.then.outcome, seqno))


def _scans_from(first: str) -> list[str]:
    return [first, *(s for s in TABLE_SCANS if s != first)]


def _position_label(rules: RuleSet, step: RuleStep, kind: str, p: int) -> str:
    what = f"{'clause' if isinstance(step, Clause) else 'adjustment'} '{step.name}'"
    before = rules.steps[p].name
    if kind == "stay":
        return f"keep {what}"
    if kind == "drop":
        return f"drop {what}"
    if kind == "move":
        return f"move {what} before '{before}'"
    return f"apply {what} again before '{before}'"


def _renamed(steps: list[RuleStep]) -> list[RuleStep]:
    """Instance steps under their rule set's names: ``x#rollback``, ``x@3`` become ``x``."""
    out: list[RuleStep] = []
    taken: set[str] = set()
    for step in steps:
        base = step.name.split("#rollback")[0].split("#other")[0].split("@")[0]
        name = base
        suffix = 2
        while name in taken:
            name = f"{base}#{suffix}"
            suffix += 1
        taken.add(name)
        out.append(dataclasses.replace(step, name=name))
    return out
