"""Proof cost against seqnos, lever by lever, in one run (``python -m benchmarks proofs``).

kv-current x correct, ``no-missed-item`` (the property that holds key by key)
and ``no-foreign-snapshot`` (one that does not), keys 3, 5 table entries,
3 failovers, 4..16 seqnos. Each column adds one lever to the one before it:

1. ``before``: Z3's unbounded integers and the whole negated property, as the
   engine solved every check before issue 10;
2. ``+ bit-vectors``: the model's variable ranges let every integer be a
   bit-vector of a few bits;
3. ``+ symmetry``: keys are interchangeable: a per-key property is searched
   at key 0, another with keys in first-use order (what the engine does);
4. ``cubes``: column 3 cut by the number of failovers, each cube a fresh
   solver, one after the other (what executors would share out);
5. ``growing``: column 3 in one incremental solver, proving seqnos <= 1, 2,
   ..., N in turn, so the proof at N starts from the lemmas of N-1.

Each cell is Z3 resource units (deterministic: the same on any machine)
and CPU seconds, measured in this run; a cell capped at ``CAP`` units says
so (``>`` before it), and the cap holds the run to minutes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from benchmarks._table import print_table
from checker.engines import z3 as z3_engine
from checker.symbolic.budget import MILLION, Budget
from checker.symbolic.session import Session, SolverAnswer
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.expr import Expr, all_of
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

CAP = 100 * MILLION  # units per cell


def _before(model: ScenarioModel, goal: Expr, budget: Budget) -> list[SolverAnswer]:
    session = Session(budget=budget)
    session.declare(model.variables)
    session.add(model.constraints, goal)
    return [session.check().answer]


def _bit_vectors(model: ScenarioModel, goal: Expr, budget: Budget) -> list[SolverAnswer]:
    session = z3_engine.open_session(model, goal, all_of(), budget)
    return [session.check().answer]


def _symmetry(
    model: ScenarioModel, prop_goal: tuple[Expr, Expr], budget: Budget
) -> list[SolverAnswer]:
    session = z3_engine.open_session(model, *prop_goal, budget)
    return [session.check().answer]


def _cubes(
    model: ScenarioModel, prop_goal: tuple[Expr, Expr], budget: Budget
) -> list[SolverAnswer]:
    answers = []
    for cube in model.split(1):
        session = z3_engine.open_session(model, *prop_goal, budget, assume=[cube])
        answers.append(session.check().answer)
    return answers


def _growing(
    model: ScenarioModel, prop_goal: tuple[Expr, Expr], budget: Budget
) -> list[SolverAnswer]:
    session = z3_engine.open_session(model, *prop_goal, budget)
    highs = [model.vars["h0.high"]] + [model.vars[f"f{f}.high"] for f in model.vars.failover_ids]
    answers = []
    for n in range(1, model.bounds.seqnos):
        answers.append(session.check(all_of(*(h <= n for h in highs))).answer)
    answers.append(session.check().answer)
    return answers


def _cell(run: Callable[[Budget], list[SolverAnswer]]) -> str:
    budget = Budget(CAP)
    started = time.process_time()
    answers = run(budget)
    cpu = time.process_time() - started
    capped = SolverAnswer.UNKNOWN in answers
    verdict = "holds" if all(a is SolverAnswer.UNSAT for a in answers) else "?"
    mark = ">" if capped else ""
    text = f"{mark}{budget.spent / MILLION:,.1f}M {cpu:.1f}s"
    return text if capped or verdict == "holds" else f"{text} {verdict}"


def table(prop_id: str, seqnos: list[int], keys: int, entries: int, failovers: int) -> None:
    prop = PROPERTIES.get(prop_id)
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    rows = []
    for n in seqnos:
        model = ScenarioModel(Bounds(n, keys, entries, failovers), rules, variant)
        whole = ~model.holds(prop)
        canonical = model.violation(prop)
        rows.append(
            [
                n,
                _cell(lambda b, m=model, g=whole: _before(m, g, b)),
                _cell(lambda b, m=model, g=whole: _bit_vectors(m, g, b)),
                _cell(lambda b, m=model, g=canonical: _symmetry(m, g, b)),
                _cell(lambda b, m=model, g=canonical: _cubes(m, g, b)),
                _cell(lambda b, m=model, g=canonical: _growing(m, g, b)),
            ]
        )
    caption = (
        f"kv-current x correct, {prop_id} (holds), keys {keys}, {entries} entries, "
        f"{failovers} failovers: Z3 units and CPU seconds per proof (cap {CAP / MILLION:g}M)"
    )
    headers = ["seqnos", "before", "+ bit-vectors", "+ symmetry", "cubes", "growing"]
    print_table(caption, headers, rows)


def run(quick: bool = False) -> None:
    seqnos = [4, 6, 8] if quick else [4, 8, 12, 16]
    for prop in ("no-missed-item", "no-foreign-snapshot"):
        table(prop, seqnos, keys=3, entries=5, failovers=3)
