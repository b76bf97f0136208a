"""Every producer decision within bounds, under every rule set given, kept as Parquet.

    dcpcheck sweep [--rules NAME|FILE ...] [--entries E] [--seqnos N] [--distinct-uuids]
                   [--out DIR] [--master URL] [--json] [--quiet] [--timeout S]

Enumerates the decision input space within the bounds (failover tables of
at most E entries, seqnos at most N, every valid request, every flag; see
docs/cli.md) on Spark executors, decides every input under every rule set
(NumPy, from the rule sets' own clauses), and writes DIR/decisions/ (Parquet:
the inputs and each rule set's decision and clause) and DIR/summary.json
(inputs per rule set and clause, inputs per region where two rule sets
differ), then prints the summary. DIR appears only when the sweep is
complete. With two or more rule sets, each pair is cross-checked with
`dcpcheck diff`'s Z3 regions: the regions the sweep found must be exactly
the regions diff reports that have inputs within the bounds.

Exit: 0 the sweep is complete and agrees with diff (or one rule set); 4 it
disagrees with diff (a harness bug); 3 unknown: diff could not decide, or the
time limit stopped the sweep (nothing is published then); 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from checker.arguments.common import (
    add_count,
    add_progress_arguments,
    add_published_out,
    add_repeatable,
    add_spark_arguments,
    add_timeout,
    chosen,
    partial_run,
    publish_with_summary,
    spark_conf_from,
    stopped_at_timeout,
)
from checker.arguments.decision_space import add_distinct_uuids
from checker.atomic import writable_dir
from checker.progress import Progress
from checker.runner import OnSpark
from spec.errors import HarnessBug, UsageError
from spec.rules import RULE_SETS, RuleSet

if TYPE_CHECKING:
    from checker.sweep.space import SweepSpace

MAX_INPUTS = 10**9


@dataclass(frozen=True)
class SweepOptions:
    """How one sweep runs, read from the command line once: nothing below ``run`` reads
    the arguments."""

    out: str  # the dataset and summary.json, replaced whole when the sweep completes
    timeout_s: float  # the sweep and its cross-check together
    spark: OnSpark  # the session: master, --conf, --executor-wait
    quiet: bool = False
    as_json: bool = False


def sweep_options(args: argparse.Namespace) -> SweepOptions:
    """The options given; a malformed ``--conf`` is a usage error."""
    conf = spark_conf_from(args)
    spark = OnSpark(args.master, "dcpcheck sweep", conf, args.executor_wait)
    return SweepOptions(args.out, args.timeout, spark, quiet=args.quiet, as_json=args.json)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_repeatable(
        parser,
        "--rules",
        "NAME|FILE",
        "rule set to decide with (repeatable; default every built-in one)",
    )
    group = parser.add_argument_group("bounds (the space swept)")
    add_count(group, "--entries", 8, 3, "failover tables of 1..E entries (default 3)", metavar="E")
    add_count(group, "--seqnos", 64, 3, "seqnos 0..N (default 3)", least=0)
    add_distinct_uuids(group, "inputs swept")
    add_count(
        group,
        "--max-inputs",
        10**15,
        MAX_INPUTS,
        f"refuse a space of more than K inputs (default {MAX_INPUTS:.0e})",
        metavar="K",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_published_out(parser, "sweep", "the dataset")
    add_spark_arguments(parser, "the sweep")
    add_timeout(parser, 3600.0, "for the sweep and its cross-check")
    add_progress_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from checker.sweep.space import SweepSpace

    options = sweep_options(args)  # a malformed --conf is a usage error before anything starts
    started = time.perf_counter()
    deadline = time.monotonic() + options.timeout_s
    writable_dir(options.out, "--out")
    picked = chosen(RULE_SETS, RuleSet, args.rules)
    rule_sets = [c.item for c in picked]
    names = [r.name for r in rule_sets]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(
            f"--rules names {', '.join(twice)} more than once; give each rule set once"
        )
    space = SweepSpace(args.entries, args.seqnos, duplicate_uuids=not args.distinct_uuids)
    if space.size > args.max_inputs:
        raise UsageError(
            f"{space.describe()} is {space.size:,} inputs, more than --max-inputs "
            f"{args.max_inputs:,}; lower --seqnos or --entries, or raise --max-inputs"
        )
    print(
        f"dcpcheck sweep: {space.size:,} inputs ({space.describe()}) x {len(rule_sets)} rule "
        f"set{'s' if len(rule_sets) != 1 else ''}",
        file=sys.stderr,
        flush=True,
    )
    return _sweep(space, rule_sets, [c.spec for c in picked], options, started, deadline)


def _sweep(
    space: SweepSpace,
    rule_sets: list[RuleSet],
    specs: list[str],
    options: SweepOptions,
    started: float,
    deadline: float,
) -> int:
    from checker.spark.session import spark_session
    from checker.spark.sweep import SweepTimeout, sweep_on_spark
    from checker.sweep.crosscheck import crosscheck
    from checker.sweep.job import SweepJob, part_name
    from checker.sweep.summary import summarise, summary_json, text

    progress = Progress(1, "sweeps", quiet=options.quiet)
    try:
        with partial_run(options.out, progress) as partial:
            dataset = partial / "decisions"
            dataset.mkdir()
            progress.start("sweep")
            place = options.spark
            with spark_session(place.master, place.app, place.conf, place.executor_wait) as spark:
                parts, rows = sweep_on_spark(
                    spark,
                    SweepJob(space, tuple(specs)),
                    dataset,
                    timeout_s=max(0.001, deadline - time.monotonic()),
                    progress=lambda done, total: progress.update(
                        "sweep", f"{done}/{total} parts done"
                    ),
                )
            missing = [p for p in range(parts) if not (dataset / part_name(p)).is_file()]
            if missing:
                raise HarnessBug(f"the sweep finished without parts {missing[:5]} of its dataset")
            for stray in dataset.glob(".*"):  # a partial file of a task attempt that was lost
                stray.unlink()
            progress.finish("sweep", f"{parts} parts")
            summary = summarise(space, rule_sets, parts, rows)
            summary.specs = {r.name: spec for r, spec in zip(rule_sets, specs, strict=True)}
            summary.dataset = str(Path(options.out) / "decisions")
            if len(rule_sets) > 1:
                progress.start("cross-check with dcpcheck diff")
                summary.crosscheck = crosscheck(
                    space, rule_sets, summary.found(), max(0.001, deadline - time.monotonic())
                )
                progress.finish(
                    "cross-check with dcpcheck diff", summary.crosscheck.agreement.value
                )
            summary.seconds = time.perf_counter() - started
            publish_with_summary(partial, options.out, summary_json(summary))
    except SweepTimeout:
        return stopped_at_timeout("dcpcheck sweep", options.timeout_s, "decided")
    if options.as_json:
        print(json.dumps(summary_json(summary), indent=2))
    else:
        print("\n".join(text(summary)))
    return summary.exit_code
