"""``dcpcheck diff``: Z3's region search and equivalence proof vs an exhaustive comparison.

Side by side, in one run, for the same failover-table bound T:

* Z3 (``checker.diff.decisions.search_regions``): every region where two rule
  sets answer differently, over *all* uint64 seqnos and every request field,
  or a proof that there is none;
* exhaustive: every well-formed input with seqnos <= N and every request
  field in a small domain (``strict``, ``ignore_purged``, ``remote_purge`` in
  0..N, ``collection_high`` absent or in 0..N), both rule sets run by
  ``Decider``; it can only see regions whose inputs fit in N.

Also the whole ``dcpcheck diff rollback-doc kv-current`` (search and
classification in scenarios) at the command's default bounds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from itertools import combinations_with_replacement
from pathlib import Path

from tabulate import tabulate

from checker.diff.decisions import search_regions
from checker.diff.engine import diff_rules
from checker.diff.regions import Region, change_of
from checker.loading import resolve
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, TEXTBOOK
from spec.failover_table import FailoverEntry, FailoverTable
from spec.rules import RULE_SETS, Decider, RuleSet
from spec.types import ProducerState, StreamRequest

ROOT = Path(__file__).resolve().parent.parent
REWRITE = ROOT / "tests" / "data" / "rules" / "kv_current_rewrite.py"


def producers(entries: int, top: int) -> Iterator[ProducerState]:
    """Tables of 1..entries entries (uuids 1111, 2222, ... oldest first), seqnos <= top."""
    for length in range(1, entries + 1):
        uuids = [1111 * (length - i) for i in range(length)]
        for high in range(top + 1):
            for seqs in combinations_with_replacement(range(high, -1, -1), length):
                table = FailoverTable(
                    tuple(FailoverEntry(u, s) for u, s in zip(uuids, seqs, strict=True))
                )
                for purge in range(high + 1):
                    yield ProducerState(table, high, purge)


def requests(producer: ProducerState, top: int) -> Iterator[StreamRequest]:
    """Valid requests (snap_start <= start <= snap_end) with every flag combination."""
    uuids = [0, *producer.table.uuids, 9999]
    triples = combinations_with_replacement(range(top + 1), 3)
    for snap_start, start, snap_end in triples:
        for uuid in uuids:
            for strict in (False, True):
                for ignore_purged in (False, True):
                    for remote_purge in range(top + 1):
                        for collection_high in (None, *range(top + 1)):
                            yield StreamRequest(
                                uuid,
                                start,
                                snap_start,
                                snap_end,
                                strict=strict,
                                ignore_purged=ignore_purged,
                                remote_purge=remote_purge,
                                collection_high=collection_high,
                            )


def exhaustive(a: RuleSet, b: RuleSet, entries: int, top: int) -> tuple[float, int, set[Region]]:
    decide_a, decide_b = Decider(a).decide, Decider(b).decide
    started = time.perf_counter()
    count = 0
    regions: set[Region] = set()
    for producer in producers(entries, top):
        for request in requests(producer, top):
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
        search = search_regions(a, b, entries, 50, 600)
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
