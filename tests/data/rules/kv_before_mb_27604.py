"""``kv-before-mb-27604``: kv_engine's needsRollback until January 2018.

Read from kv_engine's engines/ep/src/failover-table.cc as it was then, after
STRICT_VBUUID (MB-27290) and before MB-27604 moved the purge test to the
start seqno: ``adjustSnapshotRange`` ran first (a complete snapshot moves its
start up to the start seqno, *else* a snapshot with no item received moves
its end down), then the purge test on the *adjusted snapshot start*, then the
uuid lookup, lagging and the rollback point. No remote purge seqno, no
collection streams.

That is rollback.md as written (``rollback-doc``: the document describes the
code of that time; the "else" changes nothing, as moving snap_end down to a
start equal to it is no move) with the code's start-zero clause, which
honours STRICT_VBUUID. So it is computed from the two built-ins.
tests/data/hand_written.py has the same behaviour as plain Python.
"""

import dataclasses

from spec.rules.kv_current import RULES as KV_CURRENT
from spec.rules.rollback_doc import RULES as ROLLBACK_DOC

START_ZERO = next(step for step in KV_CURRENT.steps if step.name == "start-zero")

RULES = dataclasses.replace(
    ROLLBACK_DOC,
    name="kv-before-mb-27604",
    summary="kv_engine's needsRollback before MB-27604: adjustments first, purge test on "
    "snap_start (rollback.md with STRICT_VBUUID)",
    source="kv_engine engines/ep/src/failover-table.cc (January 2018)",
    steps=tuple(START_ZERO if s.name == "start-zero" else s for s in ROLLBACK_DOC.steps),
)
