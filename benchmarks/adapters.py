"""Client adapters: scenarios per second, Python vs Java, one process vs Spark local[2]
(``python -m benchmarks adapters``).

Every safety property of kv-current judged on a client adapter over every scenario
of ``RATE`` (2 seqnos, 1 key, 2 table entries, 1 failover: 4,610 scenarios): the
Python adapter (examples/adapters/offset_store_client.py) and the Java one
(examples/adapters/java/JavaLikeClient.java, compiled here with javac), each in one
adapter process (``checker.adapter.search`` in this process) and on Spark local[2]
(``checker.spark.clients``: a task per part, each with its own adapter process).
Wall seconds beside CPU seconds: this process's, plus its reaped children's (the
adapter process of a one-process run; Spark's executors are not counted), and the
load average (``uptime``) before each row. Then how long the Java adapter would take
at make verify's bounds and at smaller ones, from the number of scenarios (counted
by enumerating them, where that takes under a minute) and the rate measured on
local[2]; ``--quick``: one process only.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._table import print_table
from checker.adapter.check import ClientTarget
from checker.adapter.search import judge_part
from checker.engines.exhaustive import history_count, scenarios
from spec.bounds import Bounds
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

ROOT = Path(__file__).resolve().parent.parent
RATE = Bounds(seqnos=2, keys=1, entries=2, failovers=1)
VERIFY = Bounds(seqnos=8, keys=3, entries=5, failovers=3)
LADDER = (
    Bounds(seqnos=2, keys=1, entries=2, failovers=1),
    Bounds(seqnos=2, keys=2, entries=2, failovers=1),
    Bounds(seqnos=3, keys=1, entries=2, failovers=1),
)
SAFETY = [p for p in PROPERTIES if p.kind == "safety"]


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _one_process(spec: str) -> tuple[int, float, float]:
    target = ClientTarget(spec)
    started, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    client = target.start()
    try:
        part = judge_part(client, RULE_SETS.get("kv-current"), SAFETY, RATE, 0, history_count(RATE))
    finally:
        client.close()
    wall = time.perf_counter() - started
    return part.examined, wall, time.process_time() - cpu + _children_cpu() - children


def _spark(spark, spec: str) -> tuple[int, float, float]:  # type: ignore[no-untyped-def]
    from checker.spark.clients import judge_on_spark

    started, cpu = time.perf_counter(), time.process_time()
    part = judge_on_spark(spark, spec, 10.0, "kv-current", [p.id for p in SAFETY], RATE, False)
    return part.examined, time.perf_counter() - started, time.process_time() - cpu


def _java() -> str | None:
    if shutil.which("javac") is None:
        return None
    classes = tempfile.mkdtemp(prefix="dcpcheck-java-")
    java = ROOT / "examples" / "adapters" / "java" / "JavaLikeClient.java"
    subprocess.run(["javac", "-d", classes, str(java)], check=True)
    return f"jsonl:java -cp {classes} JavaLikeClient"


def _count(bounds: Bounds, limit_s: float = 60.0) -> str:
    started, n = time.perf_counter(), 0
    for _ in scenarios(bounds):
        n += 1
        if n % 10000 == 0 and time.perf_counter() - started > limit_s:
            return f"> {n:,} (counting stopped after {limit_s:.0f} s)"
    return f"{n:,}"


def run(quick: bool = False) -> None:
    adapters = {
        "python": f"jsonl:{sys.executable} {ROOT / 'examples/adapters/offset_store_client.py'}"
    }
    java = _java()
    if java:
        adapters["java"] = java
    rows = []
    rates: dict[tuple[str, str], float] = {}
    for name, spec in adapters.items():
        load = _load()
        n, wall, cpu = _one_process(spec)
        rates[(name, "one process")] = n / wall
        rows.append(
            [name, "one process", load, n, f"{wall:.1f}", f"{cpu:.1f}", f"{n / wall:.0f}", ""]
        )
    if not quick:
        from checker.spark.session import spark_session

        with spark_session("local[2]", "benchmarks adapters") as spark:
            for name, spec in adapters.items():
                load = _load()
                n, wall, cpu = _spark(spark, spec)
                rates[(name, "local[2]")] = n / wall
                ratio = n / wall / rates[(name, "one process")]
                rows.append(
                    [
                        name,
                        "Spark local[2]",
                        load,
                        n,
                        f"{wall:.1f}",
                        f"{cpu:.1f}",
                        f"{n / wall:.0f}",
                        f"{ratio:.2f}x",
                    ]
                )
    print_table(
        f"every safety property of kv-current on every scenario within {RATE.describe()}",
        ["adapter", "where", "load", "scenarios", "wall s", "CPU s", "scenarios/s", "vs one"],
        rows,
    )
    best = rates.get(("java", "local[2]")) or rates.get(("java", "one process"))
    if best is None:
        return
    ladder = []
    for bounds in LADDER:
        count = _count(bounds)
        n = int(count.replace(",", "")) if count[0].isdigit() else None
        ladder.append([bounds.describe(), count, f"{n / best:.0f}" if n else "-"])
    ladder.append(
        [
            VERIFY.describe() + " (verify)",
            f"> {history_count(VERIFY):,} first histories, each with many scenarios",
            f"> {history_count(VERIFY) / best:.0f}",
        ]
    )
    print_table(
        f"the Java adapter at {best:.0f} scenarios/s: seconds to judge each bound",
        ["bounds", "scenarios", "seconds (predicted)"],
        ladder,
    )
