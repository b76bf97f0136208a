"""The main job: every rule set x consumer variant x property, on Spark.

    dcpcheck verify [--master URL] [--rules ...] [--consumer ...] [--property ...]
                    [--durability-preset NAME ... | --no-durability]
                    [--json] [--junit FILE] [--out DIR] [--timeout S] [bounds]

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
counterexample is not confirmed by the reference implementation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from checker.check import CheckResult, Verdict
from checker.commands.check import (
    add_bounds_arguments,
    add_selection_arguments,
    bounds_from,
    selection,
)
from checker.durability import DurabilityResult, DurabilityTask
from checker.report import durability as durability_report
from checker.report.html import write_html
from checker.report.junit import write_junit
from checker.report.results import result_json, summary_table, write_counterexample
from spec.cluster import ACK_RULES, BRANCH_RULES, PRESETS
from spec.errors import EXIT_INTERNAL, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, UsageError
from spec.expected import EXPECTED

DURABILITY_PRESETS = ("mb-34150", "mb-51805")
DURABILITY_PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_selection_arguments(parser)
    parser.add_argument("--html", metavar="FILE", help="also write an HTML report with timelines")
    parser.add_argument(
        "--master", default="local[*]", metavar="URL", help="Spark master (default local[*])"
    )
    parser.add_argument(
        "--no-spark", action="store_true", help="run in this process instead (debugging)"
    )
    parser.add_argument(
        "--json", action="store_true", help='print {"results": [...]} instead of the table'
    )
    parser.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    parser.add_argument(
        "--out", default="out/verify", metavar="DIR", help="where counterexamples go"
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="per check (default 300)"
    )
    parser.add_argument(
        "--durability-preset",
        action="append",
        metavar="NAME",
        help=f"also check the durability model at this preset (repeatable; default "
        f"{', '.join(DURABILITY_PRESETS)}; known: {', '.join(PRESETS)})",
    )
    parser.add_argument("--no-durability", action="store_true", help="skip the durability model")
    add_bounds_arguments(parser)


def durability_tasks(args: argparse.Namespace) -> list[DurabilityTask]:
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
        DurabilityTask(ack, branch, prop, name)
        for name in presets
        for ack in ACK_RULES.names()
        for branch in BRANCH_RULES.names()
        for prop in DURABILITY_PROPERTIES
    ]


def _expected_map() -> dict[tuple[str, str, str], str]:
    return {key: verdict for key, (verdict, _) in EXPECTED.items()}


def verify_exit_code(results: list[CheckResult], expected: dict[tuple[str, str, str], str]) -> int:
    if any(r.replay is not None and not r.replay.confirmed for r in results):
        return EXIT_INTERNAL
    unexpected = [
        r
        for r in results
        if r.verdict is not Verdict.UNKNOWN
        and expected.get((r.rules, r.consumer, r.property), "holds") != r.verdict.value
    ]
    if unexpected:
        return EXIT_VIOLATION
    if any(r.verdict is Verdict.UNKNOWN for r in results):
        return EXIT_UNKNOWN
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    bounds = bounds_from(args)
    rules, consumers, props = selection(args)
    tasks = [(r.spec, c.spec, p.spec) for r in rules for c in consumers for p in props]
    cluster_tasks = durability_tasks(args)
    started = time.perf_counter()
    print(
        f"dcpcheck verify: {len(tasks)} checks within {bounds.describe()}"
        + (f", then {len(cluster_tasks)} durability checks" if cluster_tasks else ""),
        file=sys.stderr,
        flush=True,
    )
    if args.no_spark:
        from checker.spark.matrix import _check_one

        results = [_check_one((r, c, p, bounds, args.timeout)) for r, c, p in tasks]
        cluster = [t.result(t.run(timeout_s=args.timeout)) for t in cluster_tasks]
    else:
        from checker.spark.durability import run_durability
        from checker.spark.matrix import run_matrix
        from checker.spark.session import spark_session

        spark, created = spark_session(args.master, "dcpcheck verify")
        try:
            results = run_matrix(spark, tasks, bounds, args.timeout)
            cluster = (
                run_durability(spark, cluster_tasks, max_states=None, timeout_s=args.timeout)
                if cluster_tasks
                else []
            )
        finally:
            if created:
                spark.stop()
    cluster_paths = [
        durability_report.write_counterexample(r, f"{args.out}/durability") for r in cluster
    ]
    paths = [
        write_counterexample(r, args.out) if r.verdict is Verdict.VIOLATED else None
        for r in results
    ]
    expected = _expected_map()
    if args.junit:
        write_junit(results, expected, args.junit, name="dcpcheck verify", durability=cluster)
    if args.html:
        write_html(results, args.html, "dcpcheck verify", expected)
    if args.json:
        records = [
            result_json(r, p) | {"expected": expected.get((r.rules, r.consumer, r.property))}
            for r, p in zip(results, paths, strict=True)
        ]
        durability = [
            durability_report.result_json(r, p) for r, p in zip(cluster, cluster_paths, strict=True)
        ]
        print(json.dumps({"results": records, "durability": durability}, indent=2))
    else:
        print(summary_table(results, expected))
        print(f"\nholds = no violation within {bounds.describe()}; counterexamples in {args.out}/")
        _print_durability(cluster)
        elapsed = time.perf_counter() - started
        print(f"\n{len(results) + len(cluster)} checks in {elapsed:.1f}s")
    return combined_exit_code(
        verify_exit_code(results, expected),
        durability_report.exit_code_against_expected(cluster),
    )


def _print_durability(cluster: list[DurabilityResult]) -> None:
    if not cluster:
        return
    for name in dict.fromkeys(r.preset for r in cluster):
        part = [r for r in cluster if r.preset == name]
        print(f"\ndurability, preset {name}: {part[0].bounds.describe()}")
        print(durability_report.summary_table(part))
    print("holds = no violation in any interleaving within a preset's bounds (docs/durability.md)")


def combined_exit_code(*codes: int) -> int:
    """The most serious of several exit codes: harness bug, unexpected verdict, unknown, ok."""
    for code in (EXIT_INTERNAL, EXIT_VIOLATION, EXIT_UNKNOWN):
        if code in codes:
            return code
    return EXIT_OK
