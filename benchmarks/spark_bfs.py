"""Durability breadth-first search: in one process vs Spark local[1] vs local[2], side by side.

Every check of a preset (3 ack rules x 2 branch rules x no-lost-syncwrite,
prepare-ack-progress) is run four ways, each in its own process (a process
has one Spark session), in one run so that the ratios compare like with
like on a shared machine:

* ``explore``: ``dcpcheck durability`` in this process's way, one search per check;
* ``explore --workers 2``: the same searches, two checks at a time on two processes;
* ``spark local[1]`` and ``spark local[2]``: ``--engine bfs-spark``, one search of all
  checks, with one and two executor cores.

Per way: wall seconds, CPU seconds of the whole process tree (driver, JVM,
Python workers), unique states summed over the checks, and the driver's peak
resident memory (the Python process; the JVM, which hosts the local executors,
apart). The verdicts, counterexample lengths and state counts of all ways must
be equal, or the benchmark fails. Caps: ``--timeout`` per check as the command's default
(1800 s; spark: x checks) and 20,000,000 states per model; a capped check
would be ``unknown`` and the run fails. Full run: mb-34150-wide. It took 69
minutes for the four ways on a quiet 2-core machine on 2026-11-23 (12,484,637
states in all, benchmarks/RESULTS.md); since couchstore's headers entered the state, one of
its checks alone visits 28.6 million states (13.1 GiB, 47 CPU minutes in one
process), so it no longer fits a session or a 2-core machine's memory (the caps
above stop it: the run fails). ``--quick``: mb-34150 (a few minutes);
``benchmarks/spark_bfs_per_state.py`` measures the per-state ratios on one large
check. Some ways only: ``python -c 'from benchmarks import spark_bfs as b;
b.run(ways=["explore (one process)", "spark local[2]"])'``; a ratio to a way not
run is ``-``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tabulate import tabulate

from benchmarks._process import measured_run

ONE = "explore (one process)"


def run(quick: bool = False, ways: Sequence[str] | None = None) -> None:
    """``ways``: the names of the ways to run (default all; the first must be ``ONE``)."""
    preset = "mb-34150" if quick else "mb-34150-wide"
    base = ["durability", "--preset", preset]
    every = {
        ONE: base,
        "explore --workers 2": [*base, "--workers", "2"],
        "spark local[1]": [*base, "--engine", "bfs-spark", "--master", "local[1]"],
        "spark local[2]": [*base, "--engine", "bfs-spark", "--master", "local[2]"],
    }
    chosen = list(ways or every)
    if chosen[0] != ONE or not set(chosen) <= set(every):
        raise SystemExit(f"ways: {ONE!r} first, then any of {list(every)[1:]}")
    ways_run = {name: every[name] for name in chosen}
    measured, found = {}, {}
    for name, args in ways_run.items():
        measured[name], records = measured_run(args)
        found[name] = [
            (r["ack_rule"], r["branch_rule"], r["property"], r["verdict"], r["steps"], r["states"])
            for r in records
        ]
    reference = found[ONE]
    for name, got in found.items():
        if got != reference:
            raise SystemExit(f"{name} disagrees with the in-process search:\n{got}\n{reference}")
    if any(v == "unknown" for *_, v, _steps, _states in reference):
        raise SystemExit("a check hit a cap (unknown): the comparison means nothing")
    states = sum(s for *_, s in reference)
    one = measured["spark local[1]"]["wall"] if "spark local[1]" in measured else None
    alone = measured[ONE]
    rows = [
        [
            name,
            f"{m['wall']:.1f}",
            f"{m['cpu']:.1f}",
            f"{states / m['wall']:,.0f}",
            f"{m['driver'] / 2**20:,.0f}",
            f"{m['jvm'] / 2**20:,.0f}" if m["jvm"] else "-",
            f"{one / m['wall']:.2f}" if one else "-",
            f"{m['wall'] / alone['wall']:.2f}",
            f"{m['cpu'] / alone['cpu']:.2f}",
        ]
        for name, m in measured.items()
    ]
    print(
        f"durability, preset {preset}: {len(reference)} checks, {states:,} states in all "
        f"(verdicts, counterexample lengths and states equal in every way)"
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
                "wall / one process",
                "CPU / one process",
            ],
        )
    )
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print()
