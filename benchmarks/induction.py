"""Is ``--sessions any`` sound? Every catalogued consumer, every safety property, at
small bounds (``python -m benchmarks induction``).

Each row: the ``any`` verdict (the induction over resumes, ``checker.induction``) beside
the bounded checks at K = 1, 2, 3 sessions, with the CPU seconds and Z3 units of the
``any`` check. A ``holds`` for every number of sessions beside a violation at some K is
a harness bug: the run raises ``HarnessBug`` (exit 4). ``--quick``: no-missed-item only.
tests/test_induction.py runs a few of these rows; this runs them all.
"""

from __future__ import annotations

import time
from dataclasses import replace

from tabulate import tabulate

from checker.engines.options import Options
from checker.induction.every_session import check_every_session
from checker.result import Verdict
from checker.scenario_check import check
from checker.symbolic.budget import MILLION
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.errors import HarnessBug
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS

BOUNDS = Bounds(seqnos=2, keys=1, entries=3, failovers=2)
SAFETY = ("no-missed-item", "no-foreign-snapshot", "bounded-rollback", "valid-request")


def run(quick: bool = False) -> None:
    rules = RULE_SETS.get("kv-current")
    rows = []
    for variant in CONSUMERS:
        for prop_id in SAFETY[:1] if quick else SAFETY:
            prop = PROPERTIES.get(prop_id)
            cpu = time.process_time()
            every = check_every_session(rules, variant, prop, BOUNDS, Options(minimise=False))
            cpu = time.process_time() - cpu
            bounded = [
                check(
                    rules, variant, prop, replace(BOUNDS, sessions=k), Options(minimise=False)
                ).verdict
                for k in (1, 2, 3)
            ]
            if every.verdict is Verdict.HOLDS and Verdict.VIOLATED in bounded:
                raise HarnessBug(
                    f"{variant.name}: {prop_id}: holds for every number of sessions, "
                    f"violated at K = {bounded.index(Verdict.VIOLATED) + 1}"
                )
            units = (every.stats.budget or 0) / MILLION
            row = [variant.name, prop_id, every.verdict.value, *(v.value for v in bounded)]
            rows.append([*row, f"{cpu:.1f}", f"{units:,.0f}M"])
            print(" | ".join(rows[-1]), flush=True)
    print(f"\nkv-current, {BOUNDS.describe()} (sessions: see the columns)")
    headers = ["consumer", "property", "any", "K=1", "K=2", "K=3", "any CPU s", "any units"]
    print(tabulate(rows, headers=headers))
