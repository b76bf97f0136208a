"""The distributed breadth-first search's CPU per state against one process's, on a check
too large to search whole in a session.

One check of preset mb-34150-wider (ack-at-snapshot-end+restart-fix, persisted-snapshot,
prepare-ack-progress: it holds wherever it was searched whole, so no way stops early on
a violation), searched several ways, each in its own process, in one run so that the
ratios compare like with like on a shared machine. First, not measured, a Spark search
of ``WARM_UP`` states; then:

1. ``spark local[2]`` with ``--max-states N``: it stops at the end of the level that
   reaches N states, having searched every level before it whole;
2. ``explore`` (one process) with ``--max-states`` set to the states the Spark search
   reached: the same states, levels 0 to the last, found in the same order;
3. the same level search with every level in the driver's process (``local[1]`` and
   ``spark.dcpcheck.bfs.driverBelow`` above any level: the session starts, no Spark
   job runs): what the levels' own work costs (decoding, encoding, settling, the
   level files) without the shuffle, the JVM's tasks and the Python workers;
4. ``spark local[1]``, as 1;
5. ``explore`` again, as 2;
6. ``spark local[2]`` again, as 1.

This machine's speed drifts by a quarter within minutes (benchmarks/RESULTS.md), and in seven
runs of this benchmark before the warm-up and the second ``explore`` existed the first
``local[2]`` run spent more than the last, every time (4% to 28%; with the warm-up, 1%
and 11% in two runs: the warm-up is not the cure). So ``local[2]`` and one process each
run twice, their runs centred on the same point of the sequence (1 and 6, 2 and 5): a
drift that is linear in time weighs alike on both means, and the ratio against one
process is of the two means.

Per way: states, transitions, wall seconds, CPU seconds of the whole process tree
(driver, JVM, Python workers), CPU microseconds a state, and the ratios issue 26 asks
about (CPU against one process; states a second against local[1]). The state counts
must be equal, or the benchmark fails. What the fixed costs (the JVM, the Python
workers' start) weigh shrinks as N grows: compare runs of one N.

Full run: N = 3,000,000 (about 18 minutes on 2 cores; N = 7,000,000, 7,487,679
states, about 40); ``--quick``: N = 300,000; another N:
``python -c 'from benchmarks import spark_bfs_per_state as b; b.run(limit=N)'``.
"""

from __future__ import annotations

import os

from tabulate import tabulate

from benchmarks._process import measured_run
from benchmarks.spark_bfs_large import CHECK, PRESET  # the same check

ONE = "explore (one process)"
HERE = "levels in the driver, no job"
NO_JOB = ["--master", "local[1]", "--conf", "spark.dcpcheck.bfs.driverBelow=1000000000000"]

STOPPED = (0, 1, 3)  # a capped search is unknown: exit 3
WARM_UP = 100_000  # states of the search run first and not measured


def run(quick: bool = False, limit: int | None = None) -> None:
    """``limit``: N, instead of the default for ``quick``."""
    limit = limit or (300_000 if quick else 3_000_000)
    base = ["durability", "--preset", PRESET, *CHECK]
    spark = [*base, "--engine", "bfs-spark", "--max-states", str(limit)]
    # not measured: the first Spark search after the machine idled
    measured_run([*base, "--engine", "bfs-spark", "--max-states", str(WARM_UP)], codes=STOPPED)
    load = os.getloadavg()
    measured, records = {}, {}
    first, last = "spark local[2], first", "spark local[2], last"
    one_first, one_last = f"{ONE}, first", f"{ONE}, last"
    measured[first], records[first] = measured_run([*spark, "--master", "local[2]"], codes=STOPPED)
    reached = records[first][0]["states"]
    one_process = [*base, "--max-states", str(reached)]
    measured[one_first], records[one_first] = measured_run(one_process, codes=STOPPED)
    measured[HERE], records[HERE] = measured_run([*spark, *NO_JOB], codes=STOPPED)
    measured["spark local[1]"], records["spark local[1]"] = measured_run(
        [*spark, "--master", "local[1]"], codes=STOPPED
    )
    measured[one_last], records[one_last] = measured_run(one_process, codes=STOPPED)
    measured[last], records[last] = measured_run([*spark, "--master", "local[2]"], codes=STOPPED)
    states = {name: r[0]["states"] for name, r in records.items()}
    if len(set(states.values())) != 1:
        raise SystemExit(f"the ways searched different numbers of states: {states}")
    # one process's CPU: the mean of its two runs, taken where local[2]'s two are centred
    alone = (measured[one_first]["cpu"] + measured[one_last]["cpu"]) / 2
    local1 = measured["spark local[1]"]
    rows = []
    for name in (one_first, HERE, "spark local[1]", one_last, first, last):
        m, r = measured[name], records[name][0]
        rows.append(
            [
                name,
                f"{r['states']:,}",
                f"{r['transitions']:,}",
                f"{m['wall']:.1f}",
                f"{m['cpu']:.1f}",
                f"{m['cpu'] / r['states'] * 1e6:.1f}",
                f"{m['driver'] / 2**20:,.0f}",
                f"{m['jvm'] / 2**20:,.0f}" if m["jvm"] else "-",
                f"{m['cpu'] / alone:.2f}",
                f"{local1['wall'] / m['wall']:.2f}",
            ]
        )
    cpu = (measured[first]["cpu"] + measured[last]["cpu"]) / 2
    wall = (measured[first]["wall"] + measured[last]["wall"]) / 2
    print(
        f"preset {PRESET}, one check ({' '.join(CHECK[1::2])}), the levels that reach "
        f"{limit:,} states: {reached:,} states in every way"
    )
    print(
        tabulate(
            rows,
            headers=[
                "way",
                "states",
                "transitions",
                "wall s",
                "CPU s (tree)",
                "CPU us a state",
                "driver MiB",
                "JVM MiB",
                "CPU / one process",
                "x local[1]",
            ],
        )
    )
    print(
        f"spark local[2], the mean of its first and last runs: {cpu / alone:.2f}x the CPU of "
        f"one process (the mean of its two runs), {local1['wall'] / wall:.2f}x as fast as local[1]"
    )
    end = os.getloadavg()
    print(f"load average at the start: {load[0]:.1f}, at the end: {end[0]:.1f}\n")
