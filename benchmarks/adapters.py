"""Client adapters: scenarios per second, Python vs Java, one process vs Spark local[2]
(``python -m benchmarks adapters``), side by side in one run.

Every safety property of kv-current judged on a client adapter over every scenario
within ``FULL`` (2 seqnos, 2 keys, 2 table entries, 1 failover: 45,320 scenarios;
``--quick``: ``QUICK``, 1 key, 4,610 scenarios): the Python adapter
(examples/adapters/offset_store_client.py) and the Java one
(examples/adapters/java/JavaLikeClient.java, compiled here with javac, run with
``JVM_FLAGS``), each

* in one process: ``checker.adapter.search.judge_part`` here, one adapter process;
* on Spark local[2]: ``checker.spark.clients.judge_on_spark``, a task per part, each
  with its own adapter process, in one Spark session started once for both adapters
  (its driver JVM with ``scheduler_jvm``'s flags, as ``clients --target`` starts it).

Per row: the load average before it (``os.getloadavg``), wall seconds, and CPU seconds
of the whole process tree (this process and every descendant: Spark's JVM, its Python
daemon and workers, the adapter processes, alive or reaped; ``/proc``, read before and
after the row), scenarios per second and, for local[2], the ratio to the same adapter
in one process. The Spark rows' wall is the search alone: the session's start-up (the
JVM, then a first job that starts the Python workers) is timed apart, once, and the
last column charges it to each search as a command run would pay it. The bounds are
the cap: the full run took about 4 minutes on the shared 2-core machine at load 8 (most
of it the two one-process rows), ``--quick`` about two at load 12. Then how long the
Java adapter takes on local[2] at larger bounds: start-up plus the number of scenarios
(the measured ones, or counted by enumerating them, at most a minute) at the measured
rate; make verify's bounds are out of reach.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks._process import tree_cpu_seconds
from benchmarks._table import print_table
from checker.adapter.check import ClientTarget
from checker.adapter.search import PartSummary, judge_part
from checker.engines.exhaustive import history_count, scenarios
from spec.bounds import Bounds
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
FULL = Bounds(seqnos=2, keys=2, entries=2, failovers=1)
QUICK = Bounds(seqnos=2, keys=1, entries=2, failovers=1)
VERIFY = Bounds(seqnos=8, keys=3, entries=5, failovers=3)
LADDER = (
    QUICK,
    FULL,
    Bounds(seqnos=3, keys=1, entries=2, failovers=1),
    Bounds(seqnos=3, keys=1, entries=3, failovers=1),
)
SAFETY = [p for p in PROPERTIES if p.kind == "safety"]
# A small adapter, one JVM per part: the C1 compiler alone and the serial collector, so its
# JIT and GC threads do not compete with the search for the cores (at --quick, load 8: wall
# 11 s and 5.8 CPU s with the JVM's defaults, 5.6 s and 4.1 CPU s with these).
JVM_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


class _Measured:
    """Wall and whole-process-tree CPU seconds of a ``with`` block."""

    def __enter__(self) -> _Measured:
        self.cpu = tree_cpu_seconds(os.getpid())
        self.started = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self.started
        self.cpu = tree_cpu_seconds(os.getpid()) - self.cpu


def _one_process(spec: str, bounds: Bounds) -> PartSummary:
    client = ClientTarget(spec).start()
    try:
        return judge_part(
            client, RULE_SETS.get("kv-current"), SAFETY, bounds, 0, history_count(bounds)
        )
    finally:
        client.close()


def _spark(spark: SparkSession, spec: str, bounds: Bounds) -> PartSummary:
    from checker.spark.clients import judge_on_spark

    return judge_on_spark(spark, spec, 10.0, "kv-current", [p.id for p in SAFETY], bounds, False)


def _warm_up(spark: SparkSession) -> None:
    """A first job: Spark starts its Python workers, which import the search."""

    def load(_: int) -> None:
        import checker.adapter.check
        import checker.spark.clients  # noqa: F401

    cores = spark.sparkContext.defaultParallelism
    spark.sparkContext.parallelize(range(cores), cores).foreach(load)


def _java() -> str | None:
    if shutil.which("javac") is None:
        return None
    classes = tempfile.mkdtemp(prefix="dcpcheck-java-")
    java = ROOT / "examples" / "adapters" / "java" / "JavaLikeClient.java"
    subprocess.run(["javac", "-d", classes, str(java)], check=True)
    return f"jsonl:java {JVM_FLAGS} -cp {classes} JavaLikeClient"


def _count(bounds: Bounds, limit_s: float = 60.0) -> int | None:
    started, n = time.perf_counter(), 0
    for _ in scenarios(bounds):
        n += 1
        if n % 10000 == 0 and time.perf_counter() - started > limit_s:
            return None
    return n


def _row(name: str, where: str, load: str, part: PartSummary, m: _Measured) -> list[object]:
    return [name, where, load, part.examined, f"{m.wall:.1f}", f"{m.cpu:.1f}"]


def run(quick: bool = False) -> None:
    bounds = QUICK if quick else FULL
    begun = _load()
    adapters = {
        "python": f"jsonl:{sys.executable} {ROOT / 'examples/adapters/offset_store_client.py'}"
    }
    java = _java()
    if java:
        adapters["java"] = java
    rows: list[list[object]] = []
    one: dict[str, float] = {}
    counted: dict[Bounds, int] = {}
    for name, spec in adapters.items():
        load = _load()
        with _Measured() as m:
            part = _one_process(spec, bounds)
        one[name] = part.examined / m.wall
        counted[bounds] = part.examined
        rows.append([*_row(name, "one process", load, part, m), f"{one[name]:.0f}", "", ""])
    from checker.spark.session import scheduler_jvm, spark_session

    load = _load()
    fast: dict[str, float] = {}
    cpu, started = tree_cpu_seconds(os.getpid()), time.perf_counter()
    with spark_session("local[2]", "benchmarks adapters", scheduler_jvm({})) as spark:
        _warm_up(spark)
        start_up = time.perf_counter() - started
        cpu = tree_cpu_seconds(os.getpid()) - cpu
        rows.append(
            ["(Spark start-up)", "local[2]", load, "", f"{start_up:.1f}", f"{cpu:.1f}", "", "", ""]
        )
        for name, spec in adapters.items():
            load = _load()
            with _Measured() as m:
                part = _spark(spark, spec, bounds)
            fast[name] = part.examined / m.wall
            with_start = part.examined / (m.wall + start_up) / one[name]
            rows.append(
                [
                    *_row(name, "Spark local[2]", load, part, m),
                    f"{fast[name]:.0f}",
                    f"{fast[name] / one[name]:.2f}x",
                    f"{with_start:.2f}x",
                ]
            )
    print_table(
        f"every safety property of kv-current on every scenario within {bounds.describe()} "
        f"(CPU: the whole process tree; load average at the start {begun}, at the end {_load()})",
        [
            "adapter",
            "where",
            "load",
            "scenarios",
            "wall s",
            "CPU s",
            "scenarios/s",
            "vs one",
            "vs one, with start-up",
        ],
        rows,
    )
    rate = fast.get("java")
    if rate is None:
        return
    ladder: list[list[object]] = []
    for b in LADDER:
        n = counted.get(b) or _count(b)
        seconds = f"{start_up + n / rate:.0f}" if n else "-"
        ladder.append([b.describe(), f"{n:,}" if n else "> a minute to count", seconds])
    ladder.append(
        [
            VERIFY.describe() + " (verify)",
            f"> {history_count(VERIFY):,} first histories, each with many scenarios",
            f"> {history_count(VERIFY) / rate:.0f}",
        ]
    )
    print_table(
        f"the Java adapter on Spark local[2] at {rate:.0f} scenarios/s after "
        f"{start_up:.0f} s of start-up: seconds to judge each bound (predicted)",
        ["bounds", "scenarios", "seconds"],
        ladder,
    )
