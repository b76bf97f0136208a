"""Review a protocol change: where two rule sets (or two consumers) differ, and is it safe?

    dcpcheck diff BASE CANDIDATE [--consumer NAME|FILE ...] [--json] [--max N] [--budget M]
                      [--timeout S] [--quiet]
                      [--table-entries T] [--seqnos N] [--keys N] [--entries N] [--failovers N]
    dcpcheck diff --consumers BASE CANDIDATE [--rules NAME|FILE] [--json] [--max N] [bounds]

BASE is the rule set you have, CANDIDATE the change under review (built-in
names or .py files); the output calls them A and B. Z3 finds every region of
the request/producer-state space where they answer differently (the clause
that fired in A, the one in B, how the answer changed), one minimised request
per region, until it proves there are no others. Each region is classified in
resume scenarios with the consumer variants given: safety regression (the
candidate violates a safety property there and the base does not), safety
fix, cost regression (the candidate rolls back more or deeper), cost
improvement, or neutral. With --consumers, the same for two consumer
variants under one rule set.

Exit: 1 if any region is a safety regression of CANDIDATE; 3 if a needed
answer is unknown (the --budget of Z3 work for the whole diff ran out, or
the outer --timeout) or the search stopped at --max; 4 if a witness is not
confirmed by the reference implementation; 130 if Ctrl-C stopped it (the
regions found so far are listed, those not classified are unknown); 0
otherwise (equivalent, or no regression: a CANDIDATE that fixes an unsafe
BASE exits 0).
"""

from __future__ import annotations

import argparse
import json
import sys

from checker.arguments.common import (
    add_budget_arguments,
    add_count,
    add_output_arguments,
    add_progress_arguments,
    add_repeatable,
    add_scenario_bounds,
    budget_from,
    scenario_bounds_from,
)
from checker.diff.engine import DIFF_BUDGET, DiffOptions, diff_consumers, diff_rules
from checker.diff.report import report_json, text
from checker.loading import resolve, resolve_many
from checker.symbolic.budget import MILLION
from spec.consumers import CONSUMERS, TEXTBOOK, ConsumerVariant
from spec.errors import UsageError
from spec.rules import RULE_SETS, RuleSet


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "rule_sets",
        nargs="*",
        metavar="BASE CANDIDATE",
        help="the rule set you have and the change under review (NAME or FILE.py[:NAME]); "
        "exit 1 when CANDIDATE regresses safety",
    )
    add_repeatable(
        parser,
        "--consumer",
        "NAME|FILE",
        "consumer variant to classify with (repeatable; default correct, collapse-snapshot)",
    )
    parser.add_argument(
        "--consumers",
        nargs=2,
        metavar=("BASE", "CANDIDATE"),
        help="compare two consumer variants instead (BASE the one you have) under --rules",
    )
    parser.add_argument(
        "--rules",
        metavar="NAME|FILE",
        help="the rule set for --consumers (default kv-current)",
    )
    add_output_arguments(parser, "", json_help="print the diff as one JSON object", html=False)
    add_progress_arguments(parser)
    add_count(parser, "--max", 10_000, 50, "stop after N regions (default 50)")
    add_budget_arguments(parser, DIFF_BUDGET / MILLION, what="for the whole diff")
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
    budget = budget_from(args)
    bounds = scenario_bounds_from(args)
    options = DiffOptions(args.max, args.timeout, not args.no_minimise, budget)
    if args.consumers:
        if args.rule_sets:
            raise UsageError(
                "give either two rule sets (diff BASE CANDIDATE) or --consumers BASE CANDIDATE "
                "--rules R, not both"
            )
        if args.consumer:
            raise UsageError("--consumer picks the consumers of a rule diff; not with --consumers")
        rules: RuleSet = resolve(RULE_SETS, RuleSet, args.rules or "kv-current")
        variant_a, variant_b = (
            resolve(CONSUMERS, ConsumerVariant, c, "--consumers") for c in args.consumers
        )
        report = diff_consumers(rules, variant_a, variant_b, bounds, options)
        rules_args = None
    else:
        if len(args.rule_sets) != 2:
            raise UsageError(
                f"expected two rule sets BASE CANDIDATE, got {len(args.rule_sets)} "
                "(or --consumers BASE CANDIDATE to compare consumers)"
            )
        if args.rules:
            raise UsageError("--rules is for --consumers; give the two rule sets as BASE CANDIDATE")
        rules_a, rules_b = (
            resolve(RULE_SETS, RuleSet, r, where)
            for r, where in zip(args.rule_sets, ("BASE", "CANDIDATE"), strict=True)
        )
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
        if not args.quiet:
            print(f"dcpcheck diff: {rules_a.name} vs {rules_b.name} ...", file=sys.stderr,
                  flush=True)  # fmt: skip
        report = diff_rules(rules_a, rules_b, consumers, bounds, table_entries, options)
        rules_args = (args.rule_sets[0], args.rule_sets[1])
    if args.json:
        print(json.dumps(report_json(report), indent=2))
    else:
        print("\n".join(text(report, rules_args)))
    return report.exit_code
