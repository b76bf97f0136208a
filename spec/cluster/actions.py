"""The actions of the cluster model: named values with their arguments.

Guards and effects live with their actor (``spec.cluster.active``,
``spec.cluster.replica``, ``spec.cluster.failover``); an action value only
names what happens, so a counterexample is a list of these, printed as
``ReplicateItem(N1)`` and written to JSON as ``{"name": ..., "node": ...}``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, Self, cast

from spec.cluster.state import node_name
from spec.errors import InvalidInput
from spec.scenario import key_name

__all__ = [
    "ACTION_TYPES",
    "AckPrepare",
    "Action",
    "BackfillReplica",
    "ClientPrepare",
    "ClientSet",
    "CloseSnapshot",
    "Commit",
    "CrashActive",
    "KeyAction",
    "NodeAction",
    "PersistActive",
    "PersistNextItem",
    "PersistReplica",
    "PromoteReplica",
    "ReconnectReplica",
    "ReplicateItem",
    "RestartReplica",
    "action_from_json",
]


@dataclass(frozen=True, slots=True)
class Action:
    """An action with no argument; a subclass's name is its class name.

    Subclasses add no field (they take theirs from ``KeyAction`` or
    ``NodeAction``), so they need no ``@dataclass`` of their own.
    """

    name: ClassVar[str] = "Action"

    def __init_subclass__(cls) -> None:
        # No super(): slots=True rebuilds this class, and object's hook does nothing.
        cls.name = cls.__name__

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
class _OnOne(Action):
    """An action with one argument, a key or a node (its subclass's one field)."""

    @classmethod
    def of(cls, argument: int) -> Self:
        """The action on ``argument``, made once (a search names it in state after state)."""
        return cast(Self, _made(cls, argument))


@dataclass(frozen=True, slots=True)
class KeyAction(_OnOne):
    """An action of the client on one key."""

    key: int


@dataclass(frozen=True, slots=True)
class NodeAction(_OnOne):
    """An action of (or on) one node."""

    node: int


_MADE: dict[tuple[type[Action], int], Action] = {}


def _made(kind: type[Action], argument: int) -> Action:
    made = _MADE.get((kind, argument))
    if made is None:
        # called for _OnOne's subclasses, KeyAction and NodeAction: one argument each
        made = _MADE[kind, argument] = kind(argument)  # type: ignore[call-arg]  # see above
    return made


class ClientPrepare(KeyAction):
    """The client's SyncWrite on ``key`` (of the level its place gives it in the bounds'
    ``levels``): the active appends PREPARE."""


class ClientSet(KeyAction):
    """A plain (non-durable) mutation of ``key``: the active appends SET."""


class CloseSnapshot(Action):
    """The active ends its open snapshot (checkpoint); only closed snapshots stream."""


class Commit(Action):
    """The active commits its lowest pending PREPARE once a majority acked it."""


class ReplicateItem(NodeAction):
    """``node`` receives the next message of the active's stream: a marker or an item."""


class BackfillReplica(NodeAction):
    """``node`` receives a disk snapshot marker instead of the next memory one: the
    active backfills it from disk (``disk_snapshots``)."""


class PersistReplica(NodeAction):
    """``node``'s flusher persists every item it received."""


class PersistNextItem(NodeAction):
    """``node``'s flusher persists its next unpersisted item only (``partial_flush``)."""


class PersistActive(Action):
    """The active's flusher persists what it holds (moving its durability fence)."""


class AckPrepare(NodeAction):
    """``node`` sends its high prepared seqno to the active."""


class CrashActive(Action):
    """The active crashes and is failed over; it never comes back."""


class PromoteReplica(NodeAction):
    """ns_server makes ``node`` (a most up-to-date survivor) the active."""


class ReconnectReplica(NodeAction):
    """``node`` sends a stream request to the active; rolls back if told to."""


class RestartReplica(NodeAction):
    """``node`` restarts: only what it persisted survives."""


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
        PersistActive,
        PersistNextItem,
        BackfillReplica,
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
