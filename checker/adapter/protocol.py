"""The client adapter protocol, version 1: JSON lines over stdin/stdout (docs/client-targets.md).

dcpcheck writes one JSON object per line; each has a ``type``. Events get no
answer; the three questions (``hello``, ``stream_request``, ``data``) get
exactly one line each. Every integer is an unsigned 64-bit number. An answer
that is not what the question asks for is ``garbage``; no answer within the
timeout is ``timeout``; an adapter that exits or closes its output is
``crash``. None of them is a verdict about the client (``AdapterFault``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spec.failover_table import UINT64_MAX, FailoverTable
from spec.scenario import Item, key_name
from spec.types import StreamRequest

__all__ = [
    "IGNORE_PURGED_TOMBSTONES",
    "PROTOCOL",
    "STRICT_VBUUID",
    "AdapterFault",
    "Hello",
    "Version",
    "cas_of",
    "item_event",
    "log_json",
    "parse_data",
    "parse_hello",
    "parse_request",
    "request_json",
]

PROTOCOL = 1
# kv_engine's DcpAddStreamFlag bits (engines/ep/src/dcp/dcp-types.cc,
# dcpAddStreamFlagsToString names them): STRICT_VBUUID and IGNORE_PURGED_TOMBSTONES.
STRICT_VBUUID = 0x20
IGNORE_PURGED_TOMBSTONES = 0x80
KNOWN_FLAGS = STRICT_VBUUID | IGNORE_PURGED_TOMBSTONES


class AdapterFault(Exception):
    """The adapter did not answer as the protocol says: ``kind`` is crash, timeout or
    garbage; never a verdict about the client."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class Hello:
    client: str
    rollback_mitigation: bool = False


@dataclass(frozen=True, order=True)
class Version:
    """What the application holds for a key: the mutation's seqno, CAS, and whether it
    is a deletion (a tombstone the application keeps)."""

    seqno: int
    cas: int
    deleted: bool = False


def cas_of(item: Item) -> int:
    """The CAS dcpcheck gives a mutation: unique per (epoch, seqno), as kv_engine's is
    unique per mutation (a rewrite after a branch has a new CAS)."""
    return ((item.epoch + 1) << 32) | item.seqno


def log_json(table: FailoverTable | tuple[Any, ...]) -> list[list[int]]:
    """A failover log, newest entry first, as [[uuid, seqno], ...]."""
    entries = table.entries if isinstance(table, FailoverTable) else table
    return [[e.uuid, e.seqno] for e in entries]


def item_event(item: Item) -> dict[str, Any]:
    return {
        "type": "deletion" if item.deleted else "mutation",
        "key": key_name(item.key),
        "seqno": item.seqno,
        "cas": cas_of(item),
    }


def request_json(request: StreamRequest) -> dict[str, int]:
    """A stream request as an adapter answers it."""
    flags = (STRICT_VBUUID if request.strict else 0) | (
        IGNORE_PURGED_TOMBSTONES if request.ignore_purged else 0
    )
    out = {
        "uuid": request.uuid,
        "start": request.start,
        "snap_start": request.snap_start,
        "snap_end": request.snap_end,
        "flags": flags,
    }
    if request.remote_purge:
        out["purge_seqno"] = request.remote_purge
    return out


def _object(line: str, what: str) -> Mapping[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        raise AdapterFault("garbage", f"{what}: not JSON: {line[:80]!r}") from None
    if not isinstance(value, dict):
        raise AdapterFault("garbage", f"{what}: not a JSON object: {line[:80]!r}")
    return value


def _uint64(obj: Mapping[str, Any], name: str, what: str, default: int | None = None) -> int:
    if name not in obj:
        if default is not None:
            return default
        raise AdapterFault("garbage", f"{what}: no field {name!r}")
    value = obj[name]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= UINT64_MAX:
        raise AdapterFault("garbage", f"{what}: {name} = {value!r} is not a uint64")
    return value


def parse_hello(line: str) -> Hello:
    obj = _object(line, "hello")
    client = obj.get("client", "")
    mitigation = obj.get("rollback_mitigation", False)
    if not isinstance(client, str) or not isinstance(mitigation, bool):
        raise AdapterFault(
            "garbage",
            f"hello: client must be a string, rollback_mitigation a boolean: {line[:80]!r}",
        )
    return Hello(client, mitigation)


def parse_request(line: str) -> StreamRequest:
    """The stream request an adapter sends (end 2^64-1, no collection)."""
    what = "stream_request"
    obj = _object(line, what)
    flags = _uint64(obj, "flags", what, default=0)
    if flags & ~KNOWN_FLAGS:
        raise AdapterFault(
            "garbage",
            f"{what}: flags {flags:#x} has bits other than STRICT_VBUUID (0x20) "
            "and IGNORE_PURGED_TOMBSTONES (0x80)",
        )
    return StreamRequest(
        uuid=_uint64(obj, "uuid", what),
        start=_uint64(obj, "start", what),
        snap_start=_uint64(obj, "snap_start", what),
        snap_end=_uint64(obj, "snap_end", what),
        end=UINT64_MAX,
        strict=bool(flags & STRICT_VBUUID),
        ignore_purged=bool(flags & IGNORE_PURGED_TOMBSTONES),
        remote_purge=_uint64(obj, "purge_seqno", what, default=0),
        collection_high=None,
    )


def parse_data(line: str) -> dict[str, Version]:
    """Key name -> the version the application holds (keys it does not hold are absent)."""
    what = "data"
    obj = _object(line, what)
    data = obj.get("data")
    if not isinstance(data, dict):
        raise AdapterFault("garbage", f"{what}: no object 'data': {line[:80]!r}")
    out: dict[str, Version] = {}
    for key, version in data.items():
        if not isinstance(version, dict):
            raise AdapterFault("garbage", f"{what}: key {key!r}: not an object")
        deleted = version.get("deleted", False)
        if not isinstance(deleted, bool):
            raise AdapterFault("garbage", f"{what}: key {key!r}: deleted must be a boolean")
        where = f"{what}: key {key!r}"
        out[key] = Version(
            _uint64(version, "seqno", where), _uint64(version, "cas", where), deleted
        )
    return out
