"""Replay against misbehaving targets: never a pass, never a hang; and target parsing."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from clihelp import run_cli
from vectorhelp import CORPUS, humpty, jsonl, write_subset

from checker.vectors.format import load_corpus
from checker.vectors.humpty_output import parse_answers
from checker.vectors.targets import parse_jsonl_answer
from spec.types import Outcome, StreamRequest


def small_corpus(tmp_path: Path, count: int = 3) -> tuple[Path, list[str]]:
    """The first ``count`` humpty-expressible vectors sharing one producer state."""
    corpus = load_corpus(CORPUS)
    by_producer: dict = {}
    for v in corpus.vectors:
        if v.request.humpty_expressible:
            by_producer.setdefault(v.producer, []).append(v.id)
    group = max(by_producer.values(), key=len)[:count]
    assert len(group) >= 2, "the corpus should group several requests on one producer"
    return write_subset(corpus, group, tmp_path / "small.json"), group


def replay(path: Path, target: str, monkeypatch, capsys, *extra: str) -> tuple[int, dict]:
    result = run_cli(
        ["replay", path, "--json", "--target", target, *extra], "", monkeypatch, capsys
    )
    return result.code, json.loads(result.out) if result.out else {}


def statuses(report: dict) -> dict[str, str]:
    return {r["vector"]: r["status"] for r in report["results"]}


@pytest.mark.parametrize("make", [humpty, jsonl])
def test_a_crash_on_one_request_is_that_vectors_crash(tmp_path, monkeypatch, capsys, make) -> None:
    path, ids = small_corpus(tmp_path)
    corpus = load_corpus(path)
    victim = corpus.vectors[1]
    code, report = replay(
        path, make("--crash-on-start", str(victim.request.start)), monkeypatch, capsys
    )
    assert code == 1
    got = statuses(report)
    assert got[victim.id] == "crash"
    same_start = [v.id for v in corpus.vectors if v.request.start == victim.request.start]
    assert all(got[i] == "pass" for i in ids if i not in same_start)


@pytest.mark.parametrize("make", [humpty, jsonl])
def test_a_hanging_target_times_out_quickly(tmp_path, monkeypatch, capsys, make) -> None:
    path, _ = small_corpus(tmp_path, 2)
    started = time.monotonic()
    code, report = replay(path, make("--hang"), monkeypatch, capsys, "--timeout", "0.5")
    assert time.monotonic() - started < 10
    assert code == 1
    assert set(statuses(report).values()) == {"timeout"}


@pytest.mark.parametrize("make", [humpty, jsonl])
def test_garbage_output_is_garbage_not_a_pass(tmp_path, monkeypatch, capsys, make) -> None:
    path, _ = small_corpus(tmp_path, 2)
    code, report = replay(path, make("--garbage"), monkeypatch, capsys)
    assert code == 1
    assert set(statuses(report).values()) == {"garbage"}


def test_a_reported_error_is_that_vectors_crash_and_the_rest_pass(
    tmp_path, monkeypatch, capsys
) -> None:
    path, _ = small_corpus(tmp_path, count=8)
    corpus = load_corpus(path)
    starts = [v.request.start for v in corpus.vectors]
    victim = next(v for v in corpus.vectors if starts.count(v.request.start) < len(starts))
    code, report = replay(
        path, jsonl("--error-on-start", str(victim.request.start)), monkeypatch, capsys
    )
    assert code == 1
    results = {r["vector"]: r for r in report["results"]}
    assert results[victim.id]["status"] == "crash"
    assert "cannot decide this" in results[victim.id]["detail"]
    others = [v.id for v in corpus.vectors if v.request.start != victim.request.start]
    assert others and all(results[i]["status"] == "pass" for i in others)


def test_a_target_that_never_answers_is_given_up_after_three_timeouts(
    tmp_path, monkeypatch, capsys
) -> None:
    corpus = load_corpus(CORPUS)
    path = write_subset(corpus, [v.id for v in corpus.vectors[:5]], tmp_path / "five.json")
    code, report = replay(path, jsonl("--hang"), monkeypatch, capsys, "--timeout", "0.3")
    assert code == 1
    details = [r["detail"] for r in report["results"]]
    assert details[3].startswith("not run") and details[4].startswith("not run")


def test_humpty_output_must_echo_the_request_sent() -> None:
    req = StreamRequest(2222, 45, 45, 45)
    good = "header\n\nTesting UUID:2222 snapshot:{45,45} start:45\n  Rollback:true\n"
    good += "  Requested rollback seqno:30\n  Reason: anything\n"
    answers, problem = parse_answers(good, [req])
    assert problem is None and answers[0].rollback_seqno == 30
    _, problem = parse_answers(good.replace("start:45", "start:44"), [req])
    assert problem is not None and "Testing UUID:2222" in problem
    _, problem = parse_answers(good.replace("  Requested rollback seqno:30\n", ""), [req])
    assert problem is not None
    _, problem = parse_answers(good + "extra\n", [req])
    assert problem is not None


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ('{"id": "v-1", "decision": "ok", "rollback_seqno": null}', "answer"),
        ('{"id": "v-1", "decision": "rollback", "rollback_seqno": 3, "case": "x"}', "answer"),
        ('{"id": "v-2", "decision": "ok", "rollback_seqno": null}', "garbage"),
        ('{"id": "v-1", "decision": "rollback"}', "garbage"),
        ('{"id": "v-1", "decision": "ok", "rollback_seqno": 0}', "garbage"),
        ('{"id": "v-1", "decision": "maybe"}', "garbage"),
        ('{"id": "v-1", "error": "unsupported field"}', "crash"),
        ("[1, 2]", "garbage"),
        ("ok", "garbage"),
    ],
)
def test_jsonl_answers_are_checked_strictly(line: str, kind: str) -> None:
    assert parse_jsonl_answer(line, "v-1").kind == kind


def test_jsonl_answer_decodes_a_rollback() -> None:
    reply = parse_jsonl_answer('{"id": "v-1", "decision": "rollback", "rollback_seqno": 3}', "v-1")
    assert reply.answer is not None
    assert (reply.answer.outcome, reply.answer.rollback_seqno) == (Outcome.ROLLBACK, 3)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nonsense", "expected rules:NAME|FILE"),
        ("humpty:", "expected rules:NAME|FILE"),
        ("humpty:/no/such/binary", "cannot run '/no/such/binary'"),
        ("jsonl:'unbalanced", "cannot split"),
        ("rules:no-such-rules", "unknown rules 'no-such-rules'"),
        ("reference:no-such", "unknown reference implementation"),
    ],
)
def test_a_bad_target_is_one_line_and_exit_2(target, message, monkeypatch, capsys) -> None:
    result = run_cli(["replay", CORPUS, "--target", target], "", monkeypatch, capsys)
    assert result.code == 2
    assert message in result.err
    assert result.err.count("\n") == 1


def test_expecting_a_rule_set_the_corpus_lacks_is_exit_2(monkeypatch, capsys) -> None:
    result = run_cli(
        ["replay", CORPUS, "--target", "rules:kv-current", "--expect", "other"],
        "",
        monkeypatch,
        capsys,
    )
    assert result.code == 2
    assert "no expectations for 'other'" in result.err


def test_rules_target_defaults_to_its_own_expectations(monkeypatch, capsys) -> None:
    code, report = replay(CORPUS, "rules:rollback-doc", monkeypatch, capsys)
    assert code == 0
    assert report["expect"] == "rollback-doc"
    code, report = replay(
        CORPUS, "rules:rollback-doc", monkeypatch, capsys, "--expect", "kv-current"
    )
    assert code == 1
