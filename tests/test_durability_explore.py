"""The explicit-state checker (checker.engines.explore) on a toy model it knows nothing about."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from checker.engines.explore import explore, explore_each, replay
from checker.engines.options import Options
from checker.result import Verdict


@dataclass(frozen=True)
class Prop:
    name: str
    expectation: str
    test: object

    def holds(self, state: tuple[int, int]) -> bool:
        return self.test(state)


class TwoCounters:
    """x and y count up to ``top``; ``reset`` sets x back to 0. 0 <= x, y <= top."""

    def __init__(self, top: int = 3) -> None:
        self.top = top

    def init_states(self) -> list[tuple[int, int]]:
        return [(0, 0)]

    def actions(self, state: tuple[int, int]) -> list[str]:
        x, y = state
        out = []
        if x < self.top:
            out.append("inc-x")
        if y < self.top:
            out.append("inc-y")
        if x:
            out.append("reset-x")
        return out

    def next_state(self, state: tuple[int, int], action: str) -> tuple[int, int]:
        x, y = state
        return {"inc-x": (x + 1, y), "inc-y": (x, y + 1), "reset-x": (0, y)}[action]

    def properties(self) -> list[Prop]:
        return [
            Prop("sum-below-5", "always", lambda s: s[0] + s[1] < 5),
            Prop("never-3-3", "always", lambda s: s != (3, 3)),
            Prop("bounded", "always", lambda s: max(s) <= self.top),
            Prop("reaches-corner", "sometimes", lambda s: s == (self.top, self.top)),
            Prop("reaches-nowhere", "sometimes", lambda s: s[0] > self.top),
            Prop("reaches-x-2", "sometimes", lambda s: s[0] == 2),
        ]


def test_bfs_visits_every_reachable_state_once_and_proves_an_invariant() -> None:
    result = explore(TwoCounters(3), ["bounded"])
    assert result.complete and result.stopped == ""
    assert result.states == 16  # x, y in 0..3
    assert result.transitions == 36  # 12 inc-x + 12 inc-y + 12 reset-x
    assert result.outcomes["bounded"].verdict is Verdict.HOLDS
    assert result.outcomes["bounded"].path is None


def test_bfs_counterexample_is_a_shortest_path_of_named_actions() -> None:
    result = explore(TwoCounters(3), ["sum-below-5"])
    outcome = result.outcomes["sum-below-5"]
    assert outcome.verdict is Verdict.VIOLATED
    assert outcome.path is not None and len(outcome.path) == 5
    assert outcome.path.init == (0, 0)
    assert sum(outcome.path.last_state) == 5
    assert not result.complete and result.stopped == "all properties decided"


def test_dfs_finds_a_violation_too_but_not_necessarily_the_shortest() -> None:
    bfs = explore(TwoCounters(3), ["never-3-3"])
    dfs = explore(TwoCounters(3), ["never-3-3"], strategy="dfs")
    assert bfs.outcomes["never-3-3"].verdict is Verdict.VIOLATED
    assert dfs.outcomes["never-3-3"].verdict is Verdict.VIOLATED
    assert len(bfs.outcomes["never-3-3"].path) == 6
    assert len(dfs.outcomes["never-3-3"].path) >= 6


def test_sometimes_property_holds_with_an_example_or_fails_after_a_full_search() -> None:
    result = explore(TwoCounters(2), ["reaches-corner", "reaches-nowhere"])
    corner, nowhere = result.outcomes["reaches-corner"], result.outcomes["reaches-nowhere"]
    assert corner.verdict is Verdict.HOLDS and corner.path is not None
    assert corner.path.last_state == (2, 2) and len(corner.path) == 4
    assert nowhere.verdict is Verdict.VIOLATED and result.complete


def test_a_state_limit_gives_unknown_never_holds() -> None:
    result = explore(TwoCounters(3), ["bounded"], max_states=5)
    assert result.outcomes["bounded"].verdict is Verdict.UNKNOWN
    assert not result.complete and "state limit" in result.stopped


def test_replay_runs_enabled_actions_and_names_the_first_disabled_one() -> None:
    model = TwoCounters(2)
    path = replay(model, (0, 0), ["inc-x", "inc-x", "reset-x"])
    assert path.states() == [(0, 0), (1, 0), (2, 0), (0, 0)]
    with pytest.raises(ValueError, match="step 3: inc-x is not enabled"):
        replay(model, (0, 0), ["inc-x", "inc-x", "inc-x"])


def test_unknown_property_names_are_refused() -> None:
    with pytest.raises(ValueError, match="no property typo"):
        explore(TwoCounters(2), ["typo"])


def test_progress_is_reported_each_time_the_search_has_found_every_more_states() -> None:
    reports: list[tuple[int, int]] = []
    explore(
        TwoCounters(3),
        ["bounded"],
        progress=lambda states, depth, _seconds: reports.append((states, depth)),
        progress_every=5,
    )
    assert reports == [(5, 1), (10, 2), (15, 4)]


@pytest.mark.parametrize("watched", ["reaches-nowhere", "reaches-x-2"])
@pytest.mark.parametrize("max_states", [None, 12])
@pytest.mark.parametrize("strategy", ["bfs", "dfs"])
def test_one_search_gives_each_check_what_its_own_search_finds(
    strategy: str, max_states: int | None, watched: str
) -> None:
    # an always violated early, one violated late, one that holds, a sometimes that is
    # reached: each stops its own search at a different point, or never
    checked = ["sum-below-5", "never-3-3", "bounded", "reaches-corner"]
    how = {"strategy": strategy, "max_states": max_states}
    options = Options(strategy=strategy, max_states=max_states, exact=True, symmetry=False)
    each = explore_each(TwoCounters(3), checked, [watched], options)
    if max_states is None:  # the corner is reached, whatever was decided on the way
        assert each[3].outcomes["reaches-corner"].verdict is Verdict.HOLDS
    for prop, got in zip(checked, each, strict=True):
        want = explore(TwoCounters(3), [prop, watched], **how)
        assert {n: o.verdict for n, o in got.outcomes.items()} == {
            n: o.verdict for n, o in want.outcomes.items()
        }
        got_runs = {n: o.path and o.path.actions() for n, o in got.outcomes.items()}
        assert got_runs == {n: o.path and o.path.actions() for n, o in want.outcomes.items()}
        assert (got.states, got.transitions, got.max_depth) == (
            want.states,
            want.transitions,
            want.max_depth,
        )
        assert (got.complete, got.stopped) == (want.complete, want.stopped)
