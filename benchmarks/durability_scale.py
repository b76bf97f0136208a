"""The durability search as it grows: every way of running it, side by side, per preset.

For each preset, ``dcpcheck durability --preset P`` (its 12 checks: every ack
rule x branch rule x both properties) in a process of its own, once per way:

* ``exact``: every state kept (``--symmetry off --exact``), the search before
  issue 44;
* ``symmetry``: one representative per orbit of the renamings of nodes and keys (``--exact``);
* ``fingerprints``: every state, a 64-bit fingerprint each (``--symmetry off``);
* ``both``: representatives and fingerprints (the default);
* ``both, --workers 2``: the checks on two processes;
* ``spark local[1]``, ``spark local[2]``: the Spark search (representatives,
  fingerprints: its own).

Each row: unique states (summed over the checks; representatives where
symmetry is on), CPU seconds of the process tree, wall seconds, the peak of the
tree's resident memory summed (driver, ``--workers`` processes, Spark's JVM
and workers; the JVM's own peak beside it), and the verdicts (one letter per
check: v violated, h holds, u unknown). The benchmark fails when two ways
decide a check differently, or a way's decided verdict differs from the one
spec/cluster/expected.py records. Under the table, the issue's goals where the
rows judge them: the fastest way that decided every check of a preset (under
10 minutes wall and 4 GiB for mb-34150-wide), every check of mb-34150-wider and
mb-34150-5 decided by some way, and Spark local[2] against one process (at most
1.5x its CPU) and local[1] (at least 1.7x as fast). ``--per-check`` prints a
line per check under each row (verdict, states, depth, CPU seconds).

A way can take hours on the large presets; ``--max-states N`` caps each check
(a capped check is ``unknown``: it is not compared, and the table says
"capped"), and ``--ways``/``--presets`` choose what runs:

    python -m benchmarks.durability_scale --presets mb-34150 mb-34150-wide \\
        --ways exact both --max-states 100000

The whole wide preset's goals (hours on a loaded machine; a check of it needs
more than durability's default --max-states and --timeout):

    python -m benchmarks.durability_scale --presets mb-34150-wide --ways both \\
        "both, --workers 2" "spark local[1]" "spark local[2]" \\
        --max-states 60000000 --timeout 14000

mb-34150-wider and mb-34150-5, whose goal is every check decided on this
machine (the first 2 h 37 min of two cores, 18,000 CPU s, on 2026-11-30: its four
prepare-ack-progress holds take 2,367, 2,713, 5,857 and 6,915 CPU s, one core each):

    python -m benchmarks.durability_scale --presets mb-34150-wider mb-34150-5 \\
        --ways "both, --workers 2" --max-states 400000000 --timeout 14000 --per-check

``python -m benchmarks durability_scale`` runs mb-34150 every way and
mb-34150-wide the four in-process ways, capped at 100,000 states a check.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tabulate import tabulate

from benchmarks._process import measured_run
from spec.cluster.expected import EXPECTED

WAYS: dict[str, list[str]] = {
    "exact": ["--symmetry", "off", "--exact"],
    "symmetry": ["--exact"],
    "fingerprints": ["--symmetry", "off"],
    "both": [],
    "both, --workers 2": ["--workers", "2"],
    "spark local[1]": ["--engine", "bfs-spark", "--master", "local[1]"],
    "spark local[2]": ["--engine", "bfs-spark", "--master", "local[2]"],
}
IN_PROCESS = ["exact", "symmetry", "fingerprints", "both"]
LETTER = {"violated": "v", "holds": "h", "unknown": "u"}
GOAL_PRESET = "mb-34150-wide"  # whole, on the fastest way: under 10 minutes and 4 GiB
GOAL_WALL = 600.0
GOAL_MEMORY = 4 * 2**30
DECIDE_PRESETS = ("mb-34150-wider", "mb-34150-5")  # goal: every check decided on this machine


@dataclass(frozen=True)
class Row:
    preset: str
    way: str
    states: int  # summed over the checks (representatives, under symmetry)
    capped: bool  # some check is unknown
    cpu: float
    wall: float
    tree: int  # peak resident bytes of the process tree, summed
    jvm: int  # of which Spark's JVM (its own peak)
    verdicts: str

    def cells(self) -> list[object]:
        memory = f"{self.tree / 2**20:,.0f} MB"
        if self.jvm:
            memory += f" (JVM {self.jvm / 2**20:,.0f} MB)"
        return [
            self.preset,
            self.way,
            f"{self.states:,}" + (" capped" if self.capped else ""),
            f"{self.cpu:.1f}",
            f"{self.wall:.1f}",
            memory,
            self.verdicts,
        ]


def _one(
    preset: str, way: str, max_states: int | None, timeout: float | None
) -> tuple[Row, list[dict[str, Any]]]:
    args = ["durability", "--preset", preset, "--quiet", *WAYS[way]]
    if max_states is not None:
        args += ["--max-states", str(max_states)]
    if timeout is not None:
        args += ["--timeout", f"{timeout:g}"]
    measured, results = measured_run(args, codes=(0, 1, 3))
    row = Row(
        preset,
        way,
        sum(r["states"] or 0 for r in results),
        any(r["verdict"] == "unknown" for r in results),
        measured["cpu"],
        measured["wall"],
        measured.get("tree", measured["driver"]),
        measured["jvm"],
        "".join(LETTER[r["verdict"]] for r in results),
    )
    return row, results


def goals(rows: Sequence[Row]) -> list[str]:
    """The issue's goals, for the presets whose rows let them be judged: the fastest way
    that decided every check (wall, peak memory); Spark local[2] against one process
    (CPU) and against local[1] (wall)."""
    out = []
    for preset in dict.fromkeys(r.preset for r in rows):
        mine = {r.way: r for r in rows if r.preset == preset}
        decided = [r for r in mine.values() if "u" not in r.verdicts]
        if decided:
            best = min(decided, key=lambda r: r.wall)
            line = f"{preset}: fastest way '{best.way}' {best.wall:,.0f} s wall, "
            line += f"{best.tree / 2**30:.2f} GiB"
            if preset == GOAL_PRESET:
                met = best.wall < GOAL_WALL and best.tree < GOAL_MEMORY
                line += f" (goal < {GOAL_WALL:.0f} s, < {GOAL_MEMORY / 2**30:.0f} GiB): "
                line += "met" if met else "missed"
            out.append(line)
        if preset in DECIDE_PRESETS:
            out.append(_decided(preset, list(mine.values())))
        one, spark1, spark2 = (mine.get(w) for w in ("both", "spark local[1]", "spark local[2]"))
        if one and spark1 and spark2 and not (one.capped or spark1.capped or spark2.capped):
            cpu, speed = spark2.cpu / one.cpu, spark1.wall / spark2.wall
            out.append(
                f"{preset}: Spark local[2] {cpu:.2f}x the CPU of one process (goal <= 1.5), "
                f"{speed:.2f}x as fast as local[1] (goal >= 1.7): "
                f"{'met' if cpu <= 1.5 and speed >= 1.7 else 'missed'}"
            )
    return out


def _decided(preset: str, rows: Sequence[Row]) -> str:
    """Whether every check of ``preset`` was decided by some way (its rows' verdicts are
    in the same order of checks)."""
    checks = max(len(r.verdicts) for r in rows)
    left = sum(
        1 for i in range(checks) if all(len(r.verdicts) <= i or r.verdicts[i] == "u" for r in rows)
    )
    judged = "met" if not left else f"missed ({left} of {checks} unknown every way)"
    return f"{preset}: every check decided (goal): {judged}"


def check_lines(results: Sequence[dict[str, Any]]) -> list[str]:
    """One line a check of one run: its rules and property, verdict, states (representatives
    under symmetry), depth and CPU seconds."""
    return [
        f"    {r['ack_rule']}/{r['branch_rule']}: {r['property']} {r['verdict']}, "
        f"{r['states'] or 0:,} states, depth {r['max_depth'] or 0}, "
        f"{r['cpu_seconds'] or 0:,.1f} CPU s"
        for r in results
    ]


def _disagreements(preset: str, runs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Checks two ways (or a way and the record) decided differently."""
    out = []
    decided: dict[tuple[str, str, str], tuple[str, str]] = {}
    for way, results in runs.items():
        for r in results:
            check = (r["ack_rule"], r["branch_rule"], r["property"])
            if r["verdict"] == "unknown":
                continue
            recorded = EXPECTED.get((preset, *check))
            if recorded is not None and recorded[0] != r["verdict"]:
                out.append(
                    f"{preset} {'/'.join(check)}: {way} {r['verdict']}, recorded {recorded[0]}"
                )
            first = decided.setdefault(check, (way, r["verdict"]))
            if first[1] != r["verdict"]:
                out.append(
                    f"{preset} {'/'.join(check)}: {first[0]} {first[1]}, {way} {r['verdict']}"
                )
    return out


def measure(
    presets: Sequence[str],
    ways: Sequence[str],
    max_states: int | None,
    timeout: float | None = None,
    per_check: bool = False,
) -> int:
    rows, wrong = [], []
    for preset in presets:
        runs = {}
        for way in ways:
            row, runs[way] = _one(preset, way, max_states, timeout)
            rows.append(row)
            print("  " + " | ".join(str(c) for c in row.cells()), flush=True)
            if per_check:
                print("\n".join(check_lines(runs[way])), flush=True)
        wrong += _disagreements(preset, runs)
    print(
        tabulate(
            [r.cells() for r in rows],
            headers=["preset", "way", "states", "CPU s", "wall s", "peak RSS", "verdicts"],
        )
    )
    if max_states is not None:
        print(f"(each check capped at {max_states:,} states: a capped check is unknown)")
    for line in goals(rows):
        print(line)
    for line in wrong:
        print(f"VERDICTS DIFFER: {line}")
    return 1 if wrong else 0


def run(quick: bool = False) -> None:
    code = measure(["mb-34150"], list(WAYS) if not quick else IN_PROCESS, None)
    if not quick:
        code |= measure(["mb-34150-wide"], IN_PROCESS, 100_000)
    if code:
        raise SystemExit("durability_scale: verdicts differ between ways")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.durability_scale")
    parser.add_argument("--presets", nargs="+", default=["mb-34150"])
    parser.add_argument("--ways", nargs="+", choices=list(WAYS), default=list(WAYS))
    parser.add_argument("--max-states", type=int, help="cap each check (default: none)")
    parser.add_argument("--timeout", type=float, help="seconds a check may take (durability's)")
    parser.add_argument("--per-check", action="store_true", help="under each row, a line per check")
    args = parser.parse_args(argv)
    return measure(args.presets, args.ways, args.max_states, args.timeout, args.per_check)


if __name__ == "__main__":
    sys.exit(main())
