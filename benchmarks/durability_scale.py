"""The durability search as it grows: every way of running it, side by side, per preset.

For each preset, ``dcpcheck durability --preset P`` (its 12 checks: every ack
rule x branch rule x both properties) in a process of its own, once per way:

* ``exact``: every state kept (``--symmetry off --exact``), the search before
  issue 44;
* ``symmetry``: one representative per orbit of the nodes' renamings (``--exact``);
* ``fingerprints``: every state, a 64-bit fingerprint each (``--symmetry off``);
* ``both``: representatives and fingerprints (the default);
* ``both, --workers 2``: the checks on two processes;
* ``spark local[1]``, ``spark local[2]``: the Spark search (representatives,
  fingerprints: its own).

Each row: unique states (summed over the checks), CPU seconds of the process
tree, wall seconds, the driver's peak resident memory (``--workers``: the
parent's only; Spark: the JVM's beside it), and the verdicts (one letter per
check: v violated, h holds, u unknown). The benchmark fails when two ways
decide a check differently, or a way's decided verdict differs from the one
spec/cluster/expected.py records.

A way can take hours on the large presets; ``--max-states N`` caps each check
(a capped check is ``unknown``: it is not compared, and the table says
"capped"), and ``--ways``/``--presets`` choose what runs:

    python -m benchmarks.durability_scale --presets mb-34150 mb-34150-wide \\
        --ways exact both --max-states 100000

``python -m benchmarks durability_scale`` runs mb-34150 every way and
mb-34150-wide the four in-process ways, capped at 100,000 states a check.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tabulate import tabulate

from benchmarks._process import measured_run
from spec.cluster.expected import EXPECTED

WAYS: dict[str, list[str]] = {
    "exact": ["--symmetry", "off", "--exact"],
    "symmetry": ["--exact"],
    "fingerprints": ["--symmetry", "off"],
    "both": [],
    "both, --workers 2": ["--workers", "2"],
    "spark local[1]": ["--engine", "spark", "--master", "local[1]"],
    "spark local[2]": ["--engine", "spark", "--master", "local[2]"],
}
IN_PROCESS = ["exact", "symmetry", "fingerprints", "both"]
LETTER = {"violated": "v", "holds": "h", "unknown": "u"}


def _one(preset: str, way: str, max_states: int | None) -> tuple[list[object], list[dict]]:  # type: ignore[type-arg]
    args = ["durability", "--preset", preset, "--quiet", *WAYS[way]]
    if max_states is not None:
        args += ["--max-states", str(max_states)]
    measured, results = measured_run(args, codes=(0, 1, 3))
    states = sum(r["states"] or 0 for r in results)
    capped = any(r["verdict"] == "unknown" for r in results)
    memory = f"{measured['driver'] / 2**20:,.0f} MB"
    if measured["jvm"]:
        memory += f" (+JVM {measured['jvm'] / 2**20:,.0f} MB)"
    row = [
        preset,
        way,
        f"{states:,}" + (" capped" if capped else ""),
        f"{measured['cpu']:.1f}",
        f"{measured['wall']:.1f}",
        memory,
        "".join(LETTER[r["verdict"]] for r in results),
    ]
    return row, results


def _disagreements(preset: str, runs: dict[str, list[dict]]) -> list[str]:  # type: ignore[type-arg]
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


def measure(presets: Sequence[str], ways: Sequence[str], max_states: int | None) -> int:
    rows, wrong = [], []
    for preset in presets:
        runs = {}
        for way in ways:
            row, runs[way] = _one(preset, way, max_states)
            rows.append(row)
            print("  " + " | ".join(str(c) for c in row), flush=True)
        wrong += _disagreements(preset, runs)
    print(
        tabulate(
            rows,
            headers=["preset", "way", "states", "CPU s", "wall s", "peak RSS", "verdicts"],
        )
    )
    if max_states is not None:
        print(f"(each check capped at {max_states:,} states: a capped check is unknown)")
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
    args = parser.parse_args(argv)
    return measure(args.presets, args.ways, args.max_states)


if __name__ == "__main__":
    sys.exit(main())
