"""Model vs code: where a client adapter and a consumer variant differ.

    dcpcheck conform --target jsonl:CMD --consumer NAME|FILE [--rules R] [bounds]

Every scenario within the bounds is played to the adapter (docs/client-targets.md)
and to the consumer variant (run through the reference consumer); each scenario
where they send a different stream request or end with different data is a
difference. Two requests the producer cannot tell apart within the bounds (the
same decisions of the rule set for every producer state, the same stream:
``checker.adapter.sameness``) are the same. Every difference of a scenario is
named, a request's with the producer's answers to both side by side;
differences are grouped by question and fields; each group's smallest scenario
is shrunk and told: which resume, which question after which event, which
fields, every difference of that scenario, and the variant's run in words.
Exit: 0 when they agree on every scenario, 1 when they differ somewhere, 3 when
the adapter crashed, hung or answered garbage (nothing is claimed).
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import suppress

from checker.adapter.check import ClientTarget
from checker.adapter.client import VariantClient, target_command
from checker.adapter.conform import conform
from checker.adapter.count import scenario_count
from checker.adapter.play import play
from checker.adapter.protocol import AdapterFault
from checker.adapter.size import Estimate, Tally, announce, sampled_rate
from checker.arguments.common import (
    add_progress_arguments,
    add_scenario_bounds,
    chosen,
    scenario_bounds_from,
)
from checker.client_target import IN_PROCESS_SCENARIOS
from checker.corpus.scenario import scenario_to_json
from checker.inputs import seconds
from checker.progress import Progress
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant
from spec.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION
from spec.model.narrate import run_of
from spec.reference.simulate import NotARun
from spec.rules import RULE_SETS, RuleSet
from spec.scenario import Scenario


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", required=True, metavar="jsonl:CMD", help="the adapter")
    parser.add_argument(
        "--consumer", required=True, metavar="NAME|FILE", help="the consumer variant it models"
    )
    parser.add_argument(
        "--rules",
        default="kv-current",
        metavar="NAME|FILE",
        help="the producer's rule set (default kv-current)",
    )
    parser.add_argument(
        "--answer-timeout",
        type=seconds,
        default=10.0,
        metavar="S",
        help="seconds the adapter may take per answer (default 10)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--force",
        action="store_true",
        help="run even when the scenarios cannot be played within an hour on this machine "
        "(without it such a run stops and names the bounds that fit)",
    )
    add_progress_arguments(parser)
    add_scenario_bounds(parser)


def _sized(args: argparse.Namespace, target: ClientTarget, variant: ConsumerVariant,
           rules: RuleSet, bounds: Bounds) -> int | None:  # fmt: skip
    """The scenarios within ``bounds``; above ``IN_PROCESS_SCENARIOS``, the time expected
    at the rate of a sample (adapter and model), and a stop above an hour unless --force
    (``checker.adapter.size``)."""
    total = scenario_count(bounds)
    print(
        f"dcpcheck conform: {args.target} vs {variant.name} ({rules.name}) within "
        f"{bounds.describe()}: "
        + ("more than 10^30" if total is None else f"{total:,}")
        + " scenarios",
        file=sys.stderr,
        flush=True,
    )
    if total is not None and total <= IN_PROCESS_SCENARIOS:
        return total
    model = VariantClient(variant)
    client = target.start()

    def both(scenario: Scenario) -> None:
        with suppress(NotARun):
            play(client, scenario, rules, bounds.rounds, hello.rollback_mitigation, told=False)
        with suppress(NotARun):
            play(model, scenario, rules, bounds.rounds, bool(variant.rollback_mitigation),
                 told=False)  # fmt: skip

    try:
        hello = client.hello()
        rate = sampled_rate(bounds, both)
    except AdapterFault:
        return total  # the run meets it again and reports it
    finally:
        client.close()
    estimate = Estimate(total, rate)
    announce("dcpcheck conform", bounds, estimate, args.force)
    return total


def run(args: argparse.Namespace) -> int:
    target_command(args.target)
    bounds = scenario_bounds_from(args)
    variant = chosen(CONSUMERS, ConsumerVariant, [args.consumer])[0].item
    rules = chosen(RULE_SETS, RuleSet, [args.rules])[0].item
    target = ClientTarget(args.target, args.answer_timeout)
    tally = Tally(_sized(args, target, variant, rules, bounds))
    progress = Progress(1, "runs", quiet=args.quiet)
    progress.start("conform")
    try:
        report = conform(
            target, variant, rules, bounds, lambda n: progress.update("conform", tally.text(n))
        )
    finally:
        progress.close()
    if report.fault:
        print(f"unknown: {report.fault} (after {report.examined} scenarios; nothing is claimed)")
        return EXIT_UNKNOWN
    if args.json:
        print(
            json.dumps(
                {
                    "examined": report.examined,
                    "differing": report.differing,
                    "differences": [
                        {
                            "difference": d.describe(),
                            "question": d.question,
                            "fields": list(d.fields),
                            "client": d.client,
                            "model": d.variant,
                            "producer_answered": {"client": d.answered[0], "model": d.answered[1]},
                            "scenarios": report.scenarios[d.kind],
                            "scenario": scenario_to_json(s),
                            "every_difference": [e.describe() for e in every],
                        }
                        for s, d, every in report.shrunk
                    ],
                },
                indent=1,
            )
        )
    else:
        print(
            f"{report.examined} scenarios played; {report.differing} differ "
            f"({len(report.shrunk)} kind(s) of difference; requests the producer cannot tell "
            "apart within the bounds are the same)"
        )
        for n, (scenario, difference, every) in enumerate(report.shrunk, start=1):
            print(
                f"\ndifference {n}: {difference.describe()} "
                f"(in {report.scenarios[difference.kind]:,} scenarios)"
            )
            if len(every) > 1:
                print("    every difference in the smallest such scenario:")
                print("\n".join(f"      {d.describe()}" for d in every))
            trace = play(
                VariantClient(variant),
                scenario,
                rules,
                bounds.rounds,
                bool(variant.rollback_mitigation),
            ).trace
            story = run_of(trace)
            lines = [
                *story.init_lines,
                *(s.narration for s in story.steps if s.narration),
                *story.end_lines,
            ]
            print("    the model's run of the smallest such scenario:")
            print("\n".join(f"    {line}" for line in lines))
    return EXIT_VIOLATION if report.differing else EXIT_OK
