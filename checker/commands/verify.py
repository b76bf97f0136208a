"""The main job: every rule set x consumer variant x property, on Spark.

    dcpcheck verify [--master URL] [--rules ...] [--consumer ...] [--property ...]
                    [--json] [--junit FILE] [--out DIR] [--timeout S] [bounds]

Runs each combination as a Spark task (embedded ``local[*]`` by default; a
master URL runs the same job on a cluster), prints a summary table with
verdicts and times, and compares each verdict with the expected one
(spec/expected.py) where one is recorded. Counterexamples go to DIR
(default out/verify). Exit: 0 when every verdict is as expected, 1 when one
is not (or a violation has no expectation), 3 when one is unknown, 4 when a
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
from checker.report.html import write_html
from checker.report.junit import write_junit
from checker.report.results import result_json, summary_table, write_counterexample
from spec.errors import EXIT_INTERNAL, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, UsageError
from spec.expected import EXPECTED


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
    add_bounds_arguments(parser)


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
    started = time.perf_counter()
    print(
        f"dcpcheck verify: {len(tasks)} checks within {bounds.describe()}",
        file=sys.stderr,
        flush=True,
    )
    if args.no_spark:
        from checker.spark.matrix import _check_one

        results = [_check_one((r, c, p, bounds, args.timeout)) for r, c, p in tasks]
    else:
        from checker.spark.matrix import run_matrix
        from checker.spark.session import spark_session

        spark, created = spark_session(args.master, "dcpcheck verify")
        try:
            results = run_matrix(spark, tasks, bounds, args.timeout)
        finally:
            if created:
                spark.stop()
    paths = [
        write_counterexample(r, args.out) if r.verdict is Verdict.VIOLATED else None
        for r in results
    ]
    expected = _expected_map()
    if args.junit:
        write_junit(results, expected, args.junit, name="dcpcheck verify")
    if args.html:
        write_html(results, args.html, "dcpcheck verify", expected)
    if args.json:
        records = [
            result_json(r, p) | {"expected": expected.get((r.rules, r.consumer, r.property))}
            for r, p in zip(results, paths, strict=True)
        ]
        print(json.dumps({"results": records}, indent=2))
    else:
        print(summary_table(results, expected))
        elapsed = time.perf_counter() - started
        print(
            f"\n{len(results)} checks in {elapsed:.1f}s; holds = no violation "
            f"within {bounds.describe()}; counterexamples in {args.out}/"
        )
    return verify_exit_code(results, expected)
