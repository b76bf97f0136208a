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
from dataclasses import replace

from checker.arguments.common import outputs_from, task_place, task_run_inputs
from checker.arguments.task_run import add_task_run_command
from checker.client_catalogue import client_tasks, print_clients
from checker.inputs import seconds
from checker.progress import Progress
from checker.report.emit import emit
from checker.runner import Job, run_jobs
from spec.errors import UsageError

__all__ = ["add_arguments", "run"]

CLIENTS_SELECTION_HELP = {
    "--rules": "rule set (default: both built-in)",
    "--consumer": "client (repeatable; default: the catalogue and its fixes)",
    "--property": "property id (repeatable; default: every safety property)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_task_run_command(parser, "out/clients", CLIENTS_SELECTION_HELP)
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


def run(args: argparse.Namespace) -> int:
    budget, bounds = task_run_inputs(args)
    if args.target:
        from checker.client_target import run_target

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
    outputs = replace(
        outputs_from(args, "dcpcheck clients"),
        against_expected=True,
        text=lambda parts: print_clients(parts[0], bounds, args.out),
    )
    return emit(results, outputs)
