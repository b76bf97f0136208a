"""`durability --engine bfs-spark`: the distributed breadth-first search finds what the in-process
one finds (verdicts, unique states, depth, the counterexample itself), resumes from its
checkpoint, and is refused where it cannot run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli
from durabilityhelp import MODELS, PROPERTIES, in_process, same_search

from checker.cluster_check import DurabilityCell, check_durability
from checker.engines.options import DEFAULT
from checker.spark.bfs import DRIVER_BELOW_CONF, LAYOUT, Level, cluster_search, search_on_spark
from checker.spark.cluster_search import check_durability_on_spark
from checker.spark.expand import ClusterSearch
from spec.cluster import ACK_RULES, BRANCH_RULES, CLUSTER_PROPERTIES, PRESETS
from spec.cluster.encode import FORMAT
from spec.rules import RULE_SETS

DATA = Path(__file__).resolve().parent / "data"


# A level whose frontier has fewer states than this runs in the driver: at mb-51805 (its six
# models searched together) levels 1-8 and the last ones in the driver, levels 9-16 (frontiers
# of 1,068 to 2,064 states) as Spark jobs, one shuffle each, the violations found in those.
# Every level a Spark job (0), the first and last ones too: tests/test_spark_cluster.py.
MIXED = 1000


def _one_check() -> ClusterSearch:
    """mb-51805, ack-at-snapshot-end/highest-snapshot, prepare-ack-progress (violated:
    10 steps, 803 states), with the sanity property watched alongside."""
    return cluster_search(
        [("ack-at-snapshot-end", "highest-snapshot")],
        "kv-current",
        PRESETS["mb-51805"].bounds,
        ["prepare-ack-progress"],
        ["syncwrite-acknowledged"],
    )


@pytest.mark.parametrize("where", ["driver and spark jobs", "driver"])
@pytest.mark.parametrize("preset", ["mb-51805"])  # mb-34150 and -wide: benchmarks/spark_bfs.py
def test_every_check_matches_the_in_process_search(spark, preset: str, where: str) -> None:
    """The small levels in the driver's process and the large ones as Spark jobs (one
    shuffle each), handing the search over both ways; or every level in the driver."""
    spark.conf.set(DRIVER_BELOW_CONF, str(MIXED) if where != "driver" else str(10**9))
    try:
        results = check_durability_on_spark(
            spark,
            MODELS,
            PROPERTIES,
            "kv-current",
            PRESETS[preset].bounds,
            preset=preset,
            quiet=True,
        )
    finally:
        spark.conf.unset(DRIVER_BELOW_CONF)
    pairs = [(a, b, p) for a, b in MODELS for p in PROPERTIES]
    assert [(r.ack_rule, r.branch_rule, r.property) for r in results] == pairs
    for result, (ack, branch, prop) in zip(results, pairs, strict=True):
        assert result.engine == "bfs-spark"
        assert same_search(result, in_process(preset, ack, branch, prop)) == {}, (ack, branch, prop)
    assert any(r.verdict.value == "violated" for r in results)


def test_a_level_made_in_the_driver_decides_by_the_least_order_of_every_partition(spark) -> None:
    """mb-34150 without symmetry: the in-process search's first violation (14 steps, 4,992
    states, N2 promoted last) and its mirror (N1 promoted last, 5,002 states) are both in
    level 14, owned by different partitions. A level expanded in the driver, partition by
    partition, keeps the least order of them all, as a Spark job does; not the first
    partition's (until 2026-11-28: 5,002 states, the mirror)."""
    ack, branch, prop = "ack-on-prepare", "persisted-snapshot", "no-lost-syncwrite"
    options = DEFAULT.but(symmetry=False)
    want = check_durability(
        DurabilityCell(
            ACK_RULES.get(ack),
            BRANCH_RULES.get(branch),
            CLUSTER_PROPERTIES.get(prop),
            RULE_SETS.get("kv-current"),
            PRESETS["mb-34150"].bounds,
            "mb-34150",
        ),
        options=options,
    )
    assert want.verdict.value == "violated"
    spark.conf.set(DRIVER_BELOW_CONF, str(10**9))
    try:
        (got,) = check_durability_on_spark(
            spark,
            [(ack, branch)],
            [prop],
            "kv-current",
            PRESETS["mb-34150"].bounds,
            preset="mb-34150",
            options=options,
            quiet=True,
        )
    finally:
        spark.conf.unset(DRIVER_BELOW_CONF)
    assert same_search(got, want) == {}


def test_a_checkpointed_search_resumes_from_its_last_level(spark, tmp_path: Path) -> None:
    search = _one_check()
    seen: list[int] = []

    def progress(level: Level, states: int) -> None:
        seen.append(level.index)

    ((_, stopped),) = search_on_spark(spark, search, checkpoint=str(tmp_path), max_states=300)
    assert stopped["prepare-ack-progress"].outcomes["prepare-ack-progress"].verdict.value == (
        "unknown"
    )
    published = sorted(p.name for p in (tmp_path / "levels").iterdir())
    (tmp_path / "incoming" / "level=99").mkdir(parents=True)  # a level half written when killed
    ((_, resumed),) = search_on_spark(spark, search, checkpoint=str(tmp_path), progress=progress)
    assert seen[0] == len(published)  # the published levels were not searched again
    again = resumed["prepare-ack-progress"]
    want = in_process("mb-51805", "ack-at-snapshot-end", "highest-snapshot", "prepare-ack-progress")
    assert again.outcomes["prepare-ack-progress"].verdict is want.verdict
    assert again.states == want.stats.states
    assert len(again.outcomes["prepare-ack-progress"].path) == len(want.run)
    assert not (tmp_path / "incoming" / "level=99").exists()
    record = json.loads((tmp_path / "search.json").read_text())
    assert record["ident"] == search.ident


@pytest.mark.parametrize("driver_below", [10**9, 0], ids=["in the driver", "as a Spark job"])
def test_a_search_stopped_by_its_state_limit_still_decides_its_last_level(
    spark, driver_below: int
) -> None:
    """Properties are evaluated on a level as it is expanded; the last level of a search
    the state limit stops is not expanded, so it is evaluated on its own: the violation
    the in-process search finds as its N-th state is found with the same limit."""
    want = in_process("mb-51805", "ack-at-snapshot-end", "highest-snapshot", "prepare-ack-progress")
    assert want.verdict.value == "violated"
    search = _one_check()
    ((_, found),) = search_on_spark(
        spark, search, max_states=want.stats.states, driver_below=driver_below
    )
    got = found["prepare-ack-progress"]
    assert got.outcomes["prepare-ack-progress"].verdict is want.verdict
    assert got.states == want.stats.states
    assert len(got.outcomes["prepare-ack-progress"].path) == len(want.run)


def test_the_cpu_of_levels_searched_as_spark_jobs_is_counted_in_the_results(spark) -> None:
    """A level run as a Spark job reports its tasks' CPU seconds (the driver's clock cannot
    see them), and the results' ``cpu_seconds`` include them; a search the driver did alone
    reports none."""
    search = _one_check()
    ((_, jobs),) = search_on_spark(spark, search, max_states=200, driver_below=0)
    ((_, here),) = search_on_spark(spark, search, max_states=200, driver_below=10**9)
    assert jobs["prepare-ack-progress"].cpu_elsewhere > 0
    assert here["prepare-ack-progress"].cpu_elsewhere == 0
    assert jobs["prepare-ack-progress"].states == here["prepare-ack-progress"].states


def _resumed_in(
    checkpoint: Path, record: dict[str, object], monkeypatch, capsys
) -> tuple[int, str]:
    """``durability --engine bfs-spark`` of mb-51805 in a checkpoint directory whose
    search.json is ``record``: the exit code and the one error line."""
    (checkpoint / "search.json").write_text(json.dumps(record))
    result = run_cli(
        ["durability", "--engine", "bfs-spark", "--preset", "mb-51805", "--checkpoint", checkpoint],
        "",
        monkeypatch,
        capsys,
    )
    (error,) = [line for line in result.err.splitlines() if line.startswith("dcpcheck: error")]
    return result.code, error


def test_a_checkpoint_of_another_search_is_refused(
    spark, monkeypatch, capsys, tmp_path: Path
) -> None:
    record = {"ident": "someone-else", "layout": LAYOUT, "format": FORMAT}
    code, error = _resumed_in(tmp_path, record, monkeypatch, capsys)
    assert code == 2
    assert "another search" in error


@pytest.mark.parametrize("layout", [2, 3])
def test_a_checkpoint_written_in_an_earlier_layout_is_refused_as_such(
    layout: int, spark, monkeypatch, capsys, tmp_path: Path
) -> None:
    """A directory of layout 2 (its search.json says no layout; its levels have a column
    of decisions this layout has not) or 3 (BLAKE2b fingerprints: other owners, another
    visited set) is one line, exit 2, naming the layout and what to do; nothing is
    written there."""
    record = {"format": 2, "ident": "f00dfeedf00dfeed", "partitions": 2}
    if layout > 2:
        record["layout"] = layout
    code, error = _resumed_in(tmp_path, record, monkeypatch, capsys)
    assert code == 2
    assert f"earlier layout {layout}," in error and "remove this directory" in error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["search.json"]


def test_a_checkpoint_of_states_in_an_earlier_format_is_refused_as_such(
    spark, monkeypatch, capsys, tmp_path: Path
) -> None:
    """The levels' states are spec.cluster.encode's bytes: a directory written before the
    durability levels entered the state (format 2) cannot be decoded by format 3."""
    record = {"format": FORMAT - 1, "layout": LAYOUT, "ident": "f00dfeedf00dfeed"}
    code, error = _resumed_in(tmp_path, record, monkeypatch, capsys)
    assert code == 2
    assert f"states in format {FORMAT - 1}" in error and "remove this directory" in error


def test_a_user_property_file_is_searched_on_the_executors(
    spark, monkeypatch, capsys, tmp_path: Path
) -> None:
    args = ["durability", "--engine", "bfs-spark", "--json", "--out", tmp_path]
    picked = ["--preset", "mb-51805", "--ack-rule", "ack-on-prepare"]
    picked += ["--branch-rule", "highest-snapshot"]
    prop = ["--property", DATA / "cluster_property.py"]
    result = run_cli([*args, *picked, *prop], "", monkeypatch, capsys)
    assert result.code == 1, result.err
    (record,) = json.loads(result.out)["results"]
    assert record["property"] == "no-replica-restart" and record["verdict"] == "violated"
    assert record["replay"] == "confirmed" and record["engine"] == "bfs-spark"
    local = run_cli(
        ["durability", "--json", "--out", tmp_path, *picked, *prop], "", monkeypatch, capsys
    )
    assert json.loads(local.out)["results"][0]["states"] == record["states"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--strategy", "dfs"], "breadth-first"),
        (["--exact"], "keys states by fingerprint"),
        (["--conf", "nokey"], "KEY=VALUE"),
        (["--master", "nowhere"], "not a Spark master URL"),
        (["--master", "spark://127.0.0.1:1"], "no Spark master answers"),
    ],
)
def test_what_the_spark_engine_cannot_run_is_one_line_exit_2(
    args: list[str], message: str, monkeypatch, capsys
) -> None:
    result = run_cli(["durability", "--engine", "bfs-spark", *args], "", monkeypatch, capsys)
    assert result.code == 2, result.err
    assert result.err.count("\n") == 1 and message in result.err


def test_a_checkpoint_needs_the_spark_engine(monkeypatch, capsys, tmp_path: Path) -> None:
    result = run_cli(["durability", "--checkpoint", tmp_path], "", monkeypatch, capsys)
    assert result.code == 2 and "--engine bfs-spark" in result.err
