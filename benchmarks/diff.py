"""``dcpcheck diff``: Z3's region search and equivalence proof vs an exhaustive comparison.

Side by side, in one run, for the same failover-table bound T:

* Z3 (``checker.diff.decisions.search_regions``): every region where two rule
  sets answer differently, over *all* uint64 seqnos and every request field,
  or a proof that there is none;
* exhaustive: every input of ``dcpcheck sweep``'s space with seqnos <= N
  (``checker.sweep.space.SweepSpace``: every valid request, every flag,
  ``remote_purge`` and ``collection_high`` in 0..N), both rule sets run one
  input at a time by ``Decider``; it can only see regions whose inputs fit
  in N. (``benchmarks/sweep.py`` measures the same sweep vectorised on Spark.)

Also the whole ``dcpcheck diff rollback-doc kv-current`` (search and
classification in scenarios) at the command's default bounds.
"""

from __future__ import annotations

import time
from pathlib import Path

from tabulate import tabulate

from checker.diff.decisions import search_regions
from checker.diff.engine import diff_rules
from checker.diff.regions import Region, change_of
from checker.loading import resolve
from checker.sweep.space import SweepSpace
from checker.symbolic.budget import Budget
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, TEXTBOOK
from spec.rules import RULE_SETS, Decider, RuleSet

ROOT = Path(__file__).resolve().parent.parent
REWRITE = ROOT / "tests" / "data" / "rules" / "kv_current_rewrite.py"


def exhaustive(a: RuleSet, b: RuleSet, entries: int, top: int) -> tuple[float, int, set[Region]]:
    decide_a, decide_b = Decider(a).decide, Decider(b).decide
    started = time.perf_counter()
    count = 0
    regions: set[Region] = set()
    for request, producer in SweepSpace(entries, top).inputs():
        count += 1
        da, db = decide_a(request, producer), decide_b(request, producer)
        if (da.outcome, da.rollback_seqno) != (db.outcome, db.rollback_seqno):
            regions.add(Region(da.case, db.case, change_of(da, db)))
    return time.perf_counter() - started, count, regions


def run(quick: bool) -> None:
    entries, top = (2, 2) if quick else (3, 3)
    doc, code = RULE_SETS.get("rollback-doc"), RULE_SETS.get("kv-current")
    rewrite = resolve(RULE_SETS, RuleSet, str(REWRITE))
    rows = []
    for label, a, b in (
        ("rollback-doc vs kv-current", doc, code),
        ("kv-current vs a rewrite (equivalent)", code, rewrite),
    ):
        search = search_regions(a, b, entries, 50, Budget())
        assert search.complete
        z3_regions = {r.plain for r, _ in search.found}
        seconds, count, found = exhaustive(a, b, entries, top)
        assert found <= z3_regions, found - z3_regions
        rows.append(
            [
                label,
                f"{search.seconds:.2f}",
                f"{seconds:.1f}",
                f"{count:,}",
                f"{seconds / search.seconds:,.0f}x",
                f"{len(z3_regions)} / {len(found)}",
            ]
        )
    print(
        f"decision space: failover tables of <= {entries} entries; Z3 over all uint64 seqnos, "
        f"exhaustive over seqnos <= {top}"
    )
    print(
        tabulate(
            rows,
            headers=[
                "diff",
                "Z3 (s)",
                "exhaustive (s)",
                "inputs enumerated",
                "exhaustive / Z3",
                "regions Z3 / exhaustive",
            ],
        )
    )
    bounds = Bounds(seqnos=4, keys=2, entries=3, failovers=1) if quick else Bounds()
    report = diff_rules(
        doc, code, [CONSUMERS.get(c) for c in TEXTBOOK], bounds, max(8, bounds.entries)
    )
    print(
        f"\nwhole `dcpcheck diff rollback-doc kv-current` ({len(report.regions)} regions "
        f"classified with {', '.join(report.context)}, {bounds.describe()}): "
        f"{report.seconds:.1f}s"
    )
