"""``replay`` judges the answer, not the clause: one story with ``review`` and ``diff``.

The patch: snapshot-mismatch rolls back to snap_start - 1 (deeper than kv-current, and
safe). ``diff`` of its clause form, ``review`` of it as a humpty_dumpty build and
``replay`` of the vectors against that build all call it a cost regression, and none
exits 1; a purge test on the snapshot end (unsafe) is a safety regression to replay too.
"""

from __future__ import annotations

import json

from clihelp import run_cli
from conftest import DATA
from vectorhelp import ask_once, humpty, judge_once

PATCH = "mismatch-to-snap-start-minus-one"
BUILD = humpty("--variant", PATCH)


def test_replay_calls_the_snap_start_minus_one_patch_cost_only_and_passes(
    monkeypatch, capsys
) -> None:
    judge_once(monkeypatch)  # the --json replay's answers are the text one's
    ask_once(monkeypatch, {})  # and the build answers the --json replay as the text one
    result = run_cli(["replay", "--target", BUILD], "", monkeypatch, capsys)
    assert result.code == 0, result.err
    wrong = [line for line in result.out.splitlines() if line.startswith("FAIL")]
    assert wrong
    assert all("cost only: rolls back deeper than needed (cost regression)" in w for w in wrong)
    assert "breaks" not in result.out
    assert f"0 break a safety property, {len(wrong)} cost only" in result.out
    asked = run_cli(["replay", "--target", BUILD, "--fail-on", "cost", "--json"], "",
                    monkeypatch, capsys)  # fmt: skip
    assert asked.code == 1
    report = json.loads(asked.out)
    assert report["judged"] == {"safety": 0, "cost": len(wrong), "none": 0, "unjudged": 0}
    judged = {r["judgement"]["region"] for r in report["results"] if r["judgement"]}
    assert judged == {"snapshot-mismatch -> target rolls back (rollback deeper)"}


def test_diff_and_review_tell_the_same_story(monkeypatch, capsys, tmp_path) -> None:
    rules = f"{DATA / 'rules' / 'single_changes.py'}:{PATCH}"
    bounds = ["--seqnos", "3", "--keys", "2", "--entries", "3", "--failovers", "1"]
    diff = run_cli(["diff", "kv-current", rules, "--json", *bounds], "", monkeypatch, capsys)
    assert diff.code == 0, diff.err
    regions = {
        (r["case_a"], r["change"], r["via"]): r["classification"]
        for r in json.loads(diff.out)["regions"]
    }
    assert regions[("snapshot-mismatch", "rollback deeper", None)] == "cost regression"
    assert "safety regression" not in regions.values()
    review = run_cli(
        ["review", "--target", BUILD, "--no-spark", "--quiet", "--out", tmp_path / "review"],
        "",
        monkeypatch,
        capsys,
    )
    assert review.code == 0, review.err
    assert "snapshot-mismatch -> target rolls back (rollback deeper): cost regression" in (
        review.out
    )


def test_replay_still_names_the_property_an_unsafe_answer_breaks(monkeypatch, capsys) -> None:
    target = humpty("--variant", "purge-on-snap-end")
    result = run_cli(["replay", "--target", target], "", monkeypatch, capsys)
    assert result.code == 1
    wrong = [line for line in result.out.splitlines() if line.startswith("FAIL")]
    assert wrong
    assert all("breaks no-missed-item (safety regression)" in w for w in wrong)
