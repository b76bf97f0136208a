"""Review a protocol change: ``diff_rules`` (two rule sets) and ``diff_consumers`` (two variants).

``diff_rules(A, B, consumers, bounds)``

1. finds every region of the decision space where A and B answer
   differently (``checker.diff.decisions``; none: A and B are *proved*
   equivalent for every request and every producer whose failover table has
   at most ``table_entries`` entries);
2. classifies each region with every consumer variant given, in scenarios
   within ``bounds`` (``checker.diff.classify``).

``diff_consumers(R, C1, C2, bounds)`` finds the regions in which the runs of
two consumer variants under rule set R first part (scenario level: every
scenario within ``bounds``), and classifies each the same way, with C1 as
the baseline.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

from checker.diff.classify import Classification, Evidence, Probe, Witness, classify
from checker.diff.decisions import DecisionExample, search_regions
from checker.diff.regions import Region
from checker.diff.scenarios import consumer_pair, rule_pair
from checker.result import Verdict
from checker.symbolic.budget import MILLION, Budget
from checker.timing import Stopwatch, deadline_after
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION
from spec.rules.language import RuleSet

__all__ = [
    "DIFF_BUDGET",
    "DiffOptions",
    "DiffReport",
    "RegionResult",
    "classify_rule_regions",
    "diff_consumers",
    "diff_rules",
]

# Z3 resource units for a whole diff unless told otherwise (docs/cli.md).
DIFF_BUDGET = 4_000 * MILLION


@dataclass(frozen=True)
class DiffOptions:
    """How one diff runs, read from the command line once."""

    max_regions: int = 50  # stop after this many regions
    timeout_s: float | None = None  # an outer wall-clock guard
    minimise: bool = True  # each witness scenario minimised
    budget: int | None = DIFF_BUDGET  # Z3 resource units for the whole diff (None: no limit)


@dataclass
class RegionResult:
    """One region: its classification (None when a question it depends on went unanswered)
    and, as for every check, a verdict: ``violated`` for a safety regression, ``unknown``
    when undecided, ``holds`` otherwise."""

    region: Region
    classification: Classification | None
    evidence: list[Evidence]
    example: DecisionExample | None = None  # rule diffs: a request and producer state
    witness: Witness | None = None  # the scenario behind the verdict

    @property
    def verdict(self) -> Verdict:
        if self.classification is None:
            return Verdict.UNKNOWN
        if self.classification is Classification.SAFETY_REGRESSION:
            return Verdict.VIOLATED
        return Verdict.HOLDS

    @property
    def shown(self) -> str:
        """The classification, or ``unknown``."""
        return "unknown" if self.classification is None else self.classification.value

    @property
    def fix_only_for_unsafe(self) -> bool:
        """A safety fix whose only evidence is consumers B leaves unsafe anyway (they violate
        a safety property elsewhere within the bounds): it changes how an unsafe consumer
        fails, it does not make one safe."""
        fixed = [e for e in self.evidence if e.fixes]
        return (
            self.classification is Classification.SAFETY_FIX
            and bool(fixed)
            and all(e.unsafe_b for e in fixed)
        )

    @property
    def note(self) -> str:
        if self.classification is None:
            return "; ".join(dict.fromkeys(u for e in self.evidence for u in e.unknown))
        if not any(e.reached for e in self.evidence):
            return f"not reached by {', '.join(e.pair for e in self.evidence)} within the bounds"
        return ""


@dataclass
class DiffReport:
    subject: str  # "rules" or "consumers"
    name_a: str
    name_b: str
    context: list[str]  # the consumers (rule diff) or the rule set (consumer diff)
    bounds: Bounds
    table_entries: int | None  # rule diffs: the decision space searched
    regions: list[RegionResult] = field(default_factory=list)
    complete: bool = False  # every region was found (the last search answered unsat)
    any_length: bool = False  # ... and none exists with a longer failover table either
    note: str = ""
    seconds: float = 0.0
    units: int = 0  # Z3 resource units spent
    interrupted: bool = False  # Ctrl-C stopped it: the regions not classified are unknown

    @property
    def equivalent(self) -> bool:
        return self.complete and not self.regions

    def count(self, classification: Classification | None) -> int:
        """Regions so classified (None: the unknown ones)."""
        return sum(r.classification is classification for r in self.regions)

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        if any(r.witness is not None and not r.witness.confirmed for r in self.regions):
            return EXIT_INTERNAL
        if any(r.verdict is Verdict.VIOLATED for r in self.regions):
            return EXIT_VIOLATION
        if any(r.verdict is Verdict.UNKNOWN for r in self.regions) or not self.complete:
            return EXIT_UNKNOWN
        return EXIT_OK


def diff_rules(
    rules_a: RuleSet,
    rules_b: RuleSet,
    consumers: list[ConsumerVariant],
    bounds: Bounds,
    table_entries: int,
    options: DiffOptions = DiffOptions(),
) -> DiffReport:
    report = DiffReport(
        "rules", rules_a.name, rules_b.name, [c.name for c in consumers], bounds, table_entries
    )
    with _spending(report, options) as (spending, deadline):
        search = search_regions(
            rules_a, rules_b, table_entries, options.max_regions, spending, deadline
        )
        report.complete, report.note = search.complete, search.note
        report.any_length = search.any_length
        regions = [region for region, _ in search.found]
        examples = dict(search.found)
        report.interrupted = search.interrupted
        if regions and not search.interrupted:
            classify_rule_regions(
                report,
                rules_a,
                rules_b,
                consumers,
                regions,
                spending,
                options.max_regions,
                examples=examples,
                deadline=deadline,
                minimise=options.minimise,
            )
        _unclassified(report, regions, examples)
    return report


def classify_rule_regions(
    report: DiffReport,
    rules_a: RuleSet,
    rules_b: RuleSet,
    consumers: list[ConsumerVariant],
    regions: list[Region],
    spending: Budget,
    max_regions: int,
    *,
    examples: Mapping[Region, DecisionExample] | None = None,
    deadline: float | None = None,
    minimise: bool = False,
) -> None:
    """Classify ``regions`` of a rule diff (A = ``rules_a``) with every consumer in
    ``report.bounds``, appending one ``RegionResult`` each to ``report`` (with its
    ``examples`` entry, if any); Ctrl-C marks the report interrupted (``dcpcheck diff`` and
    ``dcpcheck review`` both classify here)."""
    try:
        probes = [
            Probe(rule_pair(report.bounds, rules_a, rules_b, c), spending, deadline)
            for c in consumers
        ]
        surveys = [p.survey(regions, max_regions) for p in probes]
        for region in regions:
            result = _classified(region, probes, [s.evidence[region] for s in surveys], minimise)
            result.example = (examples or {}).get(region)
            report.regions.append(result)
    except KeyboardInterrupt:
        report.interrupted = True


def diff_consumers(
    rules: RuleSet,
    variant_a: ConsumerVariant,
    variant_b: ConsumerVariant,
    bounds: Bounds,
    options: DiffOptions = DiffOptions(),
) -> DiffReport:
    report = DiffReport(
        "consumers", variant_a.name, variant_b.name, [rules.name], bounds, table_entries=None
    )
    with _spending(report, options) as (spending, deadline):
        probe = Probe(consumer_pair(bounds, rules, variant_a, variant_b), spending, deadline)
        regions: list[Region] = []
        try:
            survey = probe.survey(None, options.max_regions)
            report.complete, report.note = survey.reach.complete, survey.reach.note
            regions = survey.regions
            for region in regions:
                result = _classified(region, [probe], [survey.evidence[region]], options.minimise)
                report.regions.append(result)
        except KeyboardInterrupt:
            report.interrupted = True
            report.note = "interrupted (Ctrl-C) before every region was found"
        _unclassified(report, regions, {})
    return report


@contextmanager
def _spending(report: DiffReport, options: DiffOptions) -> Iterator[tuple[Budget, float | None]]:
    """A diff's Z3 budget and wall-clock deadline (``options``); when the diff is done,
    what it took (seconds, Z3 units) goes in ``report``."""
    clock = Stopwatch()
    spending = Budget(options.budget)
    yield spending, deadline_after(options.timeout_s)
    report.seconds, report.units = clock.read()[0], spending.spent


def _unclassified(
    report: DiffReport, regions: list[Region], examples: dict[Region, DecisionExample]
) -> None:
    """Regions found but not classified when Ctrl-C stopped the diff: ``unknown``."""
    classified = {r.region for r in report.regions}
    for region in regions:
        if region not in classified:
            reason = ["not classified: interrupted (Ctrl-C)"]
            evidence = [Evidence(name, unknown=reason) for name in report.context]
            report.regions.append(
                RegionResult(region, None, evidence, example=examples.get(region))
            )


def _classified(
    region: Region, probes: list[Probe], evidence: list[Evidence], minimise: bool
) -> RegionResult:
    classification, key = classify(region, evidence)
    result = RegionResult(region, classification, evidence)
    if key:
        for probe, e in zip(probes, evidence, strict=True):
            if key in e.witnesses:
                result.witness = probe.witness(region, key, e, minimise)
                break
    return result
