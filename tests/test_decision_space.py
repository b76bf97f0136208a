"""The decision space: tables that repeat a uuid are in it unless --distinct-uuids says not."""

from __future__ import annotations

import pytest
from vectorhelp import BASELINE, CORPUS, DATA

from checker.diff.decisions import search_regions
from checker.diff.engine import DIFF_BUDGET
from checker.loading import resolve
from checker.symbolic.budget import Budget
from checker.symbolic.session import Session, SolverAnswer
from checker.vectors.format import load_corpus
from spec.expr import evaluate
from spec.failover_table import FailoverTable
from spec.rules import RULE_SETS, Decider, DecisionSpace, RuleSet
from spec.rules.inputs import answers
from spec.types import ProducerState, StreamRequest

NEWEST = str(DATA / "rules" / "single_changes.py:newest-match")


@pytest.mark.parametrize(
    ("distinct", "answer"), [(False, SolverAnswer.SAT), (True, SolverAnswer.UNSAT)]
)
def test_tables_may_repeat_a_uuid_unless_distinct_uuids_is_set(distinct, answer) -> None:
    space = DecisionSpace(2, distinct_uuids=distinct)
    session = Session(30)
    session.add(space.well_formed(), space.v("table_len") == 2)
    assert session.check(space.v("table.uuid.0") == space.v("table.uuid.1")).answer is answer


def test_the_scan_order_decides_only_when_the_table_repeats_the_uuid() -> None:
    """kv_engine keeps the oldest match; a newest-first scan reads another upper."""
    newest = Decider(resolve(RULE_SETS, RuleSet, NEWEST))
    oldest = Decider(RULE_SETS.get("kv-current"))
    repeated = ProducerState(FailoverTable.of((2222, 30), (1111, 20), (2222, 10)), 40)
    request = StreamRequest(2222, 25, 25, 25)
    assert oldest.decide(request, repeated).rollback_seqno == 20  # upper: after the oldest
    assert newest.decide(request, repeated).outcome.value == "ok"  # upper: the high seqno
    distinct = ProducerState(FailoverTable.of((3333, 30), (1111, 20), (2222, 10)), 40)
    assert oldest.decide(request, distinct) == newest.decide(request, distinct)


def test_entry_seqno_is_the_matching_entrys_own_seqno() -> None:
    space = DecisionSpace(3)
    producer = ProducerState(FailoverTable.of((3333, 30), (2222, 20), (2222, 10)), 40)
    env = space.assignment(StreamRequest(2222, 0, 0, 0), producer)
    assert evaluate(space.fields["entry_seqno"], env) == 10  # the oldest match
    assert evaluate(space.fields["entry_seqno@newest-first"], env) == 20
    env = space.assignment(StreamRequest(5555, 0, 0, 0), producer)
    assert evaluate(space.fields["entry_seqno"], env) == 0  # no match


def test_diff_finds_what_only_a_repeated_uuid_tells_apart() -> None:
    """diff's space holds tables that repeat a uuid: the scan order is a real difference."""
    search = search_regions(
        RULE_SETS.get("kv-current"), resolve(RULE_SETS, RuleSet, NEWEST), 3, 10, Budget(DIFF_BUDGET)
    )
    assert search.complete
    assert search.found
    for _, example in search.found:
        uuids = example.producer.table.uuids
        assert len(set(uuids)) < len(uuids)


@pytest.mark.parametrize("name", ["kv-current", "rollback-doc"])
def test_the_fast_answers_are_the_deciders_on_every_vector(name: str) -> None:
    """answers() (one compiled program over padded assignments) = Decider.decide."""
    rules = RULE_SETS.get(name)
    decider = Decider(rules)
    vectors = [*load_corpus(CORPUS).vectors, *load_corpus(BASELINE).vectors]
    space = DecisionSpace(5)
    got = answers(rules, space, [space.assignment(v.request, v.producer) for v in vectors])
    codes = {"ok": 0, "rollback": 1, "erange": 2}
    for vector, answer in zip(vectors, got, strict=True):
        decision = decider.decide(vector.request, vector.producer)
        assert answer == (codes[decision.outcome.value], decision.rollback_seqno or 0)
