"""The failover-table lookup a rule set reads: is the uuid known, ``upper``, ``entry_seqno``.

kv_engine's ``needsRollback`` walks its table from the *oldest* entry and stops
at the first entry whose uuid is the consumer's: if a table repeats a uuid,
the oldest such entry decides. A producer could as well walk from the newest
entry; the two scans differ only on tables that repeat the consumer's uuid.
A rule set names its scan (``RuleSet.table_scan``); both lookups are defined
here, over a bounded symbolic table (``spec.table_exprs.TableExprs``), so the
same expressions serve the concrete and the symbolic interpretation.

* ``found``: some live entry has the consumer's uuid;
* ``upper``: the seqno of the entry one newer than the match, or the high
  seqno when the match is the newest entry (also when nothing matches);
* ``entry_seqno``: the matched entry's own seqno, its branch point (0 when
  nothing matches).
"""

from __future__ import annotations

from dataclasses import dataclass

from spec.expr import Expr, all_of, any_of, const, ite
from spec.table_exprs import TableExprs

__all__ = ["NEWEST_FIRST", "OLDEST_FIRST", "SCANNED_FIELDS", "TABLE_SCANS", "Lookup", "lookup"]

OLDEST_FIRST = "oldest-first"  # kv_engine
NEWEST_FIRST = "newest-first"
TABLE_SCANS = (OLDEST_FIRST, NEWEST_FIRST)

# The fields whose value depends on the scan order.
SCANNED_FIELDS = ("upper", "entry_seqno")


@dataclass(frozen=True)
class Lookup:
    found: Expr
    upper: Expr
    entry_seqno: Expr


def lookup(table: TableExprs, uuid: Expr, high_seqno: Expr, scan: str) -> Lookup:
    """The lookup of ``uuid`` in ``table`` when it is walked in ``scan`` order."""
    if scan not in TABLE_SCANS:
        raise ValueError(f"unknown table scan {scan!r}; scans are {', '.join(TABLE_SCANS)}")
    found: Expr = const(False)
    upper: Expr = high_seqno
    entry: Expr = const(0)
    # The entry looked at last wins: walk the opposite way and let later matches override.
    positions = range(table.slots) if scan == OLDEST_FIRST else range(table.slots - 1, -1, -1)
    for i in positions:
        match = all_of(table.live(i), table.uuid[i] == uuid)
        found = any_of(found, match)
        upper = ite(match, high_seqno if i == 0 else table.seq[i - 1], upper)
        entry = ite(match, table.seq[i], entry)
    return Lookup(found, upper, entry)
