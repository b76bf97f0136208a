"""Regression vectors: generate a small set with full decision coverage, and score it.

    dcpcheck vectors generate [--rules NAME|FILE ...] --out DIR
    dcpcheck vectors score DIR --rules NAME|FILE
    dcpcheck vectors baseline --out DIR

``generate`` asks Z3 for inputs covering, per rule set, every clause, every
boundary of every comparison (equal, one below, one above), every snapshot
adjustment on and off, every table position and every confirmed
counterexample in --counterexamples, then tops the set up until it kills
every non-equivalent built-in mutant. It writes DIR/vectors.json (the
corpus), DIR/humpty/ (humpty_dumpty table and stdin files) and DIR/itf/
(one ITF trace per vector), all at once.

``score`` replays the vectors against every mutant of the rule set, proves
the unkilled ones equivalent with Z3 or reports them, and prints the kill
rate. ``baseline`` writes the vectors transcribed from kv_engine's
failover-table unit tests, to compare against. See docs/vectors.md.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from tabulate import tabulate

from checker.inputs import parse_seconds
from checker.loading import resolve
from checker.vectors.baseline import baseline_corpus
from checker.vectors.counterexamples import load_counterexamples
from checker.vectors.format import (
    Answer,
    corpus_path,
    load_corpus,
)
from checker.vectors.generate import generate
from checker.vectors.outputs import render, write_tree
from checker.vectors.score import VERDICTS, Score, score
from spec.errors import EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, InvalidInput
from spec.rules import RULE_SETS, Decider, RuleSet

MAX_TABLE_ENTRIES = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    gen = actions.add_parser("generate", help="generate the vector set", **_help(parser))
    gen.add_argument(
        "--rules",
        action="append",
        metavar="NAME|FILE",
        help="rule set to cover (repeat; default: every built-in one)",
    )
    gen.add_argument("--out", required=True, metavar="DIR", help="directory to (re)write")
    gen.add_argument(
        "--table-entries", default="3", metavar="T", help="failover table size bound (default 3)"
    )
    gen.add_argument(
        "--counterexamples",
        default="counterexamples",
        metavar="DIR",
        help="confirmed counterexamples (*.json with 'decisions'); default counterexamples",
    )
    gen.add_argument("--timeout", default="600", metavar="S", help="solver time budget, seconds")
    gen.set_defaults(action_run=run_generate)

    sc = actions.add_parser("score", help="mutation score of a vector set", **_help(parser))
    sc.add_argument("vectors", metavar="DIR|FILE", help="a vector directory or vectors.json")
    sc.add_argument("--rules", required=True, metavar="NAME|FILE", help="rule set to mutate")
    sc.add_argument(
        "--table-entries", default="3", metavar="T", help="table size bound for equivalence proofs"
    )
    sc.add_argument("--timeout", default="300", metavar="S", help="solver time budget, seconds")
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


def _help(parser: argparse.ArgumentParser) -> dict:
    return {
        "description": __doc__,
        "epilog": parser.epilog,
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


def run(args: argparse.Namespace) -> int:
    return int(args.action_run(args))


def _positive(text: str, where: str, kind: type, upper: float | None = None) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        raise InvalidInput(where, f"expected a positive number, got {text!r}") from None
    if value <= 0 or (upper is not None and value > upper):
        bound = f" and at most {upper:g}" if upper is not None else ""
        raise InvalidInput(where, f"must be positive{bound}, got {text}")
    return value


def _rule_sets(names: list[str] | None) -> list[RuleSet]:
    chosen = [resolve(RULE_SETS, RuleSet, n) for n in names] if names else list(RULE_SETS)
    seen: set[str] = set()
    for rules in chosen:
        if rules.name in seen:
            raise InvalidInput("--rules", f"rule set '{rules.name}' is given twice")
        seen.add(rules.name)
    return chosen


def run_generate(args: argparse.Namespace) -> int:
    rule_sets = _rule_sets(args.rules)
    entries = int(_positive(args.table_entries, "--table-entries", int, MAX_TABLE_ENTRIES))
    timeout = parse_seconds(args.timeout, "--timeout")
    counterexamples = load_counterexamples(Path(args.counterexamples), rule_sets)
    command = " ".join(
        [
            "dcpcheck vectors generate",
            *(f"--rules {shlex.quote(text)}" for text in args.rules or [r.name for r in rule_sets]),
            f"--table-entries {entries}",
            f"--counterexamples {shlex.quote(args.counterexamples)}",
        ]
    )
    corpus = generate(rule_sets, entries, counterexamples, timeout, command)
    write_tree(Path(args.out), render(corpus, rule_sets))
    print(
        f"wrote {len(corpus.vectors)} vectors ({len(counterexamples)} from counterexamples, "
        f"{len(corpus.unreachable)} goals unreachable) to {args.out}"
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
    entries = int(_positive(args.table_entries, "--table-entries", int, MAX_TABLE_ENTRIES))
    timeout = parse_seconds(args.timeout, "--timeout")
    corpus = load_corpus(args.vectors)
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
    result = score(corpus.vectors, rules, entries, timeout, args.humpty_only)
    vectors = [v for v in corpus.vectors if v.request.humpty_expressible or not args.humpty_only]
    _print_score(result, corpus_path(args.vectors), len(vectors), args.humpty_only)
    if result.count("survived"):
        return EXIT_VIOLATION
    if result.count("unknown"):
        return EXIT_UNKNOWN
    return EXIT_OK


def _print_score(result: Score, path: Path, vectors: int, humpty_only: bool) -> None:
    which = "humpty-expressible vectors" if humpty_only else "vectors"
    print(f"mutants of {result.rules} replayed on {vectors} {which} of {path}")
    if humpty_only:
        print("(equivalent: no humpty-expressible input tells the mutant apart)")
    rows = result.by_operator()
    rows.append(["total", len(result.verdicts), *(result.count(k) for k in VERDICTS)])
    print(tabulate(rows, headers=["operator", "mutants", *VERDICTS]))
    killed, killable = result.count("killed"), result.killable
    print(
        f"kill rate: {killed}/{killable} non-equivalent mutants killed "
        f"({100.0 * result.kill_rate:.1f}%)"
    )
    for verdict in result.verdicts:
        if verdict.verdict == "survived" and verdict.witness is not None:
            req, producer = verdict.witness
            vector = json.dumps({"producer": producer.to_json(), "request": req.to_json()})
            print(
                f"survived {verdict.mutant.id}: {verdict.mutant.description}; "
                f"a vector that kills it: {vector}"
            )
        elif verdict.verdict == "unknown":
            print(f"unknown {verdict.mutant.id}: {verdict.mutant.description} (solver timeout)")
