"""Cluster states as values: generated copies, hashes kept, remembered node effects,
and a search that leaves the cycle collector as it found it."""

from __future__ import annotations

import dataclasses
import gc
import pickle

import pytest

from checker.engines.explore import explore
from spec.cluster import ACK_RULES, BRANCH_RULES, PRESETS, ClusterModel, Setup
from spec.cluster.replica import received
from spec.cluster.state import ClusterState, NodeState
from spec.rules import RULE_SETS


def _model() -> ClusterModel:
    setup = Setup(
        PRESETS["mb-51805"].bounds,
        ACK_RULES.get("ack-at-snapshot-end"),
        BRANCH_RULES.get("persisted-snapshot"),
        RULE_SETS.get("kv-current"),
    )
    return ClusterModel(setup)


@pytest.fixture(scope="module")
def states() -> list[ClusterState]:
    m = _model()
    seen = list(m.init_states())
    for state in list(seen):
        for action in m.actions(state):
            seen.append(m.next_state(state, action))
    for state in list(seen):
        for action in m.actions(state):
            seen.append(m.next_state(state, action))
    return seen


def _init_fields(value: object) -> dict[str, object]:
    return {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init}


def test_but_makes_the_value_dataclasses_replace_makes(states) -> None:
    for state in states:
        node = state.nodes[1]
        changed = node.but(connected=not node.connected, persisted_seqno=3)
        expected = dataclasses.replace(node, connected=not node.connected, persisted_seqno=3)
        assert changed == expected and hash(changed) == hash(expected)
        assert _init_fields(node.but()) == _init_fields(node)
        moved = state.but(epoch=state.epoch + 1)
        assert moved == dataclasses.replace(state, epoch=state.epoch + 1)
        assert moved != state


def test_a_copy_inherits_no_cached_value(states) -> None:
    state = next(s for s in states if s.nodes[0].pending_prepares())
    node = state.nodes[0]
    hash(node)
    assert node.pending_prepares()
    emptied = node.but(items=())
    assert emptied.pending_prepares() == ()
    assert hash(emptied) == hash(NodeState(**{**_init_fields(node), "items": ()}))
    state.replicas()
    crashed = state.but(active=None)
    assert crashed.replicas() == tuple(i for i, n in enumerate(state.nodes) if n.alive)


def test_equal_states_are_equal_whoever_made_them(states) -> None:
    for state in states:
        rebuilt = ClusterState(
            **{
                **_init_fields(state),
                "nodes": tuple(NodeState(**_init_fields(n)) for n in state.nodes),
            }
        )
        assert rebuilt == state and hash(rebuilt) == hash(state)
        assert rebuilt is not state


def test_pickled_states_come_back_equal_with_fresh_caches(states) -> None:
    for state in states:
        hash(state)
        copy = pickle.loads(pickle.dumps(state))
        assert copy._hash == 0  # not carried over: another process hashes strings otherwise
        assert all(n._hash == 0 for n in copy.nodes)
        assert copy == state and hash(copy) == hash(state)


def test_remembered_node_effects_are_the_effects(states) -> None:
    m = _model()
    for state in states:
        active = state.active_node
        for action in m.actions(state):
            if type(action).__name__ != "ReplicateItem" or active is None:
                continue
            node = state.nodes[action.node]
            once = m.setup.remembered(received, active, node)
            assert once == received(m.setup, active, node)
            assert m.setup.remembered(received, active, node) is once


@pytest.mark.parametrize("collecting", [True, False])
def test_a_search_leaves_the_cycle_collector_as_it_found_it(collecting) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if collecting else gc.disable()
        result = explore(_model())
        assert result.complete
        assert gc.isenabled() is collecting
    finally:
        gc.enable() if was else gc.disable()


def test_a_search_whose_node_memory_fills_finds_the_same_states(monkeypatch) -> None:
    """The node memory (``Setup.remembered``, ``Setup.canonical``) is cleared when it
    fills; the nodes made after are equal to the ones forgotten, so nothing changes."""
    whole = explore(_model())
    monkeypatch.setattr("spec.cluster.setup._MEMORY", 50)
    cleared = explore(_model())
    assert whole.complete and cleared.complete
    assert (cleared.states, cleared.max_depth) == (whole.states, whole.max_depth)
