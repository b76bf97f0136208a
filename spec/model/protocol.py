"""What an engine may ask of the single-node scenario model: everything, and nothing more.

``spec.model.build.ScenarioModel`` is the one implementation; the engines
(``checker.engines``: z3, cubes, exhaustive, random, and their Spark
adapters) and the replay (``checker.confirm``) type against this protocol,
so a member an engine starts to use must be added here first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from spec.bounds import Bounds
from spec.expr import Expr, Sort, Value
from spec.properties import Property
from spec.scenario import Scenario

__all__ = ["ScenarioModelInterface"]


class ScenarioModelInterface(Protocol):
    """A set of scenarios as expressions, and the ways between them and ``Scenario``s."""

    @property
    def bounds(self) -> Bounds:
        """The bounds every scenario of the model lies within (what enumerators walk)."""
        ...

    @property
    def variables(self) -> dict[str, Sort]:
        """The scenario's free choices (name -> sort): what a solver declares and decodes."""
        ...

    @property
    def ranges(self) -> dict[str, tuple[int, int]]:
        """The values each integer variable takes (``constraints`` imply them)."""
        ...

    @property
    def constraints(self) -> Expr:
        """What every scenario of the model satisfies."""
        ...

    @property
    def symmetry(self) -> Expr:
        """A canonical form: every scenario is equivalent to one satisfying it."""
        ...

    def holds(self, prop: Property) -> Expr:
        """``prop`` as a formula over the variables, on every resume that happens."""
        ...

    def violation(self, prop: Property) -> tuple[Expr, Expr]:
        """(goal, canonical form) every violation of ``prop`` can be renamed into."""
        ...

    def measures(self) -> list[tuple[str, Expr]]:
        """What a minimisation shrinks, most important first."""
        ...

    def decode(self, values: Mapping[str, Value]) -> Scenario:
        """An assignment to the variables as a scenario."""
        ...

    def encode(self, scenario: Scenario) -> dict[str, Value]:
        """A scenario as an assignment to the variables."""
        ...

    def predicted(self, scenario: Scenario) -> dict[str, Value]:
        """The trace fields the model predicts for ``scenario`` (what replay compares)."""
        ...

    def within(self, values: Mapping[str, Value]) -> ScenarioModelInterface:
        """The smaller model a minimisation of the scenario ``values`` can run in."""
        ...

    def with_seqnos(self, seqnos: int) -> ScenarioModelInterface:
        """The same model with histories of at most ``seqnos`` seqnos (a small scope first);
        the model itself when its histories are that short already (``z3.search`` then
        solves it once, not twice)."""
        ...

    def split(self, depth: int = 1) -> list[Expr]:
        """Conditions partitioning the scenarios: the cubes of a proof cut into parts."""
        ...

    def cubes(self, depth: int = 1) -> list[tuple[str, Expr]]:
        """``split(depth)`` with a label per cube."""
        ...
