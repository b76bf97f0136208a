"""benchmarks/durability_scale.py judges what it measured: the goal lines under its table,
and the verdicts two ways (or a way and spec/cluster/expected.py) disagree on, which fail
it. Rows and results are made here; no search runs."""

from __future__ import annotations

from typing import Any

from benchmarks.durability_scale import Row, _disagreements, check_lines, goals

GiB = 2**30


def _row(preset: str, way: str, verdicts: str, wall: float = 100.0, tree: int = GiB) -> Row:
    return Row(preset, way, 1000, "u" in verdicts, 2 * wall, wall, tree, 0, verdicts)


def _result(ack: str, branch: str, prop: str, verdict: str) -> dict[str, Any]:
    return {
        "ack_rule": ack,
        "branch_rule": branch,
        "property": prop,
        "verdict": verdict,
        "states": 1_234_567,
        "max_depth": 65,
        "cpu_seconds": 2290.94,
    }


def test_the_wide_presets_goal_is_judged_on_its_fastest_way_that_decided_every_check() -> None:
    rows = [
        _row("mb-34150-wide", "both", "vh", wall=900.0),
        _row("mb-34150-wide", "both, --workers 2", "vh", wall=515.0),
        _row("mb-34150-wide", "exact", "vu", wall=10.0),  # faster, but a check unknown
    ]
    (line,) = goals(rows)
    assert "fastest way 'both, --workers 2' 515 s wall" in line
    assert line.endswith("met")
    slow = goals([_row("mb-34150-wide", "both", "vh", wall=700.0)])
    assert slow[0].endswith("missed")


def test_a_larger_preset_meets_its_goal_when_every_check_is_decided_by_some_way() -> None:
    rows = [
        _row("mb-34150-wider", "both", "vuh"),
        _row("mb-34150-wider", "both, --workers 2", "vhu"),
    ]
    assert goals(rows)[-1] == "mb-34150-wider: every check decided (goal): met"


def test_a_larger_preset_misses_its_goal_with_a_check_unknown_every_way() -> None:
    rows = [
        _row("mb-34150-5", "both", "vuu"),
        _row("mb-34150-5", "both, --workers 2", "vhu"),
    ]
    assert goals(rows) == [
        "mb-34150-5: every check decided (goal): missed (1 of 3 unknown every way)"
    ]


def test_spark_is_judged_against_one_process_and_local_1() -> None:
    rows = [
        _row("mb-34150-wide", "both", "vh", wall=1000.0),
        _row("mb-34150-wide", "spark local[1]", "vh", wall=1040.0),
        _row("mb-34150-wide", "spark local[2]", "vh", wall=595.0),
    ]
    spark = goals(rows)[-1]
    assert spark.startswith("mb-34150-wide: Spark local[2] 0.59x the CPU of one process")
    assert "1.75x as fast as local[1]" in spark and spark.endswith("met")


def test_a_way_that_decides_against_the_record_or_another_way_fails_the_benchmark() -> None:
    check = ("ack-on-prepare", "persisted-snapshot", "no-lost-syncwrite")
    recorded = [_result(*check, "violated")]
    against_record = [_result(*check, "holds")]
    assert _disagreements("mb-34150", {"both": recorded}) == []
    wrong = _disagreements("mb-34150", {"both": recorded, "exact": against_record})
    assert wrong == [
        "mb-34150 ack-on-prepare/persisted-snapshot/no-lost-syncwrite: exact holds, "
        "recorded violated",
        "mb-34150 ack-on-prepare/persisted-snapshot/no-lost-syncwrite: both violated, exact holds",
    ]


def test_an_unknown_check_is_compared_with_nothing() -> None:
    check = ("ack-on-prepare", "persisted-snapshot", "no-lost-syncwrite")
    runs = {"both": [_result(*check, "unknown")], "exact": [_result(*check, "violated")]}
    assert _disagreements("mb-34150", runs) == []


def test_a_check_line_gives_its_verdict_states_depth_and_cpu() -> None:
    (line,) = check_lines(
        [_result("ack-on-prepare", "highest-snapshot", "prepare-ack-progress", "holds")]
    )
    assert line == (
        "    ack-on-prepare/highest-snapshot: prepare-ack-progress holds, 1,234,567 states, "
        "depth 65, 2,290.9 CPU s"
    )
