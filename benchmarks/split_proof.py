"""One Z3 proof whole vs cut into cubes on 2 processes vs on Spark local[2], side by side.

kv-current x correct, ``no-missed-item`` (holds) at 16 seqnos, 4 keys, 8 table
entries, 5 failovers (the bound of docs/findings.md; ``--quick``: 10 seqnos),
each way a ``dcpcheck check`` in a process of its own, in one run so the
ratios compare like with like on a shared machine:

* ``z3``: one proof in one process (``--engine z3``);
* ``--workers 2``: cut by the number of failovers (6 cubes), solved on 2
  forked processes;
* ``spark local[2]``: the same cubes solved on Spark executors with 2 cores
  (``--engine cubes-spark``), JVM start-up and shutdown included;

Per way: wall seconds, CPU seconds of the whole process tree (driver, forked
workers, Spark's JVM and Python workers), the Z3 units spent (summed over
the cubes: deterministic), the cubes, and the speed-up over ``z3`` in wall
time. The verdicts must be equal, or the benchmark fails; the default
budget is the cap (an ``unknown`` would fail it too).

Then what a finer split buys on a cluster, in Z3 units (the same on any
machine), at 10 seqnos (``--quick``: 8): per ``--split`` depth, the cubes,
the units of all of them (the work) and of the costliest one (the least
wall time any number of executors could reach), each against the whole
proof's.
"""

from __future__ import annotations

from benchmarks._process import measured_run
from benchmarks._table import print_table
from checker.engines import cubes
from checker.engines import z3 as z3_engine
from checker.result import Verdict
from checker.symbolic.budget import MILLION, Budget
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS


def run(quick: bool = False) -> None:
    ways(10 if quick else 16)
    depths(8 if quick else 10)


def depths(seqnos: int) -> None:
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("correct")
    model = ScenarioModel(Bounds(seqnos, 4, 8, 5), rules, variant)
    prop = PROPERTIES.get("no-missed-item")
    whole = z3_engine.search(model, prop, budget=Budget()).units or 0
    rows = [
        ["one proof", 1, f"{whole / MILLION:,.1f}M", "1.00", f"{whole / MILLION:,.1f}M", "1.00"]
    ]
    for depth in (1, 2):
        split = cubes.Split(model, prop, depth, None, None)
        found = cubes.in_processes(2)(split)
        units = [f.units or 0 for f in found.values()]
        if any(f.verdict is not Verdict.HOLDS for f in found.values()):
            raise SystemExit(f"--split {depth}: a cube does not hold")
        rows.append(
            [
                f"--split {depth}",
                len(units),
                f"{sum(units) / MILLION:,.1f}M",
                f"{sum(units) / whole:.2f}",
                f"{max(units) / MILLION:,.1f}M",
                f"{max(units) / whole:.2f}",
            ]
        )
    caption = (
        f"the same proof at {seqnos} seqnos cut finer: Z3 units in all and in the costliest "
        "cube (every cube holds)"
    )
    headers = ["cut", "cubes", "units", "x one proof", "costliest cube", "x one proof"]
    print_table(caption, headers, rows)


def ways(seqnos: int) -> None:
    bounds = ["--seqnos", str(seqnos), "--keys", "4", "--entries", "8", "--failovers", "5"]
    base = ["check", "--rules", "kv-current", "--consumer", "correct"]
    base += ["--property", "no-missed-item", "--quiet", *bounds]
    ways = {
        "z3 (one proof)": base,
        "--workers 2": [*base, "--workers", "2"],
        "spark local[2]": [*base, "--engine", "cubes-spark", "--master", "local[2]"],
    }
    measured, records = {}, {}
    for name, args in ways.items():
        measured[name], (records[name],) = measured_run(args)
    verdicts = {name: r["verdict"] for name, r in records.items()}
    if len(set(verdicts.values())) != 1 or "unknown" in verdicts.values():
        raise SystemExit(f"the ways disagree or hit the budget: {verdicts}")
    one = measured["z3 (one proof)"]["wall"]
    rows = [
        [
            name,
            f"{m['wall']:.1f}",
            f"{m['cpu']:.1f}",
            f"{records[name]['budget'] / 1e6:,.1f}M",
            records[name].get("cubes") or "-",
            f"{one / m['wall']:.2f}",
        ]
        for name, m in measured.items()
    ]
    caption = (
        f"kv-current x correct, no-missed-item: {verdicts['z3 (one proof)']} within "
        f"{seqnos} seqnos, 4 keys, 8 entries, 5 failovers (the same verdict every way)"
    )
    print_table(
        caption, ["way", "wall s", "CPU s (tree)", "Z3 units", "cubes", "x z3 (wall)"], rows
    )
