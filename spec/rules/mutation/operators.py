"""Mutation operators over rule sets: small, named, deliberate bugs.

Each operator is a pure transformation of a ``RuleSet``'s steps; each mutant
has a stable id (``operator:step:n``, from the rule set's structure alone) and
a one-line description such as ``purge: start < purge_seqno -> start <=
purge_seqno``. A regression vector set is as good as the mutants it kills
(``dcpcheck vectors score``); a mutant that decides like the original on every
input is *equivalent* and cannot be killed (Z3 proves which ones are).

Operators:

* ``flip``: negate one comparison (``<`` to ``>=``, ``==`` to ``!=`` ...),
  one boolean field, or drop one ``~``;
* ``strict``: toggle strictness (``<`` to ``<=``, ``>`` to ``>=`` and back);
* ``off-by-one``: the right operand of a comparison, a rollback seqno or an
  adjusted value, plus or minus one;
* ``drop``: remove one step (any clause but the last, or an adjustment);
* ``swap``: exchange two steps (the last clause stays last);
* ``outcome``: a clause accepts instead of rolling back, rolls back to 0
  instead of accepting, or rolls back to another seqno (0, start,
  snap_start, upper).

and, from the neighbourhood of the rule set (``spec.rules.mutation.neighbourhood``:
these mutants are instances of the same symbolic rule set Z3 searches when it
proves what a vector set exposes):

* ``relation``: a comparison's relation replaced by any other, or by always
  true / always false (a condition dropped);
* ``operand``: one operand of a comparison replaced by any other quantity in
  scope (``QUANTITIES``: the purge seqno tested against snap_start, snap_end,
  upper...);
* ``return``: a clause returns any other quantity (or accepts);
* ``adjust-to``: an adjustment sets its field to any other quantity;
* ``adjust-field``: an adjustment applied to the other snapshot field;
* ``move``: a step moved to any other position (a clause across a snapshot
  adjustment, an adjustment across a clause);
* ``duplicate``: an adjustment applied once more at a later position;
* ``early``: a new clause, at any position, that accepts or rolls back to 0
  on a boundary of the rule set (``left == right`` of one of its
  comparisons);
* ``scan``: the failover table scanned in the other order (differs only on
  tables that repeat a uuid).

A mutant identical to an earlier one (the same steps, whatever their names)
is listed once, under the earlier operator.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import chain

from spec.errors import RuleLanguageError
from spec.expr import BOOL, COMPARISONS, Expr, const, rebuild, walk
from spec.rules.language import (
    Adjust,
    Clause,
    ClauseOutcome,
    F,
    RuleSet,
    RuleStep,
    accept,
    rollback,
)
from spec.rules.mutation.neighbour_mutants import neighbourhood_candidates, structure
from spec.types import Outcome

__all__ = ["OPERATORS", "Mutant", "comparisons", "mutants", "replace_node", "with_node"]

OPERATORS = (
    "flip",
    "strict",
    "off-by-one",
    "drop",
    "swap",
    "outcome",
    "relation",
    "operand",
    "return",
    "adjust-to",
    "adjust-field",
    "move",
    "duplicate",
    "early",
    "scan",
)

_NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
_STRICTNESS = {"lt": "le", "le": "lt", "gt": "ge", "ge": "gt"}


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    description: str
    rules: RuleSet


@dataclass(frozen=True)
class Site:
    """One expression inside a step: ``attr`` is ``when``, ``to`` or ``seqno``."""

    step: int
    attr: str
    root: Expr


def step_sites(rules: RuleSet) -> list[Site]:
    sites = []
    for index, step in enumerate(rules.steps):
        sites.append(Site(index, "when", step.when))
        if isinstance(step, Adjust):
            sites.append(Site(index, "to", step.to))
        elif step.then.seqno is not None:
            sites.append(Site(index, "seqno", step.then.seqno))
    return sites


def comparisons(rules: RuleSet) -> list[tuple[Site, Expr]]:
    """Every comparison node of every step, in a fixed order (steps, then walk order)."""
    found: list[tuple[Site, Expr]] = []
    for site in step_sites(rules):
        found.extend((site, node) for node in walk([site.root]) if node.op in COMPARISONS)
    return found


def replace_node(root: Expr, target: Expr, new: Expr) -> Expr:
    """``root`` with the node ``target`` (by identity) replaced by ``new``."""
    done: dict[int, Expr] = {}
    for node in walk([root]):
        if node is target:
            done[id(node)] = new
        elif node.args:
            args = tuple(done[id(a)] for a in node.args)
            unchanged = all(a is b for a, b in zip(args, node.args, strict=True))
            done[id(node)] = node if unchanged else rebuild(node, args)
        else:
            done[id(node)] = node
    return done[id(root)]


def _with_site(rules: RuleSet, site: Site, new_root: Expr) -> RuleSet:
    step = rules.steps[site.step]
    if site.attr == "when":
        changed: RuleStep = dataclasses.replace(step, when=new_root)
    elif site.attr == "to":
        assert isinstance(step, Adjust)
        changed = dataclasses.replace(step, to=new_root)
    else:
        assert isinstance(step, Clause)
        changed = dataclasses.replace(step, then=ClauseOutcome(Outcome.ROLLBACK, new_root))
    steps = list(rules.steps)
    steps[site.step] = changed
    return _rebuilt(rules, steps)


def with_node(rules: RuleSet, site: Site, target: Expr, new: Expr) -> RuleSet:
    """``rules`` with one node of one step replaced (used for mutants and observability)."""
    return _with_site(rules, site, replace_node(site.root, target, new))


def _rebuilt(rules: RuleSet, steps: list[RuleStep]) -> RuleSet:
    return dataclasses.replace(rules, steps=tuple(steps))


Candidate = tuple[str, str, str, Callable[[], RuleSet]]


def _candidates(rules: RuleSet) -> Iterator[Candidate]:
    """(operator, where, description, build the mutated rules), in a fixed order."""
    steps = rules.steps
    for site in step_sites(rules):
        name = steps[site.step].name
        negated = {id(n.args[0]) for n in walk([site.root]) if n.op == "not"}
        for node in walk([site.root]):
            if node.op == "not":
                new = node.args[0]
            elif node.op == "var" and node.sort is BOOL and id(node) not in negated:
                new = ~node
            else:
                continue
            build = partial(with_node, rules, site, node, new)
            yield "flip", name, f"{name}: {node} -> {new}", build
    for site, node in comparisons(rules):
        name = steps[site.step].name
        left, right = node.args
        replacements = [("flip", Expr(_NEGATED[node.op], node.sort, node.args))]
        if node.op in _STRICTNESS:
            replacements.append(("strict", Expr(_STRICTNESS[node.op], node.sort, node.args)))
        replacements.append(("off-by-one", rebuild(node, (left, right + 1))))
        replacements.append(("off-by-one", rebuild(node, (left, right - 1))))
        for operator, new in replacements:
            build = partial(with_node, rules, site, node, new)
            yield operator, name, f"{name}: {node} -> {new}", build
    for site in step_sites(rules):
        if site.attr == "when":
            continue
        name = steps[site.step].name
        for new in (site.root + 1, site.root - 1):
            yield (
                "off-by-one",
                name,
                f"{name}: {site.attr} {site.root} -> {new}",
                partial(_with_site, rules, site, new),
            )
    last = len(steps) - 1
    for index, step in enumerate(steps[:last]):
        kind = "clause" if isinstance(step, Clause) else "adjustment"
        kept = [s for i, s in enumerate(steps) if i != index]
        yield "drop", step.name, f"drop {kind} '{step.name}'", partial(_rebuilt, rules, kept)
    for i in range(last):
        for j in range(i + 1, last):
            swapped = list(steps)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            yield (
                "swap",
                f"{steps[i].name}:{steps[j].name}",
                f"swap '{steps[i].name}' and '{steps[j].name}'",
                partial(_rebuilt, rules, swapped),
            )
    for index, step in enumerate(steps):
        if not isinstance(step, Clause):
            continue
        for then in _other_outcomes(step.then):
            changed = list(steps)
            changed[index] = dataclasses.replace(step, then=then)
            yield (
                "outcome",
                step.name,
                f"{step.name}: {step.then} -> {then}",
                partial(_rebuilt, rules, changed),
            )


def _other_outcomes(then: ClauseOutcome) -> list[ClauseOutcome]:
    if then.seqno is None:
        return [rollback(0)]
    others = [accept()]
    for seqno in (const(0), F.start, F.snap_start, F.upper):
        if not seqno.same(then.seqno):
            others.append(rollback(seqno))
    return others


# The mutants of the rule sets asked for last, by identity (a rule set and its mutants are
# immutable): one run of score or generate, and one test process, ask again for the
# built-in rule sets' mutants (about half a CPU second each for kv-current's 599).
_RECENT: list[tuple[RuleSet, tuple[Mutant, ...]]] = []
_KEPT = 4


def mutants(rules: RuleSet) -> list[Mutant]:
    """Every mutant of ``rules`` by every operator; ids are stable for the same rule set."""
    for known, made in _RECENT:
        if known is rules:
            return list(made)
    made = tuple(_made(rules))
    _RECENT.insert(0, (rules, made))
    del _RECENT[_KEPT:]
    return list(made)


def _made(rules: RuleSet) -> list[Mutant]:
    result: list[Mutant] = []
    counters: dict[tuple[str, str], int] = {}
    seen = {structure(rules)}
    for operator, where, description, build in chain(
        _candidates(rules), neighbourhood_candidates(rules)
    ):
        try:
            mutated = build()
        except RuleLanguageError:  # a mutation the rule language refuses is not a mutant
            continue
        shape = structure(mutated)
        if shape in seen:
            continue
        seen.add(shape)
        key = (operator, where)
        counters[key] = counters.get(key, 0) + 1
        result.append(Mutant(f"{operator}:{where}:{counters[key]}", operator, description, mutated))
    return result
