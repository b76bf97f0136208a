"""``dcpcheck review``'s learning speed against a compiled build: inputs per second.

The build is benchmarks/kv_current_target.c (kv-current written in C from the
clause language, not from kv_engine), compiled here with ``cc -O2``. It speaks
both interfaces: humpty_dumpty's (one invocation per producer state) and JSON
lines (``--jsonl``: one process per part). The space: tables of <= 2 entries
with distinct uuids, seqnos <= 3: 1,120,000 inputs (``--quick``: seqnos <= 2,
136,320), all of them over JSON lines, the 7,000 (1,420) humpty expresses over
humpty. Measured side by side in one run:

* **one process**: ``LearnJob.write_part`` over the whole space in this
  process (no Spark): wall, this process's CPU (dcpcheck: generating inputs,
  JSON, Parquet, BASE's decisions) and the target processes' CPU (reaped
  children), so the share of CPU spent in the target;
* **end to end**: ``dcpcheck review --target jsonl:BUILD --jsonl --entries 2
  --seqnos 3 --distinct-uuids`` with ``--no-spark`` and with ``--master
  local[2]``, each in a process of its own (JVM start-up included); CPU of
  the whole process tree (sampled from /proc every 0.2 s).

The build answers as kv-current on every input, so the review's verdict is
"equivalent within the bounds" (checked). The machine's load average is
printed before and after: wall time depends on it, CPU time much less.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from benchmarks._process import measured_run
from checker.review.learn import REGION, LearnJob
from checker.sweep.space import SweepSpace

SOURCE = Path(__file__).with_name("kv_current_target.c")


def compile_target(directory: Path) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        raise SystemExit("benchmarks review: no C compiler (cc, gcc or clang) on PATH")
    binary = directory / "kv_current_target"
    subprocess.run([cc, "-O2", "-o", str(binary), str(SOURCE)], check=True)
    return binary


def one_process(space: SweepSpace, target: str) -> dict[str, float]:
    """Learn the whole space here; wall, own CPU, the target's CPU, inputs asked."""
    job = LearnJob(space, "kv-current", target, 10.0)
    job.base_rules()
    with tempfile.TemporaryDirectory(prefix="dcpcheck-bench-") as out:
        before, wall, cpu = os.times(), time.perf_counter(), time.process_time()
        tally = job.write_part(Path(out), 0, 0, space.size).to_pylist()
        after = os.times()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    target_cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    if any(row["kind"] == REGION for row in tally):
        raise SystemExit(f"{target}: answers differently from kv-current: {tally}")
    asked = sum(row["inputs"] for row in tally if row["kind"] == "asked")
    return {"wall": wall, "cpu": cpu, "target": target_cpu, "asked": asked}


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} {five:.1f} {fifteen:.1f}"


def run(quick: bool = False) -> None:
    seqnos = 2 if quick else 3
    space = SweepSpace(2, seqnos, duplicate_uuids=False)
    print(
        f"space: {space.describe()}: {space.size:,} inputs; {os.cpu_count()} cores, load "
        f"average {load()} (1, 5, 15 min)"
    )
    with tempfile.TemporaryDirectory(prefix="dcpcheck-target-") as build:
        binary = compile_target(Path(build))
        jsonl = one_process(space, f"jsonl:{binary} --jsonl")
        humpty = one_process(space, f"humpty:{binary}")
        review = ["review", "--target", f"jsonl:{binary} --jsonl", "--entries", "2"]
        review += ["--seqnos", str(seqnos), "--distinct-uuids", "--quiet"]
        here, results_here = measured_run([*review, "--no-spark"])
        spark, results = measured_run([*review, "--master", "local[2]"])
    for measured, found in ((here, results_here), (spark, results)):
        if measured["code"] != 0 or {r["verdict"] for r in found} != {"holds"}:
            raise SystemExit(f"the review of the C build is not equivalent: {found}")
    rows = []
    for label, m in [
        ("JSON lines, one process", jsonl),
        ("humpty, one process", humpty),
    ]:
        total = m["cpu"] + m["target"]
        rows.append(
            [
                label,
                f"{m['asked']:,.0f}",
                f"{m['wall']:,.1f}",
                f"{total:,.1f}",
                f"{m['asked'] / m['wall']:,.0f}",
                f"{100 * m['target'] / total:.0f}% / {100 * m['cpu'] / total:.0f}%",
            ]
        )
    for label, m in [
        ("JSON lines, dcpcheck review end to end, --no-spark", here),
        ("JSON lines, dcpcheck review end to end, Spark local[2]", spark),
    ]:
        rows.append(
            [
                label,
                f"{space.size:,}",
                f"{m['wall']:,.1f}",
                f"{m['cpu']:,.1f}",
                f"{space.size / m['wall']:,.0f}",
                "(not separated)",
            ]
        )
    headers = ["runs as", "inputs", "wall s", "CPU s", "inputs/s", "CPU: target / dcpcheck"]
    print(tabulate(rows, headers=headers, disable_numparse=True))
    print(
        f"end to end on local[2]: {spark['wall']:.1f} s wall (goal: under 180 s); load "
        f"average after: {load()}"
    )
