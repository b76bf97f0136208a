"""What every check returns, whichever model and engine: one ``Result``, one ``Verdict``.

As stateright's checkers all return the same discoveries keyed by property
name, every engine here (Z3, exhaustive, random, breadth/depth-first, and
their Spark adapters) and both models (the single-node scenario model and
the multi-node cluster model) produce a ``Result``:

* ``verdict``: ``holds`` (no violation within ``bounds``: a proof, not a
  sample), ``violated`` (with a ``run``), or ``unknown`` (``reason`` says
  why: solver unknown, budget or time spent, state limit, interrupted);
* ``subject``: the names of what was checked, in order (``rules``,
  ``consumer``; or ``ack_rule``, ``branch_rule``), and ``context`` the names
  fixed for the whole command (the durability model's rule set), so reports
  need not know which model ran;
* ``bounds``: what a ``holds`` holds for (``describe()``, ``to_json()``);
* ``run``: the counterexample (or, for a *sometimes* property, the example)
  as named steps (``spec.run.Run``), each with its narration;
* ``replay``: whether the reference implementation confirms it;
* ``stats``: wall and CPU seconds, states, transitions, scenarios examined,
  solver budget spent;
* ``command``: the command line that reproduces the check, and ``sources``
  the user's own files it names (what a counterexample file records, so
  that ``dcpcheck promote`` loads the same definitions again);
* ``long_text``: more to tell under the one-line form, whatever the
  verdict (an induction's invariant); the long form prints it.

A result is plain data: it pickles (Spark ships it back to the driver) and
the report writers (``checker.report``) read nothing else.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from spec.run import Run

__all__ = [
    "BoundsLike",
    "PropertyLike",
    "Replayed",
    "Result",
    "Stats",
    "Verdict",
    "interrupted",
    "not_run",
]


class Verdict(StrEnum):
    HOLDS = "holds"
    VIOLATED = "violated"
    UNKNOWN = "unknown"


class BoundsLike(Protocol):
    def describe(self) -> str: ...

    def to_json(self) -> dict[str, int]: ...


class PropertyLike(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> str: ...


@dataclass(frozen=True)
class Replayed:
    """A counterexample replayed on the reference implementation."""

    confirmed: bool
    detail: str = ""
    mismatches: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        return "confirmed" if self.confirmed else "not-confirmed"


@dataclass(frozen=True)
class Stats:
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0
    states: int | None = None  # unique states (explicit-state engines)
    transitions: int | None = None
    max_depth: int | None = None
    examined: int | None = None  # scenarios evaluated (exhaustive, random)
    budget: int | None = None  # solver resource units spent (Z3 rlimit)
    cubes: int | None = None  # the cubes a split Z3 proof was cut into
    strategy: str = ""
    complete: bool | None = None  # the explicit search exhausted the reachable states
    stopped: str = ""  # why an explicit search ended early

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }
        for name in ("states", "transitions", "max_depth", "examined", "budget", "cubes"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(frozen=True)
class Result:
    model: str  # "scenario" (single node) | "cluster" (durability)
    subject: Mapping[str, str]  # ordered: what was checked, by name (the label)
    property: str
    kind: str  # safety | cost | progress | reachability
    verdict: Verdict
    bounds: BoundsLike
    engine: str
    expectation: str = "always"  # "sometimes": a violated verdict means "unreachable"
    reason: str = ""  # why unknown (empty otherwise)
    note: str = ""  # anything else worth saying (how far minimisation got, ...)
    long_text: str = ""  # more lines under the one-line form, any verdict (an invariant)
    run: Run | None = None
    replay: Replayed | None = None
    explanation: str = ""  # what goes wrong (or, for sometimes, what is reached)
    ident: str = ""  # the counterexample's stable id
    record: Mapping[str, Any] | None = None  # the model's counterexample record (JSON)
    witness: Any = None  # the model's own form of the counterexample (a Scenario, actions)
    size: Mapping[str, int] = field(default_factory=dict)  # minimised measures
    stats: Stats = field(default_factory=Stats)
    preset: str | None = None  # the named bounds, if they are a preset's
    vacuous: bool = False  # a 'holds' in bounds where the property's premise never occurs
    also_by: str = ""  # a violation the textbook consumer gets too (its name): the rules' doing
    command: str = ""  # the command line that reproduces this check
    sources: Mapping[str, str] = field(default_factory=dict)  # the user's files checked, by
    # what they define ("consumer": "my_client.py"), as the command line names them
    expected: str | None = None  # the verdict recorded for this combination, if any
    context: Mapping[str, str] = field(default_factory=dict)  # fixed names (the rule set)
    interrupted: bool = False  # Ctrl-C stopped the run here; what it holds was decided before

    @builtins.property  # the field named property shadows the builtin here
    def label(self) -> str:
        """``kv-current/correct``: the names that vary between checks of this model."""
        return "/".join(self.subject.values())

    @builtins.property
    def confirmed(self) -> bool | None:
        return None if self.replay is None else self.replay.confirmed

    @builtins.property
    def harness_bug(self) -> bool:
        return self.replay is not None and not self.replay.confirmed

    @builtins.property
    def seconds(self) -> float:
        return self.stats.seconds

    @builtins.property
    def decided(self) -> bool:
        return self.verdict is not Verdict.UNKNOWN

    def __getattr__(self, name: str) -> str:
        """``result.rules``, ``result.consumer``, ``result.ack_rule``: the names checked."""
        for names in (self.__dict__.get("subject"), self.__dict__.get("context")):
            if names is not None and name in names:
                return names[name]
        raise AttributeError(name)

    def but(self, **changes: Any) -> Result:
        return replace(self, **changes)


def interrupted(r: Result) -> Result:
    """``r`` as a check Ctrl-C stopped before it decided anything."""
    return r.but(verdict=Verdict.UNKNOWN, reason="interrupted", interrupted=True)


def not_run(
    model: str,
    subject: Mapping[str, str],
    prop: PropertyLike,
    bounds: BoundsLike,
    engine: str,
    command: str,
    **more: Any,
) -> Result:
    """A check's result before anything is decided: ``unknown`` (not run), named and
    bounded, with the ``command`` that reproduces it; ``more``: the model's other fields."""
    unknown = Verdict.UNKNOWN
    named = (model, subject, prop.id, prop.kind, unknown, bounds, engine)  # Result's order
    return Result(*named, reason="not run", command=command, **more)
