"""``--sessions any``: a property for every number of resumes, by induction.

For the catalogue's ``valid-request`` it first tries the proof for every history length
over the abstract consumer view (``checker.unbounded.valid_request_every_history``), which
covers every number of sessions too. Otherwise, or when that proof does not go through,
``check_every_session`` first checks a certificate (``checker.induction.certificate``)
stored for exactly these bounds, from scratch: when it checks, that is the proof (and
the invariant shown); else (``dcpcheck verify``: ``unknown``, nothing else) it runs
Houdini over resumes (``checker.induction.houdini``).

* The induction closes: ``holds`` for every number of sessions within the other
  bounds (``EverySession``), with the invariant it used in the long text (its lemmas'
  names; with ``show_invariant`` each in words and as a formula).
* It does not: the bounded check (``checker.scenario_check``) at K = 1, 2, 3 sessions looks
  for a real violation, replayed on the reference like every counterexample; the
  first found is the verdict (its bounds say its number of sessions). None found:
  ``unknown (induction)``, with the counterexample to induction (a state the
  invariant allows from which one more session violates the property), never
  ``holds``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from checker.engines.options import DEFAULT, Options
from checker.induction.certificate import check_certificate, lemmas_named, lifted, stored
from checker.induction.houdini import Induction, InductionOutcome, induct
from checker.induction.lemmas import Lemma
from checker.result import Result, Stats, Verdict
from checker.scenario_check import check, planned
from checker.timing import Stopwatch
from checker.unbounded import valid_request_every_history
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.errors import HarnessBug
from spec.expr import Value
from spec.properties import PROPERTIES, Property
from spec.rules.language import RuleSet
from spec.scenario import key_name

__all__ = [
    "BOUNDED_SESSIONS",
    "EverySession",
    "bounded_summary",
    "check_every_session",
    "describe_state",
]

# The bounded searches a failed induction falls back to, for a real counterexample.
BOUNDED_SESSIONS = (1, 2, 3)


@dataclass(frozen=True)
class EverySession:
    """The bounds of a proof for every number of sessions: all but ``sessions``."""

    within: Bounds
    how: str = "induction"  # or "abstract view": valid-request proved for any history length
    every_session = True  # the reports tell the invariant (checker.arguments.common)

    def describe(self) -> str:
        b = self.within
        text = (
            f"seqnos<={b.seqnos}, keys<={b.keys}, table entries<={b.entries}, "
            f"failovers<={b.failovers} in all, rounds<={b.rounds} per resume, "
            f"every number of sessions ({self.how})"
        )
        if b.max_entries < b.entries:
            text += f", tables capped at {b.max_entries}"
        return text

    def to_json(self) -> dict[str, int | str]:
        return {**self.within.to_json(), "sessions": "any"}


def check_every_session(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    options: Options = DEFAULT,
    houdini: bool | None = None,
) -> Result:
    """``prop`` for every number of sessions within ``bounds`` (other than sessions): a
    certificate checked again (``options.certificate``'s lemma names, else the one stored
    for exactly these bounds), else an induction (Houdini) under ``options.budget`` Z3
    units; when it does not close, the bounded checks at 1, 2, 3 sessions under what is
    left of the budget. ``houdini`` False: the certificate only (``dcpcheck verify``):
    none, or one that does not check, is ``unknown``, never ``holds``; by default False
    exactly when ``options.certificate`` names one. ``options.show_invariant``: each lemma
    in words and as a formula."""
    certificate, show_invariant = options.certificate, options.show_invariant
    if houdini is None:
        houdini = certificate is None
    clock = Stopwatch()
    bounds = replace(bounds, sessions=1)
    units = options.new_budget()
    deadline = options.deadline()
    base = planned(rules, variant, prop, bounds, options=options)
    base = base.but(bounds=EverySession(bounds), command=f"{base.command} --sessions any")
    if prop is PROPERTIES.get("valid-request"):  # the catalogue's, not a file's of that name
        (any_length,) = valid_request_every_history([variant], units)
        if any_length.verdict is Verdict.HOLDS:  # stronger: every history length too
            wall, cpu = clock.read()
            return base.but(
                verdict=Verdict.HOLDS,
                reason="",
                bounds=EverySession(bounds, how="abstract view"),
                long_text=(
                    "proved for every history length and every number of sessions over the "
                    "abstract consumer view (docs/findings.md, 'Beyond the bounds', item 4: "
                    f"{any_length.note}); no invariant over resumes was needed"
                ),
                stats=Stats(wall, cpu, budget=units.spent),
            )
    names = (
        certificate
        if certificate is not None
        else stored(rules.name, variant.name, prop.id, bounds)
    )
    if names is not None:  # a stored invariant, checked again from scratch
        checked = check_certificate(rules, variant, prop, bounds, list(names), units, deadline)
        if checked.outcome is InductionOutcome.PROVED:
            wall, cpu = clock.read()
            return base.but(
                verdict=Verdict.HOLDS,
                reason="",
                long_text=invariant_note(
                    checked, prop, show_invariant, how="a stored certificate, checked again"
                ),
                stats=Stats(wall, cpu, budget=units.spent),
            )
        rejected = f"the stored certificate does not check ({checked.outcome}: {checked.reason})"
    else:
        rejected = "no stored certificate for these bounds"
    if not houdini:
        wall, cpu = clock.read()
        return base.but(
            verdict=Verdict.UNKNOWN,
            reason=f"certificate: {rejected}",
            stats=Stats(wall, cpu, budget=units.spent),
        )
    found = None
    for what, warm in warm_starts(rules.name, variant.name, prop.id, bounds):
        # a sound start: Houdini checks each lemma for this variant at these bounds, and
        # when it closes it is one short run; when not, the whole library below
        first = induct(rules, variant, prop, bounds, units, deadline, lemmas=warm)
        if first.outcome is InductionOutcome.PROVED:
            found, how = first, f"Houdini from {what}: {first.dropped} dropped"
            break
    if found is None:
        found = induct(rules, variant, prop, bounds, units, deadline)
        how = f"{found.dropped} of the library dropped"
    if found.outcome is InductionOutcome.PROVED:
        wall, cpu = clock.read()
        return base.but(
            verdict=Verdict.HOLDS,
            reason="",
            long_text=invariant_note(found, prop, show_invariant, how=how),
            stats=Stats(wall, cpu, budget=units.spent),
        )
    if found.outcome is InductionOutcome.UNKNOWN:
        wall, cpu = clock.read()
        return base.but(
            verdict=Verdict.UNKNOWN,
            reason=f"induction: {found.reason}",
            stats=Stats(wall, cpu, budget=units.spent),
        )
    searched: list[tuple[int, Result]] = []
    for sessions in BOUNDED_SESSIONS:
        left = None if units.limit is None else max(1, units.limit - units.spent)
        bounded = check(
            rules,
            variant,
            prop,
            replace(bounds, sessions=sessions),
            options.but(budget=left),
        )
        units.charge(bounded.stats.budget or 0)
        searched.append((sessions, bounded))
        if bounded.verdict is Verdict.VIOLATED:
            wall, cpu = clock.read()
            note = (
                f"--sessions any: the induction did not close ({_why(found)}); the bounded "
                f"search found this violation at {sessions} session(s)"
            )
            return bounded.but(
                note="\n".join(n for n in (bounded.note, note) if n),
                stats=replace(bounded.stats, seconds=wall, cpu_seconds=cpu, budget=units.spent),
            )
        if (
            found.outcome is InductionOutcome.FIRST
            and sessions == 1
            and bounded.verdict is Verdict.HOLDS
        ):
            raise HarnessBug(
                f"{rules.name}/{variant.name}: {prop.id}: the induction's first resume violates "
                "it but the one-session check proves it"
            )
    wall, cpu = clock.read()
    return base.but(
        verdict=Verdict.UNKNOWN,
        reason=f"unknown (induction): {_why(found)}; {bounded_summary(searched)}",
        long_text=cti_note(found, bounds),
        stats=Stats(wall, cpu, budget=units.spent),
    )


def bounded_summary(searched: Sequence[tuple[int, Result]]) -> str:
    """What the bounded checks at K sessions decided, none violated: each K proved free of
    a violation is named as such, and each undecided one (its budget or time ran out) as
    undecided, with why (each distinct reason once), never as free of a violation."""
    clear = [k for k, r in searched if r.verdict is Verdict.HOLDS]
    open_ = [(k, r) for k, r in searched if r.verdict is not Verdict.HOLDS]
    parts = []
    if clear:
        parts.append(f"no violation at K = {', '.join(map(str, clear))} sessions")
    if open_:
        why = "; ".join(dict.fromkeys(r.reason or "not decided" for _, r in open_))
        parts.append(f"K = {', '.join(str(k) for k, _ in open_)} undecided ({why})")
    return "; ".join(parts)


def warm_starts(
    rules: str, consumer: str, prop: str, bounds: Bounds
) -> list[tuple[str, list[Lemma]]]:
    """Houdini's starting sets before the whole library, each with how the output names
    it: ``correct``'s certificate for these bounds (for another variant), then the
    families of ``correct``'s certificates at any bounds, lifted to these."""
    starts = []
    textbook = stored(rules, "correct", prop, bounds)
    warm = None if textbook is None else lemmas_named(bounds, textbook)
    if warm and consumer != "correct":
        starts.append(("correct's certificate", warm))
    wide = lifted(rules, "correct", prop, bounds)
    if wide and (textbook is None or {x.name for x in wide} != set(textbook)):
        starts.append(("the lemma families of correct's certificates", wide))
    return starts


def _why(found: Induction) -> str:
    if found.outcome is InductionOutcome.CTI:
        return (
            f"the property with {len(found.lemmas)} lemmas is not preserved by one more "
            "session (counterexample to induction below)"
        )
    if found.outcome is InductionOutcome.DOMAIN:
        return found.reason
    return "the first resume violates it"


def invariant_note(found: Induction, prop: Property, show: bool, how: str = "") -> str:
    names = ", ".join(c.name for c in found.lemmas)
    how = how or f"{found.dropped} of the library dropped"
    lines = [
        f"invariant: {prop.id} on the next resume, and {len(found.lemmas)} lemmas "
        f"({how}, {found.queries} queries): {names}"
    ]
    if show:
        for lemma in found.lemmas:
            lines.append(f"  {lemma.name}: {lemma.words}")
            lines.append(f"    {lemma.formula}")
    return "\n    ".join(lines)


def cti_note(found: Induction, bounds: Bounds) -> str:
    if not found.cti:
        return ""
    lines = ["counterexample to induction (a boundary state the invariant allows):"]
    lines += ["  " + line for line in describe_state(found.cti, bounds)]
    if found.cti_next:
        lines.append("one session later (the property fails on the next resume from here):")
        lines += ["  " + line for line in describe_state(found.cti_next, bounds)]
    if found.lemmas:
        lines.append("lemmas it satisfies: " + ", ".join(c.name for c in found.lemmas))
    return "\n    ".join(lines)


def _item(values: dict[str, Value], who: str, x: int) -> str:
    op = "DEL" if values[f"{who}.del.{x}"] else "SET"
    return f"{x}:{op}({key_name(int(values[f'{who}.key.{x}']))})e{values[f'{who}.epoch.{x}']}"


def _table(values: dict[str, Value], name: str, length: str, slots: int) -> str:
    n = int(values[length])
    entries = [f"{values[f'{name}.uuid.{i}']}@{values[f'{name}.seq.{i}']}" for i in range(n)]
    return "[" + ", ".join(entries) + "]"


def describe_state(values: dict[str, Value], bounds: Bounds) -> list[str]:
    """A boundary state (unprefixed names -> values) in a few lines."""
    xs = range(1, bounds.seqnos + 1)
    p_high, g_high = int(values["p.high"]), int(values["g.high"])
    held = [_item(values, "c", x) for x in xs if values[f"c.held.{x}"]]
    markers = sorted(
        {
            (int(values[f"c.start.{x}"]), int(values[f"c.end.{x}"]))
            for x in xs
            if values[f"c.end.{x}"]
        }
    )
    whole = [str(x) for x in xs if values[f"c.boundary.{x}"]]
    return [
        "producer: "
        + " ".join(_item(values, "p", x) for x in xs if x <= p_high)
        + f"; table {_table(values, 'p', 'p.len', bounds.entries)}; purge {values['p.purge']}; "
        f"{values['used']} failover(s) so far",
        "consumer: holds "
        + (" ".join(held) or "nothing")
        + f"; markers {markers}; whole snapshots end at {', '.join(whole) or 'none'}; "
        f"keep {values['keep']}; filter {values['filter']}; "
        f"log {_table(values, 'log', 'log.len', bounds.entries)}",
        "streamed from (ghost): "
        + " ".join(_item(values, "g", x) for x in xs if x <= g_high)
        + f"; same history as the producer up to {values['g.agree']}; the consumer got "
        f"the last stream (from {values['g.from']}) whole up to {values['g.upto']}",
    ]
