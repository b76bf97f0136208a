"""``dcpcheck vectors generate``: coverage, counterexamples, determinism, outputs.

The goal and kill properties are checked on the checked-in corpus (the
product; regenerating it with the neighbourhood phase takes a minute or more,
see benchmarks/vectors.py); determinism and the counterexample input on a
quick run (``--rules kv-current --no-guarantee``).
"""

from __future__ import annotations

import json

import pytest
from clihelp import run_cli
from vectorhelp import CORPUS, generate_args, generated, generated_dir, workspace

from checker.symbolic.budget import Budget
from checker.vectors.format import load_corpus
from checker.vectors.goals import coverage_goals, producer_goals
from checker.vectors.outputs import itf_trace
from checker.vectors.score import score
from spec.failover_table import UINT64_MAX
from spec.reference.producer import REFERENCE_DECISIONS, stream_request
from spec.rules import RULE_SETS, DecisionSpace

BUILTIN = ["kv-current", "rollback-doc"]


def checked_in():
    return load_corpus(CORPUS)


def test_every_goal_is_covered_or_proved_unreachable() -> None:
    corpus = checked_in()
    space = DecisionSpace(3)
    goals = [g.name for g in producer_goals(space)]
    for name in BUILTIN:
        goals += [g.name for g in coverage_goals(space, RULE_SETS.get(name))]
    covered = {goal for v in corpus.vectors for goal in v.covers}
    missing = [g for g in goals if g not in covered and g not in corpus.unreachable]
    assert missing == []


@pytest.mark.parametrize("name", BUILTIN)
def test_every_clause_and_adjustment_state_is_exercised(name: str) -> None:
    corpus = checked_in()
    rules = RULE_SETS.get(name)
    covered = {goal for v in corpus.vectors for goal in v.covers}
    for clause in (*rules.case_names,):
        assert f"{name}:clause:{clause}" in covered
    for adjust in rules.adjustments:
        assert {f"{name}:adjust:{adjust.name}:on", f"{name}:adjust:{adjust.name}:off"} <= covered
    assert {v.expected[name].case for v in corpus.vectors} == set(rules.case_names)


def test_only_impossible_boundaries_are_unreachable() -> None:
    """Below 0, or outside snap_start <= start <= snap_end: nothing else."""
    for goal in checked_in().unreachable:
        assert ":boundary:" in goal, goal
        assert goal.endswith((":below", ":above")), goal


@pytest.mark.parametrize("name", BUILTIN)
def test_the_checked_in_set_kills_every_non_equivalent_mutant(name: str) -> None:
    result = score(checked_in().vectors, RULE_SETS.get(name), DecisionSpace(3), Budget())
    assert result.count("survived") == 0
    assert result.count("unknown") == 0
    assert result.count("killed") == result.killable > 0


def test_the_checked_in_set_is_small_and_records_its_guarantee() -> None:
    corpus = checked_in()
    assert len(corpus.vectors) < 150
    assert not corpus.distinct_uuids
    for name in BUILTIN:
        assert corpus.guarantee[name] == {"humpty": "proved", "all": "proved"}
        # The table scan differs only when a table repeats the uuid.
        assert corpus.repeated_uuid_mutants[name] == ("scan:table:1",)


@pytest.mark.parametrize("name", BUILTIN)
def test_expectations_agree_with_the_reference_producer(name: str) -> None:
    for vector in checked_in().vectors:
        answer = stream_request(vector.request, vector.producer, REFERENCE_DECISIONS[name])
        expected = vector.expected[name]
        assert (answer.outcome, answer.rollback_seqno, answer.case) == (
            expected.answer.outcome,
            expected.answer.rollback_seqno,
            expected.case,
        ), vector.id


def test_a_counterexample_decision_becomes_a_tagged_vector() -> None:
    tagged = [v for v in generated().vectors if v.origin.startswith("counterexample:")]
    assert [v.origin for v in tagged] == ["counterexample:seed001-decisions.json#0"]
    (vector,) = tagged
    assert (vector.request.uuid, vector.request.start, vector.producer.high_seqno) == (
        2222,
        45,
        100,
    )
    assert vector.expected["kv-current"].answer.rollback_seqno == 30


def test_only_the_named_counterexample_files_are_read() -> None:
    """stray.json lies beside the named file; its decision is not a vector."""
    corpus = generated()
    assert all("stray" not in v.origin for v in corpus.vectors)
    assert (workspace() / "counterexamples" / "seed001-decisions.json").name in corpus.command
    assert "stray" not in corpus.command


def test_most_vectors_are_humpty_expressible_and_readable() -> None:
    vectors = checked_in().vectors
    humpty = [v for v in vectors if v.request.humpty_expressible]
    assert len(humpty) >= len(vectors) // 2
    small = [v for v in vectors if v.producer.high_seqno <= 100]
    assert len(small) >= len(vectors) * 3 // 4


def test_generation_is_byte_identical_whatever_else_lies_beside_the_counterexamples(
    monkeypatch, capsys
) -> None:
    """The same arguments again, after the stray file beside seed001's is gone."""
    first = generated_dir()
    (workspace() / "counterexamples" / "stray.json").unlink(missing_ok=True)
    second = workspace() / "again"
    assert run_cli(generate_args(second), "", monkeypatch, capsys).code == 0
    files_a = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert files_a == files_b
    for relative in files_a:
        assert (first / relative).read_bytes() == (second / relative).read_bytes()
    corpus = load_corpus(first)
    assert len(list((first / "itf").glob("*.itf.json"))) == len(corpus.vectors)
    assert list((first / "humpty").glob("*.in"))


def test_humpty_files_replay_through_decide_byte_for_byte(monkeypatch, capsys) -> None:
    humpty_dir = CORPUS / "humpty"
    script = (humpty_dir / "check.sh").read_text().splitlines()
    invocations = [line.split() for line in script if line.startswith('"$HUMPTY"')]
    assert invocations
    for words in invocations:
        table, high, purge, stdin = words[1], words[2], words[3], words[5]
        stem = table.removesuffix(".table.json")
        for rules in BUILTIN:
            result = run_cli(
                ["decide", humpty_dir / table, high, purge, "--rules", rules],
                (humpty_dir / stdin).read_text(),
                monkeypatch,
                capsys,
            )
            assert result.out == (humpty_dir / f"{stem}.{rules}.expected").read_text()


def test_itf_writes_large_integers_as_bigint() -> None:
    vector = checked_in().vectors[0]
    state = itf_trace(vector, "vectors.json")["states"][0]
    assert state["#meta"] == {"index": 0}
    assert state["request"]["end"] == {"#bigint": str(UINT64_MAX)}
    assert isinstance(state["producer"]["high_seqno"], int)
    json.dumps(state)  # plain JSON, no null
    assert "null" not in json.dumps(state)
