"""Review a protocol change: where two rule sets (or two consumers) differ, and is it safe?

    dcpcheck diff A B [--consumer NAME|FILE ...] [--json] [--max N]
                      [--table-entries T] [--seqnos N] [--keys N] [--entries N] [--failovers N]
    dcpcheck diff --consumers C1 C2 [--rules NAME|FILE] [--json] [--max N] [bounds]

A and B are rule sets (built-in names or .py files): Z3 finds every region of
the request/producer-state space where they answer differently (the clause
that fired in A, the one in B, how the answer changed), one minimised request
per region, until it proves there are no others. Each region is classified in
resume scenarios with the consumer variants given: safety regression (B
violates a safety property there and A does not), safety fix, cost
regression (B rolls back more or deeper), cost improvement, or neutral.
With --consumers, the same for two consumer variants under one rule set.

Exit: 1 if any region is a safety regression; 3 if a needed answer is
unknown or the search stopped at --max; 4 if a witness is not confirmed by
the reference implementation; 0 otherwise (equivalent, or no regression).
"""

from __future__ import annotations

import argparse
import json
import sys

from checker.commands.common import add_scenario_bounds, scenario_bounds_from
from checker.diff.engine import diff_consumers, diff_rules
from checker.diff.report import report_json, text
from checker.loading import resolve, resolve_many
from spec.consumers import CONSUMERS, TEXTBOOK, ConsumerVariant
from spec.errors import UsageError
from spec.rules import RULE_SETS, RuleSet


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "rule_sets",
        nargs="*",
        metavar="A B",
        help="the two rule sets (NAME or FILE.py[:NAME]); A is the baseline, B the change",
    )
    parser.add_argument(
        "--consumer",
        action="append",
        metavar="NAME|FILE",
        help="consumer variant to classify with (repeatable; default correct, collapse-snapshot)",
    )
    parser.add_argument(
        "--consumers",
        nargs=2,
        metavar=("C1", "C2"),
        help="compare two consumer variants instead (C1 the baseline) under --rules",
    )
    parser.add_argument(
        "--rules",
        metavar="NAME|FILE",
        help="the rule set for --consumers (default kv-current)",
    )
    parser.add_argument("--json", action="store_true", help="print the diff as one JSON object")
    parser.add_argument(
        "--max", type=int, default=50, metavar="N", help="stop after N regions (default 50)"
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="for the whole diff (default 300)"
    )
    parser.add_argument(
        "--no-minimise", action="store_true", help="keep the first witness scenario found"
    )
    add_scenario_bounds(parser)
    parser.add_argument(
        "--table-entries",
        type=int,
        default=0,
        metavar="T",
        help="decision space: producers with at most T table entries (default 8, at least "
        "--entries)",
    )


def run(args: argparse.Namespace) -> int:
    if args.max < 1:
        raise UsageError("--max must be at least 1")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    bounds = scenario_bounds_from(args)
    options = {
        "max_regions": args.max,
        "timeout_s": args.timeout,
        "minimise": not args.no_minimise,
    }
    if args.consumers:
        if args.rule_sets:
            raise UsageError(
                "give either two rule sets (diff A B) or --consumers C1 C2 --rules R, not both"
            )
        if args.consumer:
            raise UsageError("--consumer picks the consumers of a rule diff; not with --consumers")
        rules: RuleSet = resolve(RULE_SETS, RuleSet, args.rules or "kv-current")
        variant_a, variant_b = (resolve(CONSUMERS, ConsumerVariant, c) for c in args.consumers)
        report = diff_consumers(rules, variant_a, variant_b, bounds, **options)  # type: ignore[arg-type]
        rules_args = None
    else:
        if len(args.rule_sets) != 2:
            raise UsageError(
                f"expected two rule sets A B, got {len(args.rule_sets)} "
                "(or --consumers C1 C2 to compare consumers)"
            )
        if args.rules:
            raise UsageError("--rules is for --consumers; give the two rule sets as A B")
        rules_a, rules_b = (resolve(RULE_SETS, RuleSet, r) for r in args.rule_sets)
        consumers = [
            c
            for name in args.consumer or TEXTBOOK
            for c in resolve_many(CONSUMERS, ConsumerVariant, name)
        ]
        table_entries = args.table_entries or max(8, bounds.entries)
        if table_entries < bounds.entries:
            raise UsageError(
                f"--table-entries {table_entries} is below --entries {bounds.entries}: the "
                "decision space must hold every table a scenario can have"
            )
        print(f"dcpcheck diff: {rules_a.name} vs {rules_b.name} ...", file=sys.stderr, flush=True)
        report = diff_rules(rules_a, rules_b, consumers, bounds, table_entries, **options)  # type: ignore[arg-type]
        rules_args = (args.rule_sets[0], args.rule_sets[1])
    if args.json:
        print(json.dumps(report_json(report), indent=2))
    else:
        print("\n".join(text(report, rules_args)))
    return report.exit_code
