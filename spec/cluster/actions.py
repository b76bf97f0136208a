"""The actions of the cluster model: named values with their arguments.

Guards and effects live with their actor (``spec.cluster.active``,
``spec.cluster.replica``, ``spec.cluster.failover``); an action value only
names what happens, so a counterexample is a list of these, printed as
``ReplicateItem(N1)`` and written to JSON as ``{"name": ..., "node": ...}``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from spec.cluster.state import node_name
from spec.errors import InvalidInput
from spec.scenario import key_name

__all__ = [
    "ACTION_TYPES",
    "AckPrepare",
    "Action",
    "ClientPrepare",
    "ClientSet",
    "CloseSnapshot",
    "Commit",
    "CrashActive",
    "PersistReplica",
    "PromoteReplica",
    "ReconnectReplica",
    "ReplicateItem",
    "RestartReplica",
    "action_from_json",
]


@dataclass(frozen=True, slots=True)
class Action:
    name: ClassVar[str] = "Action"

    def args(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __str__(self) -> str:
        parts = []
        for key, value in self.args().items():
            parts.append(node_name(value) if key == "node" else key_name(value))
        return f"{self.name}({', '.join(parts)})"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name}
        for key, value in self.args().items():
            out[key] = node_name(value) if key == "node" else key_name(value)
        return out


@dataclass(frozen=True, slots=True)
class ClientPrepare(Action):
    """The client's SyncWrite (level Majority) on ``key``: the active appends PREPARE."""

    name: ClassVar[str] = "ClientPrepare"
    key: int


@dataclass(frozen=True, slots=True)
class ClientSet(Action):
    """A plain (non-durable) mutation of ``key``: the active appends SET."""

    name: ClassVar[str] = "ClientSet"
    key: int


@dataclass(frozen=True, slots=True)
class CloseSnapshot(Action):
    """The active ends its open snapshot (checkpoint); only closed snapshots stream."""

    name: ClassVar[str] = "CloseSnapshot"


@dataclass(frozen=True, slots=True)
class Commit(Action):
    """The active commits its lowest pending PREPARE once a majority acked it."""

    name: ClassVar[str] = "Commit"


@dataclass(frozen=True, slots=True)
class ReplicateItem(Action):
    """``node`` receives the next message of the active's stream: a marker or an item."""

    name: ClassVar[str] = "ReplicateItem"
    node: int


@dataclass(frozen=True, slots=True)
class PersistReplica(Action):
    """``node``'s flusher persists every item it received."""

    name: ClassVar[str] = "PersistReplica"
    node: int


@dataclass(frozen=True, slots=True)
class AckPrepare(Action):
    """``node`` sends its high prepared seqno to the active."""

    name: ClassVar[str] = "AckPrepare"
    node: int


@dataclass(frozen=True, slots=True)
class CrashActive(Action):
    """The active crashes and is failed over; it never comes back."""

    name: ClassVar[str] = "CrashActive"


@dataclass(frozen=True, slots=True)
class PromoteReplica(Action):
    """ns_server makes ``node`` (a most up-to-date survivor) the active."""

    name: ClassVar[str] = "PromoteReplica"
    node: int


@dataclass(frozen=True, slots=True)
class ReconnectReplica(Action):
    """``node`` sends a stream request to the active; rolls back if told to."""

    name: ClassVar[str] = "ReconnectReplica"
    node: int


@dataclass(frozen=True, slots=True)
class RestartReplica(Action):
    """``node`` restarts: only what it persisted survives."""

    name: ClassVar[str] = "RestartReplica"
    node: int


ACTION_TYPES: dict[str, type[Action]] = {
    t.name: t
    for t in (
        ClientPrepare,
        ClientSet,
        CloseSnapshot,
        Commit,
        ReplicateItem,
        PersistReplica,
        AckPrepare,
        CrashActive,
        PromoteReplica,
        ReconnectReplica,
        RestartReplica,
    )
}


def action_from_json(record: dict[str, object], where: str) -> Action:
    """The inverse of ``Action.to_json``; ``where`` names the record in errors."""
    name = record.get("name")
    if not isinstance(name, str) or name not in ACTION_TYPES:
        known = ", ".join(ACTION_TYPES)
        raise InvalidInput(where, f"unknown action {name!r}; known: {known}")
    kind = ACTION_TYPES[name]
    args: dict[str, int] = {}
    for f in fields(kind):
        text = record.get(f.name)
        if not isinstance(text, str):
            raise InvalidInput(where, f"{name} needs '{f.name}'")
        args[f.name] = _parse_arg(f.name, text, where)
    return kind(**args)


def _parse_arg(field: str, text: str, where: str) -> int:
    if field == "node":
        if text.startswith("N") and text[1:].isdigit():
            return int(text[1:])
        raise InvalidInput(where, f"node {text!r} is not a node name (N0, N1, ...)")
    if len(text) == 1 and "A" <= text <= "Z":
        return ord(text) - ord("A")
    if text.startswith("K") and text[1:].isdigit():
        return int(text[1:])
    raise InvalidInput(where, f"key {text!r} is not a key name (A..Z, K26, ...)")
