"""Explicit-state model checking: breadth-first (or depth-first) search of any model.

A model is any ``spec.cluster.protocol.ExplicitModel`` (stateright's
``Model``: ``init_states()``, ``actions(state)``, ``next_state(state,
action)``, ``properties()``, each property ``Expectation.ALWAYS`` or
``Expectation.SOMETIMES``). The checker keeps a visited set with a parent
pointer per state and never looks inside one.

``explore`` returns a verdict per property, the number of unique states and
transitions explored, and for each decided property a ``Path`` from an
initial state: breadth-first, so a counterexample is a shortest one. A
search stopped by ``max_states`` or ``timeout_s`` before the reachable space
was exhausted leaves undecided properties ``unknown``, never ``holds``.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from checker.engines import STRATEGIES
from checker.result import Verdict
from spec.cluster.protocol import Expectation, ExplicitModel

__all__ = [
    "STRATEGIES",
    "Exploration",
    "Path",
    "PropertyVerdict",
    "Step",
    "explore",
    "replay",
]

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")


@dataclass(frozen=True)
class Step(Generic[S, A]):
    action: A
    state: S  # the state the action led to


@dataclass(frozen=True)
class Path(Generic[S, A]):
    """A run of the model: an initial state and the named actions taken from it."""

    init: S
    steps: tuple[Step[S, A], ...]

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def last_state(self) -> S:
        return self.steps[-1].state if self.steps else self.init

    def states(self) -> list[S]:
        return [self.init, *(s.state for s in self.steps)]

    def actions(self) -> list[A]:
        return [s.action for s in self.steps]


@dataclass(frozen=True)
class PropertyVerdict(Generic[S, A]):
    """One property's verdict. ``path``: the counterexample of a violated ``always``,
    or the example that makes a ``sometimes`` hold."""

    property: str
    expectation: Expectation
    verdict: Verdict
    path: Path[S, A] | None = None


@dataclass(frozen=True)
class Exploration(Generic[S, A]):
    outcomes: dict[str, PropertyVerdict[S, A]]
    states: int  # unique states discovered
    transitions: int  # next_state calls that gave a state
    max_depth: int
    seconds: float
    complete: bool  # every reachable state was explored
    stopped: str  # why the search ended early ("" when it ran to the end)
    strategy: str
    engine: str = ""  # where it ran, if not in this process ("spark")
    cpu_elsewhere: float = 0.0  # CPU seconds of the search's tasks on Spark executors


Progress = Callable[[int, int, float], None]  # (states, depth, seconds)


def explore(
    model: ExplicitModel[S, A],
    properties: Sequence[str] | None = None,
    *,
    strategy: str = "bfs",
    max_states: int | None = None,
    timeout_s: float | None = None,
    progress: Progress | None = None,
    progress_every: int = 100_000,
) -> Exploration[S, A]:
    """Search ``model``'s reachable states for the ``properties`` named (default all).

    The search ends early once every ``always`` property has a counterexample
    (or, when only ``sometimes`` properties are asked, once each has an example).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}")
    started = time.perf_counter()
    props = [p for p in model.properties() if properties is None or p.name in properties]
    if properties is not None:
        missing = set(properties) - {p.name for p in props}
        if missing:
            raise ValueError(f"the model has no property {', '.join(sorted(missing))}")
    decided: dict[str, S] = {}
    stop_when = [p.name for p in props if p.expectation == Expectation.ALWAYS] or [
        p.name for p in props
    ]
    waiting = set(stop_when)  # properties the search may not stop before deciding

    # (property, its holds, its expectation is "always"): the properties still undecided
    watched = [(p, p.holds, p.expectation == Expectation.ALWAYS) for p in props]

    def check(state: S) -> bool:
        """Evaluate the undecided properties on a new state; True when the search may stop."""
        for entry in tuple(watched):
            prop, holds, always = entry
            if holds(state) != always:
                decided[prop.name] = state
                watched.remove(entry)
                waiting.discard(prop.name)
        return not waiting

    parents: dict[S, tuple[S, A] | None] = {}
    frontier: deque[tuple[S, int]] = deque()
    done = False
    for state in model.init_states():
        if state not in parents:
            parents[state] = None
            frontier.append((state, 0))
            done = check(state) or done
    pop = frontier.popleft if strategy == "bfs" else frontier.pop
    actions, next_state = model.actions, model.next_state
    transitions = max_depth = 0
    stopped = "all properties decided" if done else ""
    next_report = progress_every
    with without_cycle_collection():
        while frontier and not stopped:
            if max_states is not None and len(parents) >= max_states:
                stopped = f"state limit ({max_states:,}) reached"
                break
            if timeout_s is not None and time.perf_counter() - started > timeout_s:
                stopped = f"time limit ({timeout_s:g}s) reached"
                break
            state, depth = pop()
            max_depth = max(max_depth, depth)
            for action in actions(state):
                after = next_state(state, action)
                if after is None:
                    continue
                transitions += 1
                seen = len(parents)
                parents.setdefault(after, (state, action))  # one lookup: add it unless known
                if len(parents) == seen:
                    continue
                frontier.append((after, depth + 1))
                if check(after):
                    stopped = "all properties decided"
                    break
                if max_states is not None and len(parents) >= max_states:
                    stopped = f"state limit ({max_states:,}) reached"
                    break
            if progress is not None and len(parents) >= next_report:
                progress(len(parents), max_depth, time.perf_counter() - started)
                next_report += progress_every
    complete = not frontier and not stopped
    outcomes: dict[str, PropertyVerdict[S, A]] = {}
    for prop in props:
        if prop.name in decided:
            path = _path(parents, decided[prop.name])
            verdict = Verdict.VIOLATED if prop.expectation == Expectation.ALWAYS else Verdict.HOLDS
            outcomes[prop.name] = PropertyVerdict(prop.name, prop.expectation, verdict, path)
        elif complete:
            verdict = Verdict.HOLDS if prop.expectation == Expectation.ALWAYS else Verdict.VIOLATED
            outcomes[prop.name] = PropertyVerdict(prop.name, prop.expectation, verdict)
        else:
            outcomes[prop.name] = PropertyVerdict(prop.name, prop.expectation, Verdict.UNKNOWN)
    return Exploration(
        outcomes=outcomes,
        states=len(parents),
        transitions=transitions,
        max_depth=max_depth,
        seconds=time.perf_counter() - started,
        complete=complete,
        stopped="" if complete else stopped or "frontier not exhausted",
        strategy=strategy,
    )


@contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Python's cycle collector off for the search: every state kept in the visited set
    is a tracked object, so each collection walks all of them again (a tenth of the
    search's time), and states, frozen values, make no cycles to collect."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _path(parents: dict[S, tuple[S, A] | None], state: S) -> Path[S, A]:
    steps: list[Step[S, A]] = []
    entry = parents[state]
    while entry is not None:
        previous, action = entry
        steps.append(Step(action, state))
        state = previous
        entry = parents[state]
    return Path(state, tuple(reversed(steps)))


def replay(model: ExplicitModel[S, A], init: S, actions: Iterable[A]) -> Path[S, A]:
    """Run ``actions`` from ``init``, each one enabled where it is taken.

    Raises ``ValueError`` naming the first action that is not enabled
    (``init`` must be one of the model's initial states).
    """
    if init not in list(model.init_states()):
        raise ValueError("the start state is not an initial state of this model")
    state = init
    steps: list[Step[S, A]] = []
    for n, action in enumerate(actions, start=1):
        if action not in list(model.actions(state)):
            raise ValueError(f"step {n}: {action} is not enabled")
        after = model.next_state(state, action)
        if after is None:
            raise ValueError(f"step {n}: {action} leads nowhere")
        steps.append(Step(action, after))
        state = after
    return Path(init, tuple(steps))
