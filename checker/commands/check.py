"""Search for resumes that violate a property, or show none exists within bounds.

    dcpcheck check [--rules NAME|FILE ...] [--consumer NAME|FILE ...]
                   [--property ID ...] [--json] [--out DIR] [--budget M] [--timeout S]
                   [--workers N] [--split D] [--fail-on safety|cost] [--quiet]
                   [--seqnos N] [--keys N] [--entries N] [--failovers N]
                   [--sessions K|any] [--show-invariant]

For every combination, Z3 either finds a violating scenario (minimised,
replayed on the reference implementation, written to DIR as
``<id>.json`` and ``<id>.itf.json``) or proves there is none within the
bounds (``--sessions any``: for every number of resumes, by an induction over
resumes, ``checker.induction``). Verdicts: ``violated``, ``holds`` (with the bounds it holds for),
``unknown`` (the budget of Z3 work ran out, or the outer --timeout, or
Ctrl-C: nothing is claimed). The same command gives the same verdicts and
the same counterexamples on any machine, loaded or not (--budget counts
Z3's resource units, not seconds).
Exit: 0 no safety property is violated (a cost violation is reported, and
fails only with --fail-on cost), 1 a violation, 3 an unknown, 4 a
counterexample the reference implementation does not confirm (a harness
bug), 2 bad input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from dataclasses import replace
from functools import partial

from checker.arguments.common import (
    ANY_SESSIONS,
    add_budget_arguments,
    add_count,
    add_output_arguments,
    add_progress_arguments,
    add_scenario_bounds,
    add_spark_arguments,
    budget_from,
    outputs_from,
    scenario_bounds_from,
    spark_conf_from,
)
from checker.arguments.selection import add_selection_arguments, selection
from checker.atomic import writable_dir, writable_file
from checker.cell import MatrixCell, check_cell, planned_cell, refusal
from checker.engines.options import Options
from checker.engines.registry import SCENARIO_ENGINES, scenario_engine_name
from checker.progress import Progress
from checker.report.emit import Emit
from checker.result import Result, Verdict
from checker.runner import Job, run_jobs
from checker.scenario_check import CHECK_BUDGET, rounds_needed
from checker.symbolic.budget import MILLION
from spec.bounds import Bounds
from spec.errors import UsageError
from spec.model.build import SPLIT_DEPTHS
from spec.properties import Property


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_selection_arguments(parser)
    add_output_arguments(parser, "out/check")
    add_budget_arguments(parser, CHECK_BUDGET / MILLION)
    parser.add_argument(
        "--no-minimise", action="store_true", help="keep the first counterexample found"
    )
    parser.add_argument(
        "--engine",
        type=scenario_engine_name,
        choices=SCENARIO_ENGINES,
        default="z3",
        help="z3 (default: proofs, minimised counterexamples); exhaustive (enumerate every "
        "scenario, on Spark); random (hypothesis; never claims 'holds'); cubes-spark (the z3 "
        "proof cut into cubes solved on Spark executors: the same verdicts and "
        "counterexamples; 'spark' is its old name)",
    )
    add_count(
        parser,
        "--workers",
        256,
        1,
        "z3: cut each proof into cubes (one per number of failovers) solved on N "
        "processes side by side, each cube with the whole budget (default 1: one proof)",
    )
    add_count(
        parser,
        "--split",
        SPLIT_DEPTHS,
        1,
        "how finely a proof cut into cubes (--engine cubes-spark, --workers) is cut: 1 by "
        "the number of failovers (default), 2 also by the last failover's branch point, 3 "
        "also by the one before it (more, smaller cubes to spread, more work in all)",
        metavar="D",
    )
    add_count(parser, "--examples", 100_000_000, 10_000, "for --engine random")
    parser.add_argument(
        "--fail-on",
        choices=("safety", "cost"),
        default="safety",
        help="exit 1 on a safety violation (default), or on a cost violation too "
        "(no-needless-rollback is violated by design under kv-current: its purge rollback)",
    )
    add_progress_arguments(parser)
    add_scenario_bounds(parser, any_sessions=True)
    parser.add_argument(
        "--show-invariant",
        action="store_true",
        help="with --sessions any: print each lemma of the invariant in words and as a formula",
    )
    add_spark_arguments(parser, "--engine exhaustive|cubes-spark")


def run(args: argparse.Namespace) -> int:
    budget = budget_from(args)
    bounds = scenario_bounds_from(args)
    options = Options(
        budget=budget,
        timeout_s=args.timeout,
        minimise=not args.no_minimise,
        workers=args.workers,
        split=args.split,
        examples=args.examples,
        every_session=args.sessions == ANY_SESSIONS,
        show_invariant=args.show_invariant,
    )
    engine = SCENARIO_ENGINES[args.engine]
    refused = refusal(engine, options)
    if refused:
        raise UsageError(refused)
    writable_dir(args.out, "--out")
    writable_file(args.html, "--html")
    rules, consumers, props = selection(args)
    cells = [
        MatrixCell(r.item, c.item, p.item, bounds) for r in rules for c in consumers for p in props
    ]
    conf = spark_conf_from(args)

    outputs = replace(
        outputs_from(args, "dcpcheck check"), streamed=True, fail_on_cost=args.fail_on == "cost"
    )
    report = Emit(outputs)
    with ExitStack() as stack:
        solvers = None
        if engine.needs_spark:
            from checker.spark.session import spark_session
            from checker.spark.solvers import SparkSolvers

            app = f"dcpcheck check --engine {engine.name}"
            spark = stack.enter_context(spark_session(args.master, app, conf, args.executor_wait))
            solvers = SparkSolvers(spark)
        jobs = [
            Job.one(
                f"{cell.rules.name}/{cell.variant.name}: {cell.prop.id}",
                partial(check_cell, cell, options, engine, solvers),
                partial(planned_cell, cell, options, engine),
            )
            for cell in cells
        ]
        progress = Progress(len(jobs), quiet=args.quiet)
        results = run_jobs(jobs, progress, each=report.one)
    if not any(r.interrupted for r in results):
        warn_too_few_rounds(results, [p.item for p in props], bounds)
    return report.finish(results)


def warn_too_few_rounds(results: list[Result], props: list[Property], bounds: Bounds) -> None:
    """On stderr, for each property that holds: whether ``--rounds`` cuts its check short
    (``checker.scenario_check.rounds_needed``: a violation that needs more rounds than
    unrolled cannot be found, so the holds covers shorter runs only), and what to raise."""
    held = {r.property for r in results if r.verdict is Verdict.HOLDS}
    for prop in props:
        needed = rounds_needed(prop, bounds) if prop.id in held else None
        if needed is not None:
            print(
                f"dcpcheck: warning: {prop.id} holds only for runs of at most {bounds.rounds} "
                f"rounds: within these bounds a violation can need {needed}, which --rounds "
                f"{bounds.rounds} cannot show; raise --rounds to {needed} (the default is "
                "entries + 3)",
                file=sys.stderr,
            )
