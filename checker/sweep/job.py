"""What an executor does for the sweep: generate its share of the inputs, decide, write, count.

A ``SweepJob`` is the space and the rule sets as the executors name them
(built-in names or ``.py`` files). ``write_part(dataset, part, lo, hi)``
generates inputs ``lo..hi-1`` a chunk at a time, decides each chunk under
every rule set (``checker.columns.decisions``), appends it to one Parquet
file (``part-NNNNN.parquet``, written under a temporary name and renamed
when complete, so a retried task leaves one whole file), and returns the
part's tally: inputs per rule set and clause, and per pair of rule sets
inputs per region, each with the first input's index. The rule sets are
resolved and their decision program built once per worker process.
``descriptors`` splits the space into the ranges the driver sends.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from checker.columns.decisions import NO_REGION, Answers, Decisions
from checker.loading import resolve
from checker.sweep.batches import record_batch, schema, text_columns
from checker.sweep.space import SweepSpace
from spec.rules import RULE_SETS, RuleSet

__all__ = ["CHUNK", "CLAUSE", "REGION", "TALLY", "SweepJob", "descriptors", "part_name"]

CHUNK = 1 << 17  # inputs per record batch: about 30 MB of columns while it is built
CLAUSE, REGION = "clause", "region"
# One row per (kind, subject, code): subject is a rule set's index (kind clause, code the
# case code) or a pair's index (kind region, code the region code).
TALLY = pa.schema(
    [
        ("kind", pa.string()),
        ("subject", pa.int32()),
        ("code", pa.int32()),
        ("inputs", pa.int64()),
        ("first", pa.int64()),
    ]
)


def part_name(part: int) -> str:
    return f"part-{part:05d}.parquet"


@dataclass(frozen=True)
class SweepJob:
    space: SweepSpace
    rules: tuple[str, ...]  # NAME or FILE.py[:NAME], as the process running it resolves them

    def decisions(self) -> Decisions:
        return _decisions(self)

    def decide(
        self, lo: int, hi: int, chunk: int = CHUNK
    ) -> Iterator[tuple[int, dict[str, np.ndarray], list[Answers], list[np.ndarray]]]:
        """``(first index, columns, answers, region codes)`` per chunk of ``lo..hi-1``."""
        decisions = self.decisions()
        for start in range(lo, hi, chunk):
            stop = min(hi, start + chunk)
            columns = self.space.columns(start, stop)
            answers, codes = decisions(columns, stop - start)
            yield start, columns, answers, codes

    def write_part(self, dataset: Path, part: int, lo: int, hi: int) -> pa.RecordBatch:
        """Decide inputs ``lo..hi-1`` into ``dataset/part-NNNNN.parquet``; the part's tally."""
        decisions = self.decisions()
        tally = _Tally(len(decisions.rule_sets), len(decisions.pairs))
        partial = dataset / f".{part_name(part)}.{uuid.uuid4().hex}"
        try:
            rule_sets = decisions.rule_sets
            with pq.ParquetWriter(
                partial, schema(rule_sets), use_dictionary=text_columns(rule_sets)
            ) as writer:
                for start, columns, answers, codes in self.decide(lo, hi):
                    writer.write_batch(
                        record_batch(self.space, start, columns, decisions, answers, codes)
                    )
                    tally.add(start, answers, codes)
            os.replace(partial, dataset / part_name(part))
        finally:
            partial.unlink(missing_ok=True)
        return tally.batch()


class _Tally:
    def __init__(self, rule_sets: int, pairs: int) -> None:
        self.counts: dict[tuple[str, int, int], list[int]] = {}
        self.rule_sets, self.pairs = rule_sets, pairs

    def add(self, start: int, answers: list[Answers], codes: list[np.ndarray]) -> None:
        for subject, answer in enumerate(answers):
            self._count(CLAUSE, subject, answer.case, start)
        for subject, code in enumerate(codes):
            self._count(REGION, subject, code, start)

    def _count(self, kind: str, subject: int, codes: np.ndarray, start: int) -> None:
        values, first, inputs = np.unique(codes, return_index=True, return_counts=True)
        for value, at, n in zip(values.tolist(), first.tolist(), inputs.tolist(), strict=True):
            if kind == REGION and value == NO_REGION:
                continue
            entry = self.counts.setdefault((kind, subject, value), [0, start + at])
            entry[0] += n  # chunks come in index order: the first one seen is the first

    def batch(self) -> pa.RecordBatch:
        keys = list(self.counts)
        return pa.RecordBatch.from_arrays(
            [
                pa.array([k[0] for k in keys], pa.string()),
                pa.array([k[1] for k in keys], pa.int32()),
                pa.array([k[2] for k in keys], pa.int32()),
                pa.array([self.counts[k][0] for k in keys], pa.int64()),
                pa.array([self.counts[k][1] for k in keys], pa.int64()),
            ],
            schema=TALLY,
        )


@lru_cache(maxsize=4)
def _decisions(job: SweepJob) -> Decisions:
    rule_sets = [resolve(RULE_SETS, RuleSet, text) for text in job.rules]
    return Decisions(rule_sets, job.space.decision_space)


def descriptors(size: int, parts: int) -> list[tuple[int, int, int]]:
    """``parts`` ranges ``(part, lo, hi)`` covering ``0..size-1``, sizes within one."""
    parts = max(1, min(parts, size))
    return [(k, size * k // parts, size * (k + 1) // parts) for k in range(parts)]
