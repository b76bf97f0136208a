"""dcpcheck on a Spark standalone cluster (master + worker on 127.0.0.1: tests/sparkcluster.py).

The same commands as on the shared local session, with the same results; a user's
files go with the job; a Python worker killed mid-search is retried by Spark and the
verdicts do not change; no executor is one line and exit 3. (The Spark search on a
local session is compared with the in-process one in test_durability_spark.py, so a
cluster result equal to the in-process one equals the local[*] one too.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from clihelp import DCPCHECK, ROOT, run_cli, run_subprocess
from sparkcluster import cpu_ticks

DATA = Path(__file__).resolve().parent / "data"
SMALL = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]


def _verdicts(records: list[dict]) -> list[tuple]:
    keys = ("rules", "consumer", "ack_rule", "branch_rule", "property", "verdict", "states")
    return [tuple(r.get(k) for k in keys) for r in records]


def test_verify_on_the_cluster_equals_the_local_run(
    spark, spark_cluster, tmp_path: Path, monkeypatch, capsys
) -> None:
    args = ["verify", "--json", "--rules", "kv-current", "--rules", DATA / "rules" / "no_purge.py"]
    args += ["--consumer", "correct", "--durability-preset", "mb-51805", *SMALL]
    # the matrix is what goes to the cluster here
    args += ["--no-clients", "--no-decision", "--no-every-session"]
    there = run_subprocess([*args, "--master", spark_cluster.url, "--out", tmp_path / "c"])
    here = run_cli([*args, "--out", tmp_path / "l"], "", monkeypatch, capsys)
    assert there.code == here.code, there.err
    remote, local = json.loads(there.out), json.loads(here.out)
    assert _verdicts(remote["results"]) == _verdicts(local["results"])
    assert _verdicts(remote["durability"]) == _verdicts(local["durability"])
    assert {r["rules"] for r in remote["results"]} == {"kv-current", "no-purge"}  # shipped file
    assert "Setting default log level" not in there.err and "incubator" not in there.err


def _kill_a_busy_worker(cluster, seconds: float = 15.0) -> bool:
    """SIGKILL one executor Python worker caught using CPU (a task in flight)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pids = cluster.python_workers()
        before = {p: cpu_ticks(p) for p in pids}
        time.sleep(0.1)
        for pid in pids:
            if cpu_ticks(pid) > before[pid]:
                os.kill(pid, signal.SIGKILL)
                return True
    return False


def test_a_killed_python_worker_is_retried_and_the_verdicts_stand(
    spark_cluster, tmp_path: Path, monkeypatch, capsys
) -> None:
    args = ["durability", "--preset", "mb-51805", "--json", "--property", "no-lost-syncwrite"]
    args += ["--property", "prepare-ack-progress", "--property", DATA / "cluster_property.py"]
    # MB-51805's own rules (its stall is found): 3 checks, each level of each a Spark job
    args += ["--ack-rule", "ack-at-snapshot-end", "--branch-rule", "highest-snapshot"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [*DCPCHECK, *map(str, args), "--engine", "spark", "--out", str(tmp_path / "c")]
    command += ["--master", spark_cluster.url]
    command += ["--conf", "spark.dcpcheck.bfs.driverBelow=0"]  # every level a Spark job
    proc = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    killed, progress = 0, []
    for line in proc.stderr:
        progress.append(line)
        if "level" in line and not any("retried" in p for p in progress):
            killed += _kill_a_busy_worker(spark_cluster)
    out = proc.stdout.read()
    assert proc.wait(timeout=600) == 1, "".join(progress)
    assert killed and any("failed tasks retried" in p for p in progress), "".join(progress)
    here = run_cli([*args, "--out", tmp_path / "l"], "", monkeypatch, capsys)
    assert _verdicts(json.loads(out)["results"]) == _verdicts(json.loads(here.out)["results"])


def test_no_executor_within_the_wait_is_one_line_and_exit_3(spark_cluster) -> None:
    result = run_subprocess(
        [
            "durability",
            "--engine",
            "spark",
            "--preset",
            "mb-51805",
            "--master",
            spark_cluster.url,
            "--conf",
            "spark.executor.memory=64g",
            "--executor-wait",
            "5",
        ],
        timeout=120,
    )
    assert result.code == 3, result.err
    errors = [line for line in result.err.splitlines() if line.startswith("dcpcheck: error")]
    assert len(errors) == 1 and "no Spark executor registered" in errors[0]
    assert "Traceback" not in result.err


def test_a_sweep_on_the_cluster_equals_the_local_run(
    spark, spark_cluster, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Executors on the worker generate, decide and write the parts themselves (into a
    directory they share with the driver here); a user's rule file goes with the job."""
    rules = DATA / "rules" / "purge_on_snap_start.py"
    args = ["sweep", "--entries", "2", "--seqnos", "2", "--distinct-uuids", "--rules", "kv-current"]
    args += ["--rules", rules, "--json"]
    there = run_subprocess([*args, "--master", spark_cluster.url, "--out", tmp_path / "c"])
    here = run_cli([*args, "--out", tmp_path / "l"], "", monkeypatch, capsys)
    assert there.code == here.code == 0, there.err
    remote, local = json.loads(there.out), json.loads(here.out)
    for summary in (remote, local):
        for key in ("seconds", "dataset", "parts"):
            summary.pop(key, None)
        summary.get("crosscheck", {}).pop("seconds", None)
    assert remote == local
    assert "Setting default log level" not in there.err


def test_a_split_proof_on_the_cluster_decides_what_one_z3_proof_decides(
    spark_cluster, tmp_path: Path, cli
) -> None:
    """Executors on the worker rebuild the model from names (a shipped rule file too)
    and solve the cubes of the finer split; the verdicts and counterexamples are those of
    `--engine z3` in one process."""
    args = ["check", "--rules", DATA / "rules" / "no_purge.py", "--consumer", "correct"]
    args += ["--property", "no-missed-item", "--property", "no-foreign-snapshot", "--json", *SMALL]
    split = ["--engine", "spark", "--split", "2", "--master", spark_cluster.url]
    there = run_subprocess([*args, *split, "--out", tmp_path / "c"])
    here = cli(*args, "--out", tmp_path / "l")
    assert there.code == here.code, there.err

    def decided(out: str) -> list[tuple]:
        records = json.loads(out)["results"]
        ids = [r["counterexample"] and Path(r["counterexample"]).name for r in records]
        return [(r["property"], r["verdict"], i) for r, i in zip(records, ids, strict=True)]

    assert decided(there.out) == decided(here.out)
    assert [verdict for _, verdict, _ in decided(here.out)] == ["violated", "holds"]
    # failovers=0, and failovers=1 at each branch point 0..4
    assert {r["cubes"] for r in json.loads(there.out)["results"]} == {1 + 5}
