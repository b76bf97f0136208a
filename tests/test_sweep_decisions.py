"""Rule sets decided a column at a time answer exactly as Decider does, one input at a time."""

from __future__ import annotations

import pyarrow as pa
import pytest

from checker.columns.decisions import NO_REGION, Decisions, region_table
from checker.diff.regions import change_of
from checker.sweep.batches import record_batch, schema
from checker.sweep.space import SweepSpace
from spec.expr import UINT64_MAX
from spec.rules import RULE_SETS, Clause, Decider, F, RuleSet, accept, otherwise, rollback

# Rolls back to start - 1: 2^64-1 when start is 0, where uint64 arithmetic wraps.
ONE_BELOW = RuleSet(
    name="one-below",
    summary="accept when lagging, else roll back to one below start",
    steps=(
        Clause("lagging", when=F.snap_end <= F.upper, then=accept()),
        Clause("below-start", when=otherwise, then=rollback(F.start - 1)),
    ),
)
RULES = [RULE_SETS.get("kv-current"), RULE_SETS.get("rollback-doc"), ONE_BELOW]
SPACE = SweepSpace(2, 1, duplicate_uuids=True)


def test_vectorised_decisions_and_regions_equal_decider_on_every_input() -> None:
    decisions = Decisions(RULES, SPACE.decision_space)
    answers, codes = decisions(SPACE.columns(0, SPACE.size), SPACE.size)
    deciders = [Decider(r) for r in RULES]
    tables = [region_table(RULES[a], RULES[b]) for a, b in decisions.pairs]
    wrapped = 0
    for index, (request, producer) in enumerate(SPACE.inputs()):
        decided = [d.decide(request, producer) for d in deciders]
        for rules, answer, d in zip(RULES, answers, decided, strict=True):
            assert rules.case_names[answer.case[index]] == d.case, (index, rules.name)
            assert answer.seqno[index].item() == (d.rollback_seqno or 0), (index, rules.name)
        for pair, (a, b) in enumerate(decisions.pairs):
            da, db = decided[a], decided[b]
            code = codes[pair][index].item()
            if (da.outcome, da.rollback_seqno) == (db.outcome, db.rollback_seqno):
                assert code == NO_REGION
            else:
                region = tables[pair][code]
                assert (region.case_a, region.case_b, region.change) == (
                    da.case,
                    db.case,
                    change_of(da, db),
                )
        wrapped += decided[2].rollback_seqno == UINT64_MAX
    assert wrapped > 0  # the wrap-around case was met


def test_a_record_batch_keeps_every_field_and_uint64_exactly() -> None:
    decisions = Decisions(RULES, SPACE.decision_space)
    lo, hi = 100, 3000
    columns = SPACE.columns(lo, hi)
    batch = record_batch(SPACE, lo, columns, decisions, *decisions(columns, hi - lo))
    assert batch.schema == schema(RULES)
    deciders = [Decider(r) for r in RULES]
    for row, (request, producer) in zip(batch.to_pylist(), SPACE.inputs(lo, hi), strict=True):
        assert row["table"] == producer.table.to_json()
        assert (row["high_seqno"], row["purge_seqno"]) == (
            producer.high_seqno,
            producer.purge_seqno,
        )
        fields = {
            k: (int(v) if k == "end" else v) for k, v in row.items() if k in request.to_json()
        }
        assert fields == request.to_json()
        for rules, decider in zip(RULES, deciders, strict=True):
            decided = decider.decide(request, producer)
            seqno = row[rules.name]["rollback_seqno"]
            assert row[rules.name]["clause"] == decided.case
            assert row[rules.name]["decision"] == decided.outcome.value
            assert (None if seqno is None else int(seqno)) == decided.rollback_seqno
    assert pa.compute.max(batch.column("end")).as_py() == UINT64_MAX


@pytest.mark.parametrize("rules", [RULES[:1], RULES])
def test_the_schema_has_a_column_per_rule_set_and_per_pair(rules) -> None:
    names = schema(rules).names
    assert [n for n in names if n in {r.name for r in rules}] == [r.name for r in rules]
    pairs = [n for n in names if " vs " in n]
    assert len(pairs) == len(rules) * (len(rules) - 1) // 2
