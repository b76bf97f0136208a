"""The files a vector set is written as: the JSON corpus, humpty_dumpty inputs, ITF traces.

``render(corpus, rule_sets)`` returns every file (relative path -> text);
``write_tree`` writes them into a directory all at once: into a temporary
sibling first, then renamed into place, so a failure never leaves a half
written set behind.

* ``vectors.json`` — the corpus (``checker.vectors.format``);
* ``humpty/NN.table.json``, ``humpty/NN.in`` — one humpty_dumpty invocation
  per producer state (table, high seqno, purge seqno), stdin lines
  ``UUID SNAP_START SNAP_END START``; ``humpty/NN.RULES.expected`` is what
  humpty_dumpty prints under that rule set; ``humpty/check.sh`` runs them
  all through ``$HUMPTY`` and diffs. Only humpty-expressible vectors (no
  strict, ignore_purged, remote purge, collections, end seqno) are here;
* ``itf/ID.itf.json`` — one ITF trace (Apalache/Quint's Informal Trace
  Format) per vector: a single state holding the inputs and the expected
  decision per rule set.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from checker.humpty import format_decision, format_header
from checker.interrupt import uninterruptible
from checker.vectors.format import CORPUS_FILE, Corpus, Vector, dump_corpus
from spec.errors import InvalidInput
from spec.rules import Decider, RuleSet
from spec.types import ProducerState

__all__ = ["check_out", "humpty_groups", "itf_trace", "render", "write_tree"]

ITF_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
JS_SAFE = 2**53 - 1


def humpty_groups(vectors: Sequence[Vector]) -> list[tuple[ProducerState, list[Vector]]]:
    """Humpty-expressible vectors grouped by producer state, in order of first appearance."""
    groups: dict[ProducerState, list[Vector]] = {}
    for vector in vectors:
        if vector.request.humpty_expressible:
            groups.setdefault(vector.producer, []).append(vector)
    return list(groups.items())


def _humpty_files(corpus: Corpus, rule_sets: Sequence[RuleSet]) -> dict[str, str]:
    files: dict[str, str] = {}
    script = [
        "#!/bin/sh",
        "# Replay the humpty-expressible vectors through kv_engine's humpty_dumpty:",
        "#   HUMPTY=/path/to/humpty_dumpty sh check.sh",
        "# Each output is diffed against the kv-current (or first) rule set's expectation.",
        'cd "$(dirname "$0")" || exit 2',
        'HUMPTY="${HUMPTY:-humpty_dumpty}"',
        "status=0",
    ]
    deciders = [Decider(r) for r in rule_sets]
    reference = "kv-current" if "kv-current" in corpus.rules else corpus.rules[0]
    for number, (producer, vectors) in enumerate(humpty_groups(corpus.vectors), start=1):
        stem = f"{number:02d}"
        files[f"humpty/{stem}.table.json"] = json.dumps(producer.table.to_json(), indent=4) + "\n"
        files[f"humpty/{stem}.in"] = "".join(
            f"{v.request.uuid} {v.request.snap_start} {v.request.snap_end} {v.request.start}\n"
            for v in vectors
        )
        header = format_header(producer.high_seqno, producer.purge_seqno, producer.table, None)
        for decider in deciders:
            body = "".join(
                format_decision(v.request, decider.needs_rollback(v.request, producer))
                for v in vectors
            )
            files[f"humpty/{stem}.{decider.rules.name}.expected"] = header + body
        script.append(
            f'"$HUMPTY" {stem}.table.json {producer.high_seqno} {producer.purge_seqno} '
            f"< {stem}.in | diff -u {stem}.{reference}.expected - || status=1"
        )
    script.append('exit "$status"')
    files["humpty/check.sh"] = "\n".join(script) + "\n"
    return files


def _itf_int(value: int) -> Any:
    return value if value <= JS_SAFE else {"#bigint": str(value)}


def itf_trace(vector: Vector, source: str) -> dict[str, Any]:
    """One ITF trace of one state. ITF has no null: absent values read 0 (see docs)."""
    req, producer = vector.request, vector.producer
    state = {
        "#meta": {"index": 0},
        "producer": {
            "table": [{"id": _itf_int(e.uuid), "seq": _itf_int(e.seqno)} for e in producer.table],
            "high_seqno": _itf_int(producer.high_seqno),
            "purge_seqno": _itf_int(producer.purge_seqno),
        },
        "request": {
            "uuid": _itf_int(req.uuid),
            "start": _itf_int(req.start),
            "snap_start": _itf_int(req.snap_start),
            "snap_end": _itf_int(req.snap_end),
            "end": _itf_int(req.end),
            "strict": req.strict,
            "ignore_purged": req.ignore_purged,
            "remote_purge": _itf_int(req.remote_purge),
            "has_collection_high": req.collection_high is not None,
            "collection_high": _itf_int(req.collection_high or 0),
        },
        # A map from rule-set name: names like "kv-current" are not record field names.
        "expected": {
            "#map": [
                [
                    name,
                    {
                        "decision": e.answer.outcome.value,
                        "rollback_seqno": _itf_int(e.answer.rollback_seqno or 0),
                        "case": e.case,
                        "property": e.property,
                    },
                ]
                for name, e in vector.expected.items()
            ]
        },
    }
    return {
        "#meta": {
            "format": "ITF",
            "format-description": ITF_DESCRIPTION,
            "source": source,
            "description": f"dcpcheck regression vector {vector.id} ({vector.origin})",
        },
        "vars": ["producer", "request", "expected"],
        "states": [state],
    }


def render(corpus: Corpus, rule_sets: Sequence[RuleSet]) -> dict[str, str]:
    files = {CORPUS_FILE: dump_corpus(corpus)}
    files.update(_humpty_files(corpus, rule_sets))
    for vector in corpus.vectors:
        trace = itf_trace(vector, CORPUS_FILE)
        files[f"itf/{vector.id}.itf.json"] = json.dumps(trace, indent=1) + "\n"
    return files


def check_out(out: Path) -> None:
    """``out`` may be written: it does not exist, is empty, or holds a vector set.

    Checked before a long generation as well as when writing.
    """
    parent = out.parent
    if not parent.is_dir():
        raise InvalidInput("--out", f"{parent} does not exist; create it first")
    if out.exists() and not out.is_dir():
        raise InvalidInput("--out", f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / CORPUS_FILE).is_file():
        raise InvalidInput(
            "--out", f"{out} is a non-empty directory without {CORPUS_FILE}; choose another --out"
        )


def write_tree(out: Path, files: dict[str, str]) -> None:
    """Replace directory ``out`` by exactly ``files``; all or nothing.

    ``out`` must not exist, be empty, or hold a vector set (``vectors.json``):
    dcpcheck never replaces a directory it did not write.
    """
    check_out(out)
    with uninterruptible():  # Ctrl-C now would leave a tree written by a run that says it was not
        _replace_tree(out, files)


def _replace_tree(out: Path, files: dict[str, str]) -> None:
    parent = out.parent
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=parent))
    try:
        for relative, text in sorted(files.items()):
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=parent)) / out.name
            os.replace(out, old)
        try:
            os.replace(staging, out)
        except BaseException:
            if old is not None:
                os.replace(old, out)
            raise
        if old is not None:
            shutil.rmtree(old.parent)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InvalidInput("--out", f"cannot write {out}: {exc}; nothing was changed") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
