"""A run of a model: named steps from a named start state, each told in words.

Both models describe a counterexample (or an example) this way, as
stateright's ``Path`` does: the single-node model from the reference trace
of a scenario (``spec.model.narrate``), the cluster model from the path the
explicit-state search found (``spec.cluster.narrate``). Every report (the
terminal, counterexample files, ITF traces, JUnit, HTML) reads a ``Run`` and
nothing else of the model, so one writer serves both.

A run is plain data (JSON values, strings), so it crosses process
boundaries (Spark) and files unchanged:

* ``start``: the start state's name; ``init``: its variables (a JSON object,
  one key per state variable, as an ITF state has); ``init_lines``: the start
  state in words.
* ``steps``: each a ``Step``: the action (a JSON object with its ``name`` and
  arguments), the state it leads to (same variables as ``init``), a short
  ``label`` (``ReplicateItem(N1)``) and the narration (what happened, in
  words; empty when the next step's narration tells it).
* ``end_lines``: the final state in words; ``numbered``: whether a person
  reads the steps as a numbered list (many small steps) or as a story.
* ``picture``: a history timeline (``Picture``) for the HTML report and, for the
  single-node model, each resume's rounds (``Rounds``) as a sequence diagram draws
  them: the request, the answer, what the consumer does before the next request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Cell", "Exchange", "Lane", "Mark", "Picture", "Rounds", "Run", "Span", "Step"]

JSON = Any


@dataclass(frozen=True)
class Step:
    action: Mapping[str, JSON]  # {"name": ..., arguments}
    state: Mapping[str, JSON]  # the state the action led to
    label: str
    narration: str = ""

    @property
    def name(self) -> str:
        return str(self.action["name"])


# -- the picture: histories drawn one column per seqno ----------------------------------------


@dataclass(frozen=True)
class Cell:
    """One item in a lane: at ``seqno``, shown as ``text``, styled by ``kind``.

    Kinds: ``set``, ``del``, ``prepare``, ``commit`` (a mutation), ``held``
    (received and kept), ``dropped`` (not received: deduplicated away), ``new``
    (written after a branch).
    """

    seqno: int
    text: str
    kind: str


@dataclass(frozen=True)
class Span:
    """A bracket under a lane: a snapshot ``[start, end]``."""

    start: int
    end: int
    label: str


@dataclass(frozen=True)
class Lane:
    label: str
    cells: tuple[Cell, ...] = ()
    spans: tuple[Span, ...] = ()
    empty: str = ""  # what the row says when it has no cells ("nothing")


@dataclass(frozen=True)
class Mark:
    """A vertical line after ``seqno`` across the lanes: a branch point or the purge seqno;
    its label sits on the row of the lane named ``lane`` (a failover's), else below."""

    seqno: int
    label: str
    kind: str  # "branch" | "purge"
    lane: str = ""


@dataclass(frozen=True)
class Exchange:
    """One round of a resume: the consumer's ``request``, the producer's ``answer``
    (``kind``: ``ok``, ``rollback`` or ``error``) and what the consumer does with it
    before its next request (``reaction``: the items it drops, the ones it will filter)."""

    request: str
    answer: str
    kind: str
    reaction: str = ""
    repeats: int | None = None  # the earlier round (from 1) that sent this same request


@dataclass(frozen=True)
class Rounds:
    """A resume's rounds, in order, and how they end (``outcome``)."""

    label: str
    exchanges: tuple[Exchange, ...]
    outcome: str


@dataclass(frozen=True)
class Picture:
    lanes: tuple[Lane, ...]
    marks: tuple[Mark, ...] = ()
    legend: tuple[tuple[str, str], ...] = ()  # (kind, meaning)
    resumes: tuple[Rounds, ...] = ()  # each resume's rounds (single-node runs)

    @property
    def width(self) -> int:
        """The highest seqno drawn."""
        seqnos = [c.seqno for lane in self.lanes for c in lane.cells]
        seqnos += [s.end for lane in self.lanes for s in lane.spans]
        seqnos += [m.seqno for m in self.marks]
        return max([1, *seqnos])


@dataclass(frozen=True)
class Run:
    start: str
    init: Mapping[str, JSON]
    steps: tuple[Step, ...]
    init_lines: tuple[str, ...] = ()
    end_lines: tuple[str, ...] = ()
    numbered: bool = False
    picture: Picture | None = None

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def variables(self) -> list[str]:
        return list(self.init)

    def actions(self) -> list[Mapping[str, JSON]]:
        return [s.action for s in self.steps]
