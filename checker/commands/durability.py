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
import json
import sys
from typing import TypeVar

from checker.durability import DurabilityResult, check_durability
from checker.explore import STRATEGIES, Verdict
from checker.loading import resolve, resolve_many
from checker.report.durability import (
    exit_code,
    long_form,
    one_line,
    result_json,
    summary_table,
    write_counterexample,
)
from spec.cluster import (
    ACK_RULES,
    BRANCH_RULES,
    CLUSTER_PROPERTIES,
    PRESETS,
    AckRule,
    BranchRule,
    ClusterBounds,
    ClusterProperty,
    preset,
)
from spec.errors import UsageError
from spec.registry import Registry
from spec.rules import RULE_SETS, RuleSet

T = TypeVar("T")

DEFAULT_PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")

_BOUNDS_HELP = {
    "nodes": "nodes N0..N(n-1); replicas = nodes - 1",
    "replicas": "replicas (must be nodes - 1; gives nodes when --nodes is absent)",
    "majority": "acks a SyncWrite needs, the active's included (default nodes/2 + 1)",
    "keys": "keys the client writes",
    "prepares": "client SyncWrites, all epochs",
    "sets": "client plain SETs, all epochs",
    "items": "longest history a node may hold (COMMITs count)",
    "failovers": "active crashes, each followed by a promotion",
    "restarts": "replica restarts",
    "prefix": "SETs N0 holds at the start, in one closed snapshot",
    "prefix_replicas": "replicas (N1, N2, ...) that start with the prefix received and persisted",
}


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
    parser.add_argument(
        "--preset",
        default="mb-34150",
        metavar="NAME",
        help=f"bounds to start from (default mb-34150; known: {', '.join(PRESETS)})",
    )
    parser.add_argument("--strategy", choices=STRATEGIES, default="bfs", help="default bfs")
    parser.add_argument(
        "--max-states",
        type=int,
        default=20_000_000,
        metavar="N",
        help="stop (verdict unknown) after N states (default 20,000,000)",
    )
    parser.add_argument(
        "--timeout", type=float, default=1800.0, metavar="S", help="per check (default 1800)"
    )
    parser.add_argument(
        "--json", action="store_true", help='print {"results": [...]} instead of text'
    )
    parser.add_argument(
        "--out", default="out/durability", metavar="DIR", help="where counterexamples go"
    )
    group = parser.add_argument_group("bounds (override the preset's; a verdict holds within them)")
    for name, text in _BOUNDS_HELP.items():
        group.add_argument(f"--{name.replace('_', '-')}", type=int, metavar="N", help=text)


def bounds_from(args: argparse.Namespace) -> tuple[ClusterBounds, str | None]:
    """The preset's bounds with the flags given applied; the preset name if unchanged."""
    base = preset(args.preset).bounds
    changes = {
        name: getattr(args, name) for name in _BOUNDS_HELP if getattr(args, name) is not None
    }
    if "replicas" in changes and "nodes" not in changes:
        changes["nodes"] = changes["replicas"] + 1
    if "nodes" in changes and "replicas" not in changes:
        changes["replicas"] = 0
    if "nodes" in changes and "majority" not in changes:
        changes["majority"] = 0
    try:
        bounds = base.but(**changes)
    except ValueError as exc:
        raise UsageError(f"bad bounds: {exc}") from None
    return bounds, args.preset if bounds == base else None


def _chosen(registry: Registry[T], kind: type[T], texts: list[str] | None) -> list[T]:
    out: list[T] = []
    for text in texts or registry.names():
        out += resolve_many(registry, kind, text)
    return out


def run(args: argparse.Namespace) -> int:
    if args.max_states <= 0:
        raise UsageError("--max-states must be positive")
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    bounds, preset_name = bounds_from(args)
    rules: RuleSet = resolve(RULE_SETS, RuleSet, args.rules)
    acks: list[AckRule] = _chosen(ACK_RULES, AckRule, args.ack_rule)
    branches: list[BranchRule] = _chosen(BRANCH_RULES, BranchRule, args.branch_rule)
    props: list[ClusterProperty] = _chosen(
        CLUSTER_PROPERTIES, ClusterProperty, args.property or list(DEFAULT_PROPERTIES)
    )
    combos = [(a, b, p) for a in acks for b in branches for p in props]
    results: list[DurabilityResult] = []
    paths = []
    for n, (ack, branch, prop) in enumerate(combos, start=1):
        label = f"{ack.id}/{branch.id}: {prop.id}"
        print(f"[{n}/{len(combos)}] {label} ...", file=sys.stderr, flush=True)

        def progress(states: int, depth: int, seconds: float, label: str = label) -> None:
            print(
                f"    {label}: {states:,} states, depth {depth}, {seconds:.0f}s",
                file=sys.stderr,
                flush=True,
            )

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
        path = write_counterexample(result, args.out)
        results.append(result)
        paths.append(path)
        if not args.json:
            print(one_line(result, path))
            if result.verdict is Verdict.VIOLATED or (
                result.property.expectation == "sometimes" and result.verdict is Verdict.HOLDS
            ):
                print("\n".join(long_form(result)))
    if args.json:
        records = [result_json(r, p) for r, p in zip(results, paths, strict=True)]
        print(json.dumps({"results": records}, indent=2))
    elif len(results) > 1:
        print()
        print(summary_table(results))
    return exit_code(results)
