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
import math
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from checker.engines import STRATEGIES
from checker.result import Verdict
from spec.cluster.protocol import Expectation, ExplicitModel
from spec.errors import HarnessBug

__all__ = [
    "STRATEGIES",
    "Exploration",
    "Path",
    "PropertyOutcome",
    "Transition",
    "concrete",
    "explore",
    "replay",
]

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")


@dataclass(frozen=True)
class Transition(Generic[S, A]):
    action: A
    state: S  # the state the action led to


@dataclass(frozen=True)
class Path(Generic[S, A]):
    """A run of the model: an initial state and the named actions taken from it."""

    init: S
    steps: tuple[Transition[S, A], ...]

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
class PropertyOutcome(Generic[S, A]):
    """One property's verdict. ``path``: the counterexample of a violated ``always``,
    or the example that makes a ``sometimes`` hold."""

    property: str
    expectation: Expectation
    verdict: Verdict
    path: Path[S, A] | None = None


@dataclass(frozen=True)
class Exploration(Generic[S, A]):
    outcomes: dict[str, PropertyOutcome[S, A]]
    states: int  # unique states discovered
    transitions: int  # next_state calls that gave a state
    max_depth: int
    seconds: float
    complete: bool  # every reachable state was explored
    stopped: str  # why the search ended early ("" when it ran to the end)
    strategy: str
    symmetry: bool = False  # the search visited one representative per orbit
    fingerprints: bool = False  # the visited set kept fingerprints (may hide a state)
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
    symmetry: bool = False,
    exact: bool = True,
) -> Exploration[S, A]:
    """Search ``model``'s reachable states for the ``properties`` named (default all).

    The search ends early once every ``always`` property has a counterexample
    (or, when only ``sometimes`` properties are asked, once each has an example).
    ``symmetry``: visit one state per orbit, the model's ``representative`` (if it
    declares one). ``exact``: keep every state in the visited set; otherwise keep
    a 64-bit fingerprint of its bytes (the model's ``encode``/``decode``; a model
    without them is searched exactly), the frontier as bytes and a trace from
    which a run is rebuilt by re-running the model (``checker.engines.fingerprints``).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}")
    started = time.perf_counter()
    props = [p for p in model.properties() if properties is None or p.name in properties]
    if properties is not None:
        missing = set(properties) - {p.name for p in props}
        if missing:
            raise ValueError(f"the model has no property {', '.join(sorted(missing))}")
    represent: Callable[[S], S] | None = getattr(model, "representative", None)
    if not symmetry:
        represent = None
    fingerprinted = not exact and hasattr(model, "encode") and hasattr(model, "decode")
    watch = _Watch(props)
    search = _fingerprinted if fingerprinted else _exact
    with without_cycle_collection():
        found = search(
            model,
            watch,
            represent,
            _Bounds(strategy, max_states, timeout_s, progress, progress_every),
        )
    complete = found.complete
    outcomes: dict[str, PropertyOutcome[S, A]] = {}
    for prop in props:
        if prop.name in watch.decided:
            path = found.path_to(watch.decided[prop.name])
            verdict = Verdict.VIOLATED if prop.expectation == Expectation.ALWAYS else Verdict.HOLDS
            outcomes[prop.name] = PropertyOutcome(prop.name, prop.expectation, verdict, path)
        elif complete:
            verdict = Verdict.HOLDS if prop.expectation == Expectation.ALWAYS else Verdict.VIOLATED
            outcomes[prop.name] = PropertyOutcome(prop.name, prop.expectation, verdict)
        else:
            outcomes[prop.name] = PropertyOutcome(prop.name, prop.expectation, Verdict.UNKNOWN)
    return Exploration(
        outcomes=outcomes,
        states=found.states,
        transitions=found.transitions,
        max_depth=found.max_depth,
        seconds=time.perf_counter() - started,
        complete=complete,
        stopped="" if complete else found.stopped or "frontier not exhausted",
        strategy=strategy,
        symmetry=represent is not None,
        fingerprints=fingerprinted,
    )


class _Watch:
    """The properties still undecided, and the state (or its number) that decided each."""

    def __init__(self, props: Sequence[Any]) -> None:
        self.decided: dict[str, Any] = {}
        stop_when = [p.name for p in props if p.expectation == Expectation.ALWAYS] or [
            p.name for p in props
        ]
        self.waiting = set(stop_when)  # properties the search may not stop before deciding
        # (property, its holds, its expectation is "always"): the properties still undecided
        self.watched = [(p, p.holds, p.expectation == Expectation.ALWAYS) for p in props]

    def check(self, state: Any, token: Any) -> bool:
        """Evaluate the undecided properties on a new state; True when the search may stop."""
        for entry in tuple(self.watched):
            prop, holds, always = entry
            if holds(state) != always:
                self.decided[prop.name] = token
                self.watched.remove(entry)
                self.waiting.discard(prop.name)
        return not self.waiting


class _Bounds(NamedTuple):
    """How a search goes and when it stops: its order, its state and time limits, where
    its progress goes and every how many states."""

    strategy: str
    max_states: int | None
    timeout_s: float | None
    progress: Progress | None
    every: int


@dataclass
class _Found(Generic[S, A]):
    states: int
    transitions: int
    max_depth: int
    complete: bool
    stopped: str
    path_to: Callable[[Any], Path[S, A]]


def _limit_reached(count: int, max_states: int | None, decided: bool = False) -> str:
    """Why the search stops once it has ``count`` states (``""``: it goes on);
    ``decided``: the newest of them decided the last property waited for."""
    if decided:
        return "all properties decided"
    if max_states is not None and count >= max_states:
        return f"state limit ({max_states:,}) reached"
    return ""


def _report(bounds: _Bounds, states: int, depth: int, started: float) -> int:
    """Say how far the search is (to ``bounds.progress``); how many states until next."""
    assert bounds.progress is not None  # reports are due only when there is one
    bounds.progress(states, depth, time.perf_counter() - started)
    return bounds.every


def _out_of_room(
    count: int, max_states: int | None, started: float, timeout_s: float | None
) -> str:
    """Why the search stops before expanding another state (``""``: it goes on)."""
    stopped = _limit_reached(count, max_states)
    if not stopped and timeout_s is not None and time.perf_counter() - started > timeout_s:
        stopped = f"time limit ({timeout_s:g}s) reached"
    return stopped


def _exact(
    model: Any, watch: _Watch, represent: Callable[[Any], Any] | None, bounds: _Bounds
) -> _Found[Any, Any]:
    """The visited set keeps every state (a representative, under symmetry) with its
    parent and the action from it."""
    strategy, max_states, timeout_s = bounds.strategy, bounds.max_states, bounds.timeout_s
    started = time.perf_counter()
    parents: dict[Any, tuple[Any, Any] | None] = {}
    frontier: deque[tuple[Any, int]] = deque()
    done = False
    for state in model.init_states():
        if represent is not None:
            state = represent(state)
        if state not in parents:
            parents[state] = None
            frontier.append((state, 0))
            done = watch.check(state, state) or done
    pop = frontier.popleft if strategy == "bfs" else frontier.pop
    actions, next_state = model.actions, model.next_state
    transitions = max_depth = 0
    stopped = "all properties decided" if done else ""
    next_report = math.inf if bounds.progress is None else bounds.every  # next report at
    check = watch.check
    while frontier and not stopped:
        stopped = _out_of_room(len(parents), max_states, started, timeout_s)
        if stopped:
            break
        state, depth = pop()
        max_depth = max(max_depth, depth)
        for action in actions(state):
            after = next_state(state, action)
            if after is None:
                continue
            transitions += 1
            if represent is not None:
                if after in parents:  # a representative already (most are): known
                    continue
                after = represent(after)
            seen = len(parents)
            parents.setdefault(after, (state, action))  # one lookup: add it unless known
            if len(parents) == seen:
                continue
            frontier.append((after, depth + 1))
            stopped = _limit_reached(len(parents), max_states, check(after, after))
            if stopped:
                break
        if len(parents) >= next_report:
            next_report += _report(bounds, len(parents), max_depth, started)

    def path_to(state: Any) -> Path[Any, Any]:
        path = _path(parents, state)
        if represent is None:
            return path
        return concrete(model, path.states(), represent)

    return _Found(
        len(parents), transitions, max_depth, not frontier and not stopped, stopped, path_to
    )


def _fingerprinted(
    model: Any, watch: _Watch, represent: Callable[[Any], Any] | None, bounds: _Bounds
) -> _Found[Any, Any]:
    """The visited set keeps a 64-bit fingerprint of each state's bytes; the frontier
    holds the bytes; the trace, each state's parent and action (by number)."""
    from checker.engines.fingerprints import FingerprintSet, Queue, Trace
    from spec.cluster.encode import fingerprint

    strategy, max_states, timeout_s = bounds.strategy, bounds.max_states, bounds.timeout_s
    started = time.perf_counter()
    seen = FingerprintSet()
    trace = Trace()
    bfs = strategy == "bfs"
    frontier: Any = Queue() if bfs else deque()
    encode, decode = model.encode, model.decode
    # the bytes the search keeps for a state: its representative's, under symmetry
    keep: Callable[[Any], bytes] = encode
    if represent is not None:
        keep = getattr(model, "encode_representative", None) or (lambda s: encode(represent(s)))
    done = False
    for state in model.init_states():
        data = keep(state)
        fp = fingerprint(data)
        if seen.add(fp):
            number = trace.add(fp, -1, 0)
            frontier.append(data if bfs else (data, number, 0))
            done = watch.check(state, number) or done
    actions, next_state = model.actions, model.next_state
    transitions = max_depth = depth = 0
    level_end = len(trace)  # bfs: the number of the first state of the next level
    popped = 0
    stopped = "all properties decided" if done else ""
    next_report = math.inf if bounds.progress is None else bounds.every  # next report at
    check, add, record = watch.check, seen.add, trace.add
    while frontier and not stopped:
        stopped = _out_of_room(len(trace), max_states, started, timeout_s)
        if stopped:
            break
        if bfs:
            data = frontier.popleft()
            number = popped  # first in, first out: the n-th popped is the n-th found
            popped += 1
            if number >= level_end:
                depth += 1
                level_end = len(trace)
        else:
            data, number, depth = frontier.pop()
        max_depth = max(max_depth, depth)
        state = decode(data)
        for index, action in enumerate(actions(state)):
            after = next_state(state, action)
            if after is None:
                continue
            transitions += 1
            blob = keep(after)
            fp = fingerprint(blob)
            if not add(fp):
                continue
            found = record(fp, number, index)
            frontier.append(blob if bfs else (blob, found, depth + 1))
            # the successor, not its representative: every property judges them alike
            stopped = _limit_reached(len(trace), max_states, check(after, found))
            if stopped:
                break
        if len(trace) >= next_report:
            next_report += _report(bounds, len(trace), max_depth, started)

    if bfs:
        frontier.close()  # its file, if it has one: the search is over

    def key(state: Any) -> int:
        return fingerprint(keep(state))

    def path_to(number: int) -> Path[Any, Any]:
        return concrete(model, trace.lineage(number), key)

    return _Found(
        len(trace), transitions, max_depth, not frontier and not stopped, stopped, path_to
    )


def concrete(
    model: ExplicitModel[S, A], keys: Sequence[Any], key: Callable[[S], Any]
) -> Path[S, A]:
    """The run of the model whose states have ``keys`` (as ``key`` gives them): from the
    initial state with the first key, at each step the first action whose successor has
    the next key. A search that kept representatives, or fingerprints, found a run of
    keys; this is a run of named steps from the model's own initial state that has them
    (under symmetry: the run of renamings of the states the search visited)."""
    starts = [s for s in model.init_states() if key(s) == keys[0]]
    if not starts:
        raise HarnessBug("no initial state has the first key of the run a search found")
    state = starts[0]
    init = state
    steps: list[Transition[S, A]] = []
    for n, want in enumerate(keys[1:], start=1):
        for action in model.actions(state):
            after = model.next_state(state, action)
            if after is not None and key(after) == want:
                steps.append(Transition(action, after))
                state = after
                break
        else:
            raise HarnessBug(f"no action leads to step {n} of the run a search found")
    return Path(init, tuple(steps))


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
    steps: list[Transition[S, A]] = []
    entry = parents[state]
    while entry is not None:
        previous, action = entry
        steps.append(Transition(action, state))
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
    steps: list[Transition[S, A]] = []
    for n, action in enumerate(actions, start=1):
        if action not in list(model.actions(state)):
            raise ValueError(f"step {n}: {action} is not enabled")
        after = model.next_state(state, action)
        if after is None:
            raise ValueError(f"step {n}: {action} leads nowhere")
        steps.append(Transition(action, after))
        state = after
    return Path(init, tuple(steps))
