"""`dcpcheck durability`: verdicts, exit codes, counterexample files, bad input."""

from __future__ import annotations

import argparse
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from clihelp import MB51805_STALL, run_subprocess

from checker.arguments.common import cluster_bounds_from
from checker.cluster_check import reproduce_command
from checker.commands import durability
from checker.confirm import replay_stored
from spec.cluster import PRESETS

SIX_O = ["--ack-rule", "ack-on-prepare", "--branch-rule", "persisted-snapshot"]
FIXED = ["--ack-rule", "ack-at-snapshot-end+restart-fix", "--branch-rule", "highest-snapshot"]


def _no_nulls(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, dict):
        return all(_no_nulls(v) for v in value.values())
    if isinstance(value, list):
        return all(_no_nulls(v) for v in value)
    return True


def test_mb34150_under_the_60_rules_is_violated_as_expected_exit_0_with_the_seeds_run(
    tmp_path: Path,
) -> None:
    """The full search finds the seed's run first (the reduced one finds a renaming of a
    run as short: test_the_reduced_search_finds_a_run_as_short)."""
    full = ["--symmetry", "off"]
    result = run_subprocess(
        ["durability", *SIX_O, "--property", "no-lost-syncwrite", "--out", tmp_path, *full]
    )
    assert result.code == 0, result.err
    out = result.out
    assert "no-lost-syncwrite: violated (confirmed) in 14 steps" in out
    assert "PromoteReplica(N1): ns_server promotes N1 (high seqno 3); branch point 2" in out
    assert "ReconnectReplica(N2): N2 asks uuid AAAA start 3 snapshot {3,3}: rollback to 2" in out
    # N2's file holds 2 documents: couchstore's midpoint rule resets it (kv_engine's default)
    assert "its vbucket is reset (couchstore midpoint" in out
    assert "discarding 1:SET(B), 2:SET(C), 3:PREPARE(A)" in out
    assert "14. PromoteReplica(N2)" in out
    (line,) = [x for x in out.splitlines() if "reproduce: dcpcheck durability" in x]
    assert "--ack-rule ack-on-prepare" in line
    assert line.endswith(" --symmetry off")  # pasted, it finds this very run again
    assert "fingerprint collision hid a state" in result.err
    (stored,) = [p for p in tmp_path.glob("*.json") if not p.name.endswith(".itf.json")]
    assert stored.name.startswith("no-lost-syncwrite--ack-on-prepare--persisted-snapshot--")
    itf = json.loads(stored.with_name(stored.name[: -len(".json")] + ".itf.json").read_text())
    assert itf["vars"][0] == "action" and "nodes" in itf["vars"]
    assert len(itf["states"]) == 15 and itf["states"][0]["action"] == {"name": "Init"}
    assert itf["states"][-1]["active"] == "N2" and _no_nulls(itf)


def test_the_reduced_search_finds_a_run_as_short(tmp_path: Path, cli) -> None:
    result = cli("durability", *SIX_O, "--property", "no-lost-syncwrite", "--out", tmp_path)
    assert result.code == 0, result.err  # violated, as recorded
    assert "no-lost-syncwrite: violated (confirmed) in 14 steps (2,599 states" in result.out
    assert "11. PromoteReplica(N1)" in result.out and "14. PromoteReplica(N" in result.out


def test_the_stored_counterexample_replays_to_the_same_violation(tmp_path: Path, cli) -> None:
    result = cli(
        "durability", *SIX_O, "--property", "no-lost-syncwrite", "--out", tmp_path, "--json"
    )
    (record,) = json.loads(result.out)["results"]
    replayed = replay_stored(record["counterexample"]).replayed
    assert replayed.confirmed, replayed.detail
    assert "3:PREPARE(A)" in replayed.detail


def test_a_check_that_holds_exits_0_with_its_json_record_and_writes_nothing(
    tmp_path: Path, cli
) -> None:
    # mb-51805 (1,600 representatives of 3,197 states: keys A and B are interchangeable,
    # spec/cluster/keys.py): the fixed rules' 25,006 states of mb-34150 are pinned by
    # docs/durability.md's example and tests/test_durability_verdicts.py
    args = ["durability", "--preset", "mb-51805", *FIXED, "--property", "no-lost-syncwrite"]
    result = cli(*args, "--json", "--out", tmp_path)
    assert result.code == 0, result.err
    (record,) = json.loads(result.out)["results"]
    assert record["verdict"] == "holds" and record["expected"] == "holds"
    assert record["complete"] and record["states"] == 1600 and not record["vacuous"]
    assert not list(tmp_path.iterdir())


def test_a_level_flag_sets_each_syncwrites_level_and_names_it_in_the_run(
    tmp_path: Path, cli
) -> None:
    """mb-51805 with a PersistToMajority SyncWrite: MB-51805's stall is still there
    without the fix, and the run names the level of the PREPARE."""
    args = [*MB51805_STALL, "--level", "persist_to_majority", "--json", "--out", tmp_path]
    result = cli(*args)
    assert result.code == 1, result.err
    (record,) = json.loads(result.out)["results"]
    assert record["bounds"]["levels"] == 3
    assert "1:PREPARE(A,persistToMajority)" in json.dumps(record)


def test_mb51805_without_the_fix_reads_like_the_seed(tmp_path: Path, cli) -> None:
    result = cli(*MB51805_STALL, "--out", tmp_path)
    assert result.code == 0  # violated, as spec/cluster/expected.py records
    assert "N1 restarts with what it persisted: seqno 1, HPS 0" in result.out
    assert "N1 receives snapshot marker [1,2]" in result.out
    assert "10. ReplicateItem(N1): N1 receives 2:SET(B), the end of snapshot [1,2]" in result.out
    assert "it never acks it unless another PREPARE arrives" in result.out


def test_a_state_limit_is_unknown_and_exits_3(tmp_path: Path, cli) -> None:
    result = cli("durability", *FIXED, "--property", "no-lost-syncwrite", "--max-states", "100")
    assert result.code == 3
    assert "unknown (state limit (100) reached" in result.out
    assert "nothing is claimed" in result.out


def test_bounds_flags_override_the_preset_and_the_table_compares_expectations(
    tmp_path: Path, cli
) -> None:
    result = cli(
        "durability",
        "--preset",
        "mb-51805",
        "--property",
        "prepare-ack-progress",
        "--out",
        tmp_path,
    )
    assert result.code == 0, result.err
    lines = [line.split() for line in result.out.splitlines() if "prepare-ack-progress  " in line]
    assert len(lines) == 6 and all(line[-1] == "ok" for line in lines)
    changed = cli("durability", "--preset", "mb-51805", "--restarts", "0", *FIXED, "--json")
    records = json.loads(changed.out)["results"]
    assert all(r["preset"] is None and r["expected"] is None for r in records)
    assert all(r["bounds"]["restarts"] == 0 for r in records)


def test_checks_on_two_processes_give_the_same_results_in_the_same_order(tmp_path: Path) -> None:
    def run(*extra: str) -> tuple[int, list[dict[str, Any]]]:
        out = tmp_path / f"out{len(extra)}"
        result = run_subprocess(
            ["durability", "--preset", "mb-51805", "--json", "--out", out, *extra]
        )
        timeless = [
            {k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds")}
            | {"counterexample": r["counterexample"] and Path(r["counterexample"]).name}
            for r in json.loads(result.out)["results"]
        ]
        return result.code, timeless

    alone, together = run(), run("--workers", "2")
    assert together == alone
    assert alone[0] == 0 and len(alone[1]) == 12
    assert {r["verdict"] for r in alone[1]} == {"holds", "violated"}


def test_a_verdict_other_than_the_recorded_one_exits_1(tmp_path: Path, cli, monkeypatch) -> None:
    """As verify and clients: the exit code reads the verdicts against the expected ones."""
    import checker.commands.durability as durability

    monkeypatch.setattr(durability.ClusterTask, "expected", staticmethod(lambda result: "holds"))
    result = cli(*MB51805_STALL, "--out", tmp_path)
    assert result.code == 1
    assert "violated" in result.out


BAD_ARGUMENTS = {
    "ack-rule": (
        ["--ack-rule", "ack-never"],
        "unknown ack-rule 'ack-never'; known: ack-at-snapshot-end",
    ),
    "branch-rule": (["--branch-rule", "lowest"], "unknown branch-rule 'lowest'"),
    "single-node-property": (["--property", "no-missed-item"], "unknown property 'no-missed-item'"),
    "preset": (["--preset", "mb-1"], "--preset: unknown preset 'mb-1'; known: mb-34150"),
    "replicas": (["--nodes", "4", "--replicas", "2"], "bad bounds: replicas must be nodes - 1 = 3"),
    "majority": (["--majority", "9"], "bad bounds: majority must be between 1 and nodes (4)"),
    "max-states": (["--max-states", "0"], "argument --max-states: expected 1.."),
    "workers-on-spark": (
        ["--workers", "2", "--engine", "bfs-spark"],
        "--workers is for --engine explore",
    ),
    "level": (["--level", "majority,quorum"], "--level: unknown durability level 'quorum'"),
    "partial-flush": (["--partial-flush", "2"], "partial_flush must be 0"),
    "disk-snapshots": (["--disk-snapshots", "2"], "disk_snapshots must be 0"),
}


@pytest.mark.parametrize("case", BAD_ARGUMENTS)
def test_unknown_names_and_bad_bounds_are_one_line_exit_2(case: str, cli) -> None:
    args, fragment = BAD_ARGUMENTS[case]
    result = cli("durability", *args)
    assert result.code == 2, args
    assert result.err.count("\n") == 1 and fragment in result.err, result.err


@pytest.mark.parametrize(
    "preset, changes",
    [
        (None, {"levels": 31, "partial_flush": 1, "disk_snapshots": 1}),
        (None, {"levels": 2}),
        ("levels-pm", {}),
        (None, {}),
    ],
)
def test_the_reproduce_line_gives_back_the_bounds_it_was_printed_for(
    preset: str | None, changes: dict[str, int]
) -> None:
    """Levels, partial flushes and disk snapshots included (named only where they
    differ from the preset's, or from 0: mb-34150's line is what it was)."""
    bounds = PRESETS[preset or "mb-34150"].bounds.but(**changes)
    line = reproduce_command(
        "ack-on-prepare", "highest-snapshot", "p", "kv-current", bounds, preset
    )
    parser = argparse.ArgumentParser()
    durability.add_arguments(parser)
    args = parser.parse_args(shlex.split(line)[2:])
    assert cluster_bounds_from(args)[0] == bounds
    if preset is None:
        assert ("--level" in line) == (bounds.levels != 0)
        assert ("--disk-snapshots" in line) == bool(bounds.disk_snapshots)


def test_help_lists_the_command(capsys, cli) -> None:
    with pytest.raises(SystemExit):
        cli("--help")
    assert "durability" in capsys.readouterr().out
