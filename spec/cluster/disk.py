"""Where a replica's rollback lands: couchstore's headers and its midpoint reset.

Our reading of couchbase/kv_engine at eba4298 (engines/ep/src/):

* ``kv_bucket.cc: KVBucket::rollback``: a rollback to 0 resets the vbucket;
  otherwise ``doRollback`` asks the KVStore; if it fails or lands at seqno 0
  the vbucket is reset, else ``rollbackUnpersistedItems`` drops every item
  above where it landed that was not persisted.
* ``kvstore/couch-kvstore/couch-kvstore.cc: CouchKVStore::rollback``: opens
  the file at its newest header (seqno L), counts the by-seqno entries of
  that file, ``couchstore_changes_count(db, 0, L)`` (``totSeqCount``), then
  rewinds headers (``couchstore_rewind_db_header``) while the header's seqno
  is above R: it lands on the newest header <= R, or fails (reset) when none
  is left. With ``couchstore_midpoint_rollback_optimisation`` (configuration.json,
  default true) it counts the entries between that header and L, both
  included, ``couchstore_changes_count(db, h, L)`` (``rollbackSeqCount``), and
  resets the vbucket when ``totSeqCount / 2 <= rollbackSeqCount`` (integer
  division).

A header is written by each flush with the high seqno persisted; a flush
persists everything received so far, so one header may cover several
snapshots, or end in the middle of one. A file's by-seqno index holds one
entry per document, at the seqno of its newest version in the file; a
PREPARE is a document of its own (the durability prepare namespace), apart
from the key's committed document, which a SET and a COMMIT update.
Magma (``MagmaKVStore::rollback``) is not modelled: its rollback points and
its own reset rule differ.
"""

from __future__ import annotations

from spec.cluster.state import PREPARE, ClusterItem

__all__ = ["changes_count", "newest_header_at_or_below", "rollback_landing"]


def _file_entries(items: tuple[ClusterItem, ...], newest: int) -> list[int]:
    """The by-seqno entries of a file whose newest header is at ``newest``: per document
    (a key's PREPARE, or its committed value), the seqno of its last version."""
    last: dict[tuple[bool, int], int] = {}
    for seqno, item in enumerate(items[:newest], start=1):
        last[(item.op == PREPARE, item.key)] = seqno
    return list(last.values())


def changes_count(items: tuple[ClusterItem, ...], newest: int, low: int, high: int) -> int:
    """``couchstore_changes_count(db, low, high)`` on that file: entries with seqno in
    ``[low, high]``, both included."""
    return sum(1 for seqno in _file_entries(items, newest) if low <= seqno <= high)


def newest_header_at_or_below(headers: tuple[int, ...], rollback_seqno: int) -> int:
    """Where rewinding stops: the newest header whose seqno is <= R (0: none is)."""
    for header in reversed(headers):
        if header <= rollback_seqno:
            return header
    return 0


def rollback_landing(
    items: tuple[ClusterItem, ...], headers: tuple[int, ...], rollback_seqno: int, midpoint: bool
) -> int:
    """The seqno a replica keeps after ``ROLLBACK(rollback_seqno)`` (0: its vbucket is
    reset). ``items`` are its history (the disk is a prefix of it, up to the newest of
    ``headers``); ``midpoint``: couchstore's midpoint optimisation is on."""
    if rollback_seqno == 0 or not headers:
        return 0
    header = newest_header_at_or_below(headers, rollback_seqno)
    if header == 0 or not midpoint:
        return header
    newest = headers[-1]
    total = changes_count(items, newest, 0, newest)
    discarded = changes_count(items, newest, header, newest)
    return 0 if total // 2 <= discarded else header
