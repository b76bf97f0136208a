"""What a search's executors know: its models, by name, and the rows they make.

The driver (``checker.spark.bfs``) hands Spark a ``ClusterSearch`` (names and
bounds: picklable); each Python worker builds the models once
(``models_of``: ``spec.cluster.ClusterModel``, resolved by name as the driver
did) and keeps them for every level. States are the bytes of
``spec.cluster.encode``; ``checker.spark.owned`` decodes them, asks the model
for its ``actions`` and ``next_state`` and evaluates the watched properties
on each state it expands (``Watched.decides``): the search never looks inside a
state.

``order`` is the state's place in the order an in-process breadth-first
search (a FIFO queue) would discover it: the action indices along its first
path, one byte per step, so that within a level byte order is queue order.
A successor's order is its parent's plus the action's index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker.cluster_check import model_for
from checker.loading import resolve
from checker.spark.shipping import on_executor
from spec import cluster
from spec.cluster.properties import BoundProperty
from spec.cluster.protocol import Expectation
from spec.rules import RULE_SETS, RuleSet

__all__ = ["CANDIDATE_COLUMNS", "MAX_ACTIONS", "ClusterSearch", "Watched", "build", "models_of"]

# (name, Arrow type name) of a level file's columns (``checker.spark.owned``).
CANDIDATE_COLUMNS = (
    ("model", "int32"),
    ("fp", "int64"),
    ("parent", "int64"),
    ("action", "int32"),
    ("order", "binary"),
    ("state", "binary"),
)
MAX_ACTIONS = 256  # an action index is one byte of the order


@dataclass(frozen=True)
class ClusterSearch:
    """Several models of one cluster searched together, named as executors resolve them.

    ``models``: (ack rule, branch rule) names or ``FILE.py[:NAME]``; ``properties``:
    the properties watched in every model, by id or file (bit ``j`` of what
    ``Watched.decides`` returns is ``properties[j]``); the first ``checked`` are the checks (a model
    is searched until each is decided), the others are watched alongside.
    ``ident`` names this search (its level files).
    """

    ident: str
    models: tuple[tuple[str, str], ...]
    rules: str
    bounds: cluster.ClusterBounds
    properties: tuple[str, ...]
    checked: int
    symmetry: bool = True  # states are the model's representatives (one per orbit)


@dataclass(frozen=True)
class Watched:
    """A model and its watched properties, each with its bit and the value that decides it;
    ``symmetry``: the search keeps the model's representatives."""

    model: cluster.ClusterModel
    properties: tuple[BoundProperty, ...]
    symmetry: bool = True
    _tests: tuple[tuple[int, Any, bool], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tests = tuple(
            (1 << j, p.holds, p.expectation == Expectation.ALWAYS)
            for j, p in enumerate(self.properties)
        )
        object.__setattr__(self, "_tests", tests)

    def kept(self, state: Any) -> Any:
        """The state the search keeps for ``state``: its representative, under symmetry."""
        return self.model.representative(state) if self.symmetry else state

    def decides(self, state: Any) -> int:
        """Bit ``j`` set where ``properties[j]`` is decided in ``state`` (an ``always``
        property false, a ``sometimes`` property true)."""
        bits = 0
        for bit, holds, always in self._tests:
            if holds(state) != always:
                bits |= bit
        return bits


def build(search: ClusterSearch) -> list[Watched]:
    """The search's models with their watched properties, resolved by name (on the
    driver, or on an executor with the files the job shipped)."""
    rules = resolve(RULE_SETS, RuleSet, on_executor(search.rules))
    props = [
        resolve(cluster.CLUSTER_PROPERTIES, cluster.ClusterProperty, on_executor(p))
        for p in search.properties
    ]
    out = []
    for ack, branch in search.models:
        model = model_for(
            resolve(cluster.ACK_RULES, cluster.AckRule, on_executor(ack)),
            resolve(cluster.BRANCH_RULES, cluster.BranchRule, on_executor(branch)),
            rules,
            search.bounds,
            tuple(props),
        )
        bound = {p.name: p for p in model.properties()}
        out.append(Watched(model, tuple(bound[p.id] for p in props), search.symmetry))
    return out


_built: dict[str, list[Watched]] = {}


def models_of(search: ClusterSearch) -> list[Watched]:
    """Built once per Python worker and search (a worker serves every level)."""
    watched = _built.get(search.ident)
    if watched is None:
        _built.clear()
        watched = _built[search.ident] = build(search)
    return watched
