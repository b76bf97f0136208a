"""Certificates: an invariant found once, stored, and checked again cheaply.

Houdini (``checker.induction.houdini``) finds an inductive invariant by asking Z3
again and again; the last query, the one that shows the invariant inductive,
is the dear one, and it grows with the number of lemmas. ``shrink`` keeps of a
proved invariant only the lemmas the proof needs: from ``P`` (and the domain),
each target is asked alone with every kept lemma as an assumption, and the
lemmas Z3's unsat core names become targets in turn, until none is new. Every
target of the result follows, after one step, from the result before it, so
the result is inductive too (and, as a subset of lemmas that hold before the
first resume, it holds there). ``check_certificate`` re-checks a stored list of
lemma names as an invariant from scratch (``induct`` with ``strict``:
initiation, consecution and ``P``, nothing dropped): a full proof whenever it
passes, and never a ``holds`` when it does not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.induction.houdini import Consecution, Induction, InductionOutcome, induct, one_step
from checker.induction.lemmas import Lemma, library
from checker.symbolic.budget import Budget
from checker.symbolic.session import SolverAnswer
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.expr import all_of
from spec.model.boundary import BoundaryVars
from spec.properties import Property
from spec.rules.language import RuleSet

__all__ = [
    "STORE",
    "Shrunk",
    "check_certificate",
    "lemmas_named",
    "lifted",
    "shrink",
    "store_certificate",
    "stored",
    "stored_checks",
]


@dataclass(frozen=True)
class Shrunk:
    lemmas: list[Lemma]  # empty with a reason: the proof did not go through
    queries: int
    reason: str = ""


def shrink(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    kept: list[Lemma],
    budget: Budget,
    deadline: float | None = None,
) -> Shrunk:
    """The lemmas of the inductive invariant ``kept`` that its consecution needs."""
    bv = BoundaryVars(bounds)
    step, holds_here, ranges = one_step(rules, variant, prop, bv)
    domain = all_of(*ranges.values())
    queries = Consecution(bv, step, kept, domain, holds_here, budget, deadline)
    alive = list(range(len(kept)))
    needed: set[int] = set()
    targets: list[int | None] = [None]
    asked = 0
    while targets:
        target = targets.pop()
        asked += 1
        answer, core = queries.needed(alive, target)
        if answer.answer is not SolverAnswer.UNSAT:
            why = "not inductive" if answer.answer is SolverAnswer.SAT else answer.reason
            name = "P" if target is None else kept[target].name
            return Shrunk([], asked, f"{name} after a step: {why}")
        for i in core:
            if i not in needed:
                needed.add(i)
                targets.append(i)
    return Shrunk([kept[i] for i in sorted(needed)], asked)


# Stored certificates: (rules, consumer, property, bounds) -> the invariant's lemma names.
# Written by ``python -m benchmarks certificates`` (Houdini, shrink, a strict check).
STORE = Path(__file__).with_name("certificates.json")


def _key(rules: str, consumer: str, prop: str, bounds: Bounds) -> str:
    b = replace(bounds, sessions=1).to_json()
    return f"{rules}/{consumer}/{prop}/" + ",".join(f"{k}={v}" for k, v in b.items())


def stored(
    rules: str, consumer: str, prop: str, bounds: Bounds, store: Path | None = None
) -> list[str] | None:
    """The lemma names stored for this check, if any."""
    store = store or STORE
    if not store.exists():
        return None
    entries = json.loads(store.read_text())["certificates"]
    return entries.get(_key(rules, consumer, prop, bounds))


def stored_checks(
    store: Path | None = None,
) -> list[tuple[str, str, str, Bounds, list[str]]]:
    """Every (rules, consumer, property, bounds, lemma names) the store has a certificate
    for, from one read of the store."""
    store = store or STORE
    if not store.exists():
        return []
    out = []
    for key, names in json.loads(store.read_text())["certificates"].items():
        rules, consumer, prop, bounds = key.split("/")
        values = dict(part.split("=") for part in bounds.split(","))
        within = Bounds(**{k: int(v) for k, v in values.items()})
        out.append((rules, consumer, prop, within, names))
    return out


def store_certificate(
    rules: str,
    consumer: str,
    prop: str,
    bounds: Bounds,
    lemmas: list[str],
    store: Path | None = None,
) -> None:
    store = store or STORE
    data = json.loads(store.read_text()) if store.exists() else {"certificates": {}}
    data["certificates"][_key(rules, consumer, prop, bounds)] = lemmas
    data["certificates"] = dict(sorted(data["certificates"].items()))
    write_text_atomic(store, json.dumps(data, indent=1) + "\n")


def lemmas_named(bounds: Bounds, names: list[str]) -> list[Lemma] | None:
    """The library's lemmas at ``bounds`` of these names (None: one is not in it)."""
    library_here = {lemma.name: lemma for lemma in library(BoundaryVars(bounds))}
    if any(n not in library_here for n in names):
        return None
    return [library_here[n] for n in names]


def family(name: str) -> str:
    """A lemma's family: its name without the seqnos, keys or entries it is about."""
    return name.split(".")[0]


def lifted(
    rules: str, consumer: str, prop: str, bounds: Bounds, store: Path | None = None
) -> list[Lemma]:
    """Every lemma of the library at ``bounds`` of a family some certificate stored for
    ``rules``, ``consumer`` and ``prop`` (at any bounds) uses: a certificate at smaller
    bounds lifted to these (its lemmas about seqno 6 also about 7 and 8). Only a
    starting point for Houdini, which checks each one; empty when none is stored."""
    families = {
        family(n)
        for r, c, p, _, names in stored_checks(store)
        if (r, c, p) == (rules, consumer, prop)
        for n in names
    }
    return [x for x in library(BoundaryVars(bounds)) if family(x.name) in families]


def check_certificate(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    names: list[str],
    budget: Budget,
    deadline: float | None = None,
) -> Induction:
    """The invariant ``P`` and the lemmas ``names`` (of the library at ``bounds``), checked
    from scratch: ``PROVED`` only when it holds before the first resume, one step keeps it
    and it gives ``P``; otherwise ``REJECTED`` (or ``UNKNOWN``, ``FIRST``, ``CTI``,
    ``DOMAIN``), never a proof."""
    lemmas = lemmas_named(bounds, names)
    if lemmas is None:
        known = {lemma.name for lemma in library(BoundaryVars(bounds))}
        unknown = ", ".join(n for n in names if n not in known)
        return Induction(InductionOutcome.REJECTED, reason=f"not in the library: {unknown}")
    return induct(rules, variant, prop, bounds, budget, deadline, lemmas=lemmas, strict=True)


# What ``python -m checker.induction.certificate`` tries to certify, and at which bounds:
# make verify checks each stored one again (checker.commands.verify). The bounds are
# smaller than make verify's: a certificate check at 8 seqnos does not fit its time.
BOUNDS = Bounds(seqnos=3, keys=2, entries=3, failovers=2)
TARGETS = (
    ("kv-current", "correct"),
    *(("kv-current", c) for c in ("java-dcp-client-fixed", "go-dcp-fixed", "cbgt-fixed")),
    ("kv-current", "kv-replica-fixed"),
    ("rollback-doc", "correct"),
)


def regenerate(bounds: Bounds = BOUNDS, store: Path | None = None) -> None:
    """Houdini, ``shrink`` and a strict check for every target and safety property not
    stored yet; what passes all three is stored (one line printed per check: its verdict
    and cost). Minutes of CPU: run it by hand after a change to the model, the rule sets
    or the library, then ``make verify``."""
    import time

    from spec.consumers import CONSUMERS
    from spec.expected_clients import SAFETY  # the catalogue's safety properties
    from spec.properties import PROPERTIES
    from spec.rules import RULE_SETS

    for rules_name, consumer in TARGETS:
        for prop_id in SAFETY:
            if stored(rules_name, consumer, prop_id, bounds, store) is not None:
                continue  # delete the file (or its entry) to find it again
            rules, variant = RULE_SETS.get(rules_name), CONSUMERS.get(consumer)
            prop = PROPERTIES.get(prop_id)
            cpu, units = time.process_time(), Budget()
            found = induct(rules, variant, prop, bounds, units)
            line = f"{rules_name}/{consumer}: {prop_id}: houdini {found.outcome}"
            if found.outcome is InductionOutcome.PROVED:
                small = shrink(rules, variant, prop, bounds, found.lemmas, units)
                again = check_certificate(
                    rules, variant, prop, bounds, [c.name for c in small.lemmas], Budget()
                )
                line += (
                    f", {len(found.lemmas)} -> {len(small.lemmas)} lemmas, check {again.outcome}"
                )
                if small.lemmas and again.outcome is InductionOutcome.PROVED:
                    names = [c.name for c in small.lemmas]
                    store_certificate(rules_name, consumer, prop_id, bounds, names, store)
            spent = time.process_time() - cpu
            print(f"{line} ({units.spent / 1e6:.1f}M units, {spent:.1f} CPU s)", flush=True)


if __name__ == "__main__":
    regenerate()
