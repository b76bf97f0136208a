"""Replay regression vectors against an implementation of the producer decision.

    dcpcheck replay [VECTORS...] --target T [--expect RULES] [--json] [--timeout S]
    dcpcheck replay --target T COUNTEREXAMPLE.json...
    dcpcheck replay --client jsonl:CMD COUNTEREXAMPLE.json...

VECTORS are vector directories (holding vectors.json) or vectors.json files;
without any, the vectors shipped with dcpcheck (the repository's
counterexamples/vectors, installed with the package).
Targets:

  rules:NAME|FILE   a rule set, in process
  reference:NAME    dcpcheck's hand-written reference producer, in process
  humpty:CMD        a command speaking kv_engine's humpty_dumpty interface
                    (CMD TABLE.json HIGH PURGE, requests on stdin); vectors it
                    cannot express (strict, ignore_purged, remote purge,
                    collections, end seqno) are skipped and counted
  jsonl:CMD         a command speaking the JSON-lines protocol (docs/targets.md)

With ``--target T`` and single-node counterexample files (``dcpcheck
review`` writes one per safety regression it confirms on a build; any
``check`` file too), each file's scenario is run on the reference
implementation with T answering every decision of the final producer, the
file's consumer, bounds and property: exit 1 if the property is still
violated, 0 if no longer (a fixed build), 3 if T crashed, hung, answered
garbage or cannot be asked a request of the run.

With ``--client jsonl:CMD``, each FILE is a single-node counterexample and CMD a
client adapter (docs/client-targets.md): the client plays the consumer in the
file's scenario; exit 1 if it violates the file's property, 0 if not, 3 if the
adapter crashed, hung or answered garbage.

CMD may carry arguments (quote the whole --target). Each vector passes or
fails; a target that crashes, hangs past --timeout or prints garbage is
reported as such for that vector, never as a pass. A wrong answer is judged
as ``dcpcheck review`` and ``diff`` judge it (the expected rule set, except
where the target answered otherwise, classified in resume scenarios with
correct and collapse-snapshot; docs/vectors.md): it breaks a safety property,
or costs only (rolls back more or deeper than needed), or differs and breaks
no property, or is not judged (no scenario within the bounds reaches it).
Exit 1 if a target did not answer, or a wrong answer breaks a safety property
or is not judged; a cost-only answer fails with --fail-on cost, any wrong
answer with --fail-on any; else 0.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabulate import tabulate

from checker.inputs import parse_seconds
from checker.vectors.format import SHIPPED, load_corpus
from checker.vectors.replay import (
    JUDGEMENTS,
    STATUSES,
    Report,
    VectorResult,
    choose_expectations,
    replay,
)
from checker.vectors.targets import TARGET_FORMS, parse_target
from spec.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, InvalidInput, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "vectors",
        nargs="*",
        metavar="VECTORS",
        help="vector dirs or files (default: the vectors shipped with dcpcheck, the "
        "repository's counterexamples/vectors)",
    )
    parser.add_argument("--target", metavar="T", help=TARGET_FORMS)
    parser.add_argument(
        "--client",
        metavar="jsonl:CMD",
        help="replay counterexample files on a client adapter (docs/client-targets.md)",
    )
    parser.add_argument(
        "--expect",
        metavar="RULES",
        help="whose answers the target must give (default: the target's rule set, else kv-current)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.add_argument(
        "--timeout", default="10", metavar="S", help="seconds per target invocation (default 10)"
    )
    parser.add_argument(
        "--vector", action="append", default=[], metavar="ID", help="replay only this vector"
    )
    parser.add_argument(
        "--fail-on",
        choices=("safety", "cost", "any"),
        default="safety",
        help="vectors: exit 1 on a wrong answer that breaks a safety property or is not judged "
        "(default), on a cost-only one too (cost), or on any wrong answer (any)",
    )


def run(args: argparse.Namespace) -> int:
    timeout = parse_seconds(args.timeout, "--timeout")
    if args.client:
        if not args.vectors:
            raise UsageError("dcpcheck replay --client: name the counterexample files to replay")
        return _replay_client(args.client, args.vectors, timeout)
    if not args.target:
        raise UsageError("dcpcheck replay: --target or --client is required")
    args.vectors = args.vectors or [str(SHIPPED)]
    for path in args.vectors:
        if not Path(path).exists():
            raise InvalidInput(
                path,
                "no such file or directory (the vectors of the repository's "
                "counterexamples/vectors ship with dcpcheck: leave VECTORS out to replay them)",
            )
    stored = [_is_counterexample(path) for path in args.vectors]
    if any(stored):
        if not all(stored):
            raise UsageError(
                "dcpcheck replay: give vector corpora or counterexample files, not both"
            )
        if args.vector or args.expect or args.json or args.fail_on != "safety":
            raise UsageError(
                "dcpcheck replay: --vector, --expect, --json and --fail-on are for vectors, "
                "not counterexample files"
            )
        return _replay_on_target(args.target, args.vectors, timeout)
    corpora = [load_corpus(path) for path in args.vectors]
    known = {v.id for c in corpora for v in c.vectors}
    for wanted in args.vector:
        if wanted not in known:
            raise InvalidInput("--vector", f"no vector {wanted!r} in {', '.join(args.vectors)}")
    target = parse_target(args.target, timeout)
    expect = choose_expectations(corpora, target, args.expect)
    report = replay(corpora, target, expect, args.vector)
    if any(r.status == "fail" for r in report.results):
        report.results = _judged(report, expect)
    failing = [r for r in report.results if r.fails(args.fail_on)]
    if args.json:
        print(json.dumps(_json(report, args.fail_on), indent=1))
    else:
        _print(report, args.target, args.fail_on)
    return EXIT_VIOLATION if failing else EXIT_OK


def _judged(report: Report, expect: str) -> list[VectorResult]:
    """Every wrong answer judged as review and diff judge it (checker.review.judge)."""
    from checker.review.judge import judge
    from spec.consumers import CONSUMERS, TEXTBOOK
    from spec.rules import RULE_SETS

    consumers = [CONSUMERS.get(name) for name in TEXTBOOK]
    return judge(report.results, RULE_SETS.get(expect), consumers)


def _is_counterexample(path: str) -> bool:
    """Whether ``path`` names a counterexample file (a vector corpus otherwise)."""
    from checker.corpus import CLUSTER_FORMAT, SCENARIO_FORMAT
    from checker.inputs import load_json

    if not (path.endswith(".json") and Path(path).is_file()):
        return False
    data = load_json(path)
    return isinstance(data, dict) and data.get("format") in (SCENARIO_FORMAT, CLUSTER_FORMAT)


def _replay_on_target(spec: str, files: list[str], timeout: float) -> int:
    from checker.review.confirm import replay_on_target

    target = parse_target(spec, timeout)

    def one(path: str) -> tuple[int, str]:
        found = replay_on_target(path, target)
        differs = (
            f" (answering differently from the file: {found.differs})" if found.differs else ""
        )
        if found.fault:
            return EXIT_UNKNOWN, f"UNKNOWN  {path}: {spec}: {found.fault}"
        if found.violated:
            return (
                EXIT_VIOLATION,
                f"VIOLATED {path}: {found.property} on {spec}: {found.explanation}{differs}",
            )
        return EXIT_OK, (
            f"HOLDS    {path}: {found.property} no longer violated: {spec} answers this "
            f"scenario safely{differs}"
        )

    return _each_file(files, one)


def _replay_client(target: str, files: list[str], timeout: float) -> int:
    from checker.adapter.check import ClientTarget, replay_client
    from checker.adapter.client import target_command

    target_command(target)

    def one(path: str) -> tuple[int, str]:
        found = replay_client(ClientTarget(target, timeout), path)
        if found.fault:
            return EXIT_UNKNOWN, f"UNKNOWN  {path}: {found.fault}"
        if found.violated:
            return EXIT_VIOLATION, f"VIOLATED {path}: {found.property}: {found.explanation}"
        return EXIT_OK, (
            f"HOLDS    {path}: the client does not violate {found.property} here"
            + (f" ({found.explanation})" if found.explanation else "")
        )

    return _each_file(files, one)


def _each_file(files: list[str], one: Callable[[str], tuple[int, str]]) -> int:
    """Replay every file with ``one`` (its exit code and line), printing each line: exit 3
    if any replay could not be judged, else 1 if any is still violated, else 0."""
    codes: set[int] = set()
    for path in files:
        code, line = one(path)
        print(line)
        codes.add(code)
    for worst in (EXIT_UNKNOWN, EXIT_VIOLATION):
        if worst in codes:
            return worst
    return EXIT_OK


def _json(report: Report, fail_on: str) -> dict[str, Any]:
    return {
        "target": report.target,
        "expect": report.expect,
        "summary": report.counts,
        "judged": _judged_counts(report),
        "fail_on": fail_on,
        "failed": sum(r.fails(fail_on) for r in report.results),
        "results": [r.to_json() for r in report.results],
    }


def _judged_counts(report: Report) -> dict[str, int]:
    kinds = [r.judgement.kind for r in report.results if r.judgement is not None]
    return {kind: kinds.count(kind) for kind in JUDGEMENTS}


def _line(result: VectorResult) -> str:
    status = result.status.upper()
    text = f"{status:<8}{result.vector.id}  {result.clause:<18} {result.property}"
    if result.status == "fail":
        judged = result.judgement
        said = (
            judged.text
            if judged is not None
            else "breaks " + ", ".join((result.property, *result.also_broken))
        )
        text = f"{status:<8}{result.vector.id}  {result.clause:<18} {said}: {result.detail}"
    elif result.status != "pass":
        text += f"  ({result.detail})"
    return text


def _print(report: Report, target: str, fail_on: str) -> None:
    out = sys.stdout
    print(f"replaying against {report.target}, expecting {report.expect}'s answers", file=out)
    for result in report.results:
        print(_line(result), file=out)
        if result.failed:  # why the vector exists: the goal, place or mutant it was made for
            print(f"{'':8}made for {result.vector.origin}", file=out)
    counts = report.counts
    print(tabulate([[s, counts[s]] for s in STATUSES], headers=["status", "vectors"]), file=out)
    judged = _judged_counts(report)
    if any(judged.values()):
        within = next(r.judgement.within for r in report.results if r.judgement is not None)
        print(
            f"wrong answers, judged as review and diff judge them (within {within}): "
            f"{judged['safety']} break a safety property, {judged['cost']} cost only, "
            f"{judged['none']} break no property, {judged['unjudged']} not judged",
            file=out,
        )
    failures = [r for r in report.results if r.fails(fail_on)]
    asked = "" if fail_on == "safety" else f" --fail-on {fail_on}"
    for result in failures[:20]:
        print(
            f"reproduce {result.vector.id}: dcpcheck replay {shlex.quote(result.file)} "
            f"--target {shlex.quote(target)} --expect {report.expect} --vector {result.vector.id}"
            f"{asked}",
            file=out,
        )
    wrong = [r for r in report.results if r.failed]
    verdict = "FAILED" if failures else "passed"
    others = f" ({len(wrong) - len(failures)} of them not failing with --fail-on {fail_on})"
    print(
        f"replay {verdict}: {counts['pass']} passed, {len(wrong)} did not"
        f"{others if len(wrong) > len(failures) else ''}, "
        f"{counts['skip']} skipped, of {len(report.results)} vectors",
        file=out,
    )
