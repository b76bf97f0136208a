"""Search for resumes that violate a property, or show none exists within bounds.

    dcpcheck check [--rules NAME|FILE ...] [--consumer NAME|FILE ...]
                   [--property ID ...] [--json] [--out DIR] [--timeout S]
                   [--seqnos N] [--keys N] [--entries N] [--failovers N]

For every combination, Z3 either finds a violating scenario (minimised,
replayed on the reference implementation, written to DIR as
``<id>.json`` and ``<id>.itf.json``) or proves there is none within the
bounds. Verdicts: ``violated``, ``holds`` (with the bounds it holds for),
``unknown`` (solver unknown or timeout: nothing is claimed).
Exit: 0 all hold, 1 a violation, 3 an unknown, 4 a counterexample the
reference implementation does not confirm (a harness bug).
"""

from __future__ import annotations

import argparse
from functools import partial

from checker.check import ENGINES, check
from checker.commands.common import (
    Chosen,
    add_scenario_bounds,
    chosen,
    print_results,
    scenario_bounds_from,
)
from checker.probe import probe_consumers
from checker.report.html import write_html
from checker.report.text import exit_code
from spec.consumers import CONSUMERS, TEXTBOOK, ConsumerVariant
from spec.errors import UsageError
from spec.properties import PROPERTIES, Property
from spec.rules import RULE_SETS, RuleSet


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        action="append",
        metavar="NAME|FILE",
        help="rule set (repeatable; default all built-in)",
    )
    parser.add_argument(
        "--consumer",
        action="append",
        metavar="NAME|FILE",
        help="consumer variant (repeatable; default correct and collapse-snapshot; the client "
        "catalogue: dcpcheck clients)",
    )
    parser.add_argument(
        "--property", action="append", metavar="ID", help="property id (repeatable; default all)"
    )


def selection(
    args: argparse.Namespace,
) -> tuple[list[Chosen[RuleSet]], list[Chosen[ConsumerVariant]], list[Chosen[Property]]]:
    consumers = chosen(CONSUMERS, ConsumerVariant, args.consumer or list(TEXTBOOK))
    probe_consumers(c.item for c in consumers)
    return (
        chosen(RULE_SETS, RuleSet, args.rules),
        consumers,
        chosen(PROPERTIES, Property, args.property),
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_selection_arguments(parser)
    parser.add_argument("--html", metavar="FILE", help="also write an HTML report with timelines")
    parser.add_argument(
        "--json", action="store_true", help='print {"results": [...]} instead of text'
    )
    parser.add_argument(
        "--out", default="counterexamples", metavar="DIR", help="where counterexamples go"
    )
    parser.add_argument(
        "--timeout", type=float, default=120.0, metavar="S", help="per check (default 120)"
    )
    parser.add_argument(
        "--no-minimise", action="store_true", help="keep the first counterexample found"
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="z3",
        help="z3 (default: proofs, minimised counterexamples); exhaustive (enumerate every "
        "scenario, on Spark); random (hypothesis; never claims 'holds')",
    )
    parser.add_argument(
        "--master", default="local[*]", metavar="URL", help="Spark master for --engine exhaustive"
    )
    parser.add_argument(
        "--examples", type=int, default=10_000, metavar="N", help="for --engine random"
    )
    add_scenario_bounds(parser)


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.examples <= 0:
        raise UsageError("--examples must be positive")
    bounds = scenario_bounds_from(args)
    rules, consumers, props = selection(args)
    combos = [(r, c, p) for r in rules for c in consumers for p in props]
    spark, created = None, False
    if args.engine == "exhaustive":
        from checker.spark.session import spark_session

        spark, created = spark_session(args.master, "dcpcheck check --engine exhaustive")

    def one(r: Chosen[RuleSet], c: Chosen[ConsumerVariant], p: Chosen[Property]):  # type: ignore[no-untyped-def]
        on_spark = None
        if spark is not None:
            from checker.spark.exhaustive import exhaustive_on_spark

            on_spark = exhaustive_on_spark(spark, r.spec, c.spec, p.spec)
        return check(
            r.item,
            c.item,
            p.item,
            bounds,
            timeout_s=args.timeout,
            minimise=not args.no_minimise,
            engine=args.engine,
            spark=on_spark,
            random_examples=args.examples,
        )

    try:
        checks = [
            (f"{r.item.name}/{c.item.name}: {p.item.id}", partial(one, r, c, p))
            for r, c, p in combos
        ]
        results = print_results(checks, out=args.out, as_json=args.json)
    finally:
        if created and spark is not None:
            spark.stop()
    if args.html:
        write_html(results, args.html, "dcpcheck check")
    return exit_code(results)
