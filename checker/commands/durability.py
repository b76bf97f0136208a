"""Check SyncWrite durability in the multi-node model: failovers, restarts, rollbacks.

    dcpcheck durability [--ack-rule ID ...] [--branch-rule ID ...] [--property ID ...]
                        [--rules NAME|FILE] [--preset NAME] [bounds]
                        [--engine explore|bfs-spark] [--strategy bfs|dfs] [--workers N]
                        [--symmetry on|off] [--exact]
                        [--master URL] [--conf KEY=VALUE ...] [--checkpoint DIR]
                        [--max-states N] [--timeout S] [--json] [--out DIR]

For every ack rule x branch rule x property, searches every interleaving of
the cluster model's actions within the bounds (breadth-first: a
counterexample is a shortest run) and prints the verdict: ``violated`` with
the run as numbered named steps (also written to DIR as ``<id>.json`` and
``<id>.itf.json``), ``holds`` within the bounds (flagged VACUOUS if no
SyncWrite is ever acknowledged in them), or ``unknown`` when --max-states or
--timeout stopped the search first (nothing is claimed). Bounds start from
the preset (default mb-34150) and any bounds flag overrides it.

``--engine explore`` (default) searches in this process, breadth- or
depth-first (``--strategy``), a search per check so that each verdict is printed
as soon as it is decided, or with ``--workers N`` runs the checks on N
processes side by side (each the same search as alone, reported in the same
order); ``--engine bfs-spark`` (once ``spark``) searches breadth-first on
Spark, level by level, every check of the command in one distributed search (docs/spark.md), with
the same verdicts, state counts and runs. Both visit one state per renaming
of the nodes and of the client's keys (``--symmetry off``: every state); in this process the visited
set keeps a 64-bit fingerprint per state (``--exact``: the states) and the
collision estimate is printed.
Exit (as verify and clients): 0 every verdict as expected (spec/cluster/expected.py), 1
one is not (or a violation has no expectation), 3 an unknown.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from checker.arguments.common import (
    DEFAULT_PROPERTIES,
    add_cluster_bounds,
    add_count,
    add_output_arguments,
    add_progress_arguments,
    add_repeatable,
    add_spark_arguments,
    add_timeout,
    chosen,
    cluster_bounds_from,
    outputs_from,
    spark_conf_from,
)
from checker.atomic import writable_dir, writable_file
from checker.cluster_check import Check, DurabilityCell, durability_checks, planned
from checker.engines import STRATEGIES
from checker.engines.fingerprints import collision_probability
from checker.engines.options import Options
from checker.engines.registry import (
    CLUSTER_ENGINES,
    ClusterSession,
    cluster_engine_name,
    refuse,
)
from checker.loading import resolve
from checker.progress import Progress
from checker.report.emit import Emit
from checker.result import Result
from checker.runner import HERE, Forked, Job, run_jobs
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_repeatable(
        parser,
        "--ack-rule",
        "ID|FILE",
        f"replica ack rule (repeatable; default all: {', '.join(ACK_RULES.names())})",
    )
    add_repeatable(
        parser,
        "--branch-rule",
        "ID|FILE",
        f"promotion branch rule (repeatable; default all: {', '.join(BRANCH_RULES.names())})",
    )
    add_repeatable(
        parser,
        "--property",
        "ID|FILE",
        f"property (repeatable; default {', '.join(DEFAULT_PROPERTIES)}; "
        f"also: syncwrite-acknowledged)",
    )
    parser.add_argument(
        "--rules",
        default="kv-current",
        metavar="NAME|FILE",
        help="rule set answering stream requests (default kv-current)",
    )
    parser.add_argument(
        "--engine",
        type=cluster_engine_name,
        choices=CLUSTER_ENGINES,
        default="explore",
        help="explore: in this process (default); bfs-spark: distributed breadth-first "
        "search ('spark' is its old name)",
    )
    parser.add_argument(
        "--strategy",
        choices=STRATEGIES,
        default="bfs",
        help="search order of --engine explore (default bfs; bfs-spark is breadth-first)",
    )
    add_count(
        parser,
        "--workers",
        256,
        1,
        "--engine explore: run the checks on N processes side by side, each check a "
        "search of its own (default 1: one after another in this process)",
    )
    parser.add_argument(
        "--symmetry",
        choices=("on", "off"),
        default="on",
        help="on (default): search one state per renaming of the nodes and of the "
        "client's keys (they are interchangeable, spec/cluster/symmetry.py); off: every state",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="--engine explore: keep every state in the visited set (default: a 64-bit "
        "fingerprint per state; the probability that a collision hid one is printed)",
    )
    add_count(
        parser,
        "--max-states",
        1_000_000_000,
        20_000_000,
        "stop (verdict unknown) after N states of a model (default 20,000,000)",
    )
    add_timeout(parser, 1800.0, "per check; --engine bfs-spark: S x checks for the whole search")
    add_output_arguments(parser, "out/durability")
    add_progress_arguments(parser)
    add_cluster_bounds(parser)
    add_spark_arguments(parser, "--engine bfs-spark")
    parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="--engine bfs-spark: keep the search's level files in DIR (a path every executor "
        "shares on a cluster); a search run again with the same DIR resumes from its last "
        "complete level",
    )


def run(args: argparse.Namespace) -> int:
    conf = spark_conf_from(args)
    engine = CLUSTER_ENGINES[args.engine]
    options = Options(
        timeout_s=args.timeout,
        workers=args.workers,
        strategy=args.strategy,
        max_states=args.max_states,
        symmetry=args.symmetry == "on",
        exact=args.exact,
    )
    refuse(engine, options, args.checkpoint)
    bounds, preset_name = cluster_bounds_from(args)
    writable_dir(args.out, "--out")
    writable_file(args.html, "--html")
    rules: RuleSet = resolve(RULE_SETS, RuleSet, args.rules)
    acks = chosen(ACK_RULES, AckRule, args.ack_rule)
    branches = chosen(BRANCH_RULES, BranchRule, args.branch_rule)
    props = chosen(CLUSTER_PROPERTIES, ClusterProperty, args.property or list(DEFAULT_PROPERTIES))
    session = ClusterSession(args.master, conf, args.executor_wait, args.checkpoint, args.quiet)
    from checker.spark.cluster_search import SparkSearches  # no PySpark until a job runs

    engine = engine.on_spark(SparkSearches(session))

    def one(check: Check, update: Callable[[str], None]) -> Result:
        def progress(states: int, depth: int, seconds: float) -> None:
            update(f"{states:,} states, depth {depth}")

        result = check(progress)
        return result.but(expected=ClusterTask.expected(result))

    items = ([a.item for a in acks], [b.item for b in branches], [p.item for p in props])
    checks = durability_checks(engine, *items, rules, bounds, options, preset_name)
    combos = [(a, b, p) for a in acks for b in branches for p in props]
    labels = [f"{a.item.id}/{b.item.id}: {p.item.id}" for a, b, p in combos]
    plans = [
        partial(
            planned,
            DurabilityCell(a.item, b.item, p.item, rules, bounds, preset_name),
            args.strategy,
            options.symmetry,
        )
        for a, b, p in combos
    ]
    runs = [partial(one, check) for check in checks]
    jobs = [Job.one(*job) for job in zip(labels, runs, plans, strict=True)]
    workers = engine.workers(options)
    place = Forked(workers) if workers > 1 else HERE
    report = Emit(
        replace(
            outputs_from(args, "dcpcheck durability"),
            streamed=True,
            expected=True,
            against_expected=True,
        )
    )
    progress = Progress(len(jobs), quiet=args.quiet)
    results = run_jobs(jobs, progress, place=place, each=report.one)
    code = report.finish(results)
    stopped = any(r.interrupted for r in results)  # after Ctrl-C its one line is all
    if engine.fingerprints(options) and not args.quiet and not stopped:
        print(collision_note(results), file=sys.stderr, flush=True)
    return code


def collision_note(results: list[Result]) -> str:
    """TLC's line on fingerprints: the largest search, and the chance that a collision of
    two states' 64-bit fingerprints hid a state from it (optimistic: n^2 / 2^65)."""
    most = max((r.stats.states or 0 for r in results), default=0)
    return (
        f"fingerprints: {most:,} states in the largest search; the probability that a "
        f"fingerprint collision hid a state is {collision_probability(most):.1E} "
        "(optimistic estimate n^2/2^65; --exact keeps states)"
    )
