"""Check SyncWrite durability in the multi-node model: failovers, restarts, rollbacks.

    dcpcheck durability [--ack-rule ID ...] [--branch-rule ID ...] [--property ID ...]
                        [--rules NAME|FILE] [--preset NAME] [bounds] [--strategy bfs|dfs]
                        [--max-states N] [--timeout S] [--json] [--out DIR]

For every ack rule x branch rule x property, searches every interleaving of
the cluster model's actions within the bounds (breadth-first: a
counterexample is a shortest run) and prints the verdict: ``violated`` with
the run as numbered named steps (also written to DIR as ``<id>.json`` and
``<id>.itf.json``), ``holds`` within the bounds (flagged VACUOUS if no
SyncWrite is ever acknowledged in them), or ``unknown`` when --max-states or
--timeout stopped the search first (nothing is claimed). Bounds start from
the preset (default mb-34150) and any bounds flag overrides it.
Exit: 0 all hold, 1 a violation, 3 an unknown.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial

from checker.atomic import writable_dir, writable_file
from checker.commands.common import (
    add_cluster_bounds,
    add_output_arguments,
    add_progress_arguments,
    add_timeout,
    chosen,
    cluster_bounds_from,
    print_results,
)
from checker.durability import check_durability
from checker.engines import STRATEGIES
from checker.inputs import count
from checker.loading import resolve
from checker.report.html import write_html
from checker.report.text import exit_code
from checker.result import Result
from checker.tasks import ClusterTask
from spec.cluster import (
    ACK_RULES,
    BRANCH_RULES,
    CLUSTER_PROPERTIES,
    AckRule,
    BranchRule,
    ClusterProperty,
)
from spec.rules import RULE_SETS, RuleSet

DEFAULT_PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ack-rule",
        action="append",
        metavar="ID|FILE",
        help=f"replica ack rule (repeatable; default all: {', '.join(ACK_RULES.names())})",
    )
    parser.add_argument(
        "--branch-rule",
        action="append",
        metavar="ID|FILE",
        help=f"promotion branch rule (repeatable; default all: {', '.join(BRANCH_RULES.names())})",
    )
    parser.add_argument(
        "--property",
        action="append",
        metavar="ID|FILE",
        help=f"property (repeatable; default {', '.join(DEFAULT_PROPERTIES)}; "
        f"also: syncwrite-acknowledged)",
    )
    parser.add_argument(
        "--rules",
        default="kv-current",
        metavar="NAME|FILE",
        help="rule set answering stream requests (default kv-current)",
    )
    parser.add_argument("--strategy", choices=STRATEGIES, default="bfs", help="default bfs")
    parser.add_argument(
        "--max-states",
        type=count(1, 1_000_000_000),
        default=20_000_000,
        metavar="N",
        help="stop (verdict unknown) after N states (default 20,000,000)",
    )
    add_timeout(parser, 1800.0, "per check")
    add_output_arguments(parser, "out/durability")
    add_progress_arguments(parser)
    add_cluster_bounds(parser)


def run(args: argparse.Namespace) -> int:
    bounds, preset_name = cluster_bounds_from(args)
    writable_dir(args.out, "--out")
    writable_file(args.html, "--html")
    rules: RuleSet = resolve(RULE_SETS, RuleSet, args.rules)
    acks = chosen(ACK_RULES, AckRule, args.ack_rule)
    branches = chosen(BRANCH_RULES, BranchRule, args.branch_rule)
    props = chosen(CLUSTER_PROPERTIES, ClusterProperty, args.property or list(DEFAULT_PROPERTIES))

    def one(
        ack: AckRule, branch: BranchRule, prop: ClusterProperty, update: Callable[[str], None]
    ) -> Result:
        def progress(states: int, depth: int, seconds: float) -> None:
            update(f"{states:,} states, depth {depth}")

        result = check_durability(
            ack,
            branch,
            prop,
            rules,
            bounds,
            preset=preset_name,
            strategy=args.strategy,
            max_states=args.max_states,
            timeout_s=args.timeout,
            progress=progress,
        )
        return result.but(expected=ClusterTask.expected(result))

    checks = []
    for a in acks:
        for b in branches:
            for p in props:
                label = f"{a.item.id}/{b.item.id}: {p.item.id}"
                checks.append((label, partial(one, a.item, b.item, p.item)))
    results = print_results(
        checks, out=args.out, as_json=args.json, expected=True, quiet=args.quiet
    )
    if args.html:
        write_html(results, args.html, "dcpcheck durability")
    return exit_code(results)
