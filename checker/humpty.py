"""kv_engine's humpty_dumpty, its text: the header, request lines, warnings.

humpty_dumpty (engines/ep/tools/humpty_dumpty) loads a failover table from
JSON, prints it, then reads ``UUID SNAP_START SNAP_END START`` lines from
stdin and prints needsRollback's answer for each. This module reproduces its
output byte for byte: the table is printed as nlohmann::json prints it (keys
sorted, compact, extra fields such as "comment" kept unless the table had to
be sanitised), the high and purge seqnos as signed 64-bit integers, the
wrong-field-count warning on stderr without a newline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from spec.failover_table import FailoverTable
from spec.types import Decision, StreamRequest

__all__ = [
    "FIELD_COUNT_WARNING",
    "format_decision",
    "format_header",
    "split_fields",
]

FIELD_COUNT_WARNING = (
    "Warning: expected 4 fields for testing failover table: "
    "<UUID> <snapStart> <snapEnd> <start> - skipping input."
)
REQUEST_FIELDS = ("uuid", "snap_start", "snap_end", "start")

_SEPARATORS = re.compile(r"[\t ]+")


def split_fields(line: str) -> list[str]:
    """boost::split on tabs and spaces with token compression, as humpty does."""
    return _SEPARATORS.split(line)


def _as_int64(value: int) -> int:
    return value - 2**64 if value >= 2**63 else value


def _nlohmann_dump(value: Any) -> str:
    """nlohmann::json's ``dump()``: compact, object keys in byte order, UTF-8 unescaped."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def format_header(
    high_seqno: int,
    purge_seqno: int,
    table: FailoverTable,
    raw_entries: Sequence[dict[str, Any]] | None,
) -> str:
    """``raw_entries``: the JSON objects as loaded, or None if sanitising changed the table."""
    lines = [
        f"Simulating behaviour of VBucket with highSeqno: {_as_int64(high_seqno)}, "
        f"purgeSeqno:{_as_int64(purge_seqno)}, failoverTable:",
        "[",
    ]
    objects = raw_entries if raw_entries is not None else table.to_json()
    lines.extend(f"    {_nlohmann_dump(obj)}" for obj in objects)
    lines.append("]")
    return "\n".join(lines) + "\n\n"


def format_decision(req: StreamRequest, decision: Decision) -> str:
    text = (
        f"Testing UUID:{req.uuid} snapshot:{{{req.snap_start},{req.snap_end}}} "
        f"start:{req.start}\n"
        f"  Rollback:{'true' if decision.rolls_back else 'false'}\n"
    )
    if decision.rolls_back:
        text += (
            f"  Requested rollback seqno:{decision.rollback_seqno}\n  Reason: {decision.reason}\n"
        )
    return text
