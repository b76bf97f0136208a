"""The consumer-variant interface, version 2.

A consumer variant is a *policy*: what a DCP client sends when it resumes
(uuid, start, snapshot range, flags) and how it reacts to ``ROLLBACK(R)``
(what data it keeps, what it will claim next, which failover log it keeps,
which re-streamed items it drops). It is written once, in the expression
language, against a ``ConsumerView``; dcpcheck evaluates it over a symbolic
view (Z3 searches every consumer state) and over a concrete view (the
reference consumer replays a counterexample). docs/authoring-consumers.md is
the guide; docs/model.md the semantics.

The consumer's state, as a variant sees it (``ConsumerView``):

* its data: ``last``, ``keep``, ``held_at_or_below(x)``, ``snapshot_of(x)``,
  ``consistent_at_or_below(x)``, ``entries_between(lo, hi)``;
* what it remembers: ``claim``, the stream request it would send (uuid,
  start, snapshot range, flags), which ``ConsumerVariant.remembered`` sets
  when the stream ends and a rollback reaction may replace;
* its failover ``log`` and the producer's (``producer_log``), each a
  ``LogView``: ``latest_uuid``, ``oldest_uuid``, ``uuid_at(i)``,
  ``seqno_at(i)``, ``length``, ``covering(x)``; new logs from
  ``pruned(x)``, ``dropped(n)``, ``single(uuid)``, ``choose_log(c, a, b)``;
* its own offset (``offset``): where its last stream left it, moved only by
  the items that stream delivered, and by SeqnoAdvanced for a variant that is
  sent it (``seqno_advanced``) (a client that keeps such bookkeeping, as
  java-dcp-client's ``PartitionState`` does, remembers it instead of its data);
* this resume so far: ``rolled_back`` (a ROLLBACK was answered) and
  ``rollback_seqno`` (the last R, 0 if none), and ``filter`` (re-streamed
  items at or below it are dropped).

A variant defines ``on_rollback`` (and usually ``request``; by default it
sends ``view.claim``). ``on_rollback`` returns a ``Reaction``: every field is
optional, and a field left out keeps its value.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Protocol, Self

from spec.errors import RuleLanguageError
from spec.expr import BOOL, FALSE, INT, Expr, Sort, brief, const, ite, lift

ZERO = const(0)

__all__ = [
    "ConsumerVariant",
    "ConsumerView",
    "LogView",
    "Reaction",
    "ResumeRequest",
    "Setting",
    "Truncation",
    "choose_log",
    "choose_request",
    "resume_at_whole_snapshot",
]


class LogView(Protocol):
    """A failover log, newest entry first (position 0); it may be empty."""

    @property
    def length(self) -> Expr: ...

    @property
    def latest_uuid(self) -> Expr: ...

    @property
    def oldest_uuid(self) -> Expr: ...

    def uuid_at(self, position: Expr | int) -> Expr: ...

    def seqno_at(self, position: Expr | int) -> Expr: ...

    def covering(self, seqno: Expr | int) -> Expr: ...

    def pruned(self, seqno: Expr | int) -> Self: ...

    def dropped(self, count: Expr | int) -> Self: ...

    def single(self, uuid: Expr | int, seqno: Expr | int = 0) -> Self: ...

    def choose(self, condition: Expr, other: Self) -> Self: ...


@dataclass(frozen=True)
class ResumeRequest:
    """What the consumer sends (and, as ``view.claim``, what it remembers).

    Plain ints and bools are accepted and lifted; a field of the wrong sort
    (a bool for a seqno, an int for a flag) is an error naming the field.
    """

    uuid: Expr
    start: Expr
    snap_start: Expr
    snap_end: Expr
    strict: Expr = FALSE
    ignore_purged: Expr = FALSE
    remote_purge: Expr = ZERO

    def __post_init__(self) -> None:
        for name, sort in REQUEST_SORTS.items():
            object.__setattr__(
                self, name, _field(f"ResumeRequest.{name}", getattr(self, name), sort)
            )

    def but(self, **changes: Expr | int | bool) -> ResumeRequest:
        """This request with some fields changed: ``view.claim.but(ignore_purged=False)``."""
        return replace(self, **changes)  # type: ignore[arg-type]  # __post_init__ lifts ints

    def at(self, seqno: Expr | int, uuid: Expr | int | None = None) -> ResumeRequest:
        """Start ``seqno`` with the snapshot ``{seqno, seqno}`` (a complete snapshot ending
        there), the same flags, and ``uuid`` if given: ``view.claim.at(R)``."""
        point = lift(seqno)
        return replace(
            self,
            uuid=self.uuid if uuid is None else lift(uuid),
            start=point,
            snap_start=point,
            snap_end=point,
        )


REQUEST_SORTS: dict[str, Sort] = {
    "uuid": INT,
    "start": INT,
    "snap_start": INT,
    "snap_end": INT,
    "strict": BOOL,
    "ignore_purged": BOOL,
    "remote_purge": INT,
}
assert list(REQUEST_SORTS) == [f.name for f in fields(ResumeRequest)]


def choose_log(condition: Expr, if_true: LogView, if_false: LogView) -> LogView:
    """``if_true`` when ``condition`` holds, else ``if_false`` (logs of one interpretation)."""
    return if_true.choose(condition, if_false)


def choose_request(
    condition: Expr, if_true: ResumeRequest, if_false: ResumeRequest
) -> ResumeRequest:
    """``if_true`` when ``condition`` holds, else ``if_false`` (field by field)."""
    return ResumeRequest(
        *(ite(condition, getattr(if_true, n), getattr(if_false, n)) for n in REQUEST_SORTS)
    )


@dataclass(frozen=True)
class Reaction:
    """How the consumer reacts to ``ROLLBACK(R)``; a field left ``None`` keeps its value.

    * ``keep``: drop every held item above it (items never come back: the
      consumer then holds nothing above ``min(view.keep, keep)``);
    * ``claim``: the request it remembers, which ``request`` reads as
      ``view.claim`` (set it independently of the data it keeps);
    * ``log``: its failover log from now on (a log from the view);
    * ``filter``: when the stream runs, drop re-streamed items with seqno
      ``<= filter`` and keep its own version of their keys (0: drop none).
    """

    keep: Expr | None = None
    claim: ResumeRequest | None = None
    log: LogView | None = None
    filter: Expr | None = None

    def __post_init__(self) -> None:
        for name in ("keep", "filter"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, _field(f"Reaction.{name}", value, INT))
        if self.claim is not None and not isinstance(self.claim, ResumeRequest):
            raise RuleLanguageError(
                "", f"Reaction.claim must be a ResumeRequest, got {type(self.claim).__name__}"
            )


class Truncation(Reaction):
    """The version-1 reaction: keep items ``<= keep`` and use ``log`` from now on."""

    def __init__(self, keep: Expr | int, log: LogView) -> None:
        super().__init__(keep=lift(keep), log=log)


def _field(what: str, value: object, sort: Sort) -> Expr:
    expr = lift(value)
    if expr.sort is not sort:
        kind = "an integer (seqno or uuid)" if sort is INT else "a boolean (a flag)"
        raise RuleLanguageError("", f"{what} must be {kind}, got {expr.sort.value} `{brief(expr)}`")
    return expr


class ConsumerView(Protocol):
    """The consumer's state when it sends a request or reacts to a rollback."""

    @property
    def last(self) -> Expr: ...

    @property
    def keep(self) -> Expr: ...

    def held_at_or_below(self, seqno: Expr | int) -> Expr: ...

    def snapshot_of(self, seqno: Expr | int) -> tuple[Expr, Expr]: ...

    def consistent_at_or_below(self, seqno: Expr | int) -> Expr: ...

    def entries_between(self, low: Expr | int, high: Expr | int) -> Expr:
        """``couchstore_changes_count(low, high)`` on a file holding the consumer's items
        at or below ``high`` (and ``keep``): how many keys have their newest such item at a
        seqno in ``[low, high]``, both included (a by-seqno index: one entry per key)."""
        ...

    @property
    def log(self) -> LogView: ...

    @property
    def producer_log(self) -> LogView: ...

    @property
    def claim(self) -> ResumeRequest: ...

    @property
    def offset(self) -> tuple[Expr, Expr, Expr]:
        """(start, snap_start, snap_end): where the consumer's last stream left it, moved
        only by data events. The seqno of the last item that stream delivered (a filtered
        one too) and that item's snapshot marker, or, for a variant sent SeqnoAdvanced
        (``seqno_advanced``), the end of a later snapshot it received whole without its
        last item (a purged tombstone) and that marker; while it delivered none, the start and
        snapshot of the request that opened it (the initial stream: ``(0, 0, 0)``). It
        differs from ``last`` and ``snapshot_of(last)`` when the consumer keeps items
        above the start it resumed from (a rollback it did not truncate for)."""
        ...

    @property
    def rolled_back(self) -> Expr: ...

    @property
    def rollback_seqno(self) -> Expr: ...

    @property
    def filter(self) -> Expr: ...


def resume_at_whole_snapshot(view: ConsumerView, rollback_seqno: Expr, uuids: LogView) -> Reaction:
    """The reaction the fixed clients share: drop the data above the newest whole snapshot
    at or below R and claim that point, with the uuid of the entry of ``uuids`` covering it
    (its failover log stays as it is)."""
    point = view.consistent_at_or_below(rollback_seqno)
    return Reaction(keep=point, claim=view.claim.at(point, uuid=uuids.covering(point)))


@dataclass(frozen=True)
class Setting:
    """A client option that can change a verdict, named after the variant:
    ``go-dcp:mitigation=off``.

    ``values`` maps each value to the variant attributes it sets (for example
    ``{"on": {"rollback_mitigation": True}, "off": {...}}``); ``default`` is
    the value the client ships with, which the bare name (``go-dcp``) means.
    ``means`` says, in one line, what the client calls the option and where.
    ``option`` is the client's own name for it (``rollbackMitigation.disabled``;
    empty when it is a code path, not an option) and ``option_default`` that
    option's default value as the client states it (``false``): the one source
    docs/clients.md is checked against (tests/test_client_citations.py).
    """

    name: str
    default: str
    values: Mapping[str, Mapping[str, object]]
    means: str = ""
    option: str = ""
    option_default: str = ""

    def __post_init__(self) -> None:
        if self.default not in self.values:
            raise ValueError(f"setting {self.name}: default {self.default!r} is not a value")


NO_CHOICES: Mapping[str, str] = MappingProxyType({})


class ConsumerVariant:
    """Base class: subclass it, set ``name`` and ``summary``, define the policies.

    ``strict`` and ``ignore_purged`` are the flags the remembered request
    starts with (DCP_ADD_STREAM_STRICT_VBUUID, IgnorePurgedTombstones).

    ``rollback_mitigation``: the client is only sent items every replica has
    persisted (go-dcp's rollback mitigation, java-dcp-client's
    ``mitigateRollbacks``), so no failover branches below the end of a snapshot
    it holds whole (a promoted replica branches at the last snapshot it received
    whole: kv_engine ``CheckpointManager::getFailoverSeqno``): a scenario in which
    one does is not a run of this client (both interpretations leave it out:
    ``spec.model.build``, ``spec.reference.simulate``).

    ``seqno_advanced``: the client negotiates collections, so kv_engine sends it
    SeqnoAdvanced at the end of a snapshot whose last item it does not send (kv_engine
    eba4298 ``ActiveStream::isSeqnoAdvancedEnabled``: a collection-enabled stream
    without sync replication); its ``offset`` moves there too.

    ``settings``: the client's options that change a verdict; the class
    attributes are the defaults, and ``configured`` gives the variant under
    other values (``spec.consumers.settings`` parses ``NAME:KEY=VALUE,...``).
    ``choices`` is the value of every setting (empty for a variant without).
    """

    name: str = ""
    summary: str = ""
    strict: bool = False
    ignore_purged: bool = False
    rollback_mitigation: bool = False
    seqno_advanced: bool = False
    settings: tuple[Setting, ...] = ()
    choices: Mapping[str, str] = NO_CHOICES

    @property
    def base_name(self) -> str:
        """The name without settings: ``go-dcp`` for ``go-dcp:mitigation=off``."""
        return self.name.partition(":")[0]

    def setting_values(self) -> dict[str, str]:
        """The value of every setting: chosen ones, else the defaults."""
        return {s.name: self.choices.get(s.name, s.default) for s in self.settings}

    def is_default(self) -> bool:
        """True when every setting has its default value (the client as it ships)."""
        values = self.setting_values()
        return all(values[s.name] == s.default for s in self.settings)

    def configured(self, values: Mapping[str, str]) -> ConsumerVariant:
        """This variant with some settings changed (a new object; ``self`` is unchanged).
        An unknown setting or value is a ``ValueError`` naming the known ones."""
        known = {s.name: s for s in self.settings}
        chosen = self.setting_values()
        for key, value in values.items():
            if key not in known:
                names = ", ".join(f"{s.name}={'|'.join(s.values)}" for s in self.settings)
                raise ValueError(
                    f"{self.base_name} has no setting '{key}'"
                    + (f"; its settings: {names}" if names else "; it has no settings")
                )
            if value not in known[key].values:
                raise ValueError(
                    f"{self.base_name}: setting '{key}' is {'|'.join(known[key].values)}, "
                    f"not '{value}'"
                )
            chosen[key] = value
        other = copy.copy(self)
        for setting in self.settings:
            for attribute, attr_value in setting.values[chosen[setting.name]].items():
                setattr(other, attribute, attr_value)
        other.choices = MappingProxyType(chosen)
        changed = [
            f"{s.name}={chosen[s.name]}" for s in self.settings if chosen[s.name] != s.default
        ]
        other.name = self.base_name + (":" + ",".join(changed) if changed else "")
        return other

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        """What the consumer remembers when its stream ends (``view.claim`` until a
        reaction replaces it): the newest uuid of its log, the seqno of its last item
        and that item's snapshot marker, with this variant's flags."""
        snap_start, snap_end = view.snapshot_of(view.last)
        return ResumeRequest(
            view.log.latest_uuid,
            view.last,
            snap_start,
            snap_end,
            strict=lift(self.strict),
            ignore_purged=lift(self.ignore_purged),
        )

    def request(self, view: ConsumerView) -> ResumeRequest:
        """The stream request it sends; by default what it remembers."""
        return view.claim

    def on_rollback(
        self, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
    ) -> Reaction:
        raise NotImplementedError

    def problems(self) -> list[str]:
        """What keeps this variant from being checked (empty when it is usable)."""
        out = []
        name = self.base_name
        if not name or not all(c.isalnum() or c in "-_." for c in name):
            out.append(f"name {name!r} must be non-empty letters, digits, '-', '_' or '.'")
        if type(self).on_rollback is ConsumerVariant.on_rollback:
            out.append("it does not define on_rollback()")
        for setting in self.settings:
            for attribute, value in setting.values[setting.default].items():
                if self.choices.get(setting.name, setting.default) == setting.default and (
                    getattr(self, attribute, None) != value
                ):
                    out.append(
                        f"setting {setting.name}'s default sets {attribute} = {value!r}, but "
                        f"the class has {getattr(self, attribute, None)!r}"
                    )
        for flag in ("strict", "ignore_purged", "rollback_mitigation", "seqno_advanced"):
            if not isinstance(getattr(self, flag), bool):
                out.append(f"{flag} must be True or False")
        return out

    def __repr__(self) -> str:
        return f"<consumer variant {self.name}>"
