"""What an explicit-state engine may ask of a model (stateright's ``Model``).

A model offers ``init_states()``, ``actions(state)`` (the guards: actions
enabled in a state), ``next_state(state, action)`` (the effects; ``None``
drops the transition) and ``properties()``: named values whose
``expectation`` is ``Expectation.ALWAYS`` (an invariant: a state where
``holds`` is false is a counterexample) or ``Expectation.SOMETIMES`` (a
state where it is true is an example). States are hashable and immutable;
an engine never looks inside one.

Some members are optional (an engine asks with ``getattr``):

* ``representative(state)``: one state of ``state``'s orbit under the model's
  symmetry (a state in the orbit, the same for every state of it). The model
  declares that its successors commute with the symmetry and that every
  property is invariant under it, so a search may visit representatives only
  (TLC's ``SYMMETRY``, stateright's ``Representative``);
* ``encode(state)`` and ``decode(data)``: the state as bytes that equal states
  share in every process, and back, so a search may keep a fingerprint of the
  bytes instead of the state; with both, ``encode_representative(state)``, the
  bytes of ``representative(state)`` made more cheaply (a search that finds
  none encodes the representative).

``spec.cluster.ClusterModel`` is the model;
``checker.engines.explore`` and ``checker.spark.bfs`` search it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from enum import StrEnum
from typing import Protocol, TypeVar

__all__ = ["Expectation", "ExplicitModel", "ExplicitProperty", "Symmetric"]

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")


class Expectation(StrEnum):
    """How a property is judged over the reachable states (equal to its own name)."""

    ALWAYS = "always"  # holds in every reachable state; a state where it fails is a violation
    SOMETIMES = "sometimes"  # holds in some reachable state; such a state is an example


# S is ExplicitModel's state type too, where it is both argument and result (invariant)
class ExplicitProperty(Protocol[S]):  # type: ignore[misc]  # S is invariant: see above
    @property
    def name(self) -> str: ...

    @property
    def expectation(self) -> Expectation: ...

    def holds(self, state: S) -> bool: ...


class ExplicitModel(Protocol[S, A]):
    def init_states(self) -> Iterable[S]: ...

    def actions(self, state: S) -> Iterable[A]: ...

    def next_state(self, state: S, action: A) -> S | None: ...

    def properties(self) -> Sequence[ExplicitProperty[S]]: ...


class Symmetric(Protocol[S]):
    """A model that declares a symmetry (the optional member of ``ExplicitModel``)."""

    def representative(self, state: S) -> S: ...
