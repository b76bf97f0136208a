"""``dcpcheck clients --target jsonl:CMD``: a client's own code, through its adapter.

Below the commands: ``clients`` runs it, ``conform`` shares its in-process limit.

The glue between the command line and ``checker.adapter.check``: the rule sets
and properties chosen, the scenarios ``--like NAME`` found violating for a
catalogued model (tried first), the parts on Spark executors (in this process
with ``--no-spark`` or when the space has few scenarios), one job per
rule set run by ``checker.runner`` (Ctrl-C: ``unknown (interrupted)``, exit
130, every adapter process stopped), reported by ``checker.report.emit``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace
from functools import partial

from checker.adapter.check import ClientTarget, check_client, planned_client
from checker.adapter.client import target_command
from checker.adapter.count import scenario_count
from checker.adapter.play import play
from checker.adapter.protocol import AdapterFault, Hello
from checker.adapter.search import PartSummary
from checker.adapter.size import SPARK_START, Estimate, announce, cores_of, sampled_rate
from checker.arguments.common import chosen, outputs_from, spark_conf_from
from checker.progress import Progress
from checker.report.emit import emit
from checker.result import Result, Verdict
from checker.runner import Job, run_jobs
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant
from spec.errors import UsageError
from spec.properties import PROPERTIES, Property
from spec.reference.simulate import NotARun
from spec.rules import RULE_SETS, RuleSet
from spec.scenario import Scenario

__all__ = ["IN_PROCESS_SCENARIOS", "like_scenarios", "run_target"]

# At most this many scenarios: judged here, no Spark session (its start-up, 10-40 s on a
# 2-core machine, is more than judging them takes at 500-700 scenarios per second).
IN_PROCESS_SCENARIOS = 10_000


def few_scenarios(bounds: Bounds, limit: int = IN_PROCESS_SCENARIOS) -> bool:
    """At most ``limit`` scenarios within ``bounds`` (counted, ``checker.adapter.count``;
    the number of first histories says little: 15 at --seqnos 3 --keys 1, with 88,250)."""
    total = scenario_count(bounds)
    return total is not None and total <= limit


class _Gate:
    """Before the search (after ``--like``'s scenarios): the adapter's rate on a sample,
    the estimate printed, and a run that cannot finish within an hour stopped
    (``checker.adapter.size.refusal``) unless ``--force``. Measured once per command."""

    def __init__(self, args: argparse.Namespace, target: ClientTarget, bounds: Bounds,
                 total: int | None, spark: bool) -> None:  # fmt: skip
        self.args, self.target, self.bounds = args, target, bounds
        self.total, self.spark = total, spark
        self.estimate: Estimate | None = None
        self.client = "client"  # as its hello names it, once it has answered

    def hello(self, hello: Hello) -> None:
        self.client = hello.client or "client"

    def __call__(self, hello: Hello, rules: RuleSet, props: Sequence[Property]) -> None:
        if self.estimate is not None or (
            self.total is not None and self.total <= IN_PROCESS_SCENARIOS
        ):
            return  # measured already, or judged in seconds: progress shows the rate
        client = self.target.start()

        def one(scenario: Scenario) -> None:
            with suppress(NotARun):  # ruled out by the client's mitigation: played all the same
                play(client, scenario, rules, self.bounds.rounds, hello.rollback_mitigation,
                     told=False)  # fmt: skip

        try:
            rate = sampled_rate(self.bounds, one)
        except AdapterFault:
            return  # the search meets it again and reports it
        finally:
            client.close()
        processes = cores_of(self.args.master if self.spark else None)
        self.estimate = Estimate(self.total, rate, processes, SPARK_START if self.spark else 0.0)
        run = "dcpcheck clients --target"
        announce("dcpcheck clients", self.bounds, self.estimate, self.args.force, run)


def like_scenarios(
    name: str, rules: RuleSet, props: Sequence[Property], bounds: Bounds
) -> list[Scenario]:
    """The scenarios the symbolic model finds violating each property for the catalogued
    consumer ``name`` (its minimised counterexamples: Z3, the default budget)."""
    from checker.scenario_check import check

    variant = chosen(CONSUMERS, ConsumerVariant, [name])[0].item
    out = []
    for prop in props:
        found = check(rules, variant, prop, bounds)
        if found.verdict is Verdict.VIOLATED and found.witness is not None:
            out.append(found.witness)
    return out


def _spark_parts(
    args: argparse.Namespace,
    target: ClientTarget,
    rules: RuleSet,
    props: Sequence[Property],
    bounds: Bounds,
    first: tuple[Scenario, ...],
    mitigation: bool,
    *,
    update: Callable[[str], None] | None = None,
    total: int | None = None,
) -> PartSummary:
    from checker.spark.clients import judge_on_spark
    from checker.spark.session import scheduler_jvm, spark_session

    conf = scheduler_jvm(spark_conf_from(args))  # the driver JVM only schedules the parts
    with spark_session(args.master, "dcpcheck clients --target", conf, args.executor_wait) as s:
        return judge_on_spark(
            s,
            target.spec,
            target.timeout,
            rules.name,
            [p.id for p in props],
            bounds,
            mitigation,
            first,
            update,
            total,
        )


def _job(
    args: argparse.Namespace,
    target: ClientTarget,
    rules: RuleSet,
    props: Sequence[Property],
    bounds: Bounds,
    gate: _Gate,
    update: Callable[[str], None],
) -> list[Result]:
    if args.like:
        update(f"asking the symbolic model for {args.like}'s counterexamples (Z3)")
    first = tuple(like_scenarios(args.like, rules, props, bounds)) if args.like else ()
    run_parts = (
        partial(_spark_parts, args, target, rules, props, bounds, update=update, total=gate.total)
        if gate.spark
        else None
    )
    return check_client(
        target,
        rules,
        props,
        bounds,
        first=first,
        run_parts=run_parts,
        stop_when_violated=bool(args.like),
        update=update,
        total=gate.total,
        before_search=gate,
        on_hello=gate.hello,
    )


def run_target(args: argparse.Namespace, bounds: Bounds) -> int:
    target_command(args.target)  # a malformed target is bad input before anything runs
    if args.consumer:
        raise UsageError("--target judges the adapter's client; --consumer is for the catalogue")
    target = ClientTarget(args.target, args.answer_timeout)
    rule_sets = [c.item for c in chosen(RULE_SETS, RuleSet, args.rules or ["kv-current"])]
    safety = [p.id for p in PROPERTIES if p.kind == "safety"]
    props = [c.item for c in chosen(PROPERTIES, Property, args.property or safety)]
    total = scenario_count(bounds)
    spark = not args.no_spark and (total is None or total > IN_PROCESS_SCENARIOS)
    print(
        f"dcpcheck clients: {args.target} on {len(props)} properties x {len(rule_sets)} "
        f"rule set(s) within {bounds.describe()}: "
        + ("more than 10^30" if total is None else f"{total:,}")
        + " scenarios per rule set"
        + (" (on Spark)" if spark else " (in this process)"),
        file=sys.stderr,
        flush=True,
    )
    gate = _Gate(args, target, bounds, total, spark)
    jobs = [
        Job(
            f"{target.spec} / {rules.name}",
            partial(_job, args, target, rules, props, bounds, gate),
            partial(
                lambda r: [planned_client(target, gate.client, r, p, bounds) for p in props],
                rules,
            ),
        )
        for rules in rule_sets
    ]
    progress = Progress(len(jobs), quiet=args.quiet)
    outputs = replace(outputs_from(args, "dcpcheck clients"), streamed=True)
    results = run_jobs(jobs, progress, each=None)
    return emit(results, outputs)
