"""Regression vectors: generate a small set that exposes every rule set one change away.

    dcpcheck vectors generate [--rules NAME|FILE ...] --out DIR
                              [--counterexamples FILE ...] [--table-entries T] [--distinct-uuids]
    dcpcheck vectors score DIR --rules NAME|FILE [--humpty-only]
                              [--table-entries T] [--distinct-uuids]
    dcpcheck vectors baseline --out DIR

``generate`` asks Z3 for inputs covering, per rule set, every clause, every
boundary of every comparison (equal, one below, one above), every snapshot
adjustment on and off, every table position and every confirmed
counterexample decision in the --counterexamples files; then adds vectors
until Z3 proves that every rule set one change away from each rule set (any
comparison, returned quantity, step position, adjustment, new clause, table
scan) that answers some input differently answers some vector differently
too, through humpty_dumpty first; then tops the set up until it kills every
non-equivalent built-in mutant. It writes DIR/vectors.json (the corpus),
DIR/humpty/ (humpty_dumpty table and stdin files) and DIR/itf/ (one ITF
trace per vector), all at once.

``score`` replays the vectors against every mutant of the rule set, proves
the unkilled ones equivalent with Z3 or reports them, prints the kill rate,
then proves (or refutes) the guarantee above for these vectors and prints it
with the class of rule sets it holds for. ``baseline`` writes the vectors
transcribed from kv_engine's failover-table unit tests, to compare against.
By default a failover table may repeat a uuid; --distinct-uuids assumes not.
See docs/vectors.md.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from tabulate import tabulate

from checker.arguments.common import add_repeatable
from checker.arguments.decision_space import add_space_arguments, space_from
from checker.inputs import parse_seconds
from checker.loading import resolve
from checker.symbolic.budget import MILLION, Budget
from checker.vectors.baseline import baseline_corpus
from checker.vectors.counterexamples import load_counterexamples
from checker.vectors.format import (
    Answer,
    corpus_path,
    load_corpus,
)
from checker.vectors.generate import VECTORS_BUDGET, generate
from checker.vectors.guarantee import Guarantee, prove
from checker.vectors.outputs import check_out, render, write_tree
from checker.vectors.score import VERDICTS, WITNESSES, Score, score
from spec.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, InvalidInput
from spec.rules import RULE_SETS, Decider, DecisionSpace, RuleSet
from spec.types import ProducerState, StreamRequest


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    gen = actions.add_parser("generate", help="generate the vector set", **_help(parser))
    add_repeatable(
        gen, "--rules", "NAME|FILE", "rule set to cover (repeat; default: every built-in one)"
    )
    gen.add_argument("--out", required=True, metavar="DIR", help="directory to (re)write")
    add_space_arguments(gen, "inputs covered")
    gen.add_argument(
        "--counterexamples",
        nargs="+",
        default=[],
        metavar="FILE",
        help="confirmed counterexample files (*.json with 'decisions') to turn into vectors; "
        "named one by one, so nothing else in their directory changes the output",
    )
    gen.add_argument(
        "--no-guarantee",
        action="store_true",
        help="skip the neighbourhood phase: faster, but the set then guarantees only its "
        "goals and the built-in mutants (docs/vectors.md)",
    )
    _add_limits(gen)
    gen.set_defaults(action_run=run_generate)

    sc = actions.add_parser("score", help="mutation score of a vector set", **_help(parser))
    sc.add_argument("vectors", metavar="DIR|FILE", help="a vector directory or vectors.json")
    sc.add_argument("--rules", required=True, metavar="NAME|FILE", help="rule set to mutate")
    add_space_arguments(sc, "equivalence proofs and the guarantee")
    _add_limits(sc)
    sc.add_argument(
        "--humpty-only",
        action="store_true",
        help="score what a humpty: target sees (humpty-expressible vectors and inputs only)",
    )
    sc.set_defaults(action_run=run_score)

    base = actions.add_parser(
        "baseline",
        help="write the vectors of kv_engine's failover-table unit tests",
        **_help(parser),
    )
    base.add_argument("--out", required=True, metavar="DIR", help="directory to (re)write")
    base.set_defaults(action_run=run_baseline)


def _add_limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--budget",
        default=str(VECTORS_BUDGET // MILLION),
        metavar="M",
        help="Z3 work allowed, millions of resource units (deterministic; 0: no limit)",
    )
    parser.add_argument(
        "--timeout", default=None, metavar="S", help="outer wall-clock guard, seconds"
    )


def _help(parser: argparse.ArgumentParser) -> dict[str, Any]:
    return {
        "description": __doc__,
        "epilog": parser.epilog,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def run(args: argparse.Namespace) -> int:
    return int(args.action_run(args))


def _positive(
    text: str, where: str, kind: type[int] | type[float], upper: float | None = None
) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        raise InvalidInput(where, f"expected a positive number, got {text!r}") from None
    if value <= 0 or (upper is not None and value > upper):
        bound = f" and at most {upper:g}" if upper is not None else ""
        raise InvalidInput(where, f"must be positive{bound}, got {text}")
    return value


def _limits(args: argparse.Namespace) -> tuple[float | None, int | None]:
    """(--timeout seconds or None, --budget in resource units or None for no limit)."""
    timeout = None if args.timeout is None else parse_seconds(args.timeout, "--timeout")
    if args.budget == "0":
        return timeout, None
    return timeout, int(_positive(args.budget, "--budget", float) * MILLION)


def _rule_sets(names: list[str] | None) -> list[RuleSet]:
    chosen = [resolve(RULE_SETS, RuleSet, n) for n in names] if names else list(RULE_SETS)
    seen: set[str] = set()
    for rules in chosen:
        if rules.name in seen:
            raise InvalidInput("--rules", f"rule set '{rules.name}' is given twice")
        seen.add(rules.name)
    return chosen


def run_generate(args: argparse.Namespace) -> int:
    check_out(Path(args.out))
    rule_sets = _rule_sets(args.rules)
    space = space_from(args)
    timeout, budget = _limits(args)
    files = sorted({Path(f) for f in args.counterexamples}, key=lambda p: (p.name, str(p)))
    counterexamples = load_counterexamples(files, rule_sets)
    command = " ".join(
        [
            "dcpcheck vectors generate",
            *(f"--rules {shlex.quote(text)}" for text in args.rules or [r.name for r in rule_sets]),
            f"--table-entries {space.table_entries}",
            *(["--distinct-uuids"] if space.distinct_uuids else []),
            *(["--no-guarantee"] if args.no_guarantee else []),
            *(["--counterexamples", *(shlex.quote(str(f)) for f in files)] if files else []),
        ]
    )
    started = time.perf_counter()
    corpus = generate(
        rule_sets,
        space,
        counterexamples,
        timeout,
        command,
        budget,
        guarantee=not args.no_guarantee,
    )
    write_tree(Path(args.out), render(corpus, rule_sets))
    humpty = sum(1 for v in corpus.vectors if v.request.humpty_expressible)
    print(
        f"wrote {len(corpus.vectors)} vectors ({humpty} humpty-expressible, "
        f"{len(counterexamples)} from counterexamples, {len(corpus.unreachable)} goals "
        f"unreachable) to {args.out} in {time.perf_counter() - started:.0f}s"
    )
    for name, verdicts in corpus.guarantee.items():
        print(
            f"{name}: every rule set one change away is exposed "
            f"(through humpty: {verdicts['humpty']}; all inputs: {verdicts['all']})"
        )
    return EXIT_OK


def run_baseline(args: argparse.Namespace) -> int:
    rule_sets = list(RULE_SETS)
    corpus = baseline_corpus(rule_sets)
    write_tree(Path(args.out), render(corpus, rule_sets))
    print(f"wrote {len(corpus.vectors)} baseline vectors to {args.out}")
    return EXIT_OK


def run_score(args: argparse.Namespace) -> int:
    rules = resolve(RULE_SETS, RuleSet, args.rules)
    timeout, units = _limits(args)
    corpus = load_corpus(args.vectors)
    longest = max((len(v.producer.table) for v in corpus.vectors), default=1)
    space = space_from(args, at_least=longest)
    decider = Decider(rules)
    stale = [
        v.id
        for v in corpus.vectors
        if rules.name in v.expected
        and v.expected[rules.name].answer != Answer.of(decider.decide(v.request, v.producer))
    ]
    if stale:
        print(
            f"warning: {corpus.path}: {len(stale)} vectors expect other answers than "
            f"{rules.name} gives now (e.g. {stale[0]}); the corpus may be stale",
            file=sys.stderr,
        )
    # One budget (and one wall-clock guard) for the score and the guarantee together.
    budget = Budget(units)
    deadline = None if timeout is None else time.monotonic() + timeout
    result = score(corpus.vectors, rules, space, budget, deadline, args.humpty_only)
    vectors = [v for v in corpus.vectors if v.request.humpty_expressible or not args.humpty_only]
    _print_score(result, corpus_path(args.vectors), len(vectors), args.humpty_only, space)
    inputs = [(v.request, v.producer) for v in corpus.vectors]
    guarantee = prove(inputs, rules, space, args.humpty_only, budget, deadline)
    _print_guarantee(guarantee)
    if result.count("survived") or guarantee.count("survived"):
        return EXIT_VIOLATION
    if result.count("unknown") or guarantee.count("unknown"):
        return EXIT_UNKNOWN
    return EXIT_OK


def _print_score(
    result: Score, path: Path, vectors: int, humpty_only: bool, space: DecisionSpace
) -> None:
    which = "humpty-expressible vectors" if humpty_only else "vectors"
    print(f"mutants of {result.rules} replayed on {vectors} {which} of {path}")
    inputs = "humpty-expressible inputs" if humpty_only else "inputs"
    print(f"(equivalent: no {inputs} with {space.describe()} tells the mutant apart)")
    rows = result.by_operator()
    rows.append(["total", len(result.verdicts), *(result.count(k) for k in VERDICTS)])
    print(tabulate(rows, headers=["operator", "mutants", *VERDICTS]))
    killed, killable = result.count("killed"), result.killable
    print(
        f"kill rate: {killed}/{killable} non-equivalent mutants killed "
        f"({100.0 * result.kill_rate:.1f}%)"
    )
    repeated = result.repeated_uuids
    if repeated:
        ids = ", ".join(v.mutant.id for v in repeated)
        counted = "equivalent here" if space.distinct_uuids else "to be killed"
        print(
            f"{len(repeated)} of them differ only on tables that repeat a uuid ({counted}): {ids}"
        )
    for verdict in result.verdicts:
        m = verdict.mutant
        _print_finding(verdict.verdict, f"{m.id}: {m.description}", verdict.witness, "kills")
    if result.count("survived") > WITNESSES:
        print(f"(an input that kills it is shown for the first {WITNESSES} survivors)")


def _print_guarantee(guarantee: Guarantee) -> None:
    print()
    print(guarantee.statement())
    for verdict in guarantee.verdicts:
        what = f"({verdict.place}): {verdict.member}"
        _print_finding(verdict.verdict, what, verdict.witness, "exposes")


def _print_finding(
    verdict: str, what: str, witness: tuple[StreamRequest, ProducerState] | None, verb: str
) -> None:
    """One line per survivor (with the input that would catch it, if found) or unknown."""
    if verdict == "survived":
        label = "survived" if verb == "kills" else "not exposed"
        vector = "" if witness is None else f"; a vector that {verb} it: {_vector_json(witness)}"
        print(f"{label} {what}{vector}")
    elif verdict == "unknown":
        print(f"unknown {what} (the solver ran out of budget or time; nothing is claimed there)")


def _vector_json(witness: tuple[StreamRequest, ProducerState]) -> str:
    req, producer = witness
    return json.dumps({"producer": producer.to_json(), "request": req.to_json()})
