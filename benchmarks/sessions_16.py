"""Proof cost at 16 seqnos: one session against every number of sessions
(``python -m benchmarks sessions_16``).

kv-current x correct at the bounds docs/findings.md proves its one-session
verdicts within (16 seqnos, 4 keys, 8 table entries, 5 failovers), every safety
property: ``--sessions 1`` beside ``--sessions any`` (the induction over
resumes), each one ``dcpcheck check`` capped at ``benchmarks.sessions.CAP`` Z3
units (a cell that reaches it is ``unknown`` and says so). No certificate is
stored at these bounds, so each ``any`` cell runs Houdini from the lemma
library. ``--quick``: valid-request alone. Each cell can take minutes: about
an hour in all when every cell reaches the cap.
"""

from __future__ import annotations

from tabulate import tabulate

from benchmarks.sessions import CAP, SAFETY, one_proof
from checker.symbolic.budget import MILLION
from spec.bounds import Bounds

BOUNDS = Bounds(seqnos=16, keys=4, entries=8, failovers=5)


def run(quick: bool = False) -> None:
    rows = []
    for prop_id in ("valid-request",) if quick else SAFETY:
        row = [prop_id]
        base = 0.0
        for every in (False, True):
            verdict, wall, cpu, units = one_proof(prop_id, BOUNDS, every=every)
            base = base or wall
            row.append(
                f"{verdict} {wall:.1f}s wall {cpu:.1f}s CPU {units:,.0f}M x{wall / base:.1f}"
            )
        rows.append(row)
        print(" | ".join(row), flush=True)
    print(
        f"\nkv-current x correct, {BOUNDS.describe()}: one proof per cell "
        f"(cap {CAP / MILLION:g}M units; x = wall time / K=1's)"
    )
    print(tabulate(rows, headers=["property", "sessions 1", "sessions any"]))
