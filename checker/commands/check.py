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
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from checker.check import ENGINES, CheckResult, Verdict, check
from checker.loading import resolve_many
from checker.report.html import write_html
from checker.report.results import (
    exit_code,
    long_form,
    one_line,
    result_json,
    summary_table,
    write_counterexample,
)
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant
from spec.errors import UsageError
from spec.properties import PROPERTIES, Property
from spec.registry import Registry
from spec.rules import RULE_SETS, RuleSet

T = TypeVar("T")


def add_bounds_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("bounds (a verdict holds within these)")
    defaults = Bounds()
    group.add_argument("--seqnos", type=int, default=defaults.seqnos, metavar="N")
    group.add_argument("--keys", type=int, default=defaults.keys, metavar="N")
    group.add_argument("--entries", type=int, default=defaults.entries, metavar="N")
    group.add_argument("--failovers", type=int, default=defaults.failovers, metavar="N")
    group.add_argument("--rounds", type=int, default=0, metavar="N", help="default entries + 3")
    group.add_argument(
        "--max-entries",
        type=int,
        default=defaults.max_entries,
        metavar="N",
        help="kv_engine's max_failover_entries: tables are capped at N (default 25)",
    )


def bounds_from(args: argparse.Namespace) -> Bounds:
    try:
        return Bounds(
            seqnos=args.seqnos,
            keys=args.keys,
            entries=args.entries,
            failovers=args.failovers,
            rounds=args.rounds,
            max_entries=args.max_entries,
        )
    except ValueError as exc:
        raise UsageError(f"bad bounds: {exc}") from None


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
        help="consumer variant (repeatable; default all built-in)",
    )
    parser.add_argument(
        "--property", action="append", metavar="ID", help="property id (repeatable; default all)"
    )


@dataclass(frozen=True)
class Chosen(Generic[T]):
    """A definition and the text that names it (``NAME`` or ``FILE.py[:NAME]``).

    Spark executors are other processes: they resolve ``spec`` again, which
    works for built-in names and for files alike.
    """

    item: T
    spec: str


def _chosen(registry: Registry[T], kind: type[T], texts: list[str] | None) -> list[Chosen[T]]:
    out: list[Chosen[T]] = []
    for text in texts or registry.names():
        items = resolve_many(registry, kind, text)
        for item in items:
            name = getattr(item, "name", "")
            spec = text if len(items) == 1 or ".py:" in text else f"{text}:{name}"
            out.append(Chosen(item, spec))
    return out


def selection(
    args: argparse.Namespace,
) -> tuple[list[Chosen[RuleSet]], list[Chosen[ConsumerVariant]], list[Chosen[Property]]]:
    return (
        _chosen(RULE_SETS, RuleSet, args.rules),
        _chosen(CONSUMERS, ConsumerVariant, args.consumer),
        _chosen(PROPERTIES, Property, args.property),
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
    add_bounds_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.examples <= 0:
        raise UsageError("--examples must be positive")
    bounds = bounds_from(args)
    rules, consumers, props = selection(args)
    combos = [(r, c, p) for r in rules for c in consumers for p in props]
    spark, created = None, False
    if args.engine == "exhaustive":
        from checker.spark.session import spark_session

        spark, created = spark_session(args.master, "dcpcheck check --engine exhaustive")
    results: list[tuple[CheckResult, Path | None]] = []
    try:
        for n, (r, c, p) in enumerate(combos, start=1):
            if len(combos) > 1:
                label = f"{r.item.name}/{c.item.name}: {p.item.id}"
                print(f"[{n}/{len(combos)}] {label} ...", file=sys.stderr, flush=True)
            result = check(
                r.item,
                c.item,
                p.item,
                bounds,
                timeout_s=args.timeout,
                minimise=not args.no_minimise,
                engine=args.engine,
                spark=(spark, r.spec, c.spec, p.spec) if spark is not None else None,
                random_examples=args.examples,
            )
            path = (
                write_counterexample(result, args.out)
                if result.verdict is Verdict.VIOLATED
                else None
            )
            results.append((result, path))
            if not args.json:
                print(one_line(result, path))
                if result.verdict is Verdict.VIOLATED:
                    print("\n".join(long_form(result)))
    finally:
        if created and spark is not None:
            spark.stop()
    if args.html:
        write_html([r for r, _ in results], args.html, "dcpcheck check")
    if args.json:
        print(json.dumps({"results": [result_json(r, p) for r, p in results]}, indent=2))
    elif len(results) > 1:
        print()
        print(summary_table([r for r, _ in results]))
    return exit_code([r for r, _ in results])
