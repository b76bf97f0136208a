"""A durability model that needs a cluster: preset mb-34150-wider, measured as far as one
machine allows.

One check, of the kind that was the largest of mb-34150-wide
(ack-at-snapshot-end+restart-fix, persisted-snapshot, prepare-ack-progress: it held
there, so the search visits every state it reaches):

1. *Memory per state of the in-process search*: the search stopped by ``--max-states``
   at N1 and at N2 states, each in a process of its own; the marginal resident memory
   per state is (peak at N2 - peak at N1) / (N2 - N1), so the interpreter, the imports
   and the first states cancel out. With this machine's memory it gives the number of
   states at which the in-process search runs out.
2. *The Spark search, stopped and resumed*: ``--engine bfs-spark --master local[2]
   --checkpoint DIR``, killed (SIGKILL to its process group: driver, JVM, Python
   workers) after STOP seconds of wall time, then the same command again with
   ``--timeout RESUME``: it must resume after the last level the killed run published
   (its first level printed is the next one), and stop with ``unknown`` at the time
   limit, keeping what it published. Per level, from the checkpoint's own summaries:
   new states, states in all, seconds, in the driver or as a Spark job.
3. *What it says*: the states the published levels hold, the growth of the last
   levels, and the memory the in-process search would need for them at the measured
   bytes per state, against this machine's memory.

Full run: N1 = 1,000,000, N2 = 3,000,000, STOP = 900 s, RESUME = 600 s (about 40
minutes on 2 cores); ``--quick``: 200,000 / 600,000 states, 150 s / 90 s.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from benchmarks._process import ROOT, measured_run, tree_cpu_seconds

PRESET = "mb-34150-wider"
CHECK = [
    "--ack-rule",
    "ack-at-snapshot-end+restart-fix",
    "--branch-rule",
    "persisted-snapshot",
    "--property",
    "prepare-ack-progress",
]
LEVEL_LINE = re.compile(r"level (\d+): ")


def run(quick: bool = False) -> None:
    n1, n2 = (200_000, 600_000) if quick else (1_000_000, 3_000_000)
    stop, resume = (150, 90) if quick else (900, 600)
    base = ["durability", "--preset", PRESET, *CHECK]
    print(f"preset {PRESET}: one check ({' '.join(CHECK[1::2])})")

    memory = {}
    for n in (n1, n2):
        measured, _ = measured_run([*base, "--max-states", str(n)], codes=(0, 1, 3))
        memory[n] = measured
    per_state = (memory[n2]["driver"] - memory[n1]["driver"]) / (n2 - n1)
    machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    print(
        tabulate(
            [
                [f"{n:,}", f"{m['wall']:.1f}", f"{m['cpu']:.1f}", f"{m['driver'] / 2**20:,.0f}"]
                for n, m in memory.items()
            ],
            headers=["in process, --max-states", "wall s", "CPU s", "peak MiB"],
        )
    )
    fits = machine / per_state if per_state > 0 else float("inf")
    print(
        f"marginal memory per state: {per_state:,.0f} bytes; this machine's "
        f"{machine / 2**30:.1f} GiB hold about {fits:,.0f} states of this search in one process"
    )

    with tempfile.TemporaryDirectory(prefix="dcpcheck-large-") as scratch:
        checkpoint = Path(scratch) / "checkpoint"
        spark = [
            *base,
            "--engine",
            "bfs-spark",
            "--master",
            "local[2]",
            "--checkpoint",
            str(checkpoint),
        ]
        killed = _killed_after(spark, stop)
        published = _levels(checkpoint)
        resumed = _timed(spark, resume, Path(scratch) / "out")
        levels = _levels(checkpoint)
    first_again = resumed["first_level"]
    print(
        f"\nspark local[2], killed after {killed['wall']:.0f} s ({killed['cpu']:.0f} CPU s): "
        f"{len(published)} levels published, {_states(published):,} states"
    )
    print(
        f"the same command again with --timeout {resume}: exit {resumed['code']}, its first "
        f"level {first_again} (the killed run had published 0..{len(published) - 1}); "
        f"{resumed['wall']:.0f} s, {resumed['cpu']:.0f} CPU s; now {len(levels)} levels, "
        f"{_states(levels):,} states"
    )
    if first_again != len(published):
        raise SystemExit(f"the resumed search started at level {first_again}, not {len(published)}")
    rows, total = [], 0
    for level in levels:
        new = sum(level["states"].values())
        total += new
        where = "driver" if level["on_driver"] else f"Spark, {level['partitions']} partitions"
        rows.append([level["index"], f"{new:,}", f"{total:,}", f"{level['seconds']:.1f}", where])
    print(tabulate(rows[-12:], headers=["level", "new states", "in all", "s", "searched in"]))
    last, before = (sum(level["states"].values()) for level in levels[-1:-3:-1])
    print(
        f"the last level added {last:,} states, {last / max(before, 1):.2f}x the level before; "
        f"the in-process search would hold {total:,} states in about "
        f"{total * per_state / 2**30:.1f} GiB (this machine: {machine / 2**30:.1f} GiB)"
    )
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}\n")


def _command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "checker.cli", *args, "--quiet"]


def _killed_after(args: list[str], seconds: float) -> dict:
    """Run ``dcpcheck ARGS`` for ``seconds`` of wall time, then SIGKILL its process group."""
    proc = subprocess.Popen(
        _command(args),
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    started, cpu = time.perf_counter(), 0.0
    while time.perf_counter() - started < seconds and proc.poll() is None:
        cpu = max(cpu, tree_cpu_seconds(proc.pid))
        time.sleep(1)
    if proc.poll() is not None:
        raise SystemExit(f"the search ended by itself (exit {proc.returncode}) before the kill")
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return {"wall": time.perf_counter() - started, "cpu": cpu}


def _timed(args: list[str], timeout: float, out: Path) -> dict:
    """``dcpcheck ARGS --timeout T`` to its end: exit code, wall and CPU seconds, and the
    first level its progress names."""
    proc = subprocess.Popen(
        [*_command(args)[:-1], "--timeout", str(timeout), "--out", str(out)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    started, cpu, first = time.perf_counter(), 0.0, None
    assert proc.stderr is not None
    for line in proc.stderr:
        cpu = max(cpu, tree_cpu_seconds(proc.pid))
        found = LEVEL_LINE.search(line)
        if found and first is None:
            first = int(found.group(1))
    code = proc.wait()
    if code not in (0, 1, 3):
        raise SystemExit(f"the resumed search failed (exit {code})")
    return {"code": code, "wall": time.perf_counter() - started, "cpu": cpu, "first_level": first}


def _levels(checkpoint: Path) -> list[dict]:
    """The published levels' summaries, in order."""
    found = []
    for folder in (checkpoint / "levels").glob("level=*"):
        summary = folder / "_level.json"
        if summary.exists():
            found.append(json.loads(summary.read_text()))
    return sorted(found, key=lambda level: level["index"])


def _states(levels: list[dict]) -> int:
    return sum(sum(level["states"].values()) for level in levels)
