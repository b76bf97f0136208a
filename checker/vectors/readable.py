"""What makes a vector readable, as solver preferences.

Z3's Optimize (``checker.symbolic.optimise.Minimiser``) keeps as many of the
soft preferences as a goal allows, heaviest first, then minimises the seqnos:

* weight 1000 each: humpty_dumpty can express the request (no strict,
  ignore_purged, remote purge, collection, end seqno) and its range is valid;
* weight 100 each: uuids from 1111, 2222, 3333, 4444, 5555 (or 0);
* weight 10 each: table seqnos strictly decreasing.
"""

from __future__ import annotations

from spec.expr import Expr, all_of, any_of
from spec.failover_table import UINT64_MAX
from spec.rules import DecisionSpace

__all__ = ["READABLE_UUIDS", "humpty_expressible", "preferences"]

READABLE_UUIDS = (1111, 2222, 3333, 4444, 5555)


def _humpty_parts(space: DecisionSpace) -> list[Expr]:
    v = space.v
    return [
        ~v("strict"),
        ~v("ignore_purged"),
        v("remote_purge") == 0,
        ~v("has_collection_high"),
        v("end") == UINT64_MAX,
    ]


def humpty_expressible(space: DecisionSpace) -> Expr:
    """humpty_dumpty's four stdin fields say everything about the request."""
    return all_of(*_humpty_parts(space))


def preferences(space: DecisionSpace) -> tuple[list[tuple[Expr, int]], list[Expr]]:
    """Soft preferences (heavier first) and the values to keep small, for readable vectors."""
    v = space.v
    humpty = [*_humpty_parts(space), space.range_ok]
    uuid_vars = ["uuid", *(space.uuid_var(i) for i in range(space.table_entries))]
    readable = [any_of(*(v(name) == u for u in (0, *READABLE_UUIDS))) for name in uuid_vars]
    table = space.table
    spread = [
        ~table.live(i) | (table.seq[i] < table.seq[i - 1]) for i in range(1, space.table_entries)
    ]
    seqnos = [
        "start",
        "snap_start",
        "snap_end",
        "remote_purge",
        "collection_high",
        "high_seqno",
        "producer_purge_seqno",
        "table_len",
        *(space.seq_var(i) for i in range(space.table_entries)),
    ]
    soft = [(e, 1000) for e in humpty] + [(e, 100) for e in readable] + [(e, 10) for e in spread]
    return soft, [v(name) for name in seqnos]
