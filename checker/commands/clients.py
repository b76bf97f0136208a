"""The client catalogue: real DCP clients and their fixes, judged on every safety property.

    dcpcheck clients [--rules NAME|FILE ...] [--consumer NAME|FILE ...] [--property ID ...]
                     [--json] [--html FILE] [--junit FILE] [--out DIR] [--budget M]
                     [--timeout S] [--master URL [--conf KEY=VALUE ...] | --no-spark] [bounds]

By default: every catalogued client (java-dcp-client, go-dcp, cbgt,
sg-dcp-client, xdcr, kv-replica) and its smallest fix (``<name>-fixed``), each as it ships and
under each non-default value of its settings (``go-dcp:mitigation=off``;
the table's legend says which is the default) x every safety property
(and, with no ``--property``, the cost verdicts pinned for it:
spec/expected_clients.py's ``COSTS``) x both built-in rule sets, one Spark
task each (embedded ``local[*]`` unless ``--master`` names a cluster). Each
violation is replayed on the reference implementation; its counterexample
goes to DIR (default out/clients). Each
verdict is compared with the pinned one (spec/expected_clients.py);
docs/clients.md tells every violation's story. ``--consumer FILE.py`` judges
your own client alongside (it has no pinned verdict: a violation is exit 1).
Exit: 0 when every verdict is as pinned, 1 when one is not (or a violation
has no pinned verdict), 3 when one is unknown, 4 when a counterexample is not
confirmed by the reference implementation, 130 when Ctrl-C stopped it (the rest
are ``unknown (interrupted)``; no JUnit or HTML file is written).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from checker.commands.check import add_selection_arguments
from checker.commands.common import (
    add_no_spark,
    add_progress_arguments,
    add_scenario_bounds,
    add_spark_arguments,
    add_task_run_arguments,
    chosen,
    task_place,
    task_run_inputs,
)
from checker.engines.options import Options
from checker.inputs import seconds
from checker.loading import looks_like_path
from checker.probe import probe_consumers
from checker.progress import Progress
from checker.report.emit import Outputs, emit
from checker.report.files import counterexample_path
from checker.report.text import summary_table
from checker.result import Result, Verdict
from checker.runner import Job, run_jobs
from checker.symbolic.budget import CHECK_BUDGET
from checker.tasks import ScenarioGroupTask
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant, catalogue_names
from spec.errors import UsageError
from spec.expected_clients import COSTS
from spec.properties import PROPERTIES, Property
from spec.rules import RULE_SETS, RuleSet

__all__ = ["add_arguments", "client_tasks", "print_clients", "run"]

CLIENTS_SELECTION_HELP = {
    "--rules": "rule set (default: both built-in)",
    "--consumer": "client (repeatable; default: the catalogue and its fixes)",
    "--property": "property id (repeatable; default: every safety property)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_selection_arguments(parser, CLIENTS_SELECTION_HELP)
    add_task_run_arguments(parser, "out/clients")
    add_spark_arguments(parser)
    add_no_spark(parser)
    add_progress_arguments(parser)
    add_scenario_bounds(parser)
    group = parser.add_argument_group("your client's own code (docs/client-targets.md)")
    group.add_argument(
        "--target",
        metavar="jsonl:CMD",
        help="judge a client adapter (a command speaking the client adapter protocol) on "
        "every scenario within the bounds, instead of the catalogue",
    )
    group.add_argument(
        "--like",
        metavar="NAME|FILE",
        help="with --target: try first the scenarios the symbolic model finds violating "
        "for the consumer variant NAME (the catalogue's) or FILE (your .py), and stop once "
        "every property is violated",
    )
    group.add_argument(
        "--force",
        action="store_true",
        help="with --target: run even when the scenarios cannot be played within an hour "
        "on this machine (without it such a run stops and names the bounds that fit)",
    )
    group.add_argument(
        "--answer-timeout",
        type=seconds,
        default=10.0,
        metavar="S",
        help="with --target: seconds the adapter may take per answer (default 10)",
    )


def client_tasks(
    rules: list[str] | None,
    consumers: list[str] | None,
    props: list[str] | None,
    bounds: Bounds,
    timeout_s: float | None,
    budget: int | None = CHECK_BUDGET,
) -> list[ScenarioGroupTask]:
    """One task per rule set x client (its properties proved together, searched apart:
    ``checker.together``): the clients named, or the whole catalogue in its order when
    none is, and beside them the user's own files."""
    files = [c for c in consumers or () if looks_like_path(c) and c not in CONSUMERS]
    names = [c for c in consumers or () if c not in files]
    chosen_rules = chosen(RULE_SETS, RuleSet, rules)
    chosen_clients = chosen(CONSUMERS, ConsumerVariant, [*(names or catalogue_names()), *files])
    probe_consumers(c.item for c in chosen_clients)
    safety = [p.id for p in PROPERTIES if p.kind == "safety"]
    chosen_props = chosen(PROPERTIES, Property, props or safety)
    ids = tuple(p.spec for p in chosen_props)

    def pinned_costs(client: str) -> tuple[str, ...]:
        # With no --property: the cost verdicts pinned for this client too (COSTS).
        return () if props else tuple(p for c, p in COSTS if c == client and p not in ids)

    return [
        ScenarioGroupTask(
            r.spec,
            c.spec,
            ids + pinned_costs(c.spec),
            bounds,
            Options(budget=budget, timeout_s=timeout_s),
        )
        for r in chosen_rules
        for c in chosen_clients
    ]


def settings_legend(results: Sequence[Result]) -> str:
    """One line per client judged under a setting: the value of each of its settings,
    and which is the client as it ships (its bare name, every setting at its default)."""
    lines = []
    for name in dict.fromkeys(r.subject.get("consumer", "") for r in results):
        variant = CONSUMERS.get(name) if name in CONSUMERS else None
        if variant is None or not variant.settings:
            continue
        values = ", ".join(f"{k}={v}" for k, v in variant.setting_values().items())
        shipped = "default (as it ships)" if variant.is_default() else "not the default"
        lines.append(f"  {name:<{_width(results)}}  {values}: {shipped}")
    if not lines:
        return ""
    return "settings (a bare name is the client with every setting at its default):\n" + (
        "\n".join(lines)
    )


def _width(results: Sequence[Result]) -> int:
    return max(len(r.subject.get("consumer", "")) for r in results)


def print_clients(results: Sequence[Result], bounds: Bounds, out: str) -> None:
    """The catalogue's table (the shared summary table, one row group per client and
    setting), which setting is the default, each violation's counterexample file and
    reproduce line, and what the verdicts mean (the stories in docs/clients.md are the
    catalogue's: a client of the user's own has none)."""
    print(summary_table(results, expected=True))
    legend = settings_legend(results)
    if legend:
        print("\n" + legend)
    violations = [r for r in results if r.verdict is Verdict.VIOLATED]
    if violations:
        print("\ncounterexamples:")
    for r in violations:
        path = counterexample_path(r, out)
        print(f"  {r.label}: {r.property}: {path or 'not written (not replayed)'}")
        print(f"    reproduce: {r.command}")
    pinned = [r for r in results if r.expected is not None]
    others = list(dict.fromkeys(r.consumer for r in results if r.expected is None))
    text = f"\nholds = no violation within {bounds.describe()}"
    if pinned:
        text += "; each pinned violation's story is in docs/clients.md"
    if others:
        text += (
            f"; {', '.join(others)}: no pinned verdict (a violation is exit 1) and no story "
            "there: read the counterexamples above"
        )
    print(text)


def run(args: argparse.Namespace) -> int:
    budget, bounds = task_run_inputs(args)
    if args.target:
        from checker.commands.client_target import run_target

        return run_target(args, bounds)
    if args.like or args.force:
        raise UsageError(f"--{'like' if args.like else 'force'} goes with --target")
    tasks = client_tasks(args.rules, args.consumer, args.property, bounds, args.timeout, budget)
    checks = sum(len(t.properties) for t in tasks)
    place = task_place(args, "dcpcheck clients")
    print(
        f"dcpcheck clients: {checks} checks ({len(tasks)} tasks) within {bounds.describe()}",
        file=sys.stderr,
        flush=True,
    )
    progress = Progress(len(tasks), "tasks", quiet=args.quiet)
    results = run_jobs([Job.of(t) for t in tasks], progress, place=place)
    outputs = Outputs(
        "dcpcheck clients",
        args.out,
        as_json=args.json,
        html=args.html,
        junit=args.junit,
        against_expected=True,
        text=lambda parts: print_clients(parts[0], bounds, args.out),
    )
    return emit(results, outputs)
