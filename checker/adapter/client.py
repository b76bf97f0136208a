"""Who answers the adapter protocol: an adapter process, or a consumer variant in process.

``AdapterProcess`` runs a command (``jsonl:CMD``) in a process group of its own
and exchanges lines with it: events are kept until the next question and
written with it, its answer awaited at most ``timeout`` seconds; what the
application holds when its request is accepted and at the stream's end are
asked in one write (the question, the stream, the question again), so an
accepted resume costs one round trip fewer.
``VariantClient`` is a built-in (or file) consumer variant run through the
reference consumer (``spec.reference.consumer``), answering the same messages:
``python -m checker.adapter.variant NAME`` is that client as an adapter
process, so the black box can be checked against the symbolic verdicts.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from checker.adapter.protocol import (
    PROTOCOL,
    AdapterFault,
    Hello,
    Version,
    parse_data,
    parse_hello,
    parse_request,
    request_json,
)
from checker.vectors.process import LineSession, NoAnswer
from spec.consumers import calls
from spec.consumers.api import ConsumerVariant
from spec.expr import const
from spec.failover_table import FailoverEntry
from spec.reference.consumer import ReferenceConsumer, ReferenceLog, ReferenceView
from spec.reference.simulate import stream_request_of
from spec.reference.vbucket import Snapshot
from spec.scenario import Item, key_name
from spec.types import StreamRequest

__all__ = ["AdapterProcess", "Client", "VariantClient", "target_command"]

Message = Mapping[str, Any]


class Client(Protocol):
    """What dcpcheck, as the producer, talks to."""

    def hello(self) -> Hello: ...

    def send(self, event: Message) -> None: ...

    def ask_request(self) -> StreamRequest: ...

    def ask_data(self) -> dict[str, Version]: ...

    def ask_data_around(
        self, events: Sequence[Message]
    ) -> tuple[dict[str, Version], dict[str, Version]]: ...

    def close(self) -> None: ...


def target_command(target: str) -> list[str]:
    """``jsonl:CMD`` -> the command's argv (CMD may carry arguments, shell-quoted)."""
    from spec.errors import InvalidInput

    if not target.startswith("jsonl:") or not target[len("jsonl:") :].strip():
        raise InvalidInput("--target", f"{target!r} is not jsonl:CMD (a client adapter command)")
    try:
        argv = shlex.split(target[len("jsonl:") :])
    except ValueError as exc:
        raise InvalidInput("--target", f"cannot split {target!r}: {exc}") from None
    return argv


class AdapterProcess:
    """One adapter process; every answer awaited at most ``timeout`` seconds."""

    def __init__(self, argv: list[str], timeout: float) -> None:
        self.argv = argv
        self.timeout = timeout
        try:
            self.session = LineSession(argv, die_with_parent=True)
        except OSError as exc:
            raise AdapterFault("crash", f"cannot start {shlex.join(argv)}: {exc}") from None
        self.pending: list[bytes] = []

    def send(self, event: Message) -> None:
        self.pending.append(_line(event))

    def _ask(self, question: Message) -> str:
        """Write the pending events, then ``question``; its answer line."""
        stdin = self.session.proc.stdin
        assert stdin is not None
        pending, self.pending = self.pending, []
        try:
            stdin.write(b"".join(pending))
            return self.session.ask(_encode(question), self.timeout)
        except (BrokenPipeError, OSError):
            raise AdapterFault(
                "crash", f"{question['type']}: {self.session._exit_text()}"
            ) from None
        except NoAnswer as exc:
            raise AdapterFault(exc.kind, f"{question['type']}: {exc.detail}") from None

    def hello(self) -> Hello:
        return parse_hello(self._ask({"type": "hello", "protocol": PROTOCOL}))

    def ask_request(self) -> StreamRequest:
        return parse_request(self._ask({"type": "stream_request"}))

    def ask_data(self) -> dict[str, Version]:
        return parse_data(self._ask({"type": "data"}))

    def ask_data_around(
        self, events: Sequence[Message]
    ) -> tuple[dict[str, Version], dict[str, Version]]:
        """What the application holds now, then (after ``events``) what it holds: both
        questions written at once with the events between them, so the two answers take
        one round trip. Either answer missing is the fault of the question ``data``; a
        first answer that is garbage is reported before a second that is missing."""
        stdin = self.session.proc.stdin
        assert stdin is not None
        question = _line({"type": "data"})
        pending, self.pending = self.pending, []
        try:
            stdin.write(b"".join([*pending, question, *map(_line, events), question]))
            stdin.flush()
            now = self.session.answer(self.timeout)
            try:
                then = self.session.answer(self.timeout)
            except NoAnswer:
                parse_data(now)
                raise
        except (BrokenPipeError, OSError):
            raise AdapterFault("crash", f"data: {self.session._exit_text()}") from None
        except NoAnswer as exc:
            raise AdapterFault(exc.kind, f"data: {exc.detail}") from None
        return parse_data(now), parse_data(then)

    def close(self) -> None:
        self.session.close()


# One encoder for every message (json.dumps with separators builds a new one per call).
_encode = json.JSONEncoder(separators=(",", ":")).encode


def _line(message: Message) -> bytes:
    return _encode(message).encode() + b"\n"


class VariantClient:
    """A consumer variant as a client: the reference consumer keeps its state, the
    variant says what it requests and how it reacts to a rollback (as in
    ``spec.reference.simulate``). A mutation's CAS is kept as the item's epoch."""

    def __init__(self, variant: ConsumerVariant) -> None:
        self.variant = variant
        self.consumer = ReferenceConsumer(ReferenceLog(()))
        self.phase = "idle"  # initial | resume | stream | done
        self.remembered = False
        self.view: ReferenceView | None = None
        self.start, self.opened = 0, (0, 0)
        self.snapshots: list[tuple[int, int, list[Item]]] = []
        self.advanced = 0
        self.final: dict[int, Item] = {}

    # -- the protocol as messages (what the adapter process reads) ---------------------------

    def answer(self, message: Message) -> dict[str, Any] | None:
        """The answer to one message (None for an event)."""
        kind = message.get("type")
        if kind == "hello":
            return {
                "client": self.variant.name,
                "rollback_mitigation": bool(self.variant.rollback_mitigation),
            }
        if kind == "stream_request":
            return request_json(self.ask_request())
        if kind == "data":
            return {"data": {k: _version_json(v) for k, v in self.ask_data().items()}}
        self.send(message)
        return None

    def hello(self) -> Hello:
        return Hello(self.variant.name, bool(self.variant.rollback_mitigation))

    def send(self, event: Message) -> None:
        kind = event["type"]
        if kind == "begin":
            self.__init__(self.variant)  # type: ignore[misc]  # a new session: reset
            self.consumer = ReferenceConsumer(_log(event["failover_log"]))
            self.phase = "initial"
        elif kind == "snapshot":
            if self.phase == "initial":
                self.consumer.receive_marker(event["start"], event["end"])
            else:
                self.snapshots.append((event["start"], event["end"], []))
        elif kind in ("mutation", "deletion"):
            item = Item(event["seqno"], event["cas"], _key(event["key"]), kind == "deletion")
            if self.phase == "initial":
                self.consumer.receive_item(item)
            else:
                self.snapshots[-1][2].append(item)
        elif kind == "seqno_advanced":
            if self.phase == "initial":
                self.consumer.whole_snapshot_ends.append(event["seqno"])
            self.advanced = max(self.advanced, event["seqno"])
        elif kind == "disconnect":
            if self.phase == "initial":
                self.consumer.disconnect(max((i.seqno for i in self.consumer.held()), default=0))
            else:
                self._cut()
            self.phase, self.remembered = "resume", False
        elif kind == "rollback":
            producer_log = _log(event["failover_log"])
            view = self.consumer.view(producer_log)
            reaction = calls.reaction(
                self.variant,
                view,
                const(event["seqno"]),
                producer_log,
            )
            self.consumer.react(reaction, event["seqno"])
        elif kind == "accepted":
            self.consumer.adopt_log(_log(event["failover_log"]))
            self.phase, self.snapshots, self.advanced = "stream", [], 0
        elif kind == "stream_end":
            streamed: dict[int, Item] = {}
            for item in sorted(i for _, _, items in self.snapshots for i in items):
                streamed[item.key] = item
            self.final = self.consumer.after_stream(streamed)
            self.phase = "done"
        elif kind == "erange":
            self.phase = "idle"
        else:
            raise ValueError(f"unknown message type {kind!r}")

    def _cut(self) -> None:
        items = [i for _, _, its in self.snapshots for i in its]
        received = max([self.advanced, *(i.seqno for i in items)])
        snapshots = [Snapshot(s, e, tuple(its)) for s, e, its in self.snapshots]
        self.consumer.cut_stream(
            self.start, snapshots, received, self.opened, self.variant.seqno_advanced
        )

    def ask_request(self) -> StreamRequest:
        if not self.remembered:
            view = self.consumer.view()
            self.consumer.remember(calls.remembered(self.variant, view))
            self.remembered = True
        view = self.consumer.view()
        request = stream_request_of(calls.request(self.variant, view))
        self.start, self.opened = request.start, (request.snap_start, request.snap_end)
        return request

    def ask_data(self) -> dict[str, Version]:
        versions = self.final if self.phase == "done" else self.consumer.versions()
        return {
            key_name(k): Version(i.seqno, i.epoch, i.deleted) for k, i in sorted(versions.items())
        }

    def ask_data_around(
        self, events: Sequence[Message]
    ) -> tuple[dict[str, Version], dict[str, Version]]:
        now = self.ask_data()
        for event in events:
            self.send(event)
        return now, self.ask_data()

    def close(self) -> None:
        pass


def _version_json(v: Version) -> dict[str, Any]:
    return {"seqno": v.seqno, "cas": v.cas, "deleted": v.deleted}


def _log(entries: list[list[int]]) -> ReferenceLog:
    return ReferenceLog(FailoverEntry(uuid, seqno) for uuid, seqno in entries)


def _key(name: str) -> int:
    return ord(name) - ord("A") if len(name) == 1 else int(name[1:])
