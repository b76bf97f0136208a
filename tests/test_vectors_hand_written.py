"""Producers written by hand, as a new user would, against the checked-in vectors.

tests/data/hand_written.py: kv_engine's needsRollback of past releases and
single-point changes of today's, in plain Python. Every one that answers some
humpty-expressible request differently from kv-current must fail some vector
a ``humpty:`` target runs; the one that does not (kv-before-mb-27800) must pass them all.
tests/data/rules/ holds some of them in the clause language too.
"""

from __future__ import annotations

import itertools
import json
import sys

import pytest
from clihelp import run_cli
from vectorhelp import CORPUS, DATA, humpty, jsonl

from checker.loading import resolve
from checker.symbolic.budget import Budget
from checker.vectors.equivalence import Equivalence
from checker.vectors.format import load_corpus
from spec.failover_table import FailoverEntry, FailoverTable
from spec.rules import RULE_SETS, Decider, RuleSet
from spec.types import Outcome, ProducerState, StreamRequest

sys.path.insert(0, str(DATA))
from hand_written import HUMPTY_EQUIVALENT, VARIANTS

DIFFERENT = sorted(set(VARIANTS) - set(HUMPTY_EQUIVALENT))
# The previous corpus (27 humpty-expressible vectors) let four through: kv-before-mb-27604,
# purge-on-snap-end, purge-after-complete-snapshot and newest-match. Every producer is
# checked in process; two of those also through a real humpty_dumpty-speaking subprocess.
THROUGH_WRAPPER = ["kv-before-mb-27604", "newest-match"]
CLAUSE_FORMS = {
    "kv-before-mb-27604": "kv_before_mb_27604.py",
    "purge-on-snap-end": "single_changes.py:purge-on-snap-end",
    "ahead-to-entry": "single_changes.py:ahead-to-entry",
    "newest-match": "single_changes.py:newest-match",
    "no-item-adjustment-after-lagging": "single_changes.py:no-item-after-lagging",
}


def as_humpty_runs_it(name: str, req: StreamRequest, producer: ProducerState):
    """The variant's needsRollback on a request, as humpty_target.py calls it."""
    table = [(e.uuid, e.seqno) for e in producer.table]
    request = {"uuid": req.uuid, "start": req.start, "snap_start": req.snap_start}
    request["snap_end"] = req.snap_end
    return VARIANTS[name](request, table, producer.high_seqno, producer.purge_seqno)


def expected_through_humpty(vector) -> tuple[bool, int | None]:
    expectation = vector.expected["kv-current"]
    answer = expectation.needs_rollback or expectation.answer
    return answer.outcome is Outcome.ROLLBACK, answer.rollback_seqno


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_hand_written_producer_is_told_apart_through_humpty_exactly_when_it_differs(
    name: str,
) -> None:
    vectors = [v for v in load_corpus(CORPUS).vectors if v.request.humpty_expressible]
    failing = [
        v.id
        for v in vectors
        if as_humpty_runs_it(name, v.request, v.producer) != expected_through_humpty(v)
    ]
    assert bool(failing) == (name in DIFFERENT), failing


@pytest.mark.parametrize("name", THROUGH_WRAPPER)
def test_producers_the_old_vectors_missed_fail_through_a_humpty_wrapper(
    name: str, monkeypatch, capsys
) -> None:
    result = run_cli(
        ["replay", CORPUS, "--target", humpty("--variant", name), "--json"],
        "",
        monkeypatch,
        capsys,
    )
    report = json.loads(result.out)
    assert result.code == 1
    assert report["summary"]["fail"] >= 1
    assert report["summary"]["crash"] == report["summary"]["garbage"] == 0


def test_kv_before_mb_27800_passes_through_humpty_and_fails_where_it_ignores_the_remote_purge(
    monkeypatch, capsys
) -> None:
    """kv_engine before MB-27800 had no remote purge seqno: humpty cannot tell, jsonl can."""
    through_humpty = run_cli(
        ["replay", CORPUS, "--target", humpty("--variant", "kv-before-mb-27800")],
        "",
        monkeypatch,
        capsys,
    )
    assert through_humpty.code == 0
    through_jsonl = run_cli(
        ["replay", CORPUS, "--target", jsonl("--variant", "kv-before-mb-27800"), "--json"],
        "",
        monkeypatch,
        capsys,
    )
    assert through_jsonl.code == 1
    failed = [r for r in json.loads(through_jsonl.out)["results"] if r["status"] == "fail"]
    assert failed
    vectors = {v.id: v for v in load_corpus(CORPUS).vectors}
    for result in failed:
        vector = vectors[result["vector"]]
        # kv-current waives the purge rollback for a client that saw the purge; before
        # MB-27800 kv_engine did not.
        assert vector.request.remote_purge == vector.producer.purge_seqno > vector.request.start
        assert result["actual"] == {"decision": "rollback", "rollback_seqno": 0}


def small_inputs():
    """Tables of 1-2 entries over uuids 1, 2 (repeats allowed), seqnos <= 3; every request."""
    for length in (1, 2):
        for uuids in itertools.product((1, 2), repeat=length):
            for seqs in itertools.combinations_with_replacement(range(4), length):
                entries = tuple(
                    FailoverEntry(u, s)
                    for u, s in zip(uuids, sorted(seqs, reverse=True), strict=True)
                )
                for high in range(entries[0].seqno, 4):
                    for purge in (0, high):
                        producer = ProducerState(FailoverTable(entries), high, purge)
                        for uuid, start, snap_start, snap_end in itertools.product(
                            (1, 2, 3), range(4), range(4), range(4)
                        ):
                            if snap_start <= start <= snap_end:
                                yield StreamRequest(uuid, start, snap_start, snap_end), producer


@pytest.mark.parametrize(("name", "file"), sorted(CLAUSE_FORMS.items()))
def test_the_clause_form_answers_as_the_hand_written_producer(name: str, file: str) -> None:
    rules = resolve(RULE_SETS, RuleSet, str(DATA / "rules" / file))
    decider = Decider(rules)
    for req, producer in small_inputs():
        decision = decider.needs_rollback(req, producer)
        got = (decision.outcome is Outcome.ROLLBACK, decision.rollback_seqno)
        assert got == as_humpty_runs_it(name, req, producer), (req, producer)


@pytest.mark.parametrize(("name", "file"), sorted(CLAUSE_FORMS.items()))
def test_z3_finds_each_clause_form_differs_from_kv_current_through_humpty(
    name: str, file: str
) -> None:
    rules = resolve(RULE_SETS, RuleSet, str(DATA / "rules" / file))
    verdict = Equivalence(RULE_SETS.get("kv-current"), 3, True, Budget()).check(rules)
    assert verdict.kind == ("repeated-uuids" if name == "newest-match" else "differs")


def test_a_clause_form_rule_set_fails_the_vectors_in_process(monkeypatch, capsys) -> None:
    target = "rules:" + str(DATA / "rules" / "kv_before_mb_27604.py")
    result = run_cli(
        ["replay", CORPUS, "--target", target, "--expect", "kv-current"], "", monkeypatch, capsys
    )
    assert result.code == 1
    assert "FAIL" in result.out
