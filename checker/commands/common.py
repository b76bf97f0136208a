"""What the commands share: choosing definitions by name or file, bounds from flags,
and printing a list of results.

Commands are thin: they turn arguments into checks (``checker.check``,
``checker.durability``, ``checker.tasks``) and hand the results to
``checker.report``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Generic, TypeVar

from checker.atomic import writable_dir, writable_file
from checker.inputs import count, seconds
from checker.loading import resolve_many
from checker.progress import Progress
from checker.report.files import write_counterexample
from checker.report.text import long_form, one_line, result_json, shows_run, summary_table
from checker.result import Result, Stats, interrupted
from checker.symbolic.budget import CHECK_BUDGET, MILLION
from checker.tasks import AnyTask, planned_any, run_any
from checker.timing import Stopwatch
from spec.bounds import Bounds
from spec.cluster import PRESETS, ClusterBounds, preset
from spec.errors import UsageError
from spec.registry import Registry

__all__ = [
    "ANY_SESSIONS",
    "Chosen",
    "Planned",
    "add_budget_arguments",
    "add_cluster_bounds",
    "add_count",
    "add_no_spark",
    "add_output_arguments",
    "add_progress_arguments",
    "add_repeatable",
    "add_scenario_bounds",
    "add_spark_arguments",
    "add_task_run_arguments",
    "add_timeout",
    "budget_from",
    "chosen",
    "cluster_bounds_from",
    "print_results",
    "run_planned",
    "run_tasks_here_or_on_spark",
    "scenario_bounds_from",
    "spark_conf_from",
    "task_run_inputs",
]

T = TypeVar("T")
ArgumentGroup = argparse.ArgumentParser | argparse._ArgumentGroup


@dataclass(frozen=True)
class Chosen(Generic[T]):
    """A definition and the text that names it (``NAME`` or ``FILE.py[:NAME]``).

    Spark executors are other processes: they resolve ``spec`` again, which
    works for built-in names and for files alike.
    """

    item: T
    spec: str


def chosen(registry: Registry[T], kind: type[T], texts: Sequence[str] | None) -> list[Chosen[T]]:
    """Every definition the texts name (default: every registered one), in order."""
    out: list[Chosen[T]] = []
    for text in texts or registry.names():
        items = resolve_many(registry, kind, text)
        for item in items:
            name = getattr(item, "name", "")
            spec = text if len(items) == 1 or ".py:" in text else f"{text}:{name}"
            out.append(Chosen(item, spec))
    return out


# -- options of one kind ---------------------------------------------------------------------


def add_repeatable(parser: ArgumentGroup, flag: str, metavar: str, help: str) -> None:
    """An option naming definitions, given once per definition (``--rules A --rules B``);
    absent it is None, and the command picks its default set."""
    parser.add_argument(flag, action="append", metavar=metavar, help=help)


def add_count(
    parser: ArgumentGroup,
    flag: str,
    most: int,
    default: int,
    help: str,
    *,
    least: int = 1,
    metavar: str = "N",
) -> None:
    """A whole-number option from ``least`` to ``most``; outside them a usage error."""
    parser.add_argument(flag, type=count(least, most), default=default, metavar=metavar, help=help)


# -- the single-node model's bounds ------------------------------------------------------------


SCENARIO_BOUNDS = ("seqnos", "keys", "entries", "failovers", "rounds", "max_entries")


def add_scenario_bounds(
    parser: argparse.ArgumentParser, sessions: int = 1, any_sessions: bool = False
) -> None:
    """The scenario bounds; ``any_sessions``: ``--sessions any`` is allowed (an induction
    over resumes, ``checker.induction``), read back as ``ANY_SESSIONS``."""
    group = parser.add_argument_group("bounds (a verdict holds within these)")
    defaults = Bounds()
    group.add_argument(
        "--sessions",
        type=_sessions if any_sessions else int,
        default=sessions,
        metavar="K|any" if any_sessions else "K",
        help=(
            f"resumes per trace (default {sessions}): each but the last may be cut after any "
            "prefix of its stream, with failovers and compactions before the next"
            + ("; any: every number of resumes, by induction" if any_sessions else "")
        ),
    )
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


ANY_SESSIONS = "any"


def _sessions(text: str) -> int | str:
    if text == ANY_SESSIONS:
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'any', got {text!r}") from None


def scenario_bounds_from(args: argparse.Namespace) -> Bounds:
    """The bounds given (with ``--sessions any``: the other bounds, sessions 1)."""
    sessions = getattr(args, "sessions", 1)
    try:
        given = {name: getattr(args, name) for name in SCENARIO_BOUNDS}
        return Bounds(**given, sessions=1 if sessions == ANY_SESSIONS else sessions)
    except ValueError as exc:
        raise UsageError(f"bad bounds: {exc}") from None


# -- the cluster model's bounds ------------------------------------------------------------------

CLUSTER_BOUNDS_HELP = {
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


def add_cluster_bounds(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset",
        default="mb-34150",
        metavar="NAME",
        help=f"bounds to start from (default mb-34150; known: {', '.join(PRESETS)})",
    )
    group = parser.add_argument_group("bounds (override the preset's; a verdict holds within them)")
    for name, text in CLUSTER_BOUNDS_HELP.items():
        group.add_argument(f"--{name.replace('_', '-')}", type=int, metavar="N", help=text)


def cluster_bounds_from(args: argparse.Namespace) -> tuple[ClusterBounds, str | None]:
    """The preset's bounds with the flags given applied; the preset name if unchanged."""
    base = preset(args.preset).bounds
    changes = {
        name: getattr(args, name) for name in CLUSTER_BOUNDS_HELP if getattr(args, name) is not None
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


# -- Spark ------------------------------------------------------------------------------------


def add_spark_arguments(parser: argparse.ArgumentParser, what: str = "the job") -> None:
    group = parser.add_argument_group("Spark (docs/spark.md)")
    group.add_argument(
        "--master",
        default="local[*]",
        metavar="URL",
        help=f"Spark master for {what}: local[*] (default), local[N], spark://HOST:PORT, "
        f"yarn, k8s://...",
    )
    group.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting (repeatable), e.g. spark.executor.memory=4g",
    )
    group.add_argument(
        "--executor-wait",
        type=seconds,
        default=60.0,
        metavar="S",
        help="on a cluster, give up (exit 3) if no executor registers within S seconds "
        "(default 60)",
    )


def spark_conf_from(args: argparse.Namespace) -> dict[str, str]:
    """``--conf KEY=VALUE`` flags as a dict; a malformed one is a usage error."""
    if args.executor_wait <= 0:
        raise UsageError("--executor-wait must be positive")
    conf: dict[str, str] = {}
    for text in args.conf:
        key, sep, value = text.partition("=")
        if not sep or not key.strip() or not key.startswith("spark."):
            raise UsageError(f"--conf {text!r}: expected KEY=VALUE with a spark.* key")
        conf[key.strip()] = value
    return conf


# -- budgets and limits ----------------------------------------------------------------------


def add_budget_arguments(
    parser: argparse.ArgumentParser, budget_millions: float, what: str = "per check"
) -> None:
    """``--budget`` (deterministic: decides ``unknown``) and ``--timeout`` (outer guard)."""
    parser.add_argument(
        "--budget",
        type=float,
        default=budget_millions,
        metavar="M",
        help=f"Z3 work allowed {what}, in millions of resource units (default "
        f"{budget_millions:g}); when it runs out the verdict is unknown, the same on any "
        "machine; 0: no limit",
    )
    add_timeout(parser, None, what)


def budget_from(args: argparse.Namespace) -> int | None:
    """The budget in resource units (None: no limit), checked."""
    if args.budget < 0:
        raise UsageError("--budget must be positive (0: no limit)")
    return None if args.budget == 0 else int(args.budget * MILLION)


# -- running and printing --------------------------------------------------------------------


def add_output_arguments(
    parser: argparse.ArgumentParser, out: str, *, json_help: str = "", html: bool = True
) -> None:
    """``--json``, ``--out DIR`` (counterexamples) and ``--html FILE``."""
    parser.add_argument(
        "--json",
        action="store_true",
        help=json_help or 'print {"results": [...]} instead of text',
    )
    if out:
        parser.add_argument(
            "--out", default=out, metavar="DIR", help=f"where counterexamples go (default {out})"
        )
    if html:
        parser.add_argument(
            "--html", metavar="FILE", help="also write an HTML report with timelines"
        )


def add_timeout(parser: argparse.ArgumentParser, default: float | None, what: str) -> None:
    """``--timeout S``: a wall-clock limit (``what``: per check, for the whole diff...);
    with a Z3 budget it is only an outer guard, off by default."""
    if default is None:
        text = f"wall-clock limit in seconds, {what} (default none): an outer guard; an "
        text += "unknown it causes depends on the machine's load"
    else:
        text = f"wall-clock limit in seconds, {what} (default {default:g})"
    parser.add_argument("--timeout", type=seconds, default=default, metavar="S", help=text)


def add_progress_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (default: a live line on a terminal, else a line per check)",
    )


Check = Callable[[Callable[[str], None]], Result]  # run(update) -> result


@dataclass(frozen=True)
class Planned:
    """A check to run: its label, how to run it (``run(update)``, ``update`` for its own
    progress), and its result if it never decides anything (``planned()``: unknown,
    named and bounded)."""

    label: str
    run: Check
    planned: Callable[[], Result]


def run_planned(
    checks: Sequence[Planned], each: Callable[[Result], None], progress: Progress
) -> list[Result]:
    """Run each check in order, calling ``each`` on its result as it finishes. Ctrl-C
    stops the run: the check it stops is ``unknown (interrupted)`` unless it had decided
    its verdict (a violation whose minimisation was cut short), and so is every check
    after it."""
    results: list[Result] = []
    for check in checks:
        if results and results[-1].interrupted:
            result = interrupted(check.planned())
        else:
            progress.start(check.label)
            clock = Stopwatch()
            try:
                result = check.run(partial(progress.update, check.label))
            except KeyboardInterrupt:
                result = interrupted(check.planned()).but(stats=Stats(*clock.read()))
            progress.finish(check.label, result.verdict.value)
        results.append(result)
        each(result)
    return results


def print_results(
    checks: Sequence[Planned],
    *,
    out: str | Path,
    as_json: bool,
    expected: bool = False,
    quiet: bool = False,
) -> list[Result]:
    """Run each check in order, showing progress on stderr (a check may report its own
    through the ``update`` it is given), write its counterexample files to ``out``, print
    its one-line (and long) form as it finishes, then a summary table or the JSON of all;
    return the results. After Ctrl-C the rest are reported ``unknown (interrupted)`` and
    nothing more is written."""
    paths: list[Path | None] = []
    progress = Progress(len(checks), quiet=quiet)

    def report(result: Result) -> None:
        path = None if result.interrupted else write_counterexample(result, out)
        paths.append(path)
        if not as_json:
            progress.close()
            print(one_line(result, path), flush=True)
            # an induction over resumes tells its invariant or counterexample to induction
            told = getattr(result.bounds, "every_session", False) and bool(result.note)
            if shows_run(result) or result.harness_bug or told:
                print("\n".join(long_form(result)), flush=True)

    try:
        results = run_planned(checks, report, progress)
    finally:
        progress.close()
    if as_json:
        records = [result_json(r, p) for r, p in zip(results, paths, strict=True)]
        print(json.dumps({"results": records}, indent=2))
    elif len(results) > 1:
        print()
        print(summary_table(results, expected=expected))
    return results


# -- Spark ---------------------------------------------------------------------------------------


def task_run_inputs(args: argparse.Namespace) -> tuple[int | None, Bounds]:
    """The budget and bounds of a run of tasks (``clients``, ``verify``), with ``--conf``
    and every output path checked before anything runs."""
    budget = budget_from(args)
    bounds = scenario_bounds_from(args)
    spark_conf_from(args)  # a malformed --conf is a usage error before anything runs
    writable_dir(args.out, "--out")
    writable_file(args.html, "--html")
    writable_file(args.junit, "--junit")
    return budget, bounds


def add_task_run_arguments(parser: argparse.ArgumentParser, out: str, json_help: str = "") -> None:
    """What a run of tasks (``clients``, ``verify``) writes, ``--json``, ``--out DIR``,
    ``--html FILE``, ``--junit FILE``, and the Z3 budget of each check (``--budget``,
    ``--timeout``); ``task_run_inputs`` reads them."""
    add_output_arguments(parser, out, json_help=json_help)
    parser.add_argument("--junit", metavar="FILE", help="also write JUnit XML")
    add_budget_arguments(parser, CHECK_BUDGET / MILLION)


def add_no_spark(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-spark", action="store_true", help="run in this process instead (debugging)"
    )


def run_tasks_here_or_on_spark(
    tasks: Sequence[AnyTask], args: argparse.Namespace, app: str
) -> list[Result]:
    """Run ``checker.tasks`` tasks as Spark jobs (``args.master``, ``--conf``), or in
    this process with ``--no-spark``, with progress on stderr (``--quiet``: none); the
    results in the tasks' order (a group's in its properties' order). After Ctrl-C the
    tasks not decided are ``unknown (interrupted)``."""
    progress = Progress(len(tasks), quiet=args.quiet)
    labels = [task.label for task in tasks]

    def done(n: int, results: list[Result]) -> None:
        verdicts = {r.verdict.value for r in results}
        progress.finish(labels[n], verdicts.pop() if len(verdicts) == 1 else "mixed")

    outputs: list[list[Result]] = []
    try:
        if args.no_spark or not tasks:
            for n, task in enumerate(tasks):
                if outputs and any(r.interrupted for r in outputs[-1]):
                    outputs.append([interrupted(r) for r in planned_any(task)])
                    continue
                progress.start(labels[n])
                try:
                    outputs.append(run_any(task))
                except KeyboardInterrupt:
                    outputs.append([interrupted(r) for r in planned_any(task)])
                done(n, outputs[-1])
        else:
            from checker.spark.session import spark_session
            from checker.spark.tasks import run_tasks

            conf = spark_conf_from(args)
            with spark_session(args.master, app, conf, args.executor_wait) as spark:
                start = lambda n: progress.start(labels[n])  # noqa: E731
                outputs = run_tasks(spark, tasks, on_start=start, on_done=done)
    finally:
        progress.close()
    return [result for output in outputs for result in output]
