"""``dcpcheck sweep``'s throughput: decisions per second, one Python call each vs vectorised.

The same space and rule sets (kv-current, rollback-doc) measured side by side
in one run: tables of <= 3 entries, seqnos <= 4 (18,438,000 inputs x 2 rule
sets = 36,876,000 decisions; ``--quick``: seqnos <= 3, 6,048,000):

* **loop**: ``Decider.decide`` per rule set per input, the inputs
  (``SweepSpace.inputs()``, domain values) built before the clock starts,
  timed on a sample of 16 blocks of 4,000 inputs spread over the space and
  extrapolated to the whole space (which would take most of an hour);
* **numpy, one process**: ``SweepJob.write_part`` over the whole space into
  one Parquet file, no Spark (generation, decisions, the file);
* **Spark local[1]**, **Spark local[2]**: ``sweep_on_spark`` as ``dcpcheck
  sweep`` runs it (generated, decided and written on the executors), each in
  a fresh process after a small warm-up sweep, so JVM and worker start-up
  are not counted.

CPU seconds count the process and all its children (the JVM and its Python
workers, read from /proc); "cores used" is CPU over wall time. The machine's
load average is printed before and after: on a shared machine, wall time
depends on it (local[2] gains over local[1] only the cores it is given),
CPU time much less.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from benchmarks._process import tree_cpu_seconds
from checker.sweep.job import SweepJob
from checker.sweep.space import SweepSpace
from spec.rules import RULE_SETS, Decider

ROOT = Path(__file__).resolve().parent.parent
RULES = ("kv-current", "rollback-doc")
SAMPLE_BLOCKS, BLOCK = 16, 4_000


def loop_sample(space: SweepSpace) -> tuple[int, float, float]:
    """(decisions, wall s, CPU s) of the Python loop on blocks spread over the space."""
    deciders = [Decider(RULE_SETS.get(name)).decide for name in RULES]
    decisions, wall, cpu = 0, 0.0, 0.0
    for k in range(SAMPLE_BLOCKS):
        lo = space.size * k // SAMPLE_BLOCKS
        inputs = list(space.inputs(lo, min(space.size, lo + BLOCK)))  # built before the clock
        w, c = time.perf_counter(), time.process_time()
        for request, producer in inputs:
            for decide in deciders:
                decide(request, producer)
                decisions += 1
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
    return decisions, wall, cpu


def numpy_one_process(space: SweepSpace) -> tuple[float, float]:
    job = SweepJob(space, RULES)
    job.decisions()  # the program is built once per process; not what is measured
    with tempfile.TemporaryDirectory() as out:
        w, c = time.perf_counter(), time.process_time()
        job.write_part(Path(out), 0, 0, space.size)
        return time.perf_counter() - w, time.process_time() - c


def spark_child(master: str, entries: int, seqnos: int) -> None:
    """In a fresh process: warm up, then one timed sweep; prints wall and CPU as JSON."""
    from checker.spark.session import spark_session
    from checker.spark.sweep import sweep_on_spark

    with (
        spark_session(master, f"dcpcheck sweep benchmark {master}") as spark,
        tempfile.TemporaryDirectory() as out,
    ):
        warm = Path(out) / "warm"
        warm.mkdir()
        sweep_on_spark(spark, SweepJob(SweepSpace(1, 1), RULES), warm, timeout_s=3600)
        dataset = Path(out) / "decisions"
        dataset.mkdir()
        cpu, wall = tree_cpu_seconds(os.getpid()), time.perf_counter()
        parts, _ = sweep_on_spark(
            spark, SweepJob(SweepSpace(entries, seqnos), RULES), dataset, timeout_s=3600
        )
        wall, cpu = time.perf_counter() - wall, tree_cpu_seconds(os.getpid()) - cpu
    print(json.dumps({"wall": wall, "cpu": cpu, "parts": parts}))


def spark_run(master: str, space: SweepSpace) -> tuple[float, float, int]:
    code = (
        "import sys; from benchmarks.sweep import spark_child; "
        f"spark_child({master!r}, {space.entries}, {space.seqnos})"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{master}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    return result["wall"], result["cpu"], result["parts"]


def run(quick: bool = False) -> None:
    space = SweepSpace(3, 3 if quick else 4)
    total = space.size * len(RULES)
    load = os.getloadavg()
    print(
        f"space: {space.describe()}: {space.size:,} inputs x {len(RULES)} rule sets = "
        f"{total:,} decisions; {os.cpu_count()} cores, load average {load[0]:.1f} "
        f"{load[1]:.1f} {load[2]:.1f} (1, 5, 15 min)"
    )
    sampled, sample_wall, sample_cpu = loop_sample(space)
    loop_wall, loop_cpu = sample_wall * total / sampled, sample_cpu * total / sampled
    numpy_wall, numpy_cpu = numpy_one_process(space)
    local1 = spark_run("local[1]", space)
    local2 = spark_run("local[2]", space)
    rows = []
    for label, wall, cpu in [
        (f"loop (Decider), extrapolated from {sampled:,}", loop_wall, loop_cpu),
        ("numpy, one process (no Spark)", numpy_wall, numpy_cpu),
        (f"Spark local[1] ({local1[2]} parts)", local1[0], local1[1]),
        (f"Spark local[2] ({local2[2]} parts)", local2[0], local2[1]),
    ]:
        rows.append(
            [
                label,
                f"{wall:,.1f}",
                f"{cpu:,.1f}",
                f"{total / wall:,.0f}",
                f"{total / cpu:,.0f}",
                f"{cpu / wall:.2f}",
                f"{loop_wall / wall:,.1f}x",
                f"{local1[0] / wall:.2f}x",
            ]
        )
    headers = ["runs as", "wall s", "CPU s", "decisions/s", "decisions/CPU s", "cores used"]
    headers.append("x loop")
    print(tabulate(rows, headers=[*headers, "x local[1]"], disable_numparse=True))
    load = os.getloadavg()
    print(
        f"ratios are of wall time, all from this run; load average after: {load[0]:.1f} "
        f"{load[1]:.1f} {load[2]:.1f}"
    )
