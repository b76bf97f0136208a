"""Per-test CPU seconds of a pytest worker's whole process tree (opt-in).

``DCPCHECK_TEST_CPU=FILE pytest ...`` appends one line per test to FILE:
``cpu_s<TAB>wall_s<TAB>nodeid<TAB>start<TAB>worker`` (start: seconds since the epoch;
worker: the xdist worker, ``gw0``..., or ``main``), where cpu_s is the user + system CPU the worker
and every process below it used while the test ran: subprocesses, a Spark JVM and
its Python workers, a standalone cluster's master, worker and executors. On a
loaded machine wall time says little; this is the figure to rank tests by.

How: before and after each test, the sum over the live process tree (read from
/proc) of each process's own CPU plus the CPU of the children it reaped; a
process that ended in between is counted through its parent's reaped-children
time. A process whose parent ended first is re-parented away from the tree and
takes its CPU with it: the test it ends in then shows less, even a negative
figure (Spark's Python workers when their daemon stops first), so rank tests by
it and read sums over a file or the run, not one odd figure. The session-scoped
fixtures (a Spark JVM, the standalone cluster) count in the first test that asks
for them. Linux only; without /proc the plugin stays off.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, CPU ticks of the process and its reaped children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), sum(int(f) for f in fields[11:15])


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds used so far by ``root`` and every live process below it."""
    parent_of: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                parent_of[int(entry.name)], ticks[int(entry.name)] = stat
    children: dict[int, list[int]] = {}
    for pid, parent in parent_of.items():
        children.setdefault(parent, []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += ticks.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total / _TICK


class CpuPerTest:
    def __init__(self, path: Path) -> None:
        self.path = path

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        start = time.time()
        cpu, wall = tree_cpu_seconds(os.getpid()), time.monotonic()
        yield
        cpu, wall = tree_cpu_seconds(os.getpid()) - cpu, time.monotonic() - wall
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with self.path.open("a") as out:
            out.write(f"{cpu:.2f}\t{wall:.2f}\t{item.nodeid}\t{start:.2f}\t{worker}\n")


def register(config: pytest.Config) -> None:
    """Install the plugin when DCPCHECK_TEST_CPU names a file and /proc exists."""
    target = os.environ.get("DCPCHECK_TEST_CPU")
    if target and Path("/proc/self/stat").exists():
        config.pluginmanager.register(CpuPerTest(Path(target)), "dcpcheck-cpu-per-test")
