"""The target within bounds as a rule set: BASE, except on the learnt inputs where it differs.

Within the bounds the target's behaviour is a finite table. ``override_rules``
writes it in the clause language, so it is one model with two
interpretations like every rule set (NumPy columns, Z3, the reference's
``Decider``): two clauses before BASE's steps, ``target accepts`` and
``target rolls back`` (with the seqno the target gave), each guarding on
the *keys* of the inputs where the target answers differently from BASE.

A key is what a rule set can read of an input (``KEY``): every request
field but the uuid, the producer's high and purge seqnos, the table's
length, and what the lookup finds (``uuid_found``, ``upper``,
``entry_seqno``), with the request uuid only as its relations (is it 0, is
it the newest entry's). Rule sets compare uuids with each other and with 0,
so a key matches an input of any scenario whose uuids are labelled
differently from the sweep's (1111, 2222, ...).

A target may depend on more than a rule set can read (say, an older
table entry). ``conflicts`` finds that: two learnt inputs with one key and
different answers from the target. The table is then not a rule set, and
the review says so rather than judge the wrong one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from checker.columns.expr import Vectorised
from checker.review.learn import NO_ANSWER, TARGET, TARGET_CASES
from checker.sweep.space import SweepSpace
from spec.expr import FALSE, Expr, all_of, any_of, const, ite, substitute
from spec.rules.language import (
    ACCEPT_CODE,
    ROLLBACK_CODE,
    Clause,
    F,
    RuleSet,
    accept,
    rollback,
    scanned,
)

__all__ = ["KEY", "Overrides", "conflicts", "keys_of", "learnt_overrides", "override_rules"]

_INT_FIELDS: tuple[str, ...] = ("start", "snap_start", "snap_end", "end", "remote_purge")
_INT_FIELDS += ("collection_high",)
_INT_FIELDS += ("high_seqno", "producer_purge_seqno", "table_len", "upper", "entry_seqno")
_BOOL_FIELDS = ("strict", "ignore_purged", "has_collection_high", "uuid_found")
# name -> expression over the rule language's fields; booleans as 0/1 in the key columns
KEY: dict[str, Expr] = {
    **{name: getattr(F, name) for name in _INT_FIELDS},
    **{name: ite(getattr(F, name), 1, 0) for name in _BOOL_FIELDS},
    "uuid_is_0": ite(F.uuid == 0, 1, 0),
    "uuid_is_latest": ite(F.uuid == F.latest_uuid, 1, 0),
}


def keys_of(space: SweepSpace, base: RuleSet, columns: dict[str, np.ndarray]) -> np.ndarray:
    """The key of each input in ``columns`` (one row each, ``KEY``'s order), as BASE reads
    the table (its ``table_scan``)."""
    fields = scanned(dict(space.decision_space.fields), base.table_scan)
    program = Vectorised(substitute(list(KEY.values()), fields))
    values = program(columns, len(columns["start"]))
    return np.stack([np.asarray(v, dtype=np.uint64) for v in values], axis=1)


def _condition(key: np.ndarray) -> Expr:
    return all_of(*(expr == int(v) for expr, v in zip(KEY.values(), key.tolist(), strict=True)))


@dataclass
class Overrides:
    """The keys of the inputs where the target differs from BASE, and its answer on each."""

    keys: np.ndarray  # (K, len(KEY)) uint64, unique rows
    outcome: np.ndarray  # (K,) ACCEPT_CODE / ROLLBACK_CODE
    seqno: np.ndarray  # (K,) uint64


def override_rules(base: RuleSet, overrides: Overrides) -> RuleSet:
    """BASE, except that on ``overrides``' keys it answers as the target did."""
    accepts = [
        _condition(k)
        for k, o in zip(overrides.keys, overrides.outcome, strict=True)
        if o == ACCEPT_CODE
    ]
    by_seqno: dict[int, list[Expr]] = {}
    for key, outcome, seqno in zip(overrides.keys, overrides.outcome, overrides.seqno, strict=True):
        if outcome == ROLLBACK_CODE:
            by_seqno.setdefault(int(seqno), []).append(_condition(key))
    seqno_expr: Expr = const(0)
    for seqno, conditions in sorted(by_seqno.items(), reverse=True):
        seqno_expr = ite(any_of(*conditions), seqno, seqno_expr)
    reason = "the target's answer (learnt)"
    clauses = (
        Clause(TARGET_CASES[0], any_of(*accepts) if accepts else FALSE, accept(), reason),
        Clause(
            TARGET_CASES[1],
            any_of(*(c for cs in by_seqno.values() for c in cs)) if by_seqno else FALSE,
            rollback(seqno_expr),
            reason,
        ),
    )
    return RuleSet(
        TARGET,
        f"{base.name}, except where the target was seen to answer differently",
        (*clauses, *base.steps),
        source=f"learnt by dcpcheck review over {base.name}",
        table_scan=base.table_scan,
    )


def _rows(dataset: str, region: str, only_differing: bool) -> Iterator[tuple[np.ndarray, ...]]:
    """(ids, outcome, seqno) of the learnt inputs the target answered, a part at a time."""
    for path in sorted(Path(dataset).glob("part-*.parquet")):
        table = pq.read_table(path, columns=list(dict.fromkeys(["id", TARGET, region])))
        answer = table.column(TARGET)
        decision = pc.struct_field(answer, "decision")
        keep = pc.is_valid(decision)
        if only_differing:
            keep = pc.and_(keep, pc.is_valid(table.column(region)))
        table = table.filter(keep)
        if not table.num_rows:
            continue
        answer = table.column(TARGET)
        names = pc.struct_field(answer, "decision").to_pylist()
        outcome = np.array(
            [ACCEPT_CODE if n == "ok" else ROLLBACK_CODE if n == "rollback" else 2 for n in names],
            dtype=np.uint8,
        )
        seqnos = pc.struct_field(answer, "rollback_seqno").to_pylist()
        seqno = np.array([int(s or 0) for s in seqnos], dtype=np.uint64)
        yield table.column("id").to_numpy(), outcome, seqno


def learnt_overrides(
    space: SweepSpace, base: RuleSet, dataset: str, region: str
) -> tuple[Overrides, list[tuple[int, int]]]:
    """The overrides (keys of the differing inputs, the target's answers) and the
    conflicts: pairs of learnt inputs with one key that the target answers differently."""
    keys, outcomes, seqnos, ids = [], [], [], []
    for found, outcome, seqno in _rows(dataset, region, only_differing=True):
        keys.append(keys_of(space, base, space.columns_of(found)))
        outcomes.append(outcome)
        seqnos.append(seqno)
        ids.append(found)
    if not keys:
        empty = np.zeros((0, len(KEY)), dtype=np.uint64)
        none = np.zeros(0, dtype=np.uint64)
        return Overrides(empty, none.astype(np.uint8), none), []
    key = np.concatenate(keys)
    outcome, seqno, found = np.concatenate(outcomes), np.concatenate(seqnos), np.concatenate(ids)
    unique, first = np.unique(key, axis=0, return_index=True)
    overrides = Overrides(unique, outcome[first], seqno[first])
    return overrides, conflicts(space, base, dataset, overrides, found[first])


def conflicts(
    space: SweepSpace, base: RuleSet, dataset: str, overrides: Overrides, witnesses: np.ndarray
) -> list[tuple[int, int]]:
    """Learnt inputs whose key is overridden but whose answer from the target is not the
    override's: (the input, the input the override was learnt from); at most 10."""
    if not len(overrides.keys):
        return []
    width = overrides.keys.shape[1]
    known = {tuple(k): n for n, k in enumerate(overrides.keys.tolist())}
    found: list[tuple[int, int]] = []
    for ids, outcome, seqno in _rows(dataset, "id", only_differing=False):
        key = keys_of(space, base, space.columns_of(ids))
        assert key.shape[1] == width
        for row, k in enumerate(key.tolist()):
            n = known.get(tuple(k))
            if n is None:
                continue
            if outcome[row] == NO_ANSWER:
                continue
            if outcome[row] != overrides.outcome[n] or (
                outcome[row] == ROLLBACK_CODE and seqno[row] != overrides.seqno[n]
            ):
                found.append((int(ids[row]), int(witnesses[n])))
                if len(found) >= 10:
                    return found
    return found
