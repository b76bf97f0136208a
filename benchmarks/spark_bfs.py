"""Durability breadth-first search: in one process vs Spark local[1] vs local[2], side by side.

Every check of a preset (3 ack rules x 2 branch rules x no-lost-syncwrite,
prepare-ack-progress) is run three ways, each in its own process (a process
has one Spark session), in one run so that the ratios compare like with
like on a shared machine:

* ``explore``: ``dcpcheck durability`` in this process's way, one search per check;
* ``spark local[1]`` and ``spark local[2]``: ``--engine spark``, one search of all
  checks, with one and two executor cores.

Per way: wall seconds, CPU seconds of the whole process tree (driver, JVM,
Python workers), unique states summed over the checks, and the driver's peak
resident memory (the Python process; the JVM, which hosts the local executors,
apart). The verdicts and state counts of the three must be equal, or the
benchmark fails. Caps: ``--timeout`` per check as the command's default
(1800 s; spark: x checks) and 20,000,000 states per model; a capped check
would be ``unknown`` and the run fails. Full run: mb-34150-wide (the one that
needs a cluster-sized effort: about 12 million states in all); ``--quick``:
mb-34150.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, os, runpy, sys, time
from pathlib import Path

def tree(pid):
    kids = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            kids.setdefault(int(stat[1]), []).append((int(entry.name), stat))
    out, todo = [], [pid]
    while todo:
        for child, stat in kids.get(todo.pop(), []):
            out.append((child, stat))
            todo.append(child)
    return out

def hwm(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0

started = time.perf_counter()
sys.argv = ["dcpcheck", *sys.argv[1:]]
from checker.cli import main
code = main(sys.argv[1:])
wall = time.perf_counter() - started
tick = os.sysconf("SC_CLK_TCK")
me = os.times()
cpu = me.user + me.system + me.children_user + me.children_system
jvm = 0
for pid, stat in tree(os.getpid()):
    cpu += sum(int(x) for x in stat[11:15]) / tick
    if "java" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
        jvm = max(jvm, hwm(pid))
print(json.dumps({"code": code, "wall": wall, "cpu": cpu, "driver": hwm(os.getpid()), "jvm": jvm}),
      file=sys.stderr)
"""


def _run(args: list[str]) -> tuple[dict, list[dict]]:
    with tempfile.TemporaryDirectory(prefix="dcpcheck-bench-") as out:
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, *args, "--json", "--out", out],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark run failed: {' '.join(args)}\n{proc.stderr[-3000:]}")
    measured = json.loads(proc.stderr.strip().splitlines()[-1])
    if measured["code"] not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {measured['code']}\n{proc.stderr[-3000:]}")
    return measured, json.loads(proc.stdout)["results"]


def run(quick: bool = False) -> None:
    preset = "mb-34150" if quick else "mb-34150-wide"
    base = ["durability", "--preset", preset]
    ways = {
        "explore (one process)": base,
        "spark local[1]": [*base, "--engine", "spark", "--master", "local[1]"],
        "spark local[2]": [*base, "--engine", "spark", "--master", "local[2]"],
    }
    measured, found = {}, {}
    for name, args in ways.items():
        measured[name], records = _run(args)
        found[name] = [
            (r["ack_rule"], r["branch_rule"], r["property"], r["verdict"], r["states"])
            for r in records
        ]
    reference = found["explore (one process)"]
    for name, got in found.items():
        if got != reference:
            raise SystemExit(f"{name} disagrees with the in-process search:\n{got}\n{reference}")
    if any(v == "unknown" for *_, v, _ in reference):
        raise SystemExit("a check hit a cap (unknown): the comparison means nothing")
    states = sum(s for *_, s in reference)
    one = measured["spark local[1]"]["wall"]
    rows = [
        [
            name,
            f"{m['wall']:.1f}",
            f"{m['cpu']:.1f}",
            f"{states / m['wall']:,.0f}",
            f"{m['driver'] / 2**20:,.0f}",
            f"{m['jvm'] / 2**20:,.0f}" if m["jvm"] else "-",
            f"{one / m['wall']:.2f}",
        ]
        for name, m in measured.items()
    ]
    print(
        f"durability, preset {preset}: {len(reference)} checks, {states:,} states in all "
        f"(verdicts and states equal in the three ways)"
    )
    print(
        tabulate(
            rows,
            headers=[
                "way",
                "wall s",
                "CPU s (tree)",
                "states/s",
                "driver MiB",
                "JVM MiB",
                "x local[1]",
            ],
        )
    )
    print()
