"""Check one (rule set, consumer variant, property) of the single-node model within bounds.

``check`` builds the scenario model (``spec.model``), hands it to an engine
(``checker.engines``: ``z3`` proves or finds a minimised counterexample,
``exhaustive`` enumerates every scenario, ``random`` samples with
hypothesis), replays what it found on the reference implementation
(``checker.confirm``; *confirmed* only if the reference shows the same
violation along the same trace), lets the property explain the violation,
and returns a ``checker.result.Result`` whose run is the reference trace as
named steps (``spec.model.narrate``).
"""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Mapping
from dataclasses import replace

from checker.confirm import explain, replay_scenario
from checker.corpus.scenario import counterexample_id, scenario_record
from checker.engines.options import DEFAULT, Options
from checker.engines.registry import Z3_ENGINE, ScenarioEngine, scenario_engine
from checker.loading import source_of
from checker.result import Result, Stats, Verdict, not_run
from checker.symbolic.budget import CHECK_BUDGET, MILLION, Budget
from checker.symbolic.session import Session, SolverAnswer
from checker.timing import Stopwatch
from spec.bounds import LIMITS, Bounds
from spec.consumers.api import ConsumerVariant
from spec.expr import Expr, implies, walk
from spec.failover_table import DEFAULT_MAX_ENTRIES
from spec.model.build import ScenarioModel
from spec.model.narrate import run_of
from spec.properties import Property
from spec.rules.language import RuleSet
from spec.trace import TraceFields

__all__ = [
    "CHECK_BUDGET",
    "against_textbook",
    "check",
    "model_for",
    "planned",
    "reproduce_command",
    "rounds_needed",
]


# The models ``model_for`` made last: a cell's properties proved together, then each violated
# one searched apart, ask for one model several times in a row.
_MODELS: list[ScenarioModel] = []
_MODELS_KEPT = 2


def model_for(bounds: Bounds, rules: RuleSet, variant: ConsumerVariant) -> ScenarioModel:
    """``ScenarioModel(bounds, rules, variant)``, the one made last for these three if it
    is one of the last two (its expressions are built once: a model is pure, and what a
    solver is given from it does not depend on which of equal models it came from)."""
    for model in _MODELS:
        if model.rules is rules and model.variant is variant and model.bounds == bounds:
            return model
    model = ScenarioModel(bounds, rules, variant)
    _MODELS[:] = [model, *_MODELS[: _MODELS_KEPT - 1]]
    return model


def reproduce_command(
    given: Mapping[str, str], b: Bounds, engine: str = Z3_ENGINE.name, options: Options = DEFAULT
) -> str:
    """The ``dcpcheck check`` line that reproduces one check: the definitions as a command
    line names them (``given``: ``rules``, ``consumer`` and ``property``, each a built-in
    name or the user's file: ``checker.loading.source_of``), the four size bounds, and
    every other option that can change the verdict when it is not its default
    (``--rounds``, ``--max-entries``, ``--sessions``, ``--engine``, ``--budget``,
    ``--examples``)."""
    words: list[str | int] = ["dcpcheck", "check"]
    for flag in ("rules", "consumer", "property"):
        words += [f"--{flag}", given[flag]]
    words += ["--seqnos", b.seqnos, "--keys", b.keys, "--entries", b.entries]
    words += ["--failovers", b.failovers]
    if b.rounds != b.entries + 3:  # Bounds: rounds 0 means entries + 3
        words += ["--rounds", b.rounds]
    if b.max_entries != DEFAULT_MAX_ENTRIES:
        words += ["--max-entries", b.max_entries]
    if b.sessions != 1:
        words += ["--sessions", b.sessions]
    if engine != Z3_ENGINE.name:
        words += ["--engine", engine]
    if options.budget != CHECK_BUDGET:
        words += ["--budget", "0" if options.budget is None else f"{options.budget / MILLION:g}"]
    if scenario_engine(engine).draws_examples and options.examples != DEFAULT.examples:
        words += ["--examples", options.examples]
    return shlex.join(str(w) for w in words)


def planned(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    engine: str = Z3_ENGINE.name,
    options: Options = DEFAULT,
) -> Result:
    """The check's result before anything is decided: ``unknown``, named and bounded,
    with the command that reproduces it (what an interrupted run reports for it)."""
    subject = {"rules": rules.name, "consumer": variant.name}
    named = {
        "rules": (source_of(rules, rules.name), rules.name),
        "consumer": (source_of(variant, variant.name), variant.name),
        "property": (source_of(prop, prop.id), prop.id),
    }
    given = {kind: source for kind, (source, _) in named.items()}
    command = reproduce_command(given, bounds, engine, options)
    sources = {kind: source for kind, (source, name) in named.items() if source != name}
    return not_run("scenario", subject, prop, bounds, engine, command, sources=sources)


def check(
    rules: RuleSet,
    variant: ConsumerVariant,
    prop: Property,
    bounds: Bounds,
    options: Options = DEFAULT,
    engine: ScenarioEngine = Z3_ENGINE,
) -> Result:
    """One check: ``engine`` (default ``z3``: proofs and minimised counterexamples;
    ``checker.engines.registry`` has the others) searches the model under ``options``.

    ``options.budget``: Z3 resource units for the search and the minimisation (None: no
    limit); when it runs out the verdict is ``unknown``, the same on any machine.
    ``options.timeout_s``: an outer wall-clock guard (its unknowns depend on the
    machine's load). ``options.workers`` > 1 or ``options.split`` > 1: the Z3 proof is cut
    into the cubes of ``model.split(split)`` solved on that many processes, each cube with
    the whole budget (``checker.engines.cubes``)."""
    clock = Stopwatch()
    model = model_for(bounds, rules, variant)
    found = engine.search(model, prop, options)
    result = planned(rules, variant, prop, bounds, engine.name, options).but(
        verdict=found.verdict,
        reason=found.reason,
        note=found.note,
        size=found.size,
        interrupted=found.interrupted,
    )
    if found.verdict is Verdict.VIOLATED and found.scenario is not None:
        replay = replay_scenario(found.scenario, model, prop)
        result = result.but(witness=found.scenario, replay=replay.outcome())
        if replay.trace is not None:
            explanation = explain(replay.trace, prop, bounds)
            ident = (
                ""
                if found.interrupted
                else counterexample_id(rules.name, variant.name, prop.id, found.scenario)
            )
            result = result.but(
                run=run_of(replay.trace),
                explanation=explanation,
                ident=ident,
                record=None
                if found.interrupted
                else scenario_record(result, ident, replay.trace, explanation),
            )
    wall, cpu = clock.read()
    stats = Stats(wall, cpu + found.cpu_elsewhere, examined=found.examined, budget=found.units)
    return result.but(stats=replace(stats, cubes=found.cubes))


def against_textbook(
    result: Result,
    rules: RuleSet,
    prop: Property,
    bounds: Bounds,
    options: Options = DEFAULT,
    verdicts: dict[tuple[str, str], Verdict] | None = None,
) -> Result:
    """``result`` (a violation by some consumer) with ``also_by`` set when the textbook
    consumer (``correct``) violates the same property under the same rules and bounds:
    then the rule set causes it (kv-current's purge rollback and ``no-needless-rollback``),
    not the consumer. Checked, not assumed; ``verdicts`` caches the textbook's verdicts
    by (rules, property) across a command's checks."""
    from spec.consumers import CONSUMERS, TEXTBOOK

    textbook = CONSUMERS.get(TEXTBOOK[0])
    if result.verdict is not Verdict.VIOLATED or result.subject.get("consumer") == textbook.name:
        return result
    cache = {} if verdicts is None else verdicts
    key = (source_of(rules, rules.name), prop.id)
    if key not in cache:
        cache[key] = check(rules, textbook, prop, bounds, options.but(minimise=False)).verdict
    return result.but(also_by=textbook.name) if cache[key] is Verdict.VIOLATED else result


# How much Z3 work the look at a property's formula may take (it never needs much: the
# formula alone, no model); when it runs out no warning is given.
ROUNDS_CHECK_BUDGET = 20 * MILLION


def rounds_needed(prop: Property, bounds: Bounds) -> int | None:
    """None when ``bounds.rounds`` can show every violation of ``prop`` within the other
    bounds; else the fewest rounds that can (``LIMITS`` at most).

    Derived from the property's formula alone: more rounds matter when a violation can
    first appear in one round more, in a round that repeats the one before it field for
    field: only the round's index then tells them apart, so no shorter run can show that
    violation (``bounded-rollback``'s loop bound, ``i < table length + 2``). A property
    that judges each round on its own fields (``no-needless-rollback``) is not cut short
    by any number of rounds: its violation in a later round appears in an earlier one of
    another run. The trace fields are free but for the bounds: a producer table of 1 to
    ``min(entries, max_entries)`` entries, and a round sent only after the one before it.
    """
    if not _one_more_round_matters(prop, bounds, bounds.rounds):
        return None
    for rounds in range(bounds.rounds + 1, LIMITS["rounds"] + 1):
        if not _one_more_round_matters(prop, bounds, rounds):
            return rounds
    return LIMITS["rounds"]


def _one_more_round_matters(prop: Property, bounds: Bounds, rounds: int) -> bool:
    """Whether ``prop`` can be violated first in round ``rounds`` (one past the last
    unrolled) when that round repeats the one before it field for field."""
    if rounds < 1 or rounds >= LIMITS["rounds"]:
        return False
    shorter = TraceFields(replace(bounds, rounds=rounds))
    holds = prop.holds(shorter)
    repeated = prop.holds(_Repeated(replace(bounds, rounds=rounds + 1)))
    seen = {_digest(c) for c in _conjuncts(holds)}
    if all(_digest(c) in seen for c in _conjuncts(repeated)):
        return False  # the repeated round only repeats conjuncts: each round judged alone
    sent = [shorter[f"r{i}.sent"] for i in shorter.rounds]
    in_order = [implies(later, earlier) for earlier, later in itertools.pairwise(sent)]
    session = Session(budget=Budget(ROUNDS_CHECK_BUDGET))
    session.declare(shorter.sorts, {"p.table_len": (1, min(bounds.entries, bounds.max_entries))})
    session.add(holds, ~repeated, sent[-1], *in_order)
    return session.check().answer is SolverAnswer.SAT


class _Repeated(TraceFields):
    """The trace fields of one round more than ``bounds.rounds - 1``, whose last round is
    the one before it: the same variables."""

    def __getitem__(self, name: str) -> Expr:
        last = len(self.rounds) - 1
        if name.startswith(f"r{last}."):
            name = f"r{last - 1}.{name.partition('.')[2]}"
        return super().__getitem__(name)


def _conjuncts(expr: Expr) -> tuple[Expr, ...]:
    return expr.args if expr.op == "and" else (expr,)


def _digest(root: Expr) -> int:
    """A structural hash of ``root`` (equal expressions, equal digests), in one pass."""
    digests: dict[int, int] = {}
    for node in walk([root]):
        children = tuple(digests[id(a)] for a in node.args)
        digests[id(node)] = hash((node.op, node.value, node.name, children))
    return digests[id(root)]
