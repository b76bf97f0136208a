"""The checked-in vectors (counterexamples/vectors) against every kind of target.

The reference implementation and a real humpty_dumpty-speaking subprocess
must pass them with zero false alarms; the same subprocess with a bug
injected must be caught, with the clause and the property named.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli
from vectorhelp import BASELINE, CORPUS, ROOT, ask_once, humpty, jsonl, judge_once

from checker.inputs import load_json
from checker.vectors.baseline import baseline_corpus
from checker.vectors.format import dump_corpus, load_corpus
from spec.rules import RULE_SETS

BUILTIN = ["kv-current", "rollback-doc"]


def replay_json(args: list, monkeypatch, capsys) -> tuple[int, dict]:
    result = run_cli(["replay", CORPUS, "--json", *args], "", monkeypatch, capsys)
    return result.code, json.loads(result.out)


@pytest.mark.parametrize("name", BUILTIN)
def test_corpus_passes_against_the_reference_implementation(name: str, monkeypatch, capsys) -> None:
    code, report = replay_json(["--target", f"reference:{name}"], monkeypatch, capsys)
    assert code == 0
    assert report["expect"] == name
    assert report["summary"]["pass"] == len(load_corpus(CORPUS).vectors)


def test_corpus_passes_against_a_correct_humpty_subprocess(monkeypatch, capsys) -> None:
    code, report = replay_json(["--target", humpty()], monkeypatch, capsys)
    assert code == 0
    summary = report["summary"]
    assert summary["fail"] == summary["crash"] == summary["timeout"] == summary["garbage"] == 0
    assert summary["pass"] >= 20
    skipped = [r for r in report["results"] if r["status"] == "skip"]
    assert all(r["detail"].startswith("humpty cannot express") for r in skipped)


def test_corpus_passes_against_a_correct_jsonl_subprocess(monkeypatch, capsys) -> None:
    code, report = replay_json(["--target", jsonl()], monkeypatch, capsys)
    assert code == 0
    assert report["summary"]["pass"] == len(report["results"])


# The purge bug's answers and their judgements, shared by the two tests that replay it.
PURGE_JUDGED: dict = {}
PURGE_ASKED: dict = {}


def test_an_injected_purge_bug_is_caught_naming_clause_and_property(monkeypatch, capsys) -> None:
    judge_once(monkeypatch, PURGE_JUDGED)
    ask_once(monkeypatch, PURGE_ASKED)
    code, report = replay_json(
        ["--target", humpty("--bug", "purge-off-by-one")], monkeypatch, capsys
    )
    assert code == 1
    failures = [r for r in report["results"] if r["status"] == "fail"]
    assert failures
    assert {(r["clause"], r["property"]) for r in failures} == {("purge", "no-missed-item")}
    assert all(r["expected"]["decision"] == "rollback" for r in failures)


@pytest.mark.parametrize(
    ("bug", "clause", "kind", "default_code"),
    [
        ("lagging-strict", "lagging", "safety", 1),  # rolls back where it must not: breaks
        ("upper-self", "ahead-of-upper", "cost", 0),  # rolls back deeper: safe, a cost only
    ],
)
def test_other_injected_bugs_are_caught_and_judged_by_the_answer_given(
    bug, clause, kind, default_code, monkeypatch, capsys
) -> None:
    """Every injected bug fails vectors of its clause; whether the run fails (exit 1) by
    default depends on what its answers do (``replay --fail-on safety``), and with
    ``--fail-on any`` every wrong answer fails it."""
    judge_once(monkeypatch)  # the second replay's answers are the first's
    ask_once(monkeypatch, {})
    code, report = replay_json(["--target", jsonl("--bug", bug)], monkeypatch, capsys)
    assert code == default_code
    failed = [r for r in report["results"] if r["status"] == "fail"]
    assert {r["judgement"]["kind"] for r in failed if r["clause"] == clause} >= {kind}
    code, _ = replay_json(
        ["--target", jsonl("--bug", bug), "--fail-on", "any"], monkeypatch, capsys
    )
    assert code == 1


def test_text_report_names_the_failure_and_how_to_reproduce_it(monkeypatch, capsys) -> None:
    """In process (replay exits 1 from a real process in test_client_adapters.py), the
    purge bug's answers asked for and judged once with the test above."""
    judge_once(monkeypatch, PURGE_JUDGED)
    ask_once(monkeypatch, PURGE_ASKED)
    target = humpty("--bug", "purge-off-by-one")
    result = run_cli(["replay", CORPUS, "--target", target], "", monkeypatch, capsys)
    assert result.code == 1
    fail_lines = [line for line in result.out.splitlines() if line.startswith("FAIL")]
    assert all(" purge " in line for line in fail_lines)  # the bug's clause, every one
    breaking = [line for line in fail_lines if "breaks no-missed-item" in line]
    assert breaking and len(breaking) >= len(fail_lines) - 1  # one: rolls back to 1, not 0
    assert "reproduce" in result.out and "--vector v-" in result.out
    assert "replay FAILED" in result.out


@pytest.mark.parametrize(
    ("name", "space", "scan"),
    [
        ("kv-current", [], "to be killed"),
        ("rollback-doc", ["--distinct-uuids"], "equivalent here"),
    ],
)
def test_through_humpty_alone_every_mutant_is_killed_and_the_guarantee_proved(
    name: str, space: list, scan: str, monkeypatch, capsys
) -> None:
    """vectors score prints the kill rate, the guarantee and the class it holds for."""
    result = run_cli(
        ["vectors", "score", CORPUS, "--rules", name, "--humpty-only", *space],
        "",
        monkeypatch,
        capsys,
    )
    assert result.code == 0, result.out
    assert "(100.0%)" in result.out
    assert f"differ only on tables that repeat a uuid ({scan}): scan:table:1" in result.out
    assert f"guarantee for {name}: every rule set in the class below" in result.out
    assert "humpty-expressible requests against producers with failover tables of at most 3" in (
        result.out
    )
    assert "proved by Z3 at every one of the" in result.out
    assert f"class: every rule set one change away from {name}" in result.out


def test_corpus_holds_every_confirmed_counterexample_decision() -> None:
    """A new counterexample in counterexamples/ needs `dcpcheck vectors generate` re-run."""
    corpus = load_corpus(CORPUS)
    inputs = {
        json.dumps([v.producer.to_json(), v.request.to_json()], sort_keys=True)
        for v in corpus.vectors
    }
    for path in sorted((ROOT / "counterexamples").glob("*.json")):
        data = load_json(path)
        if not isinstance(data, dict):
            continue
        for index, decision in enumerate(data.get("decisions", [])):
            if decision["rules"] not in corpus.rules:
                continue
            key = json.dumps([decision["producer"], decision["request"]], sort_keys=True)
            assert key in inputs, (
                f"{path.name} decision {index} is not a vector; regenerate with: "
                f"{corpus.command} --out counterexamples/vectors"
            )


def test_checked_in_baseline_is_kv_engines_cases(tmp_path: Path) -> None:
    """kv-current answers every baseline case as kv_engine's unit tests assert."""
    fresh = dump_corpus(baseline_corpus(list(RULE_SETS)))
    assert (BASELINE / "vectors.json").read_text() == fresh


def test_baseline_scores_below_the_generated_set(monkeypatch, capsys) -> None:
    result = run_cli(
        ["vectors", "score", BASELINE, "--rules", "kv-current"], "", monkeypatch, capsys
    )
    assert result.code == 1
    assert "survived strict:purge:1" in result.out
    assert "DOES NOT HOLD" in result.out
    assert "not exposed (scan at 'table'): scan the table newest-first" in result.out
