"""A dcpcheck command run in a process of its own, measured: wall seconds, CPU seconds of
the whole process tree (the driver, Spark's JVM and its Python workers, forked cube
workers: every descendant's own CPU, sampled every 0.2 s while the command runs, so a
process's last 0.2 s may be missed), peak resident memory of the driver and of the
JVM, and the peak of the tree's resident memory summed (``tree``, at those samples)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, os, sys, threading, time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
ME = os.getpid()

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

def memory(pid, field):  # bytes of /proc/PID/status's FIELD (VmRSS now, VmHWM its peak)
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    return 0

def rss(pid):
    return memory(pid, "VmRSS")

def hwm(pid):
    return memory(pid, "VmHWM")

# Every descendant's own CPU ticks (user + system), sampled until the command ends: Spark's
# Python workers may end with the session, unreaped by anyone this process waits for.
seen, jvm, done, together = {}, [0], threading.Event(), [0]

def sample():
    kin = tree(ME)
    together[0] = max(together[0], rss(ME) + sum(rss(pid) for pid, _ in kin))
    for pid, stat in kin:
        seen[(pid, stat[19])] = int(stat[11]) + int(stat[12])  # keyed by pid and start time
        try:
            if b"java" in Path(f"/proc/{pid}/cmdline").read_bytes()[:200]:
                jvm[0] = max(jvm[0], hwm(pid))
        except OSError:
            pass

def sampler():
    while not done.wait(0.2):
        try:
            sample()
        except OSError:
            pass

threading.Thread(target=sampler, daemon=True).start()
started = time.perf_counter()
sys.argv = ["dcpcheck", *sys.argv[1:]]
from checker.cli import main
code = main(sys.argv[1:])
wall = time.perf_counter() - started
done.set()
sample()
cpu = time.process_time() + sum(seen.values()) / TICK
print(json.dumps({"code": code, "wall": wall, "cpu": cpu, "driver": hwm(ME), "jvm": jvm[0],
                  "tree": max(together[0], hwm(ME))}), file=sys.stderr)
"""


def measured_run(args: list[str], codes: tuple[int, ...] = (0, 1)) -> tuple[dict, list[dict]]:
    """``dcpcheck ARGS --json`` in a process of its own: (wall and CPU seconds of the
    whole process tree, the driver's and the JVM's peak memory, the exit code; the
    result records). Exit codes other than ``codes`` fail the benchmark."""
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
    if measured["code"] not in codes:
        raise SystemExit(f"{' '.join(args)}: exit {measured['code']}\n{proc.stderr[-3000:]}")
    return measured, json.loads(proc.stdout)["results"]


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU of ``root`` and its descendants (and their reaped children)."""
    parents, times = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(times.get(pid, 0) for pid in tree) / os.sysconf("SC_CLK_TCK")
