"""One cell of the single-node matrix (rule set, consumer, property within bounds): the one door.

``check_cell`` is what every command and task that checks one cell (a ``MatrixCell``) calls
(``dcpcheck check``, ``checker.tasks.ScenarioTask`` and so ``verify`` and
``clients``, ``ScenarioGroupTask`` through ``check_cells``), so one cell gives
one ``Result`` whichever door it came in by. Every choice a check makes lives
here, below the commands, read from the one ``Options`` value and the engine
object:

* ``options.every_session``: for every number of resumes
  (``checker.induction.every_session``: the any-length proof of valid-request,
  a stored certificate, or Houdini), instead of ``bounds.sessions``;
* an engine that runs on Spark (``engine.needs_spark``) is bound to the
  session's solvers here (``engine.on_spark``), given by whoever started it;
* a violation by a consumer other than ``correct`` is compared with
  ``correct``'s verdict under the same rules and bounds (``also_by``:
  ``checker.scenario_check.against_textbook``), checked, not assumed;
* ``expected``: the verdict recorded for the cell (``spec.expected``), if any.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from checker.engines.options import DEFAULT, Options
from checker.engines.registry import Z3_ENGINE, ScenarioEngine, SparkSolvers
from checker.loading import source_of
from checker.result import Result, Verdict
from checker.scenario_check import against_textbook, check, model_for, planned
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.properties import Property
from spec.rules.language import RuleSet

__all__ = [
    "MatrixCell",
    "TextbookVerdicts",
    "check_cell",
    "check_cells",
    "planned_cell",
    "refusal",
    "remember_textbook",
]

# correct's verdicts, by (rules as named, property id, bounds, options): filled by the
# checks of correct a process runs and by the comparisons, so a command (or a Spark
# worker running many tasks) checks correct once per (rules, property).
TextbookVerdicts = dict[tuple[str, str], Verdict]
_SEEN: dict[tuple[Bounds, Options], TextbookVerdicts] = {}


@dataclass(frozen=True)
class MatrixCell:
    """What one check of the single-node model is of: ``prop`` of ``variant`` under
    ``rules``, within ``bounds`` (a rule set x consumer x property cell of ``dcpcheck
    check``'s and ``verify``'s matrix); the options and the engine say how it is checked."""

    rules: RuleSet
    variant: ConsumerVariant
    prop: Property
    bounds: Bounds


def refusal(engine: ScenarioEngine, options: Options) -> str | None:
    """Why ``options`` do not go with ``engine`` (a usage error), if they do not."""
    if options.every_session and (not engine.every_session or options.workers > 1):
        return "--sessions any: only with --engine z3 and one worker"
    return None


def planned_cell(
    cell: MatrixCell, options: Options = DEFAULT, engine: ScenarioEngine = Z3_ENGINE
) -> Result:
    """The cell's result before anything is decided (what an interrupted run reports)."""
    base = planned(cell.rules, cell.variant, cell.prop, cell.bounds, engine.name, options)
    if not options.every_session:
        return _expected(base)
    from checker.induction.every_session import EverySession

    every = base.but(bounds=EverySession(cell.bounds), command=f"{base.command} --sessions any")
    return every.but(expected="holds") if options.certificate is not None else every


def check_cell(
    cell: MatrixCell,
    options: Options = DEFAULT,
    engine: ScenarioEngine = Z3_ENGINE,
    solvers: SparkSolvers | None = None,
    update: Callable[[str], None] | None = None,
) -> Result:
    """The cell's ``Result``: ``engine`` (bound to ``solvers`` when it runs on Spark)
    searches it under ``options``, or the induction over resumes decides it
    (``options.every_session``); a violation is compared with ``correct``'s verdict."""
    if options.every_session:
        from checker.induction.every_session import check_every_session

        result = check_every_session(cell.rules, cell.variant, cell.prop, cell.bounds, options)
        return result.but(expected="holds") if options.certificate is not None else result
    if engine.needs_spark and solvers is not None:
        names = (
            source_of(cell.rules, cell.rules.name),
            source_of(cell.variant, cell.variant.name),
            source_of(cell.prop, cell.prop.id),
        )
        engine = engine.on_spark(solvers, names, update or (lambda _: None))
    found = check(cell.rules, cell.variant, cell.prop, cell.bounds, options, engine)
    return _compared(found, cell.rules, cell.prop, cell.bounds, options)


def check_cells(
    rules: RuleSet,
    variant: ConsumerVariant,
    props: Sequence[Property],
    bounds: Bounds,
    options: Options = DEFAULT,
) -> list[Result]:
    """Several cells of one (rule set, consumer), proved together and searched apart
    (``checker.together``): each ``Result`` the one ``check_cell`` gives for it."""
    from checker.together import check_together
    from spec.consumers import CONSUMERS, TEXTBOOK

    apart = _recorded_violations(rules, variant, props, bounds)
    results = check_together(model_for(bounds, rules, variant), props, options, apart)
    seen = _seen(bounds, options)
    asked = [
        p
        for r, p in zip(results, props, strict=True)
        if r.verdict is Verdict.VIOLATED
        and variant.name != TEXTBOOK[0]
        and (source_of(rules, rules.name), p.id) not in seen
    ]
    if len(asked) > 1:  # correct's verdicts on them together: one proof when it holds them
        textbook = CONSUMERS.get(TEXTBOOK[0])
        textbook_model = model_for(bounds, rules, textbook)
        apart = _recorded_violations(rules, textbook, asked, bounds)
        for r in check_together(textbook_model, asked, options.but(minimise=False), apart):
            if not r.interrupted:
                seen[(source_of(rules, rules.name), r.property)] = r.verdict
    return [_compared(r, rules, p, bounds, options) for r, p in zip(results, props, strict=True)]


def remember_textbook(
    bounds: Bounds, options: Options, verdicts: Sequence[tuple[str, str, str]]
) -> None:
    """``correct``'s verdicts, as (rules as named, property id, verdict), decided by its own
    checks under ``bounds`` and ``options`` in another process of the same run (a Spark
    worker): the comparisons here then take them as this process takes the ones it
    decided itself, instead of checking ``correct`` again."""
    seen = _seen(bounds, options)
    for rules, prop, verdict in verdicts:
        seen.setdefault((rules, prop), Verdict(verdict))


def _recorded_violations(
    rules: RuleSet, variant: ConsumerVariant, props: Sequence[Property], bounds: Bounds
) -> list[Property]:
    """Those of ``props`` whose recorded verdict (``spec.expected``) is violated: checked
    on their own first (``check_together``'s ``apart``), so no joint query is spent
    finding the violation the record announces; the results are the same."""
    from spec.expected import expected_verdict

    return [
        p
        for p in props
        if expected_verdict(rules.name, variant.name, p.id, bounds.sessions) == "violated"
    ]


def _seen(bounds: Bounds, options: Options) -> TextbookVerdicts:
    """correct's verdicts this process knows, for checks under ``bounds`` and ``options``."""
    return _SEEN.setdefault((bounds, options.but(minimise=False)), {})


def _compared(
    result: Result, rules: RuleSet, prop: Property, bounds: Bounds, options: Options
) -> Result:
    """``result`` with ``also_by`` (correct violates it too) and ``expected`` set."""
    from spec.consumers import TEXTBOOK

    seen = _seen(bounds, options)
    key = (source_of(rules, rules.name), prop.id)
    if result.subject.get("consumer") == TEXTBOOK[0] and not result.interrupted:
        seen[key] = result.verdict  # correct's own verdict: no need to check it again
    return _expected(against_textbook(result, rules, prop, bounds, options, seen))


def _expected(result: Result) -> Result:
    from spec.expected import expected_verdict

    recorded = expected_verdict(
        result.subject["rules"],
        result.subject["consumer"],
        result.property,
        getattr(result.bounds, "sessions", 1),
    )
    return result.but(expected=recorded)
