"""``dcpcheck vectors generate``: coverage, kills, counterexamples, determinism, outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli
from vectorhelp import FIXTURE_COUNTEREXAMPLES, generated

from checker.vectors.format import load_corpus
from checker.vectors.goals import coverage_goals, producer_goals
from checker.vectors.outputs import itf_trace
from checker.vectors.score import score
from spec.failover_table import UINT64_MAX
from spec.reference.producer import REFERENCE_DECISIONS, stream_request
from spec.rules import RULE_SETS, DecisionSpace

BUILTIN = ["kv-current", "rollback-doc"]


def test_every_goal_is_covered_or_proved_unreachable() -> None:
    corpus = generated()
    space = DecisionSpace(3)
    goals = [g.name for g in producer_goals(space)]
    for name in BUILTIN:
        goals += [g.name for g in coverage_goals(space, RULE_SETS.get(name))]
    covered = {goal for v in corpus.vectors for goal in v.covers}
    missing = [g for g in goals if g not in covered and g not in corpus.unreachable]
    assert missing == []


@pytest.mark.parametrize("name", BUILTIN)
def test_every_clause_and_adjustment_state_is_exercised(name: str) -> None:
    corpus = generated()
    rules = RULE_SETS.get(name)
    covered = {goal for v in corpus.vectors for goal in v.covers}
    for clause in (*rules.case_names,):
        assert f"{name}:clause:{clause}" in covered
    for adjust in rules.adjustments:
        assert {f"{name}:adjust:{adjust.name}:on", f"{name}:adjust:{adjust.name}:off"} <= covered
    assert {v.expected[name].case for v in corpus.vectors} == set(rules.case_names)


def test_only_impossible_boundaries_are_unreachable() -> None:
    """Below 0, or outside snap_start <= start <= snap_end: nothing else."""
    for goal in generated().unreachable:
        assert ":boundary:" in goal, goal
        assert goal.endswith((":below", ":above")), goal


@pytest.mark.parametrize("name", BUILTIN)
def test_the_generated_set_kills_every_non_equivalent_mutant(name: str) -> None:
    result = score(generated().vectors, RULE_SETS.get(name), 3, 120)
    assert result.count("survived") == 0
    assert result.count("unknown") == 0
    assert result.count("killed") == result.killable > 0


@pytest.mark.parametrize("name", BUILTIN)
def test_expectations_agree_with_the_reference_producer(name: str) -> None:
    for vector in generated().vectors:
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


def test_most_vectors_are_humpty_expressible_and_readable() -> None:
    vectors = generated().vectors
    humpty = [v for v in vectors if v.request.humpty_expressible]
    assert len(humpty) >= len(vectors) // 2
    small = [v for v in vectors if v.producer.high_seqno <= 100]
    assert len(small) >= len(vectors) * 3 // 4


def test_generation_is_deterministic_and_writes_every_format(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    args = ["vectors", "generate", "--counterexamples", FIXTURE_COUNTEREXAMPLES]
    first = run_cli([*args, "--out", tmp_path / "a"], "", monkeypatch, capsys)
    second = run_cli([*args, "--out", tmp_path / "b"], "", monkeypatch, capsys)
    assert (first.code, second.code) == (0, 0)
    files_a = sorted(
        p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file()
    )
    files_b = sorted(
        p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file()
    )
    assert files_a == files_b
    for relative in files_a:
        assert (tmp_path / "a" / relative).read_bytes() == (tmp_path / "b" / relative).read_bytes()
    corpus = load_corpus(tmp_path / "a")
    assert len(list((tmp_path / "a" / "itf").glob("*.itf.json"))) == len(corpus.vectors)
    assert list((tmp_path / "a" / "humpty").glob("*.in"))


def test_humpty_files_replay_through_decide_byte_for_byte(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    out = tmp_path / "v"
    run_cli(
        [
            "vectors",
            "generate",
            "--rules",
            "kv-current",
            "--counterexamples",
            tmp_path,
            "--out",
            out,
        ],
        "",
        monkeypatch,
        capsys,
    )
    script = (out / "humpty" / "check.sh").read_text().splitlines()
    invocations = [line.split() for line in script if line.startswith('"$HUMPTY"')]
    assert invocations
    for words in invocations:
        table, high, purge, stdin = words[1], words[2], words[3], words[5]
        stem = table.removesuffix(".table.json")
        result = run_cli(
            ["decide", out / "humpty" / table, high, purge],
            (out / "humpty" / stdin).read_text(),
            monkeypatch,
            capsys,
        )
        assert result.out == (out / "humpty" / f"{stem}.kv-current.expected").read_text()


def test_itf_writes_large_integers_as_bigint() -> None:
    vector = generated().vectors[0]
    state = itf_trace(vector, "vectors.json")["states"][0]
    assert state["#meta"] == {"index": 0}
    assert state["request"]["end"] == {"#bigint": str(UINT64_MAX)}
    assert isinstance(state["producer"]["high_seqno"], int)
    json.dumps(state)  # plain JSON, no null
    assert "null" not in json.dumps(state)
