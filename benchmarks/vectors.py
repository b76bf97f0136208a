"""Regression vectors: replay speed per target, generation, kill rates, the guarantee.

1. Vectors per second replayed through each target, side by side in one run:
   in process (``rules:``, ``reference:``) and as subprocesses
   (``humpty:`` and ``jsonl:`` running tests/data's Python targets), with the
   ratio to ``rules:``. humpty's skipped vectors are not counted as replayed.
2. Generation (the whole pipeline, neighbourhood phase included), twice:
   time, number of vectors (humpty-expressible ones), whether the two runs
   are byte-identical, and the number of inputs an exhaustive enumeration
   would need at the same bounds.
3. Kill rate of the checked-in corpus and of the baseline transcribed from
   kv_engine's unit tests, each also as a humpty: target sees it (its
   humpty-expressible vectors, against the mutants such inputs can tell apart).
4. The guarantee (every rule set one change away exposed) for the checked-in
   corpus and the baseline, through humpty and for all inputs: verdict, the
   places proved, and the time Z3 takes.
"""

from __future__ import annotations

import shlex
import sys
import time
from math import comb
from pathlib import Path

from tabulate import tabulate

from checker.symbolic.budget import Budget
from checker.vectors.baseline import baseline_corpus
from checker.vectors.format import Corpus, dump_corpus, load_corpus
from checker.vectors.generate import VECTORS_BUDGET, generate
from checker.vectors.guarantee import prove
from checker.vectors.readable import READABLE_UUIDS
from checker.vectors.replay import replay
from checker.vectors.score import score
from checker.vectors.targets import parse_target
from spec.failover_table import UINT64_MAX
from spec.rules import RULE_SETS, DecisionSpace

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "counterexamples" / "vectors"
DATA = ROOT / "tests" / "data"


def _targets() -> list[tuple[str, str]]:
    python = shlex.quote(sys.executable)
    humpty = shlex.quote(str(DATA / "humpty_target.py"))
    jsonl = shlex.quote(str(DATA / "jsonl_target.py"))
    return [
        ("rules:kv-current (in process)", "rules:kv-current"),
        ("reference:kv-current (in process)", "reference:kv-current"),
        ("humpty: tests/data/humpty_target.py", f"humpty:{python} {humpty}"),
        ("jsonl: tests/data/jsonl_target.py", f"jsonl:{python} {jsonl}"),
    ]


def replay_speed(corpus: Corpus, repeats: int) -> None:
    rows = []
    base = None
    for label, spec in _targets():
        target = parse_target(spec, 30)
        replay([corpus], target, "kv-current")  # warm up: compile, start caches
        started = time.perf_counter()
        report = replay([corpus] * repeats, target, "kv-current")
        seconds = time.perf_counter() - started
        counts = report.counts
        assert counts["fail"] == counts["crash"] == counts["timeout"] == counts["garbage"] == 0
        replayed = counts["pass"]
        rate = replayed / seconds
        base = base or rate
        rows.append([label, replayed, counts["skip"], f"{rate:,.0f}", f"{base / rate:,.1f}x"])
    print(f"replay of {len(corpus.vectors)} vectors x {repeats}")
    print(
        tabulate(rows, headers=["target", "replayed", "skipped", "vectors/s", "slower than rules:"])
    )


def exhaustive_inputs(entries: int, top: int, humpty_only: bool) -> int:
    """Well-formed inputs with <= ``entries`` table entries (uuids from 5, repeats allowed) and
    seqnos <= ``top``."""
    values = top + 1
    producers = sum(
        len(READABLE_UUIDS) ** length
        * sum(comb(high + length, length) * (high + 1) for high in range(values))
        for length in range(1, entries + 1)
    )
    requests = (len(READABLE_UUIDS) + 1) * values**3
    if not humpty_only:
        # end in [0, top] or 2^64-1; strict; ignore_purged; remote purge; collection (or none)
        requests *= (values + 1) * 2 * 2 * values * (values + 1)
    return producers * requests


def generation(entries: int) -> Corpus:
    rule_sets = list(RULE_SETS)
    times, dumps = [], []
    for _ in range(2):
        started = time.perf_counter()
        corpus = generate(rule_sets, DecisionSpace(entries), [], None, "benchmark", VECTORS_BUDGET)
        times.append(time.perf_counter() - started)
        dumps.append(dump_corpus(corpus))
    seconds = min(times)
    humpty = sum(1 for v in corpus.vectors if v.request.humpty_expressible)
    print(
        f"generated twice: {times[0]:.0f}s and {times[1]:.0f}s, "
        f"{'byte-identical' if dumps[0] == dumps[1] else 'DIFFERENT'}; "
        f"{len(corpus.vectors)} vectors, {humpty} humpty-expressible; guarantee {corpus.guarantee}"
    )
    small = [
        s
        for v in corpus.vectors
        for s in (v.request.start, v.request.snap_end, v.producer.high_seqno)
        if s < 2**32
    ]
    top = max(small)
    near_max = sum(
        1
        for v in corpus.vectors
        if max(v.request.start, v.request.snap_end, v.producer.high_seqno) > UINT64_MAX - 2**32
    )
    rows = [
        [
            f"{entries} entries, seqnos <= {top}",
            len(corpus.vectors),
            f"{exhaustive_inputs(entries, top, True):.2e}",
            f"{exhaustive_inputs(entries, top, False):.2e}",
        ],
        [
            f"{entries} entries, seqnos <= 16",
            len(corpus.vectors),
            f"{exhaustive_inputs(entries, 16, True):.2e}",
            f"{exhaustive_inputs(entries, 16, False):.2e}",
        ],
    ]
    print(
        f"generation for {', '.join(corpus.rules)}: {seconds:.1f}s, {len(corpus.vectors)} vectors "
        f"({near_max} use seqnos near 2^64, outside any small bound)"
    )
    print(
        tabulate(
            rows, headers=["bounds", "generated", "exhaustive (humpty fields)", "exhaustive (all)"]
        )
    )
    return corpus


def kill_rates(corpus: Corpus) -> None:
    baseline = baseline_corpus(list(RULE_SETS)).vectors
    rows = []
    print("kill rates (mutants of every operator; equivalent ones proved by Z3):")
    for rules in RULE_SETS:
        for label, vectors, humpty_only in (
            ("checked-in corpus", corpus.vectors, False),
            ("  as a humpty: target sees it", corpus.vectors, True),
            ("kv_engine unit-test baseline", baseline, False),
            ("  as a humpty: target sees it", baseline, True),
        ):
            longest = max(len(v.producer.table) for v in vectors)
            result = score(
                vectors,
                rules,
                DecisionSpace(max(3, longest)),
                Budget(VECTORS_BUDGET),
                None,
                humpty_only,
            )
            rows.append(
                [
                    rules.name,
                    label,
                    len(vectors)
                    if not humpty_only
                    else sum(1 for v in vectors if v.request.humpty_expressible),
                    len(result.verdicts),
                    result.count("equivalent"),
                    f"{result.count('killed')}/{result.killable}",
                    f"{100 * result.kill_rate:.1f}%",
                ]
            )
    headers = ["rules", "vector set", "vectors", "mutants", "equivalent", "killed", "kill rate"]
    print(tabulate(rows, headers=headers))


def guarantees(corpus: Corpus) -> None:
    baseline = baseline_corpus(list(RULE_SETS)).vectors
    rows = []
    for rules in RULE_SETS:
        for label, vectors in (("checked-in corpus", corpus.vectors), ("baseline", baseline)):
            inputs = [(v.request, v.producer) for v in vectors]
            longest = max(len(v.producer.table) for v in vectors)
            space = DecisionSpace(max(3, longest))
            for humpty_only in (True, False):
                started = time.perf_counter()
                result = prove(inputs, rules, space, humpty_only, Budget(VECTORS_BUDGET))
                seconds = time.perf_counter() - started
                verdict = "proved" if result.holds else "does not hold"
                rows.append(
                    [
                        rules.name,
                        label,
                        "humpty" if humpty_only else "all",
                        space.table_entries,
                        f"{result.members:,}",
                        f"{result.count('proved')}/{len(result.verdicts)}",
                        verdict,
                        f"{seconds:.1f}",
                    ]
                )
    print("the guarantee: every rule set one change away is exposed (Z3, one query per place)")
    headers = ["rules", "vector set", "inputs", "T", "class", "places", "verdict", "seconds"]
    print(tabulate(rows, headers=headers))


def run(quick: bool) -> None:
    corpus = load_corpus(CORPUS)
    replay_speed(corpus, 1 if quick else 10)
    print()
    if not quick:
        generation(3)
        print()
    kill_rates(corpus)
    print()
    guarantees(corpus)
