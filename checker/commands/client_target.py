"""``dcpcheck clients --target jsonl:CMD``: a client's own code, through its adapter.

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
from functools import partial
from itertools import islice

from checker.adapter.check import ClientTarget, check_client, planned_client
from checker.adapter.client import target_command
from checker.adapter.search import Part
from checker.commands.common import chosen, spark_conf_from
from checker.engines.exhaustive import scenarios
from checker.progress import Progress
from checker.report.emit import Outputs, emit
from checker.result import Result, Verdict
from checker.runner import Job, run_jobs
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant
from spec.properties import PROPERTIES, Property
from spec.rules import RULE_SETS, RuleSet
from spec.scenario import Scenario

__all__ = ["IN_PROCESS_SCENARIOS", "like_scenarios", "run_target"]

# At most this many scenarios: judged here, no Spark session (its start-up, 10-40 s on a
# 2-core machine, is more than judging them takes at 500-700 scenarios per second).
IN_PROCESS_SCENARIOS = 10_000


def few_scenarios(bounds: Bounds, limit: int = IN_PROCESS_SCENARIOS) -> bool:
    """At most ``limit`` scenarios within ``bounds`` (counted up to ``limit + 1``; the
    number of first histories says little: 15 at --seqnos 3 --keys 1, with 88,250)."""
    return sum(1 for _ in islice(scenarios(bounds), limit + 1)) <= limit


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
) -> Part:
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
        )


def _job(
    args: argparse.Namespace,
    target: ClientTarget,
    rules: RuleSet,
    props: Sequence[Property],
    bounds: Bounds,
    update,
) -> list[Result]:  # type: ignore[no-untyped-def]
    first = tuple(like_scenarios(args.like, rules, props, bounds)) if args.like else ()
    spark = not args.no_spark and not few_scenarios(bounds)
    run_parts = (
        partial(_spark_parts, args, target, rules, props, bounds, update=update) if spark else None
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
    )


def run_target(args: argparse.Namespace, bounds: Bounds) -> int:
    target_command(args.target)  # a malformed target is bad input before anything runs
    if args.consumer:
        from spec.errors import UsageError

        raise UsageError("--target judges the adapter's client; --consumer is for the catalogue")
    target = ClientTarget(args.target, args.answer_timeout)
    rule_sets = [c.item for c in chosen(RULE_SETS, RuleSet, args.rules or ["kv-current"])]
    safety = [p.id for p in PROPERTIES if p.kind == "safety"]
    props = [c.item for c in chosen(PROPERTIES, Property, args.property or safety)]
    print(
        f"dcpcheck clients: {args.target} on {len(props)} properties x {len(rule_sets)} "
        f"rule set(s) within {bounds.describe()}",
        file=sys.stderr,
        flush=True,
    )
    jobs = [
        Job(
            f"{target.spec} / {rules.name}",
            partial(_job, args, target, rules, props, bounds),
            partial(
                lambda r: [planned_client(target, "client", r, p, bounds) for p in props], rules
            ),
        )
        for rules in rule_sets
    ]
    progress = Progress(len(jobs), quiet=args.quiet)
    outputs = Outputs(
        "dcpcheck clients",
        args.out,
        as_json=args.json,
        html=args.html,
        junit=args.junit,
        streamed=True,
    )
    results = run_jobs(jobs, progress, each=None)
    return emit(results, outputs)
