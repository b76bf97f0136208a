"""`dcpcheck verify` on a real (embedded) Spark session, shared by the test run."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from clihelp import run_cli

from checker.cluster_check import replay_counterexample
from checker.engines.options import Options
from checker.report.text import exit_code_against_expected
from checker.result import Verdict
from checker.spark.tasks import run_tasks
from checker.tasks import ClusterTask, ScenarioTask
from spec.bounds import Bounds
from spec.cluster import PRESETS
from spec.cluster.actions import action_from_json
from spec.consumers import catalogue_names
from spec.rules import RULE_SETS

SMALL = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]


def test_the_matrix_runs_as_spark_tasks_in_a_fixed_order(spark) -> None:
    combos = [
        ("kv-current", "collapse-snapshot", "no-missed-item"),
        ("kv-current", "correct", "no-missed-item"),
        ("rollback-doc", "correct", "valid-request"),
    ]
    bounds = Bounds(seqnos=4, keys=2, entries=3, failovers=1)
    tasks = [ScenarioTask(*combo, bounds, Options(timeout_s=120)) for combo in combos]
    results = [result for (result,) in run_tasks(spark, tasks)]
    assert [(r.rules, r.consumer, r.property) for r in results] == combos
    assert [r.verdict for r in results] == [Verdict.VIOLATED, Verdict.HOLDS, Verdict.HOLDS]
    assert results[0].confirmed


def test_verify_prints_the_table_and_writes_junit(
    spark, tmp_path: Path, monkeypatch, capsys
) -> None:
    junit = tmp_path / "verify.xml"
    result = run_cli(
        [
            "verify",
            "--rules",
            "kv-current",
            "--property",
            "no-missed-item",
            "--junit",
            junit,
            "--out",
            tmp_path / "cex",
            "--durability-preset",
            "mb-51805",
            "--no-every-session",
            *SMALL,
        ],
        "",
        monkeypatch,
        capsys,
    )
    assert result.code == 0, result.out + result.err
    assert "as expected" in result.out and "EXPECTED" not in result.out
    total = 2 + len(catalogue_names()) + 12 + 2 + 2  # the JUnit count below
    assert result.out.splitlines()[-1].startswith(f"{total} of {total} checks as expected in ")
    assert "durability, preset mb-51805" in result.out
    assert "clients (dcpcheck clients)" in result.out
    suite = ET.parse(junit).getroot()
    # the matrix (2 consumers), the client catalogue (every client and fix, as it ships and
    # under each other setting), the durability checks, the decision-level proofs
    # (bounded-rollback, valid-request) and valid-request for any history length of each
    # consumer of the matrix
    clients = len(catalogue_names())
    assert suite.get("tests") == str(2 + clients + 12 + 2 + 2) and suite.get("failures") == "0"
    durability = [c for c in suite if c.get("classname", "").startswith("dcpcheck.durability.")]
    assert len(durability) == 12
    assert list((tmp_path / "cex").glob("no-missed-item--kv-current--collapse-snapshot--*.json"))
    assert list((tmp_path / "cex" / "clients").glob("no-missed-item--kv-current--*"))
    # MB-51805: snapshot-end acks without the restart fix stall after a restart
    stalled = (tmp_path / "cex" / "durability").glob("prepare-ack-progress--ack-at-snapshot-end--*")
    assert list(stalled)
    assert spark.sparkContext._jsc is not None  # the shared session survived


def test_verify_json_carries_the_durability_results_with_their_expectations(
    spark, tmp_path: Path, monkeypatch, capsys
) -> None:
    result = run_cli(
        [
            "verify",
            "--json",
            "--rules",
            "kv-current",
            "--consumer",
            "correct",
            "--property",
            "valid-request",
            "--durability-preset",
            "mb-51805",
            "--out",
            tmp_path,
            "--no-every-session",
            "--no-decision",  # the decision-level proofs: the JUnit test above
            *SMALL,
        ],
        "",
        monkeypatch,
        capsys,
    )
    assert result.code == 0, result.err
    clients = json.loads(result.out)["clients"]
    assert len(clients) == len(catalogue_names()) and all(
        r["verdict"] == r["expected"] == "holds" for r in clients
    )
    records = json.loads(result.out)["durability"]
    assert len(records) == 12
    assert all(r["verdict"] == r["expected"] for r in records)
    stalled = {
        (r["ack_rule"], r["branch_rule"])
        for r in records
        if r["property"] == "prepare-ack-progress" and r["verdict"] == "violated"
    }
    assert stalled == {
        ("ack-at-snapshot-end", "persisted-snapshot"),
        ("ack-at-snapshot-end", "highest-snapshot"),
    }


def test_durability_tasks_come_back_from_spark_as_full_results(spark) -> None:
    bounds = PRESETS["mb-34150"].bounds
    tasks = [
        ClusterTask(
            "ack-on-prepare", "persisted-snapshot", "no-lost-syncwrite", bounds, "mb-34150"
        ),
        ClusterTask("ack-on-prepare", "highest-snapshot", "no-lost-syncwrite", bounds, "mb-34150"),
    ]
    (lost,), (kept,) = run_tasks(spark, tasks)
    assert lost.verdict is Verdict.VIOLATED and kept.verdict is Verdict.HOLDS
    assert lost.expected == "violated" and kept.expected == "holds"
    assert lost.confirmed and lost.run is not None and len(lost.run) == 14
    replayed = replay_counterexample(
        lost.ack_rule,
        lost.branch_rule,
        lost.property,
        RULE_SETS.get(lost.rules),
        lost.bounds,
        [action_from_json(a, "run") for a in lost.run.actions()],
    )
    assert replayed.confirmed, replayed.detail


def test_a_bad_durability_preset_is_a_usage_error(monkeypatch, capsys) -> None:
    result = run_cli(["verify", "--durability-preset", "mb-99999"], "", monkeypatch, capsys)
    assert result.code == 2
    assert result.err.count("\n") == 1 and "mb-99999" in result.err
    both = run_cli(
        ["verify", "--no-durability", "--durability-preset", "mb-51805"], "", monkeypatch, capsys
    )
    assert both.code == 2 and "contradict" in both.err


def test_an_unexpected_verdict_makes_verify_fail(spark) -> None:
    task = ScenarioTask(
        "kv-current",
        "collapse-snapshot",
        "no-missed-item",
        Bounds(seqnos=4, keys=2, entries=3, failovers=1),
        Options(timeout_s=120),
    )
    ((result,),) = run_tasks(spark, [task])
    assert result.expected == "violated" and exit_code_against_expected([result]) == 0
    assert exit_code_against_expected([result.but(expected="holds")]) == 1
    assert exit_code_against_expected([result.but(expected=None)]) == 1


def test_a_durability_verdict_other_than_the_recorded_one_fails_verify() -> None:
    task = ClusterTask(
        "ack-at-snapshot-end",
        "highest-snapshot",
        "prepare-ack-progress",
        PRESETS["mb-51805"].bounds,
        "mb-51805",
    )
    stalled = task.run()
    assert stalled.verdict is Verdict.VIOLATED
    assert exit_code_against_expected([stalled]) == 0  # recorded as violated (MB-51805)
    claimed = stalled.but(verdict=Verdict.HOLDS)
    assert exit_code_against_expected([claimed]) == 1
    unknown = stalled.but(verdict=Verdict.UNKNOWN)
    assert exit_code_against_expected([unknown]) == 3
    off_preset = stalled.but(expected=None)  # no record: a violation is unexpected
    assert exit_code_against_expected([off_preset]) == 1
