"""What the commands share: choosing definitions by name or file, bounds from flags,
and the flags of outputs, budgets, progress and Spark.

Commands are thin: they turn arguments into jobs (``checker.scenario_check``,
``checker.cluster_check``, ``checker.tasks``), run them with the one runner
(``checker.runner.run_jobs``) and report them with the one emit
(``checker.report.emit``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from checker.atomic import partial_dir, publish_dir, writable_dir, writable_file, write_text_atomic
from checker.inputs import count, seconds
from checker.interrupt import uninterruptible
from checker.loading import resolve_many
from checker.runner import HERE, OnSpark, Place
from checker.symbolic.budget import CHECK_BUDGET, MILLION
from spec.bounds import LIMITS, Bounds
from spec.cluster import PRESETS, ClusterBounds, preset
from spec.cluster.state import LEVEL_NAMES
from spec.errors import EXIT_UNKNOWN, UsageError
from spec.registry import Registry

if TYPE_CHECKING:
    from checker.progress import Progress
    from checker.report.emit import Outputs

__all__ = [
    "ANY_SESSIONS",
    "DEFAULT_PROPERTIES",
    "Chosen",
    "add_budget_arguments",
    "add_cluster_bounds",
    "add_count",
    "add_no_spark",
    "add_output_arguments",
    "add_progress_arguments",
    "add_published_out",
    "add_repeatable",
    "add_scenario_bounds",
    "add_spark_arguments",
    "add_task_run_arguments",
    "add_timeout",
    "budget_from",
    "chosen",
    "cluster_bounds_from",
    "scenario_bounds_from",
    "spark_conf_from",
    "task_place",
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
SCENARIO_BOUNDS_HELP = {
    "seqnos": "mutations in a producer's history",
    "keys": "distinct keys mutated",
    "entries": "failover-table entries (the failovers' new ones included)",
    "failovers": "failovers between the disconnect and the resume",
}


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
    for name, text in SCENARIO_BOUNDS_HELP.items():
        default = getattr(defaults, name)
        group.add_argument(
            f"--{name}", type=int, default=default, metavar="N", help=f"{text} (default {default})"
        )
    group.add_argument(
        "--rounds",
        type=count(1, LIMITS["rounds"]),
        default=None,
        metavar="N",
        help="request/rollback rounds per resume, at least 1 (default entries + 3)",
    )
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
        given["rounds"] = given["rounds"] or 0  # absent: Bounds' default, entries + 3
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
    "midpoint_rollback": "1 (default, as kv_engine) or 0: couchstore resets a replica to 0 when "
    "its rollback would discard at least half of its disk's seqnos",
    "partial_flush": "1: a replica's flusher may also persist only its next item "
    "(PersistNextItem); 0 (default): a flush persists everything received",
    "disk_snapshots": "1: the active may send a replica a disk snapshot (backfill) where a "
    "marker is due (BackfillReplica); 0 (default): memory snapshots only",
}


# The durability properties a command checks unless told otherwise (durability, verify).
DEFAULT_PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")


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
    group.add_argument(
        "--level",
        metavar="LEVEL[,LEVEL...]",
        help="durability level of the client's 1st, 2nd, ... SyncWrite, the last repeating: "
        f"{', '.join(LEVEL_NAMES)} (default the preset's; most: majority)",
    )


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
    if getattr(args, "level", None) is not None:
        changes["levels"] = levels_from(args.level)
    try:
        bounds = base.but(**changes)
    except ValueError as exc:
        raise UsageError(f"bad bounds: {exc}") from None
    return bounds, args.preset if bounds == base else None


def levels_from(text: str) -> int:
    """``--level majority,persist_to_majority`` as the bounds' ``levels`` digits (13)."""
    digits = []
    for name in text.split(","):
        if name.strip() not in LEVEL_NAMES:
            raise UsageError(
                f"--level: unknown durability level {name.strip()!r} "
                f"(known: {', '.join(LEVEL_NAMES)}; several: comma-separated, in order)"
            )
        digits.append(str(LEVEL_NAMES.index(name.strip()) + 1))
    return int("".join(digits))


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


def add_published_out(parser: argparse.ArgumentParser, command: str, what: str) -> None:
    """``--out DIR`` of a run that publishes a directory (``partial_run``): ``what`` and
    summary.json, under out/COMMAND by default."""
    parser.add_argument(
        "--out",
        default=f"out/{command}",
        metavar="DIR",
        help=f"where {what} and summary.json go (default out/{command}; replaced whole when "
        f"the {command} completes)",
    )


@contextmanager
def partial_run(out: str | Path, progress: Progress) -> Iterator[Path]:
    """A run that publishes a directory as ``out`` (sweep, review): a new directory beside
    it to build the contents in (``checker.atomic.partial_dir``), published by
    ``publish_with_summary``; however the run ends, ``progress`` is closed and what was not
    published is removed."""
    partial = partial_dir(out)
    try:
        yield partial
    finally:
        progress.close()
        shutil.rmtree(partial, ignore_errors=True)


def publish_with_summary(partial: Path, out: str | Path, summary: object) -> None:
    """``summary`` as ``summary.json`` in the run's ``partial`` directory, and the directory
    published as ``out``: whole, or (a Ctrl-C before this) not at all."""
    with uninterruptible():
        write_text_atomic(partial / "summary.json", json.dumps(summary, indent=2))
        publish_dir(partial, out)


def stopped_at_timeout(command: str, timeout_s: float | None, what: str) -> int:
    """The line a run stopped by ``--timeout`` before every input was ``what`` prints, and
    its exit code (unknown)."""
    print(
        f"{command}: unknown: stopped at the --timeout {timeout_s:g} s limit before every "
        f"input was {what}; nothing was published",
        file=sys.stderr,
    )
    return EXIT_UNKNOWN


def outputs_from(args: argparse.Namespace, title: str) -> Outputs:
    """What ``add_output_arguments`` (and ``--junit``, where a command has it) asked for, as
    the report's ``Outputs``; a command sets its own fields on it with ``replace``."""
    from checker.report.emit import Outputs  # only a command that reports pays the import

    junit = getattr(args, "junit", None)
    return Outputs(title, args.out, as_json=args.json, html=args.html, junit=junit)


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


def task_place(args: argparse.Namespace, app: str) -> Place:
    """Where a run of tasks goes (``clients``, ``verify``): Spark jobs (``args.master``,
    ``--conf``), or this process with ``--no-spark``."""
    if args.no_spark:
        return HERE
    from checker.spark.session import check_master, scheduler_jvm

    check_master(args.master)  # a bad --master is one line before anything is printed
    # the driver's JVM only schedules the tasks (Python workers check): a JVM for that
    conf = scheduler_jvm(spark_conf_from(args))
    return OnSpark(args.master, app, conf, args.executor_wait)
