"""The sweep's dataset: one Arrow record batch per chunk of inputs.

A row is one input and every selected rule set's answer to it:

* ``id``: the input's index in the space (``SweepSpace``);
* the producer: ``table`` (a list of ``{id, seq}`` entries, newest first, as
  a failover table is written in JSON), ``high_seqno``, ``purge_seqno``;
* the request: ``uuid``, ``start``, ``snap_start``, ``snap_end``, ``end``,
  ``strict``, ``ignore_purged``, ``remote_purge``, ``collection_high`` (null:
  no collection filter), as ``StreamRequest.to_json`` names them;
* per rule set, a column named after it: ``{decision, rollback_seqno,
  clause}`` (decision ``ok``/``rollback``; rollback_seqno null on ``ok``);
* per pair of rule sets A, B (in the order given), a column ``A vs B``: the
  region of their difference (``A's clause -> B's clause (change)``, as
  ``dcpcheck diff`` labels it), null where they answer the same.

Integers are int64, except the two that can exceed 2^63-1 (``end``, which is
2^64-1 for "stream forever", and ``rollback_seqno``, computed by the rule
set): those are decimal(20, 0), which holds every uint64 exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from checker.columns.decisions import NO_REGION, Answers, Decisions
from checker.sweep.space import SweepSpace
from spec.rules.inputs import DecisionSpace
from spec.rules.language import RuleSet
from spec.trace import OUTCOME_CODE
from spec.types import Outcome

__all__ = [
    "ANSWER",
    "INPUTS",
    "UINT64",
    "answer_array",
    "input_arrays",
    "pair_column",
    "record_batch",
    "schema",
    "text_columns",
    "uint64_array",
]

UINT64 = pa.decimal128(20, 0)
ENTRY = pa.struct([("id", pa.int64()), ("seq", pa.int64())])
ANSWER = pa.struct([("decision", pa.string()), ("rollback_seqno", UINT64), ("clause", pa.string())])
_OUTCOMES = pa.array([o.value for o in sorted(OUTCOME_CODE, key=OUTCOME_CODE.__getitem__)])
_ROLLBACK = OUTCOME_CODE[Outcome.ROLLBACK]
INPUTS = [
    ("id", pa.int64()),
    ("table", pa.list_(ENTRY)),
    ("high_seqno", pa.int64()),
    ("purge_seqno", pa.int64()),
    ("uuid", pa.int64()),
    ("start", pa.int64()),
    ("snap_start", pa.int64()),
    ("snap_end", pa.int64()),
    ("end", UINT64),
    ("strict", pa.bool_()),
    ("ignore_purged", pa.bool_()),
    ("remote_purge", pa.int64()),
    ("collection_high", pa.int64()),
]


def pair_column(a: str, b: str) -> str:
    return f"{a} vs {b}"


def schema(rule_sets: Sequence[RuleSet]) -> pa.Schema:
    names = [r.name for r in rule_sets]
    fields = [*INPUTS, *((name, ANSWER) for name in names)]
    fields += [
        (pair_column(names[a], names[b]), pa.string())
        for a in range(len(names))
        for b in range(a + 1, len(names))
    ]
    return pa.schema(fields)


def text_columns(rule_sets: Sequence[RuleSet]) -> list[str]:
    """The string columns (as Parquet paths): the ones worth dictionary-encoding; the
    integers are near-unique (``id``) or cheap to store plainly."""
    names = [r.name for r in rule_sets]
    paths = [f"{name}.{part}" for name in names for part in ("decision", "clause")]
    return paths + [n for n in schema(rule_sets).names if " vs " in n]


def record_batch(
    space: SweepSpace,
    lo: int,
    columns: dict[str, np.ndarray],
    decisions: Decisions,
    answers: list[Answers],
    codes: list[np.ndarray],
) -> pa.RecordBatch:
    """Inputs ``lo, lo+1, ...`` of ``space`` (``columns``), and the answers and regions
    ``decisions`` gave them."""
    size = len(columns["start"])
    arrays = input_arrays(space, np.arange(lo, lo + size, dtype=np.int64), columns)
    arrays += [_answer(rules, a) for rules, a in zip(decisions.rule_sets, answers, strict=True)]
    for pair, code in enumerate(codes):
        labels = pa.array([region.label for region in decisions.regions(pair)])
        arrays.append(_named(code, labels, code == NO_REGION))
    return pa.RecordBatch.from_arrays(arrays, schema=schema(decisions.rule_sets))


def input_arrays(
    space: SweepSpace, ids: np.ndarray, columns: dict[str, np.ndarray]
) -> list[pa.Array]:
    """The ``INPUTS`` columns of the inputs numbered ``ids`` (``columns``: those inputs)."""
    has_collection = columns["has_collection_high"]
    return [
        pa.array(ids.astype(np.int64)),
        _table(space, columns, len(ids)),
        _int64(columns["high_seqno"]),
        _int64(columns["producer_purge_seqno"]),
        *(_int64(columns[name]) for name in ("uuid", "start", "snap_start", "snap_end")),
        _uint64(columns["end"]),
        pa.array(columns["strict"]),
        pa.array(columns["ignore_purged"]),
        _int64(columns["remote_purge"]),
        pa.array(columns["collection_high"].view(np.int64), mask=~has_collection),
    ]


def uint64_array(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """uint64 values (``valid``: which are not null) as the dataset's decimal(20, 0)."""
    return _uint64(values, valid)


def answer_array(rules: RuleSet, answers: Answers) -> pa.Array:
    """A rule set's answers as the dataset's ``{decision, rollback_seqno, clause}``."""
    return _answer(rules, answers)


def _int64(values: np.ndarray) -> pa.Array:
    """Inputs are at most the seqno bound (or a uuid label): they fit int64 as they are."""
    return pa.array(values.view(np.int64))


def _uint64(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """uint64 values as decimal(20, 0): the low 64 bits of each 128-bit integer."""
    words = np.zeros((len(values), 2), dtype=np.uint64)
    words[:, 0] = values
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    nulls = -1 if valid is not None else 0
    return pa.Array.from_buffers(
        UINT64, len(values), [bitmap, pa.py_buffer(words)], null_count=nulls
    )


def _named(codes: np.ndarray, names: pa.Array, missing: np.ndarray | None = None) -> pa.Array:
    indices = pa.array(codes.astype(np.int32), mask=missing)
    return pa.DictionaryArray.from_arrays(indices, names).dictionary_decode()


def _answer(rules: RuleSet, answers: Answers) -> pa.Array:
    rolls_back = answers.outcome == _ROLLBACK
    return pa.StructArray.from_arrays(
        [
            _named(answers.outcome, _OUTCOMES),
            _uint64(answers.seqno, valid=rolls_back),
            _named(answers.case, pa.array(rules.case_names)),
        ],
        fields=list(ANSWER),
    )


def _table(space: SweepSpace, columns: dict[str, np.ndarray], size: int) -> pa.Array:
    """The failover table of each input: its live entries, newest first."""
    slots = range(space.entries)
    lengths = columns["table_len"].astype(np.int64)
    live = np.arange(space.entries) < lengths[:, None]
    uuids = np.stack([columns[DecisionSpace.uuid_var(i)] for i in slots], axis=1)[live]
    seqs = np.stack([columns[DecisionSpace.seq_var(i)] for i in slots], axis=1)[live]
    offsets = np.zeros(size + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    entries = pa.StructArray.from_arrays([_int64(uuids), _int64(seqs)], fields=list(ENTRY))
    return pa.ListArray.from_arrays(pa.array(offsets), entries)
