"""Learn a target's answers: every input of the swept space it can express, part by part.

A ``LearnJob`` is the space (``checker.sweep.space.SweepSpace``), BASE (a rule
set, as the process running the job resolves it) and the target (``humpty:CMD``
or ``jsonl:CMD``, ``checker.vectors.targets``). ``write_part(dataset, part, lo,
hi)`` takes inputs ``lo..hi-1`` a chunk at a time, keeps those the target can
express (humpty_dumpty's four stdin fields: no strict or ignore_purged flag,
no remote purge seqno, no collection filter, end 2^64-1; a JSON-lines target
takes every input), asks the target (humpty: one invocation per producer
state with all its requests on stdin; jsonl: one process for the whole part,
``Target.replies``), decides BASE on the same inputs (``checker.columns``),
and appends the rows to one Parquet file (written under a temporary name,
renamed when whole):

* the input columns of the sweep's dataset (``checker.sweep.batches.INPUTS``);
* BASE's ``{decision, rollback_seqno, clause}`` under its name;
* ``target``: ``{decision, rollback_seqno, problem}`` (problem: crash, timeout
  or garbage, with what happened; decision null then);
* ``BASE vs target``: the region of the difference, labelled as ``dcpcheck
  diff`` labels regions (BASE's clause, what the target did, the change:
  ``checker.diff.regions.ANSWER_CHANGES``), null where they agree.

The part's tally (``TALLY``) counts inputs asked, per region (with the first
input and the target's answer to it) and per problem (with the first input
and what happened).
"""

from __future__ import annotations

import os
import uuid as uuids
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from checker.columns.decisions import Answers, Decisions
from checker.columns.expr import Vectorised
from checker.diff.regions import ANSWER_CHANGES, Region
from checker.loading import resolve
from checker.sweep.batches import (
    ANSWER,
    INPUTS,
    UINT64,
    answer_array,
    input_arrays,
    uint64_array,
)
from checker.sweep.job import CHUNK, part_name
from checker.sweep.space import SweepSpace
from checker.vectors.format import Vector
from checker.vectors.targets import HumptyTarget, JsonlTarget, Target, parse_target
from spec.expr import INT, TRUE, var
from spec.failover_table import UINT64_MAX
from spec.rules import RULE_SETS, RuleSet
from spec.rules.inputs import DecisionExprs
from spec.rules.language import ACCEPT_CODE, ERANGE_CODE, ROLLBACK_CODE
from spec.types import Outcome, ProducerState, StreamRequest

__all__ = [
    "ASKED",
    "NO_ANSWER",
    "PROBLEM",
    "REGION",
    "TALLY",
    "TARGET",
    "TARGET_CASES",
    "LearnJob",
    "region_column",
    "target_regions",
]

TARGET = "target"  # the dataset's column of the target's answers
# What the target did, by outcome code: the "clause" of its side of a region.
TARGET_CASES = ("target accepts", "target rolls back", "erange")
NO_ANSWER = 255  # outcome code of an input the target gave no answer to
ASKED, REGION, PROBLEM = "asked", "region", "problem"
_CODES = {Outcome.ACCEPT: ACCEPT_CODE, Outcome.ROLLBACK: ROLLBACK_CODE, Outcome.ERANGE: ERANGE_CODE}
TARGET_ANSWER = pa.struct(
    [("decision", pa.string()), ("rollback_seqno", UINT64), ("problem", pa.string())]
)
# One row per (kind, code): kind asked (code 0), region (the region code) or problem
# (code: index into PROBLEMS); the first input's index, and for a region the target's
# answer to it (outcome code, seqno), for a problem what happened.
TALLY = pa.schema(
    [
        ("kind", pa.string()),
        ("code", pa.int32()),
        ("inputs", pa.int64()),
        ("first", pa.int64()),
        ("outcome", pa.int32()),
        ("seqno", pa.decimal128(20, 0)),
        ("detail", pa.string()),
    ]
)
PROBLEMS = ("crash", "timeout", "garbage")


def region_column(base: str) -> str:
    return f"{base} vs {TARGET}"


def target_regions(base: RuleSet) -> list[Region]:
    """Every region BASE and a target can differ in, indexed by region code."""
    return [
        Region(case_a, case_b, change)
        for case_a in base.case_names
        for case_b in TARGET_CASES
        for change in ANSWER_CHANGES
    ]


def schema(base: RuleSet) -> pa.Schema:
    fields = [*INPUTS, (base.name, ANSWER), (TARGET, TARGET_ANSWER)]
    return pa.schema([*fields, (region_column(base.name), pa.string())])


@dataclass(frozen=True)
class LearnJob:
    space: SweepSpace
    base: str  # NAME or FILE.py[:NAME], as the process running it resolves it
    target: str  # humpty:CMD or jsonl:CMD (paths in CMD absolute: executors have their cwd)
    timeout: float  # seconds per target invocation (humpty) or answer (jsonl)

    def base_rules(self) -> RuleSet:
        return _base(self.base)

    def make_target(self) -> Target:
        return parse_target(self.target, self.timeout)

    def expressible(self, target: Target, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Which inputs of ``columns`` the target can be asked."""
        size = len(columns["start"])
        if not isinstance(target, HumptyTarget):
            return np.ones(size, dtype=bool)
        return (
            ~columns["strict"]
            & ~columns["ignore_purged"]
            & (columns["remote_purge"] == 0)
            & ~columns["has_collection_high"]
            & (columns["end"] == np.uint64(UINT64_MAX))
        )

    def write_part(self, dataset: Path, part: int, lo: int, hi: int) -> pa.RecordBatch:
        """Learn inputs ``lo..hi-1`` into ``dataset/part-NNNNN.parquet``; the part's tally."""
        base = self.base_rules()
        target = self.make_target()
        tally = _Tally()
        partial = dataset / f".{part_name(part)}.{uuids.uuid4().hex}"
        try:
            with pq.ParquetWriter(partial, schema(base)) as writer:
                for start in range(lo, hi, CHUNK):
                    batch = self._chunk(base, target, start, min(hi, start + CHUNK), tally)
                    if batch is not None:
                        writer.write_batch(batch)
            os.replace(partial, dataset / part_name(part))
        finally:
            partial.unlink(missing_ok=True)
        return tally.batch()

    def _chunk(
        self, base: RuleSet, target: Target, lo: int, hi: int, tally: _Tally
    ) -> pa.RecordBatch | None:
        everything = self.space.columns(lo, hi)
        ids = np.arange(lo, hi, dtype=np.int64)[self.expressible(target, everything)]
        if not len(ids):
            return None
        columns = self.space.columns_of(ids)
        size = len(ids)
        if isinstance(target, JsonlTarget):  # the lines straight from the columns: fast
            replies = target.replies_to([str(i) for i in ids.tolist()], _lines(ids, columns))
        else:
            vectors = [
                Vector(str(i), "review", request, producer, {})
                for i, (request, producer) in zip(
                    ids.tolist(), _decoded(self.space, columns), strict=True
                )
            ]
            replies = target.replies(vectors)
        outcome = np.full(size, NO_ANSWER, dtype=np.uint8)
        seqno = np.zeros(size, dtype=np.uint64)
        problems: list[str | None] = [None] * size
        for k, reply in enumerate(replies):
            if reply.answer is not None:
                outcome[k] = _CODES[reply.answer.outcome]
                seqno[k] = reply.answer.rollback_seqno or 0
            else:
                problems[k] = f"{reply.kind}: {reply.detail}"
                tally.problem(reply.kind, int(ids[k]), reply.detail)
        (answers,), _ = _decisions(base, self.space)(columns, size)
        codes = _region_codes(base, answers, outcome, seqno)
        tally.asked(size, int(ids[0]))
        tally.regions(ids, codes, outcome, seqno)
        regions = pa.array([r.label for r in target_regions(base)])
        decisions = _decision_names(outcome)
        arrays = [
            *input_arrays(self.space, ids, columns),
            answer_array(base, answers),
            pa.StructArray.from_arrays(
                [
                    decisions,
                    uint64_array(seqno, outcome == ROLLBACK_CODE),
                    pa.array(problems, pa.string()),
                ],
                fields=list(TARGET_ANSWER),
            ),
            pa.DictionaryArray.from_arrays(
                pa.array(codes.astype(np.int32), mask=codes < 0), regions
            ).dictionary_decode(),
        ]
        return pa.RecordBatch.from_arrays(arrays, schema=schema(base))


_NAMES = [o.value for o in sorted(_CODES, key=_CODES.__getitem__)]


def _decision_names(outcome: np.ndarray) -> pa.Array:
    answered = outcome != NO_ANSWER
    indices = pa.array(np.where(answered, outcome, 0).astype(np.int32), mask=~answered)
    return pa.DictionaryArray.from_arrays(indices, pa.array(_NAMES)).dictionary_decode()


# The columns a request line is written from, in the order ``_lines`` unpacks them.
_LINE_COLUMNS = (
    "table_len",
    "high_seqno",
    "producer_purge_seqno",
    "uuid",
    "start",
    "snap_start",
    "snap_end",
    "end",
    "strict",
    "ignore_purged",
    "remote_purge",
    "has_collection_high",
    "collection_high",
)


def _lines(ids: np.ndarray, columns: dict[str, np.ndarray]) -> list[str]:
    """Each input as the JSON-lines protocol's request object (docs/targets.md), written
    from the columns (``json.dumps`` of domain values costs more than the target does)."""
    entries = len([name for name in columns if name.startswith("table.uuid.")])
    uuid = [columns[f"table.uuid.{i}"].tolist() for i in range(entries)]
    seq = [columns[f"table.seq.{i}"].tolist() for i in range(entries)]
    flag = {True: "true", False: "false"}
    rows = zip(ids.tolist(), *(columns[name].tolist() for name in _LINE_COLUMNS), strict=True)
    lines = []
    for k, (i, n, high, purge, u, start, a, b, end, st, ig, remote, has, coll) in enumerate(rows):
        table = ", ".join(f'{{"id": {uuid[e][k]}, "seq": {seq[e][k]}}}' for e in range(n))
        lines.append(
            f'{{"id": "{i}", "producer": {{"table": [{table}], "high_seqno": {high}, '
            f'"purge_seqno": {purge}}}, "request": {{"uuid": {u}, "start": {start}, '
            f'"snap_start": {a}, "snap_end": {b}, "end": {end}, "strict": {flag[st]}, '
            f'"ignore_purged": {flag[ig]}, "remote_purge": {remote}, '
            f'"collection_high": {coll if has else "null"}}}}}'
        )
    return lines


def _decoded(
    space: SweepSpace, columns: dict[str, np.ndarray]
) -> Iterator[tuple[StreamRequest, ProducerState]]:
    names = list(columns)
    decision_space = space.decision_space
    for row in zip(*(columns[name].tolist() for name in names), strict=True):
        yield decision_space.decode(dict(zip(names, row, strict=True)))


@lru_cache(maxsize=4)
def _base(text: str) -> RuleSet:
    return resolve(RULE_SETS, RuleSet, text, "--rules")


@lru_cache(maxsize=4)
def _decisions(base: RuleSet, space: SweepSpace) -> Decisions:
    return Decisions([base], space.decision_space)


@lru_cache(maxsize=1)
def _changes() -> Vectorised:
    """``Change.condition`` of every change in ``ANSWER_CHANGES``, over two answers given
    as columns ``a.outcome``, ``a.seqno``, ``b.outcome``, ``b.seqno``: the very
    definitions ``dcpcheck diff`` and the sweep name regions with."""

    def answer(side: str) -> DecisionExprs:
        outcome, seqno = var(f"{side}.outcome", INT), var(f"{side}.seqno", INT)
        return DecisionExprs(TRUE, None, outcome, seqno, outcome)  # type: ignore[arg-type]  # answers only, no rules

    a, b = answer("a"), answer("b")
    return Vectorised([change.condition(a, b) for change in ANSWER_CHANGES])


def _region_codes(
    base: RuleSet, answers: Answers, outcome: np.ndarray, seqno: np.ndarray
) -> np.ndarray:
    """Each input's region code (``target_regions``), -1 where the target agrees with BASE
    or gave no answer."""
    columns = {
        "a.outcome": answers.outcome.astype(np.uint64),
        "a.seqno": answers.seqno.astype(np.uint64),
        "b.outcome": np.where(outcome == NO_ANSWER, 0, outcome).astype(np.uint64),
        "b.seqno": seqno,
    }
    held = np.stack(_changes()(columns, len(outcome)))
    differ = (outcome != NO_ANSWER) & held.any(axis=0)
    cases_b = len(TARGET_CASES)
    code = (answers.case * cases_b + outcome.astype(np.int64)) * len(ANSWER_CHANGES)
    code = code + held.argmax(axis=0)
    return np.where(differ, code, -1)


class _Tally:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, int], list[Any]] = {}

    def asked(self, n: int, first: int) -> None:
        entry = self.rows.setdefault((ASKED, 0), [0, first, -1, 0, ""])
        entry[0] += n

    def problem(self, kind: str, at: int, detail: str) -> None:
        entry = self.rows.setdefault((PROBLEM, PROBLEMS.index(kind)), [0, at, -1, 0, detail])
        entry[0] += 1

    def regions(
        self, ids: np.ndarray, codes: np.ndarray, outcome: np.ndarray, seqno: np.ndarray
    ) -> None:
        values, first, inputs = np.unique(codes, return_index=True, return_counts=True)
        for value, at, n in zip(values.tolist(), first.tolist(), inputs.tolist(), strict=True):
            if value < 0:
                continue
            entry = self.rows.setdefault(
                (REGION, value),
                [0, int(ids[at]), int(outcome[at]), int(seqno[at]), ""],
            )
            entry[0] += n  # chunks come in index order: the first one seen is the first

    def batch(self) -> pa.RecordBatch:
        keys = list(self.rows)
        rows = [self.rows[k] for k in keys]
        return pa.RecordBatch.from_arrays(
            [
                pa.array([k[0] for k in keys], pa.string()),
                pa.array([k[1] for k in keys], pa.int32()),
                pa.array([r[0] for r in rows], pa.int64()),
                pa.array([r[1] for r in rows], pa.int64()),
                pa.array([r[2] for r in rows], pa.int32()),
                uint64_array(np.array([r[3] for r in rows], dtype=np.uint64)),
                pa.array([r[4] for r in rows], pa.string()),
            ],
            schema=TALLY,
        )
