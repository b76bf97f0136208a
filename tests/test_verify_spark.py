"""`dcpcheck verify` on a real (embedded) Spark session, shared by the test run."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from clihelp import run_cli

from checker.check import Verdict
from checker.commands.verify import verify_exit_code
from checker.spark.matrix import run_matrix
from spec.bounds import Bounds

SMALL = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]


def test_the_matrix_runs_as_spark_tasks_in_a_fixed_order(spark) -> None:
    combos = [
        ("kv-current", "collapse-snapshot", "no-missed-item"),
        ("kv-current", "correct", "no-missed-item"),
        ("rollback-doc", "correct", "valid-request"),
    ]
    results = run_matrix(spark, combos, Bounds(seqnos=4, keys=2, entries=3, failovers=1), 120)
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
            *SMALL,
        ],
        "",
        monkeypatch,
        capsys,
    )
    assert result.code == 0, result.out + result.err
    assert "as expected" in result.out and "EXPECTED" not in result.out
    suite = ET.parse(junit).getroot()
    assert suite.get("tests") == "2" and suite.get("failures") == "0"
    assert list((tmp_path / "cex").glob("no-missed-item--kv-current--collapse-snapshot--*.json"))
    assert spark.sparkContext._jsc is not None  # the shared session survived


def test_an_unexpected_verdict_makes_verify_fail(spark) -> None:
    combos = [("kv-current", "collapse-snapshot", "no-missed-item")]
    results = run_matrix(spark, combos, Bounds(seqnos=4, keys=2, entries=3, failovers=1), 120)
    wanted = {combos[0]: "holds"}
    assert verify_exit_code(results, wanted) == 1
    assert verify_exit_code(results, {combos[0]: "violated"}) == 0
