"""The main job: every rule set x consumer variant x property, on Spark.

    dcpcheck verify [--master URL] [--conf KEY=VALUE ...] [--executor-wait S]
                    [--rules ...] [--consumer ...] [--property ...]
                    [--durability-preset NAME ... | --no-durability] [--no-clients]
                    [--no-every-session] [--no-decision] [--json] [--junit FILE] [--out DIR]
                    [--budget M] [--timeout S] [bounds]

Runs each rule set x consumer as a Spark task (embedded ``local[*]`` by
default; a master URL runs the same job on a cluster) that proves its
properties together and searches each violated one apart
(``checker.together``), prints a summary table with verdicts and times, and
compares each verdict with the expected one (spec/expected.py) where one is
recorded. The consumers are correct and collapse-snapshot unless
``--consumer`` names others. Then the client catalogue (``dcpcheck
clients``: each real client and its fix x the safety properties asked for;
counterexamples to DIR/clients). Then every check of those two that has a
stored certificate (``checker.induction.certificate``: an invariant over
resumes, kept in the repository) has it checked again by Z3, at the
certificate's own bounds: ``holds`` for every number of sessions there when it
checks, ``unknown`` (exit 3) when it does not (``--no-every-session`` skips
them; valid-request is first proved for any history length, as ``check
--sessions any`` does). Then the same for the multi-node
durability model: every ack rule x branch rule x durability property at
each preset given (default mb-34150 and mb-51805; expectations in
spec/cluster/expected.py), one Spark task each, a second table. Then the
decision-level proofs (every failover-table length) and, for each consumer
of the matrix, valid-request for histories of any length (the abstract view;
``--no-decision`` skips both). Counterexamples go to DIR (default out/verify; durability runs to
DIR/durability). Exit: 0 when every verdict is as expected, 1 when one is
not (or a violation has no expectation), 3 when one is unknown, 4 when a
counterexample is not confirmed by the reference implementation, 130 when
Ctrl-C stopped it (the checks decided by then are reported, the rest are
``unknown (interrupted)``; no JUnit or HTML file is written).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import replace
from functools import partial

from checker.arguments.common import DEFAULT_PROPERTIES, outputs_from, task_place, task_run_inputs
from checker.arguments.selection import selection
from checker.arguments.task_run import add_task_run_command
from checker.client_catalogue import client_tasks, print_clients
from checker.engines.options import Options
from checker.engines.processes import in_order
from checker.induction.certificate import BOUNDS as CERTIFIED
from checker.induction.certificate import stored_checks
from checker.progress import Progress
from checker.report.emit import Section, emit
from checker.report.text import summary_table
from checker.result import Result, Verdict
from checker.runner import Job, OnSpark, run_jobs
from checker.symbolic.budget import Budget
from checker.tasks import AnyTask, ClusterGroupTask, ScenarioGroupTask, ScenarioTask
from checker.unbounded import decision_results, valid_request_every_history
from spec.bounds import Bounds
from spec.cluster import ACK_RULES, BRANCH_RULES, PRESETS
from spec.errors import UsageError
from spec.properties import PROPERTIES

DURABILITY_PRESETS = ("mb-34150", "mb-51805", "mb-34150-on-master", "mb-34150-persist")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_task_run_command(
        parser, "out/verify", json_help='print {"results": [...]} instead of the table'
    )
    parser.add_argument(
        "--durability-preset",
        action="append",
        metavar="NAME",
        help=f"also check the durability model at this preset (repeatable; default "
        f"{', '.join(DURABILITY_PRESETS)}; known: {', '.join(PRESETS)})",
    )
    parser.add_argument("--no-durability", action="store_true", help="skip the durability model")
    parser.add_argument(
        "--no-clients", action="store_true", help="skip the client catalogue (dcpcheck clients)"
    )
    parser.add_argument(
        "--no-every-session",
        action="store_true",
        help="skip the stored certificates' checks (every number of sessions, at their "
        "own bounds: python -m checker.induction.certificate)",
    )
    parser.add_argument(
        "--no-decision",
        action="store_true",
        help="skip the decision-level proofs (every table length, every seqno)",
    )


def durability_tasks(args: argparse.Namespace) -> list[ClusterGroupTask]:
    if args.no_durability:
        if args.durability_preset:
            raise UsageError("--no-durability and --durability-preset contradict each other")
        return []
    presets = args.durability_preset or list(DURABILITY_PRESETS)
    for name in presets:
        if name not in PRESETS:
            raise UsageError(
                f"--durability-preset: unknown preset {name!r} (known: {', '.join(PRESETS)})"
            )
    return [  # a model's properties from its one search
        ClusterGroupTask(
            ack,
            branch,
            tuple(DEFAULT_PROPERTIES),
            PRESETS[name].bounds,
            name,
            options=Options(timeout_s=args.timeout),
        )
        for name in presets
        for ack in ACK_RULES.names()
        for branch in BRANCH_RULES.names()
    ]


def run(args: argparse.Namespace) -> int:
    budget, bounds = task_run_inputs(args)
    rules, consumers, props = selection(args)
    ids = tuple(p.spec for p in props)
    options = Options(budget=budget, timeout_s=args.timeout)
    tasks = [
        ScenarioGroupTask(r.spec, c.spec, ids, bounds, options) for r in rules for c in consumers
    ]
    clients = [] if args.no_clients else catalogue_tasks(args, bounds, budget)
    every = [] if args.no_every_session else every_session_tasks(tasks, clients, options)
    cluster_tasks = durability_tasks(args)
    started = time.perf_counter()
    place = task_place(args, "dcpcheck verify")
    everything: list[AnyTask] = [*tasks, *clients, *every, *cluster_tasks]
    print(
        plan_line(tasks, clients, cluster_tasks, bounds, not args.no_decision, len(every)),
        file=sys.stderr,
    )
    progress = Progress(len(everything), "tasks", quiet=args.quiet)
    proofs: list[Callable[[], list[Result]]] = []
    if not args.no_decision:
        proofs.append(partial(decision_results, [r.item for r in rules], Budget(budget)))
        every_history = [c.item for c in consumers]
        proofs.append(partial(valid_request_every_history, every_history, Budget(budget)))
    with ExitStack() as beside:
        later: Iterator[list[Result]] | None = None
        if proofs and isinstance(place, OnSpark):
            # Proved on a forked process while Spark starts and runs (forked before its JVM
            # exists): they no longer wait for the last Spark job; the same proofs either way.
            later = beside.enter_context(in_order(proofs, 1))
        results = run_jobs([Job.of(t) for t in everything], progress, place=place)
        stopped = any(r.interrupted for r in results)
        decision: list[Result] = []
        if not stopped and proofs:
            try:
                for prove in proofs:
                    decision += next(later) if later is not None else prove()
            except KeyboardInterrupt:
                stopped = True
    sizes = [len(tasks) * len(ids), sum(len(t.properties) for t in clients), len(every)]
    sizes.append(sum(len(t.properties) for t in cluster_tasks))
    outs = [args.out, f"{args.out}/clients", args.out, f"{args.out}/durability", args.out]
    keys = ("results", "clients", "every_session", "durability", "decision")
    sections = tuple(Section(*s) for s in zip(keys, [*sizes, len(decision)], outs, strict=True))

    def text(split: Sequence[Sequence[Result]]) -> None:
        single, client_results, every_results, cluster, _ = split
        print(summary_table(single, expected=True))
        print(f"\nholds = no violation within {bounds.describe()}; counterexamples in {args.out}/")
        if client_results:
            print("\nclients (dcpcheck clients):")
            print_clients(client_results, bounds, outs[1])
        _print_every_session(every_results)
        _print_durability(cluster)
        for level, model in (("decision level", "decision"), ("consumer level", "consumer")):
            rows = [r for r in decision if r.model == model]
            if rows:
                print(f"\n{level}: {rows[0].bounds.describe()}")
                print(summary_table(rows, expected=True))
        elapsed = time.perf_counter() - started
        if stopped:
            decided = sum(not r.interrupted for r in results)
            print(f"\ninterrupted after {elapsed:.1f}s: {decided} of {len(results)} checks decided")
        else:
            print("\n" + closing_line([*results, *decision], elapsed))

    outputs = replace(
        outputs_from(args, "dcpcheck verify"),
        against_expected=True,
        sections=sections,
        text=text,
    )
    return emit([*results, *decision], outputs)


def plan_line(
    single: Sequence[ScenarioGroupTask],
    clients: Sequence[ScenarioGroupTask],
    cluster: Sequence[ClusterGroupTask],
    bounds: Bounds,
    decision: bool,
    every: int = 0,
) -> str:
    """What verify will run, in the units its progress counts: tasks (a task proves its
    properties together: one check per property), then the decision level."""
    tasks = len(single) + len(clients) + every + len(cluster)
    parts = [
        f"{sum(len(t.properties) for t in single)} single-node",
        *([f"{sum(len(t.properties) for t in clients)} client"] if clients else []),
        *([f"{every} every-session"] if every else []),
        *([f"{sum(len(t.properties) for t in cluster)} durability"] if cluster else []),
    ]
    grouped: list[ScenarioGroupTask | ClusterGroupTask] = [*single, *clients, *cluster]
    checks = sum(len(t.properties) for t in grouped) + every
    return (
        f"dcpcheck verify: {checks} checks ({' + '.join(parts)}) in {tasks} tasks, progress "
        f"counts tasks; single-node and clients within {bounds.describe()}"
        + ("; then the decision- and consumer-level proofs" if decision else "")
    )


def closing_line(results: Sequence[Result], elapsed: float) -> str:
    """``112 of 112 checks as expected in 22.4s``, or what is not (exit 0 only when every
    check is as expected)."""
    unknown = sum(r.verdict is Verdict.UNKNOWN for r in results)
    off = sum(
        r.verdict is not Verdict.UNKNOWN and (r.expected or "holds") != r.verdict.value
        for r in results
    )
    text = f"{len(results) - unknown - off} of {len(results)} checks as expected"
    if off:
        text += f", {off} not as expected"
    if unknown:
        text += f", {unknown} unknown"
    return f"{text} in {elapsed:.1f}s"


def catalogue_tasks(
    args: argparse.Namespace, bounds: Bounds, budget: int | None
) -> list[ScenarioGroupTask]:
    """The client catalogue on the rule sets asked for, for the safety properties asked for."""
    safety = [p.id for p in PROPERTIES if p.kind == "safety"]
    wanted = [p for p in args.property or safety if p in safety]
    if not wanted:
        return []
    # no --property: client_tasks adds the cost verdicts pinned per client (COSTS)
    return client_tasks(args.rules, None, args.property and wanted, bounds, args.timeout, budget)


def every_session_tasks(
    single: Sequence[ScenarioGroupTask], clients: Sequence[ScenarioGroupTask], options: Options
) -> list[ScenarioTask]:
    """A stored certificate's check (``checker.induction.certificate``) for each check of
    the matrix and the catalogue that has one at ``certificate.BOUNDS`` (those at larger
    bounds are for ``check --sessions any``: minutes each)."""
    wanted = {(t.rules, t.consumer, p) for t in (*single, *clients) for p in t.properties}
    return [
        ScenarioTask(
            rules,
            consumer,
            prop,
            bounds,
            options.but(every_session=True, certificate=tuple(names)),
        )
        for rules, consumer, prop, bounds, names in stored_checks()
        if (rules, consumer, prop) in wanted and bounds == CERTIFIED
    ]


def _print_every_session(results: Sequence[Result]) -> None:
    if not results:
        return
    print("\nevery number of sessions (stored certificates, checked again by Z3):")
    for within in dict.fromkeys(r.bounds.describe() for r in results):
        print(f"within {within}:")
        print(summary_table([r for r in results if r.bounds.describe() == within], expected=True))
    print(
        "holds = an inductive invariant (python -m checker.induction.certificate) checked "
        "again: no violation after any number of resumes within these bounds; checks without "
        "a certificate here have their bounded verdict above (one resume) only"
    )
    if any(r.bounds.describe().endswith("(abstract view)") for r in results):
        print(
            "(abstract view) = valid-request proved for every history length and every "
            "number of resumes, no certificate needed (docs/findings.md, Beyond the bounds)"
        )


def _print_durability(cluster: Sequence[Result]) -> None:
    if not cluster:
        return
    for name in dict.fromkeys(r.preset for r in cluster):
        part = [r for r in cluster if r.preset == name]
        print(f"\ndurability, preset {name}: {part[0].bounds.describe()}")
        print(summary_table(part, expected=True))
    print("holds = no violation in any interleaving within a preset's bounds (docs/durability.md)")
