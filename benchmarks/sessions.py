"""Proof cost against the number of resumes (``python -m benchmarks sessions``).

kv-current x correct at make verify's bounds (8 seqnos, 3 keys, 5 table
entries, 3 failovers), every safety property, ``--sessions`` 1, 2 and 3 side
by side: each cell is the verdict, wall and CPU seconds and Z3 resource units
of one ``dcpcheck check`` (no minimisation is needed: they hold), and the
ratio of its wall time to the K = 1 proof's. A cell that reaches ``CAP``
units is ``unknown`` and says so. The last column, ``any``, is ``--sessions
any``: the induction over resumes (``checker.induction``), a proof for every
number of resumes at the same bounds (or, when it does not close, the bounded
searches it falls back to, counted in its cell). ``--quick``: 6 seqnos, K = 1
and 2 and any.
"""

from __future__ import annotations

import time
from dataclasses import replace

from tabulate import tabulate

from checker.engines.options import Options
from checker.induction.every_session import check_every_session
from checker.scenario_check import check
from checker.symbolic.budget import MILLION
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

CAP = 500 * MILLION  # Z3 units per proof
SAFETY = ("no-missed-item", "no-foreign-snapshot", "bounded-rollback", "valid-request")


def one_proof(prop_id: str, bounds: Bounds, every: bool = False) -> tuple[str, float, float, float]:
    started, cpu = time.perf_counter(), time.process_time()
    how = check_every_session if every else check
    result = how(
        RULE_SETS.get("kv-current"),
        CONSUMERS.get("correct"),
        PROPERTIES.get(prop_id),
        bounds,
        Options(minimise=False, budget=CAP),
    )
    units = (result.stats.budget or 0) / MILLION if result.stats else 0.0
    wall = time.perf_counter() - started
    return result.verdict.value, wall, time.process_time() - cpu, units


def run(quick: bool = False) -> None:
    seqnos, ks = (6, (1, 2)) if quick else (8, (1, 2, 3))
    rows = []
    for prop_id in SAFETY:
        row: list[str] = [prop_id]
        base = 0.0
        for k in ks:
            bounds = Bounds(seqnos=seqnos, keys=3, entries=5, failovers=3, sessions=k)
            verdict, wall, cpu, units = one_proof(prop_id, bounds)
            base = base or wall
            row.append(
                f"{verdict} {wall:.1f}s wall {cpu:.1f}s CPU {units:,.0f}M x{wall / base:.1f}"
            )
        verdict, wall, cpu, units = one_proof(prop_id, replace(bounds, sessions=1), every=True)
        row.append(f"{verdict} {wall:.1f}s wall {cpu:.1f}s CPU {units:,.0f}M x{wall / base:.1f}")
        rows.append(row)
        print(" | ".join(row), flush=True)
    print(
        f"\nkv-current x correct, seqnos {seqnos}, keys 3, 5 entries, 3 failovers: "
        f"one proof per cell (cap {CAP / MILLION:g}M units; x = wall time / K=1's)"
    )
    print(tabulate(rows, headers=["property", *(f"sessions {k}" for k in ks), "sessions any"]))
