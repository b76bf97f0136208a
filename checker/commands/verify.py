"""The main job: every rule set x consumer variant x property, on Spark.

    dcpcheck verify [--master URL] [--conf KEY=VALUE ...] [--executor-wait S]
                    [--rules ...] [--consumer ...] [--property ...]
                    [--durability-preset NAME ... | --no-durability]
                    [--json] [--junit FILE] [--out DIR] [--budget M] [--timeout S] [bounds]

Runs each combination as a Spark task (embedded ``local[*]`` by default; a
master URL runs the same job on a cluster), prints a summary table with
verdicts and times, and compares each verdict with the expected one
(spec/expected.py) where one is recorded. Then the same for the multi-node
durability model: every ack rule x branch rule x durability property at
each preset given (default mb-34150 and mb-51805; expectations in
spec/cluster/expected.py), one Spark task each, a second table.
Counterexamples go to DIR (default out/verify; durability runs to
DIR/durability). Exit: 0 when every verdict is as expected, 1 when one is
not (or a violation has no expectation), 3 when one is unknown, 4 when a
counterexample is not confirmed by the reference implementation, 130 when
Ctrl-C stopped it (the checks decided by then are reported, the rest are
``unknown (interrupted)``; no JUnit or HTML file is written).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from functools import partial

from checker.atomic import writable_dir, writable_file
from checker.commands.check import add_selection_arguments, selection
from checker.commands.common import (
    Planned,
    add_budget_arguments,
    add_output_arguments,
    add_progress_arguments,
    add_scenario_bounds,
    add_spark_arguments,
    budget_from,
    run_planned,
    scenario_bounds_from,
    spark_conf_from,
)
from checker.progress import Progress
from checker.report.files import write_counterexample
from checker.report.html import write_html
from checker.report.junit import write_junit
from checker.report.text import exit_code_against_expected, result_json, summary_table
from checker.result import Result
from checker.symbolic.budget import CHECK_BUDGET, MILLION, Budget
from checker.tasks import ClusterTask, ScenarioTask, Task
from checker.unbounded import decision_results
from spec.cluster import ACK_RULES, BRANCH_RULES, PRESETS
from spec.errors import UsageError

DURABILITY_PRESETS = ("mb-34150", "mb-51805")
DURABILITY_PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_selection_arguments(parser)
    parser.add_argument(
        "--no-spark", action="store_true", help="run in this process instead (debugging)"
    )
    add_output_arguments(
        parser, "out/verify", json_help='print {"results": [...]} instead of the table'
    )
    parser.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    add_budget_arguments(parser, CHECK_BUDGET / MILLION)
    parser.add_argument(
        "--durability-preset",
        action="append",
        metavar="NAME",
        help=f"also check the durability model at this preset (repeatable; default "
        f"{', '.join(DURABILITY_PRESETS)}; known: {', '.join(PRESETS)})",
    )
    parser.add_argument("--no-durability", action="store_true", help="skip the durability model")
    parser.add_argument(
        "--no-decision",
        action="store_true",
        help="skip the decision-level proofs (every table length, every seqno)",
    )
    add_progress_arguments(parser)
    add_scenario_bounds(parser)
    add_spark_arguments(parser)


def durability_tasks(args: argparse.Namespace) -> list[ClusterTask]:
    if args.no_durability:
        if args.durability_preset:
            raise UsageError("--no-durability and --durability-preset contradict each other")
        return []
    presets = args.durability_preset or list(DURABILITY_PRESETS)
    for name in presets:
        if name not in PRESETS:
            raise UsageError(
                f"--durability-preset: unknown preset {name!r} (known: {', '.join(PRESETS)})"
            )
    return [
        ClusterTask(ack, branch, prop, PRESETS[name].bounds, name, timeout_s=args.timeout)
        for name in presets
        for ack in ACK_RULES.names()
        for branch in BRANCH_RULES.names()
        for prop in DURABILITY_PROPERTIES
    ]


def run(args: argparse.Namespace) -> int:
    budget = budget_from(args)
    bounds = scenario_bounds_from(args)
    conf = spark_conf_from(args)
    writable_dir(args.out, "--out")
    writable_file(args.html, "--html")
    writable_file(args.junit, "--junit")
    rules, consumers, props = selection(args)
    tasks: list[Task] = [
        ScenarioTask(r.spec, c.spec, p.spec, bounds, timeout_s=args.timeout, budget=budget)
        for r in rules
        for c in consumers
        for p in props
    ]
    cluster_tasks = durability_tasks(args)
    started = time.perf_counter()
    print(
        f"dcpcheck verify: {len(tasks)} checks within {bounds.describe()}"
        + (f", then {len(cluster_tasks)} durability checks" if cluster_tasks else ""),
        file=sys.stderr,
        flush=True,
    )
    everything: list[Task] = [*tasks, *cluster_tasks]
    progress = Progress(len(everything), quiet=args.quiet)
    labels = [task.label for task in everything]

    def done(n: int, result: Result) -> None:
        progress.finish(labels[n], result.verdict.value)

    try:
        if args.no_spark:
            planned = [Planned(t.label, partial(_run, t), t.planned) for t in everything]
            results = run_planned(planned, lambda result: None, progress)
        else:
            from checker.spark.session import spark_session
            from checker.spark.tasks import run_tasks

            app = "dcpcheck verify"
            with spark_session(args.master, app, conf, args.executor_wait) as spark:
                start = lambda n: progress.start(labels[n])  # noqa: E731
                results = run_tasks(spark, everything, on_start=start, on_done=done)
    finally:
        progress.close()
    stopped = any(r.interrupted for r in results)
    if not stopped and not args.no_decision:
        try:
            decided_everywhere = decision_results([r.item for r in rules], Budget(budget))
        except KeyboardInterrupt:
            decided_everywhere, stopped = [], True
        results += decided_everywhere
    single = [r for r in results if r.model == "scenario"]
    decision = [r for r in results if r.model == "decision"]
    cluster = [r for r in results if r.model == "cluster"]
    paths = [None if r.interrupted else write_counterexample(r, _out(args.out, r)) for r in results]
    if args.junit and not stopped:
        write_junit(results, args.junit, name="dcpcheck verify")
    if args.html and not stopped:
        write_html(results, args.html, "dcpcheck verify")
    if args.json:
        records = [result_json(r, p) for r, p in zip(results, paths, strict=True)]
        by_model = {"scenario": [], "cluster": [], "decision": []}  # type: ignore[var-annotated]
        for r, record in zip(results, records, strict=True):
            by_model[r.model].append(record)
        print(
            json.dumps(
                {
                    "results": by_model["scenario"],
                    "durability": by_model["cluster"],
                    "decision": by_model["decision"],
                },
                indent=2,
            )
        )
    else:
        print(summary_table(single, expected=True))
        print(f"\nholds = no violation within {bounds.describe()}; counterexamples in {args.out}/")
        _print_durability(cluster)
        if decision:
            print(f"\ndecision level: {decision[0].bounds.describe()}")
            print(summary_table(decision, expected=True))
        elapsed = time.perf_counter() - started
        print(f"\n{len(results)} checks in {elapsed:.1f}s")
    return exit_code_against_expected(results)


def _out(out: str, r: Result) -> str:
    return out if r.model == "scenario" else f"{out}/durability"


def _run(task: Task, update: Callable[[str], None]) -> Result:
    return task.run()


def _print_durability(cluster: list[Result]) -> None:
    if not cluster:
        return
    for name in dict.fromkeys(r.preset for r in cluster):
        part = [r for r in cluster if r.preset == name]
        print(f"\ndurability, preset {name}: {part[0].bounds.describe()}")
        print(summary_table(part, expected=True))
    print("holds = no violation in any interleaving within a preset's bounds (docs/durability.md)")
