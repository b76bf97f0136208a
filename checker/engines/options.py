"""How a search may run: one frozen value that every check, task and engine takes.

``check_cell()`` (``checker.cell``), ``check()`` (``checker.scenario_check``),
``check_durability()`` (``checker.cluster_check``), ``check_together()`` and the
Spark tasks (``checker.tasks``) take an ``Options`` instead of loose keyword arguments;
an engine reads the fields it uses and ignores the rest. It is plain data
(picklable), so a task carries it to a Spark executor unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from checker.symbolic.budget import CHECK_BUDGET, Budget
from checker.timing import deadline_after

__all__ = ["DEFAULT", "Options"]


@dataclass(frozen=True)
class Options:
    budget: int | None = CHECK_BUDGET  # Z3 resource units per check (None: no limit)
    timeout_s: float | None = None  # an outer wall-clock guard per check (None: none)
    minimise: bool = True  # z3, cubes: shrink a counterexample to a least one
    workers: int = 1  # z3: processes solving the cubes of a proof; explore: checks side by side
    split: int = 1  # z3, spark: how finely a proof is cut into cubes (model.split(depth))
    examples: int = 10_000  # random: scenarios drawn
    strategy: str = "bfs"  # explore: breadth- or depth-first
    max_states: int | None = None  # explore, Spark BFS: stop (unknown) after this many states
    # single node (checker.cell): for every number of resumes (--sessions any) instead of
    # bounds.sessions; each lemma of the invariant in words; a certificate's lemma names to
    # check again, alone (None: the stored one, then Houdini)
    every_session: bool = False
    show_invariant: bool = False
    certificate: tuple[str, ...] | None = None
    symmetry: bool = True  # explore, Spark BFS: one state per orbit of the model's symmetry
    exact: bool = False  # explore: keep states, not 64-bit fingerprints, in the visited set

    def but(self, **changes: Any) -> Options:
        return replace(self, **changes)

    def new_budget(self) -> Budget:
        """A fresh account of Z3 work under ``budget``."""
        return Budget(self.budget)

    def deadline(self) -> float | None:
        """The monotonic time ``timeout_s`` from now (None: no limit)."""
        return deadline_after(self.timeout_s)

    @property
    def cut(self) -> bool:
        """Whether a Z3 proof is cut into cubes (``workers`` or ``split`` above 1)."""
        return self.workers > 1 or self.split > 1


DEFAULT = Options()
