"""Shared by the vector tests: paths, the external test targets, a generated corpus."""

from __future__ import annotations

import functools
import shlex
import sys
from pathlib import Path

from checker.vectors.counterexamples import load_counterexamples
from checker.vectors.format import Corpus, dump_corpus
from checker.vectors.generate import generate
from spec.rules import RULE_SETS

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CORPUS = ROOT / "counterexamples" / "vectors"
BASELINE = ROOT / "counterexamples" / "baseline"
FIXTURE_COUNTEREXAMPLES = DATA / "counterexamples"


def humpty(*switches: str) -> str:
    """A ``humpty:`` target running tests/data/humpty_target.py with ``switches``."""
    argv = [sys.executable, str(DATA / "humpty_target.py"), *switches]
    return "humpty:" + shlex.join(argv)


def jsonl(*switches: str) -> str:
    argv = [sys.executable, str(DATA / "jsonl_target.py"), *switches]
    return "jsonl:" + shlex.join(argv)


@functools.cache
def generated() -> Corpus:
    """Both built-in rule sets, with the fixture counterexamples (generated once per run)."""
    rule_sets = list(RULE_SETS)
    counterexamples = load_counterexamples(FIXTURE_COUNTEREXAMPLES, rule_sets)
    return generate(rule_sets, 3, counterexamples, 600, "test")


def write_subset(corpus: Corpus, ids: list[str], path: Path) -> Path:
    """A corpus file holding only the vectors ``ids`` (in corpus order)."""
    vectors = tuple(v for v in corpus.vectors if v.id in ids)
    subset = Corpus(corpus.rules, corpus.table_entries, corpus.command, vectors)
    path.write_text(dump_corpus(subset))
    return path
