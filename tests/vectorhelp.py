"""Shared by the vector tests: paths, the external test targets, a generated corpus."""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import io
import json
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from checker.cli import main
from checker.vectors.format import Corpus, dump_corpus, load_corpus

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CORPUS = ROOT / "counterexamples" / "vectors"
BASELINE = ROOT / "counterexamples" / "baseline"
FIXTURE_COUNTEREXAMPLES = DATA / "counterexamples"
SEED001 = FIXTURE_COUNTEREXAMPLES / "seed001-decisions.json"

# A confirmed-counterexample decision that is not in seed001-decisions.json: if
# `vectors generate` read a file it was not given, this would become a vector.
STRAY_DECISION = {
    "rules": "kv-current",
    "request": {
        "uuid": 5555,
        "start": 10,
        "snap_start": 10,
        "snap_end": 10,
        "end": 2**64 - 1,
        "strict": False,
        "ignore_purged": False,
        "remote_purge": 0,
        "collection_high": None,
    },
    "producer": {"table": [{"id": 1111, "seq": 0}], "high_seqno": 20, "purge_seqno": 0},
    "decision": {
        "decision": "rollback",
        "rollback_seqno": 0,
        "case": "uuid-not-found",
        "reason": "not compared",
    },
    "property": "no-foreign-snapshot",
}


# The targets import only the standard library and their neighbours in tests/data: Python
# without ``site`` (-S) starts them in about 35 ms of CPU instead of 55 (no site-packages
# .pth files, the editable install's finder among them), and a humpty_dumpty replay
# starts one per producer state.
TARGET_PYTHON = [sys.executable, "-S"]


def humpty(*switches: str) -> str:
    """A ``humpty:`` target running tests/data/humpty_target.py with ``switches``."""
    argv = [*TARGET_PYTHON, str(DATA / "humpty_target.py"), *switches]
    return "humpty:" + shlex.join(argv)


def jsonl(*switches: str) -> str:
    argv = [*TARGET_PYTHON, str(DATA / "jsonl_target.py"), *switches]
    return "jsonl:" + shlex.join(argv)


@functools.cache
def workspace() -> Path:
    """A directory for this test run: ``counterexamples/`` holds seed001's decisions and a
    stray decision file that is never named on the command line."""
    work = Path(tempfile.mkdtemp(prefix="dcpcheck-vectors-"))
    atexit.register(shutil.rmtree, work, True)
    (work / "counterexamples").mkdir()
    shutil.copy(SEED001, work / "counterexamples" / SEED001.name)
    stray = {"decisions": [STRAY_DECISION]}
    (work / "counterexamples" / "stray.json").write_text(json.dumps(stray))
    return work


def generate_args(out: Path) -> list[str]:
    """kv-current without the neighbourhood phase (quick), seed001's decisions named."""
    counterexample = workspace() / "counterexamples" / SEED001.name
    return [
        "vectors",
        "generate",
        "--rules",
        "kv-current",
        "--no-guarantee",
        "--counterexamples",
        str(counterexample),
        "--out",
        str(out),
    ]


@functools.cache
def generated_dir() -> Path:
    """``generate_args`` run once per test run (with the stray file beside seed001's)."""
    out = workspace() / "generated"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(generate_args(out))
    assert code == 0, code
    return out


def generated() -> Corpus:
    return load_corpus(generated_dir())


def write_subset(corpus: Corpus, ids: list[str], path: Path) -> Path:
    """A corpus file holding only the vectors ``ids`` (in corpus order)."""
    vectors = tuple(v for v in corpus.vectors if v.id in ids)
    subset = dataclasses.replace(corpus, vectors=vectors)
    path.write_text(dump_corpus(subset))
    return path


def judge_once(monkeypatch, memo: dict | None = None) -> None:
    """Within one test, ``replay`` judges the same wrong answers once: a second replay whose
    target answered exactly as before (``--fail-on``, ``--json`` or text only change what
    is reported) reuses the first judgement, Z3's seconds included (``judge`` is
    deterministic: same answers, same judgement). ``memo``: a dict the tests of a module
    share, so their replays of one target judge its answers once."""
    from checker.commands import replay

    judged = replay._judged
    memo = {} if memo is None else memo

    def once(report, expect):
        key = (expect, repr(report.results))
        if key not in memo:
            memo[key] = judged(report, expect)
        return memo[key]

    monkeypatch.setattr(replay, "_judged", once)


def ask_once(monkeypatch, memo: dict) -> None:
    """``replay`` asks a target for its answers to the same vectors once per ``memo``: a
    later replay of the same target spec (``--fail-on``, ``--json`` or text only change
    what is reported) reuses the replies of the first, the target's subprocesses included
    (the test targets in tests/data answer the same input the same way every time; a
    humpty_dumpty target starts one process per producer state, about 2.5 CPU s a replay
    of the shipped vectors). ``memo``: a dict the tests of a module may share."""
    from checker.commands import replay

    parse = replay.parse_target

    def memoised(text: str, timeout: float):
        target = parse(text, timeout)
        ask = target.replies

        def replies(vectors):
            key = (target.spec, tuple(v.id for v in vectors))
            if key not in memo:
                memo[key] = ask(vectors)
            return list(memo[key])

        target.replies = replies
        return target

    monkeypatch.setattr(replay, "parse_target", memoised)
