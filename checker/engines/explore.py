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
from checker.engines.options import DEFAULT, Options
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
    "explore_each",
    "replay",
    "verdict_of",
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


def verdict_of(expectation: Expectation, decided: bool, exhausted: bool) -> Verdict:
    """A property's verdict, whichever search found it: ``decided`` (a state decided it:
    an ``always`` one's counterexample, a ``sometimes`` one's example), else, once every
    reachable state was ``exhausted``, what no such state means; else unknown."""
    always = expectation == Expectation.ALWAYS
    if decided:
        return Verdict.VIOLATED if always else Verdict.HOLDS
    if exhausted:
        return Verdict.HOLDS if always else Verdict.VIOLATED
    return Verdict.UNKNOWN


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
    props = _chosen(model, properties)
    how = _Bounds(strategy, max_states, timeout_s, progress, progress_every)
    search = _Search(model, props, [[p.name for p in props]], how, symmetry, exact)
    return search.whole()


def explore_each(
    model: ExplicitModel[S, A],
    checked: Sequence[str],
    watched: Sequence[str] = (),
    options: Options = DEFAULT,
    progress: Progress | None = None,
) -> list[Exploration[S, A]]:
    """One search of ``model`` (as ``options`` say: ``strategy``, ``max_states``,
    ``timeout_s``, ``symmetry``, ``exact``) that gives, for each of the ``checked``
    properties, the exploration that ``explore(model, [p, *watched])`` alone gives: the
    same verdicts, run, and states, transitions and depth at the point where that search
    would have stopped (the search goes on until every check's own search would have
    stopped). ``timeout_s`` is per check: the one search has ``len(checked)`` times it."""
    names = [*checked, *(w for w in watched if w not in checked)]
    alone = [[p, *(w for w in watched if w != p)] for p in checked]
    timeout_s = options.timeout_s
    whole_timeout = None if timeout_s is None else timeout_s * max(1, len(checked))
    how = _Bounds(options.strategy, options.max_states, whole_timeout, progress, 100_000)
    props = _chosen(model, names)
    search = _Search(model, props, alone, how, options.symmetry, options.exact)
    return [search.alone(names) for names in alone]


def _chosen(model: ExplicitModel[Any, Any], properties: Sequence[str] | None) -> list[Any]:
    """The model's properties named (all of them when ``None``), in the model's order."""
    props = [p for p in model.properties() if properties is None or p.name in properties]
    if properties is not None:
        missing = set(properties) - {p.name for p in props}
        if missing:
            raise ValueError(f"the model has no property {', '.join(sorted(missing))}")
    return props


class _Search(Generic[S, A]):
    """One search of a model (run when made), and what it found, as a whole or as the
    search of a few of its properties alone would have found it."""

    def __init__(
        self,
        model: ExplicitModel[S, A],
        props: list[Any],
        stops: list[list[str]],
        how: _Bounds,
        symmetry: bool,
        exact: bool,
    ) -> None:
        if how.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}")
        started = time.perf_counter()
        self.props = {p.name: p for p in props}
        represent: Callable[[S], S] | None = getattr(model, "representative", None)
        self.represent = represent if symmetry else None
        self.fingerprinted = not exact and hasattr(model, "encode") and hasattr(model, "decode")
        self.watch = _Watch(props, stops)
        search = _fingerprinted if self.fingerprinted else _exact
        with without_cycle_collection():
            self.found = search(model, self.watch, self.represent, how)
        self.strategy = how.strategy
        self.seconds = time.perf_counter() - started

    def _outcome(self, name: str, by: int | None) -> PropertyOutcome[S, A]:
        """Property ``name`` as a search that stopped after decision moment ``by`` (None:
        where this search ended) found it."""
        prop, watch = self.props[name], self.watch
        moment = watch.moment_of.get(name)
        decided = moment is not None and (by is None or moment <= by)
        path = self.found.path_to(watch.decided[name]) if decided else None
        verdict = verdict_of(prop.expectation, decided, by is None and self.found.complete)
        return PropertyOutcome(name, prop.expectation, verdict, path)

    def whole(self) -> Exploration[S, A]:
        """What this search found of every property it watched."""
        return self.alone(list(self.props))

    def alone(self, names: list[str]) -> Exploration[S, A]:
        """What a search of ``names`` alone finds: it stops at the moment the last of the
        properties it waits for is decided (if they all are), else where this one ended."""
        found, watch = self.found, self.watch
        by = watch.stop_moment(names)
        outcomes = {n: self._outcome(n, by) for n in names}
        if by is None:
            stopped = "" if found.complete else found.stopped or "frontier not exhausted"
            reach = (found.states, found.transitions, found.max_depth, self.seconds)
            end = (found.complete, stopped)
        else:
            reach, end = watch.moments[by], (False, "all properties decided")
        return Exploration(
            outcomes,
            *reach,
            *end,
            strategy=self.strategy,
            symmetry=self.represent is not None,
            fingerprints=self.fingerprinted,
        )


def _waits_for(props: Sequence[Any]) -> set[str]:
    """The properties a search of ``props`` may not stop before deciding: its ``always``
    ones, or all of them when it has none."""
    always = {p.name for p in props if p.expectation == Expectation.ALWAYS}
    return always or {p.name for p in props}


Moment = tuple[int, int, int, float]  # (states, transitions, depth, seconds) of a search


class _Watch:
    """The properties still undecided, the state (or its number) that decided each, and
    the search's moment when it did. ``stops``: the searches this one stands for (each
    a list of property names); it may stop once each of them could."""

    def __init__(self, props: Sequence[Any], stops: Sequence[Sequence[str]]) -> None:
        self.by_name = {p.name: p for p in props}
        by_name = self.by_name
        self.decided: dict[str, Any] = {}
        self.moment_of: dict[str, int] = {}  # property: the index of its moment
        self.moments: list[Moment] = []
        self.at: Callable[[], Moment] = lambda: (0, 0, 0, 0.0)  # the search's moment now
        self.waits = [_waits_for([by_name[n] for n in names]) for names in stops]
        self.open = sum(1 for w in self.waits if w)  # searches that may not stop yet
        # (property, its holds, its expectation is "always"): the properties still undecided
        self.watched = [(p, p.holds, p.expectation == Expectation.ALWAYS) for p in props]

    def check(self, state: Any, token: Any) -> bool:
        """Evaluate the undecided properties on a new state; True when the search may stop."""
        moment = -1
        for entry in tuple(self.watched):
            prop, holds, always = entry
            if holds(state) != always:
                if moment < 0:
                    self.moments.append(self.at())
                    moment = len(self.moments) - 1
                self.decided[prop.name] = token
                self.moment_of[prop.name] = moment
                self.watched.remove(entry)
                for waits in self.waits:
                    waits.discard(prop.name)
        if moment >= 0:
            self.open = sum(1 for w in self.waits if w)
        return not self.open

    def stop_moment(self, names: Sequence[str]) -> int | None:
        """The moment a search of ``names`` alone stops at (None: it runs to the end)."""
        waits = _waits_for([self.by_name[n] for n in names])
        if not all(n in self.moment_of for n in waits):
            return None
        return max(self.moment_of[n] for n in waits)


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
    transitions = max_depth = 0
    watch.at = lambda: (len(parents), transitions, max_depth, time.perf_counter() - started)
    for state in model.init_states():
        if represent is not None:
            state = represent(state)
        if state not in parents:
            parents[state] = None
            frontier.append((state, 0))
            done = watch.check(state, state) or done
    pop = frontier.popleft if strategy == "bfs" else frontier.pop
    actions, next_state = model.actions, model.next_state
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
    transitions = max_depth = 0
    watch.at = lambda: (len(trace), transitions, max_depth, time.perf_counter() - started)
    for state in model.init_states():
        data = keep(state)
        fp = fingerprint(data)
        if seen.add(fp):
            number = trace.add(fp, -1, 0)
            frontier.append(data if bfs else (data, number, 0))
            done = watch.check(state, number) or done
    actions, next_state = model.actions, model.next_state
    depth = 0
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
