"""Review a producer build, not a transcription: learn its answers within bounds, judge them.

    dcpcheck review --target humpty:CMD|jsonl:CMD [--rules BASE] [--entries E] [--seqnos N]
                    [--distinct-uuids] [--consumer NAME|FILE ...] [--keys K] [--failovers F]
                    [--out DIR] [--json] [--junit FILE] [--html FILE] [--no-spark]
                    [--master URL] [--parts P] [--target-timeout S] [--budget M] [--timeout S]

Learn: every input of the bounded decision space ``dcpcheck sweep``
enumerates (failover tables of at most E entries, seqnos at most N; a humpty
target only the requests humpty_dumpty can express) is sent to the target,
in parts on Spark executors (each starting its own target processes) or, with
--no-spark, here; the answers are written to DIR/answers/ (Parquet, beside
BASE's decision and clause) and DIR/summary.json, published only when the
run completes. Compare: the inputs where the target answers differently from
BASE (default kv-current), grouped into regions as ``dcpcheck diff`` groups
them. Judge: the target within bounds as a rule set (BASE, except on those
inputs the target's answers), each region classified with the consumers as
``dcpcheck diff`` classifies, in scenarios within the swept sizes. Confirm:
each witness replayed with the target answering the producer's decisions.
docs/review.md tells the whole story.

Exit: 0 equivalent to BASE within the bounds, or different in cost only; 1 a
safety regression confirmed on the target; 3 unknown (a region not judged, an
input the target did not answer, a witness it did not confirm, or the
--timeout); 2 bad input; 4 harness bug; 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from checker.arguments.common import (
    add_budget_arguments,
    add_count,
    add_output_arguments,
    add_progress_arguments,
    add_published_out,
    add_repeatable,
    add_spark_arguments,
    budget_from,
    partial_run,
    publish_with_summary,
    spark_conf_from,
    stopped_at_timeout,
)
from checker.arguments.decision_space import add_distinct_uuids
from checker.atomic import writable_dir, writable_file
from checker.inputs import parse_seconds
from checker.loading import resolve, resolve_many
from checker.progress import Progress
from checker.runner import OnSpark
from checker.symbolic.budget import MILLION
from checker.timing import Stopwatch
from spec.consumers import CONSUMERS, TEXTBOOK, ConsumerVariant
from spec.errors import InvalidInput, UsageError
from spec.rules import RULE_SETS, RuleSet

if TYPE_CHECKING:
    from checker.review.learn import LearnJob
    from checker.vectors.targets import Target
    from spec.bounds import Bounds

REVIEW_BUDGET = 4_000 * MILLION
MAX_INPUTS = 10**8


@dataclass(frozen=True)
class ReviewOptions:
    """How one review runs, read from the command line once: nothing below ``run`` reads
    the arguments."""

    target: str  # --target as given (the reproducing command names it)
    rules: str  # --rules as given
    out: str  # the answers and summary.json, replaced whole when the review completes
    budget: int | None  # Z3 resource units for the judge (None: no limit)
    timeout_s: float | None  # the whole review
    spark: OnSpark | None  # the learning's session; None: here (--no-spark)
    parts: int = 0  # learn in this many parts (0: 4 per core)
    quiet: bool = False
    as_json: bool = False
    html: str | None = None
    junit: str | None = None


def review_options(args: argparse.Namespace) -> ReviewOptions:
    """The options given; a malformed ``--conf`` or ``--budget`` is a usage error."""
    spark = None
    if not args.no_spark:
        spark = OnSpark(args.master, "dcpcheck review", spark_conf_from(args), args.executor_wait)
    return ReviewOptions(
        args.target, args.rules, args.out, budget_from(args), args.timeout, spark,
        parts=args.parts, quiet=args.quiet, as_json=args.json, html=args.html, junit=args.junit,
    )  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        required=True,
        metavar="T",
        help="the build under review: humpty:CMD (kv_engine's humpty_dumpty interface) or "
        "jsonl:CMD (docs/targets.md); quote CMD with its arguments",
    )
    parser.add_argument(
        "--rules", default="kv-current", metavar="BASE", help="the rule set to compare with "
        "(NAME or FILE.py[:NAME]; default kv-current)"
    )  # fmt: skip
    group = parser.add_argument_group("bounds (the inputs learnt; the scenarios judged)")
    add_count(group, "--entries", 8, 2, "failover tables of 1..E entries (default 2)", metavar="E")
    add_count(group, "--seqnos", 64, 3, "seqnos 0..N (default 3)", least=0)
    add_distinct_uuids(group, "inputs learnt")
    add_count(group, "--keys", 26, 2, "scenarios judged: at most K keys (default 2)", metavar="K")
    group.add_argument(
        "--failovers",
        type=int,
        metavar="F",
        help="scenarios judged: at most F failovers (default min(1, E-1))",
    )
    add_repeatable(
        parser,
        "--consumer",
        "NAME|FILE",
        "consumer variant to judge with (repeatable; default correct, collapse-snapshot)",
    )
    add_output_arguments(parser, "", json_help='print {"results": [...]} instead of text')
    parser.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    add_published_out(parser, "review", "the answers (Parquet)")
    parser.add_argument(
        "--target-timeout",
        default="10",
        metavar="S",
        help="seconds per target invocation (humpty) or answer (jsonl) (default 10)",
    )
    add_budget_arguments(parser, REVIEW_BUDGET / MILLION, what="for the judge")
    add_spark_arguments(parser, "the learning")
    parser.add_argument(
        "--no-spark", action="store_true", help="learn in this process, one part after another"
    )
    add_count(parser, "--parts", 100_000, 0, "learn in P parts (default: 4 per core)", least=0)
    add_progress_arguments(parser)


def _absolute_paths(target: str) -> str:
    """``KIND:CMD`` with every word of CMD that names an existing file made absolute
    (Spark executors run in a directory of their own)."""
    kind, _, command = target.partition(":")
    try:
        words = shlex.split(command)
    except ValueError:
        return target  # parse_target reports it
    fixed = [str(Path(w).resolve()) if "/" in w and Path(w).exists() else w for w in words]
    return f"{kind}:{shlex.join(fixed)}"


def run(args: argparse.Namespace) -> int:
    from checker.review.learn import LearnJob
    from checker.sweep.space import SweepSpace
    from checker.vectors.targets import parse_target
    from spec.bounds import Bounds

    clock = Stopwatch()
    timeout = parse_seconds(args.target_timeout, "--target-timeout")
    options = review_options(args)
    writable_dir(options.out, "--out")
    writable_file(options.html, "--html")
    writable_file(options.junit, "--junit")
    base: RuleSet = resolve(RULE_SETS, RuleSet, args.rules, "--rules")
    consumers = [
        c
        for name in args.consumer or TEXTBOOK
        for c in resolve_many(CONSUMERS, ConsumerVariant, name)
    ]
    kind = args.target.partition(":")[0]
    if kind not in ("humpty", "jsonl", "rules", "reference"):
        raise InvalidInput("--target", f"expected humpty:CMD or jsonl:CMD, got {args.target!r}")
    spec = _absolute_paths(args.target)
    target = parse_target(spec, timeout)
    space = SweepSpace(args.entries, args.seqnos, duplicate_uuids=not args.distinct_uuids)
    if space.size > MAX_INPUTS:
        raise UsageError(
            f"{space.describe()} is {space.size:,} inputs, more than {MAX_INPUTS:,}; lower "
            "--seqnos or --entries"
        )
    failovers = min(1, args.entries - 1) if args.failovers is None else args.failovers
    if not 0 <= failovers < args.entries:
        raise UsageError(f"--failovers must be 0..{args.entries - 1} (below --entries)")
    bounds = Bounds(seqnos=max(1, args.seqnos), keys=args.keys, entries=args.entries,
                    failovers=failovers)  # fmt: skip
    job = LearnJob(space, args.rules, spec, timeout)
    humpty = kind == "humpty"
    print(
        f"dcpcheck review: {args.target} against {base.name}: {space.size:,} inputs "
        f"({space.describe()}){', those humpty expresses' if humpty else ''}",
        file=sys.stderr,
        flush=True,
    )
    deadline = None if options.timeout_s is None else time.monotonic() + options.timeout_s
    return _review(options, job, base, consumers, target, bounds, deadline, clock, humpty)


def _review(
    options: ReviewOptions,
    job: LearnJob,
    base: RuleSet,
    consumers: list[ConsumerVariant],
    target: Target,
    bounds: Bounds,
    deadline: float | None,
    clock: Stopwatch,
    humpty: bool,
) -> int:
    from checker.loading import source_of
    from checker.report.emit import Outputs, emit
    from checker.result import Stats
    from checker.review.findings import Review, judge, learnt_from
    from checker.review.report import reproductions, results, summary_json, text
    from checker.spark.sweep import SweepTimeout

    progress = Progress(1, "reviews", quiet=options.quiet)
    seconds: dict[str, float] = {}
    learning = [0, 1]  # parts learnt, of how many
    try:
        with partial_run(options.out, progress) as partial:
            dataset = partial / "answers"
            dataset.mkdir()
            started = time.perf_counter()
            progress.start("learn")
            try:
                parts, rows = _learn(options, job, dataset, deadline, progress, learning)
            except KeyboardInterrupt:  # also in Spark's start-up: say how far it got, as verify
                progress.close()
                done = job.space.size * learning[0] // learning[1]
                print(
                    f"interrupted after {time.perf_counter() - started:.1f}s: {done:,} of "
                    f"{job.space.size:,} inputs learnt; nothing was published"
                )
                raise
            learnt = learnt_from(parts, rows)
            seconds["learn"] = time.perf_counter() - started
            rate = learnt.asked / max(seconds["learn"], 1e-9)
            progress.finish("learn", f"{learnt.asked:,} inputs asked, {rate:,.0f}/s")
            review = Review(options.target, base, job.space, bounds, [c.name for c in consumers],
                            learnt, humpty)  # fmt: skip
            started = time.perf_counter()
            if learnt.counts:
                progress.start("judge")
                judge(review, str(dataset), consumers, target, options.budget, deadline)
                progress.finish("judge", f"{len(learnt.counts)} regions")
            seconds["judge"] = time.perf_counter() - started
            review.seconds = seconds
            publish_with_summary(partial, options.out, summary_json(review))
    except SweepTimeout:
        return stopped_at_timeout("dcpcheck review", options.timeout_s, "learnt")
    wall, cpu = clock.read()
    words = ["dcpcheck", "review", "--target", options.target, "--rules", options.rules]
    words += ["--entries", str(job.space.entries), "--seqnos", str(job.space.seqnos)]
    words += [] if job.space.duplicate_uuids else ["--distinct-uuids"]
    command = shlex.join(words)
    named = [(base, base.name), *((c, c.name) for c in consumers)]
    sources = {name: source_of(d, name) for d, name in named if source_of(d, name) != name}
    found = results(review, command, Stats(wall, cpu), options.out, sources)

    def show(_parts: object) -> None:
        print("\n".join(text(review, reproductions(review, options.out))))

    outputs = Outputs(
        "dcpcheck review", options.out, as_json=options.as_json, html=options.html,
        junit=options.junit, text=show,
    )  # fmt: skip
    return emit(found, outputs)


def _learn(
    options: ReviewOptions,
    job: LearnJob,
    dataset: Path,
    deadline: float | None,
    progress: Progress,
    learning: list[int],
) -> tuple[int, list[dict[str, Any]]]:
    from checker.sweep.job import descriptors

    cores = os.cpu_count() or 1
    started = time.perf_counter()

    def update(done: int, total: int) -> None:
        learning[:] = [done, total]
        rate = job.space.size * done / total / max(time.perf_counter() - started, 1e-9)
        progress.update("learn", f"{done}/{total} parts done, {rate:,.0f} inputs/s of the space")

    if options.spark is None:
        ranges = descriptors(job.space.size, options.parts or 4)
        rows: list[dict[str, Any]] = []
        for n, (part, lo, hi) in enumerate(ranges):
            if deadline is not None and time.monotonic() > deadline:
                from checker.spark.sweep import SweepTimeout

                raise SweepTimeout("stopped at the time limit")
            rows += job.write_part(dataset, part, lo, hi).to_pylist()
            update(n + 1, len(ranges))
        return len(ranges), rows
    from checker.spark.review import learn_on_spark
    from checker.spark.session import scheduler_jvm, spark_session

    place = options.spark
    conf = scheduler_jvm(place.conf)
    with spark_session(place.master, place.app, conf, place.executor_wait) as spark:
        context = spark.sparkContext
        parts = options.parts or 4 * max(cores, context.defaultParallelism)
        remaining = 3600.0 * 24 if deadline is None else max(0.001, deadline - time.monotonic())
        return learn_on_spark(spark, job, dataset, parts, timeout_s=remaining, progress=update)
