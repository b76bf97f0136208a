"""`dcpcheck sweep` on Spark (the session-scoped ``spark`` fixture): the dataset, the
summary, shipped rule files, the cross-check's exit codes, the time limit, bad input."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from clihelp import run_cli
from conftest import DATA

import checker.sweep.crosscheck as crosscheck_module
from checker.atomic import partial_dir, publish_dir
from checker.cli import build_parser
from checker.commands.sweep import SweepOptions, sweep_options
from checker.diff.decisions import search_regions
from checker.runner import OnSpark
from checker.sweep.space import SweepSpace

SMALL = ["--entries", "2", "--seqnos", "2"]


def sweep(args: list, monkeypatch, capsys):
    return run_cli(["sweep", *SMALL, *args], "", monkeypatch, capsys)


def test_a_sweep_writes_every_decision_and_agrees_with_diff(
    spark, tmp_path: Path, monkeypatch, capsys
) -> None:
    out = tmp_path / "sweep"
    result = sweep(["--out", out, "--json", "--distinct-uuids"], monkeypatch, capsys)
    assert result.code == 0, result.err
    summary = json.loads(result.out)
    assert summary == json.loads((out / "summary.json").read_text())
    assert "parts done" in result.err or "done sweep" in result.err
    assert summary["space"]["duplicate_uuids"] is False
    size = SweepSpace(2, 2).size
    assert summary["space"]["inputs"] == size
    assert summary["crosscheck"]["agreement"] == "agree"

    table = pq.read_table(out / "decisions")
    assert table.num_rows == size
    assert sorted(table.column("id").to_pylist()) == list(range(size))
    for name in summary["rules"]:
        clauses = Counter(pc.struct_field(table.column(name), "clause").to_pylist())
        expected = {c["clause"]: c["inputs"] for c in summary["clauses"] if c["rules"] == name}
        assert dict(clauses) == expected
    (pair,) = [n for n in table.column_names if " vs " in n]
    regions = Counter(v for v in table.column(pair).to_pylist() if v is not None)
    assert dict(regions) == {r["label"]: r["inputs"] for r in summary["regions"]}
    assert regions  # kv-current and rollback-doc differ within these bounds
    assert not list(tmp_path.glob(".sweep.*"))  # no partial or old directory left


def test_a_user_rule_file_is_shipped_to_the_executors(
    spark, tmp_path: Path, monkeypatch, capsys
) -> None:
    rules = DATA / "rules" / "purge_on_snap_start.py"
    out = tmp_path / "mine"
    args = ["--rules", "kv-current", "--rules", rules, "--out", out]  # uuids may repeat
    result = sweep(args, monkeypatch, capsys)
    assert result.code == 0, result.out + result.err
    assert "kv-current (A) vs purge-on-snap-start (B)" in result.out
    assert "purge -> " in result.out or " -> purge" in result.out
    assert "cross-check with dcpcheck diff (tables of <= 2 entries): agree" in result.out
    assert f"--rules {rules}" in result.out  # the decide lines name the file
    summary = json.loads((out / "summary.json").read_text())
    assert summary["space"]["duplicate_uuids"] is True
    assert summary["space"]["inputs"] == SweepSpace(2, 2, duplicate_uuids=True).size
    again = sweep([*args, "--entries", "1", "--seqnos", "1"], monkeypatch, capsys)
    assert again.code == 0, again.out + again.err  # the same file, shipped again


def test_a_sweep_that_disagrees_with_diff_exits_4_and_says_where(
    spark, tmp_path: Path, monkeypatch, capsys
) -> None:
    def none_found(*args, **kwargs):  # diff claims the two rule sets are equivalent
        search = search_regions(*args, **kwargs)
        search.found = []
        return search

    monkeypatch.setattr(crosscheck_module, "search_regions", none_found)
    out = tmp_path / "sweep"
    result = sweep(["--out", out], monkeypatch, capsys)
    assert result.code == 4, result.out + result.err
    assert "MISMATCH" in result.out
    assert "dcpcheck diff reports no such region" in result.out
    assert json.loads((out / "summary.json").read_text())["crosscheck"]["agreement"] == "mismatch"


def test_a_sweep_stopped_by_its_time_limit_is_unknown_and_publishes_nothing(
    spark, tmp_path: Path, monkeypatch, capsys
) -> None:
    out = tmp_path / "sweep"
    result = sweep(["--out", out, "--timeout", "0.001"], monkeypatch, capsys)
    assert result.code == 3, result.out + result.err
    assert "nothing was published" in result.err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["--entries", "0"], "--entries: expected 1..8"),
        (["--seqnos", "x"], "--seqnos: expected a whole number"),
        (["--rules", "nosuch"], "unknown rules 'nosuch'"),
        (["--rules", "kv-current", "--rules", "kv-current"], "more than once"),
        (["--max-inputs", "1000"], "more than --max-inputs 1,000"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path: Path, monkeypatch, capsys):
    result = sweep([*args, "--out", tmp_path / "sweep"], monkeypatch, capsys)
    assert result.code == 2
    assert message in result.err
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert not (tmp_path / "sweep").exists()


def test_a_finished_output_replaces_the_previous_one_whole(tmp_path: Path) -> None:
    target = tmp_path / "sweep"
    (target / "decisions").mkdir(parents=True)
    (target / "decisions" / "part-00009.parquet").write_text("old")
    partial = partial_dir(target)
    (partial / "summary.json").write_text("{}")
    publish_dir(partial, target)
    assert sorted(p.name for p in target.iterdir()) == ["summary.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["sweep"]


def test_the_sweep_reads_its_options_from_the_command_line_once() -> None:
    flags = ["--out", "d", "--timeout", "5", "--conf", "spark.a=b", "--json", "--quiet"]
    args = build_parser(["sweep"]).parse_args(["sweep", *flags])
    spark = OnSpark("local[*]", "dcpcheck sweep", {"spark.a": "b"}, 60.0)
    assert sweep_options(args) == SweepOptions("d", 5.0, spark, quiet=True, as_json=True)
