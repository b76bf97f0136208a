"""dcpcheck on a Spark standalone cluster (master + worker on 127.0.0.1: tests/sparkcluster.py).

The same commands as on the shared local session, with the same results; a user's
files go with the job; a Python worker killed mid-search is retried by Spark and the
verdicts do not change; no executor is one line and exit 3. (The Spark search on a
local session is compared with the in-process one in test_durability_spark.py, so a
cluster result equal to the in-process one equals the local[*] one too.)

The commands on the cluster run in one process and one application (``ON_CLUSTER``,
``sparkcluster.commands``: dcpcheck's own session on the master, opened once, as the
shared local session serves the commands run in process): each would otherwise start a
driver JVM and an executor JVM of its own (about 12 CPU s each). The one whose
executor never comes runs alone, as ``python -m checker.cli``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from clihelp import ROOT, run_cli, run_subprocess
from sparkcluster import BEGIN, END, cpu_ticks

# Relative to ROOT, where every command runs (the local ones chdir there): only a file
# shipped with the job is found on an executor, whose working directory is the worker's.
DATA = Path("tests", "data")
SMALL = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]

VERIFY = ["verify", "--json", "--rules", "kv-current", "--rules", DATA / "rules" / "no_purge.py"]
VERIFY += ["--consumer", "correct", "--durability-preset", "mb-51805", *SMALL]
# one property no-purge violates and one it keeps (the other three, no-needless-rollback's
# proofs above all, would cost about 7 CPU s on the cluster and as much again locally)
VERIFY += ["--property", "no-missed-item", "--property", "no-foreign-snapshot"]
VERIFY += ["--no-clients", "--no-decision", "--no-every-session"]  # the matrix goes there
SWEEP = ["sweep", "--entries", "2", "--seqnos", "2", "--distinct-uuids", "--rules", "kv-current"]
SWEEP += ["--rules", DATA / "rules" / "purge_on_snap_start.py", "--json"]
SPLIT = ["check", "--rules", DATA / "rules" / "no_purge.py", "--consumer", "correct"]
SPLIT += ["--property", "no-missed-item", "--property", "no-foreign-snapshot", "--json", *SMALL]
RETRIED = ["durability", "--preset", "mb-51805", "--json", "--property", "no-lost-syncwrite"]
RETRIED += ["--property", "prepare-ack-progress", "--property", DATA / "cluster_property.py"]
# MB-51805's own rules (its stall is found): 3 checks, each level of each a Spark job
RETRIED += ["--ack-rule", "ack-at-snapshot-end", "--branch-rule", "highest-snapshot"]
# What runs on the cluster, in this order (the command whose Python worker is killed last).
ON_CLUSTER = {
    "verify": VERIFY,
    "sweep": SWEEP,
    "split": [*SPLIT, "--engine", "cubes-spark", "--split", "2"],
    "retried": [*RETRIED, "--engine", "bfs-spark"],
}
# the session's own settings: every level of a breadth-first search a Spark job
CLUSTER_CONF = {"spark.dcpcheck.bfs.driverBelow": "0"}


@dataclass
class Ran:
    code: int
    out: str
    err: list[str]  # the command's stderr lines


@dataclass
class OnCluster:
    ran: dict[str, Ran]
    err: str  # the whole process's stderr: the session's start-up, every command's lines
    killed: int  # executor Python workers killed while "retried" searched


def _verdicts(records: list[dict]) -> list[tuple]:
    keys = ("rules", "consumer", "ack_rule", "branch_rule", "property", "verdict", "states")
    return [tuple(r.get(k) for k in keys) for r in records]


def test_verify_on_the_cluster_equals_the_local_run(
    spark, on_cluster: OnCluster, tmp_path: Path, monkeypatch, capsys
) -> None:
    there = on_cluster.ran["verify"]
    monkeypatch.chdir(ROOT)
    here = run_cli([*VERIFY, "--out", tmp_path / "l"], "", monkeypatch, capsys)
    assert there.code == here.code, there.err
    remote, local = json.loads(there.out), json.loads(here.out)
    assert _verdicts(remote["results"]) == _verdicts(local["results"])
    assert _verdicts(remote["durability"]) == _verdicts(local["durability"])
    assert {r["rules"] for r in remote["results"]} == {"kv-current", "no-purge"}  # shipped file
    assert "Setting default log level" not in on_cluster.err
    assert "incubator" not in on_cluster.err


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


@pytest.fixture(scope="module")
def on_cluster(spark_cluster, tmp_path_factory) -> OnCluster:
    """``ON_CLUSTER`` run on the cluster in one application; while "retried" searches, an
    executor's Python worker busy with a task is killed at a level, until one is retried."""
    tmp = tmp_path_factory.mktemp("on-cluster")
    names = list(ON_CLUSTER)
    argvs = [[*map(str, argv), "--master", spark_cluster.url, "--out", str(tmp / name)]
             for name, argv in ON_CLUSTER.items()]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    helper = [sys.executable, str(ROOT / "tests" / "sparkcluster.py"), spark_cluster.url]
    helper += [json.dumps(CLUSTER_CONF), json.dumps(argvs), str(tmp)]
    proc = subprocess.Popen(
        helper, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    errs: dict[str, list[str]] = {}
    codes: dict[str, int] = {}
    current, killed = None, 0
    assert proc.stderr is not None
    for line in proc.stderr:
        lines.append(line)
        if line.startswith(BEGIN):
            current = names[int(line.split()[-1])]
            errs[current] = []
        elif line.startswith(END):
            codes[names[int(line.split()[-2])]] = int(line.split()[-1])
            current = None
        elif current is not None:
            errs[current].append(line)
            retried = any("retried" in p for p in errs[current])
            if current == "retried" and "level" in line and not retried:
                killed += _kill_a_busy_worker(spark_cluster)
    assert proc.wait(timeout=600) == 0, "".join(lines)
    assert list(codes) == names, "".join(lines)
    ran = {
        name: Ran(codes[name], (tmp / f"{n}.out").read_text(), errs[name])
        for n, name in enumerate(names)
    }
    return OnCluster(ran, "".join(lines), killed)


def test_a_killed_python_worker_is_retried_and_the_verdicts_stand(
    on_cluster: OnCluster, tmp_path: Path, monkeypatch, capsys
) -> None:
    there = on_cluster.ran["retried"]
    progress = "".join(there.err)
    assert there.code == 1, progress
    assert on_cluster.killed and "failed tasks retried" in progress, progress
    monkeypatch.chdir(ROOT)
    here = run_cli([*RETRIED, "--out", tmp_path / "l"], "", monkeypatch, capsys)
    assert _verdicts(json.loads(there.out)["results"]) == _verdicts(json.loads(here.out)["results"])


def test_no_executor_within_the_wait_is_one_line_and_exit_3(spark_cluster) -> None:
    result = run_subprocess(
        [
            "durability",
            "--engine",
            "bfs-spark",
            "--preset",
            "mb-51805",
            "--master",
            spark_cluster.url,
            "--conf",
            "spark.executor.memory=64g",
            "--executor-wait",
            "1",
        ],
        timeout=120,
    )
    assert result.code == 3, result.err
    errors = [line for line in result.err.splitlines() if line.startswith("dcpcheck: error")]
    assert len(errors) == 1 and "no Spark executor registered" in errors[0]
    assert "Traceback" not in result.err


def test_a_sweep_on_the_cluster_equals_the_local_run(
    spark, on_cluster: OnCluster, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Executors on the worker generate, decide and write the parts themselves (into a
    directory they share with the driver here); a user's rule file goes with the job."""
    there = on_cluster.ran["sweep"]
    monkeypatch.chdir(ROOT)
    here = run_cli([*SWEEP, "--out", tmp_path / "l"], "", monkeypatch, capsys)
    assert there.code == here.code == 0, there.err
    remote, local = json.loads(there.out), json.loads(here.out)
    for summary in (remote, local):
        for key in ("seconds", "dataset", "parts"):
            summary.pop(key, None)
        summary.get("crosscheck", {}).pop("seconds", None)
    assert remote == local


def test_a_split_proof_on_the_cluster_decides_what_one_z3_proof_decides(
    on_cluster: OnCluster, tmp_path: Path, cli, monkeypatch
) -> None:
    """Executors on the worker rebuild the model from names (a shipped rule file too)
    and solve the cubes of the finer split; the verdicts and counterexamples are those of
    `--engine z3` in one process."""
    there = on_cluster.ran["split"]
    monkeypatch.chdir(ROOT)
    here = cli(*SPLIT, "--out", tmp_path / "l")
    assert there.code == here.code, there.err

    def decided(out: str) -> list[tuple]:
        records = json.loads(out)["results"]
        ids = [r["counterexample"] and Path(r["counterexample"]).name for r in records]
        return [(r["property"], r["verdict"], i) for r, i in zip(records, ids, strict=True)]

    assert decided(there.out) == decided(here.out)
    assert [verdict for _, verdict, _ in decided(here.out)] == ["violated", "holds"]
    # failovers=0, and failovers=1 at each branch point 0..4
    assert {r["cubes"] for r in json.loads(there.out)["results"]} == {1 + 5}
