"""The cluster model's symmetry (spec/cluster/symmetry.py, spec/cluster/keys.py) and the
search that uses it.

The proof obligation of the reduction, on states reached by random runs of
several presets and random renamings of the nodes and of the client's keys:
successors commute with renaming, every property judges a state and its
renaming alike, and the representative is one state of the orbit, the same
for all of it. Then the searches: symmetry on and off, fingerprints and exact
sets, get the same verdicts and runs of the same length, each confirmed by
replay.
"""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from durabilityhelp import MODELS, PROPERTIES

from checker.cluster_check import SANITY, model_for, result_of
from checker.engines.explore import explore
from spec.cluster import ACK_RULES, BRANCH_RULES, CLUSTER_PROPERTIES, PRESETS, ClusterModel
from spec.cluster.encode import encode
from spec.cluster.keys import rename_keys
from spec.cluster.state import ClusterState, reset_uuid
from spec.cluster.symmetry import permute, representative
from spec.rules import RULE_SETS

SAMPLED = ("mb-34150", "mb-51805", "small", "mb-34150-wide", "levels-mp-small")


def _model(preset: str, ack: str, branch: str) -> ClusterModel:
    return model_for(
        ACK_RULES.get(ack),
        BRANCH_RULES.get(branch),
        RULE_SETS.get("kv-current"),
        PRESETS[preset].bounds,
        tuple(CLUSTER_PROPERTIES.get(p) for p in PROPERTIES),
    )


def _reached(model: ClusterModel, runs: int, seed: int) -> list[ClusterState]:
    """States along random runs from the initial state (every one reachable)."""
    rng = random.Random(seed)
    out = []
    for _ in range(runs):
        (state,) = model.init_states()
        for _ in range(rng.randrange(1, 40)):
            actions = model.actions(state)
            if not actions:
                break
            state = model.next_state(state, rng.choice(actions))
            out.append(state)
    return out


def _rename(state: ClusterState, nodes: list[int], keys: list[int]) -> ClusterState:
    return rename_keys(permute(state, nodes), keys)


def _renamed_alike(model: ClusterModel, state: ClusterState, rng: random.Random) -> ClusterState:
    """``state`` with its nodes and its client's keys renamed at random, asserted to be
    alike: the same verdict on every property, the renamed successors, the same
    representative."""
    nodes = list(range(len(state.nodes)))
    rng.shuffle(nodes)
    keys = list(range(model.setup.bounds.keys))
    rng.shuffle(keys)
    renamed = _rename(state, nodes, keys)
    for prop in model.properties():
        assert prop.holds(renamed) == prop.holds(state), prop.name
    after = {model.next_state(renamed, a) for a in model.actions(renamed)}
    assert after == {_rename(model.next_state(state, a), nodes, keys) for a in model.actions(state)}
    assert model.representative(renamed) == model.representative(state)
    assert representative(permute(state, nodes)) == representative(state)  # nodes alone
    return renamed


def _cases() -> list[tuple[str, str, str]]:
    return [(p, a, b) for p in SAMPLED for a, b in MODELS[::2]]


@pytest.mark.parametrize("preset, ack, branch", _cases(), ids=["/".join(c) for c in _cases()])
def test_renaming_nodes_commutes_with_successors_and_keeps_every_property(
    preset: str, ack: str, branch: str
) -> None:
    model = _model(preset, ack, branch)
    rng = random.Random(44)
    states = _reached(model, 60, seed=len(preset))
    for state in rng.sample(states, min(len(states), 150)):
        renamed = _renamed_alike(model, state, rng)
        assert model.encode_representative(renamed) == encode(model.representative(state))


@pytest.mark.parametrize("preset", SAMPLED)
def test_the_representative_is_a_renaming_of_the_state(preset: str) -> None:
    model = _model(preset, *MODELS[0])
    for state in _reached(model, 20, seed=3)[::5]:
        orbit = {
            _rename(state, list(nodes), list(keys))
            for nodes in permutations(range(len(state.nodes)))
            for keys in permutations(range(model.setup.bounds.keys))
        }
        assert model.representative(state) in orbit
        assert representative(state) in {
            permute(state, list(p)) for p in permutations(range(len(state.nodes)))
        }


def test_a_key_known_only_to_an_acknowledged_syncwrite_is_renamed_with_it() -> None:
    """After the active that held an acknowledged PREPARE crashes, no node may hold the
    key any more, yet the SyncWrite still names it: two such states that differ only
    by the key's name are one state of the reduced search."""
    model = _model("small", "ack-on-prepare", "highest-snapshot")
    state = next(
        s
        for s in _reached(model, 400, seed=7)
        if s.acknowledged and not any(i.key < 2 for n in s.nodes for i in n.items)
    )
    swapped = rename_keys(state, [1, 0])
    assert swapped != state
    assert model.encode_representative(swapped) == model.encode_representative(state)


def test_a_rollback_to_zero_is_renamed_with_its_node() -> None:
    """The uuid a reset gives node i names node i: renaming the node renames it."""
    model = _model("mb-34150", *MODELS[0])
    state = next(
        s
        for s in _reached(model, 200, seed=5)
        if any(e.uuid == reset_uuid(i) for i, n in enumerate(s.nodes) for e in n.table.entries)
    )
    i = next(
        i
        for i, n in enumerate(state.nodes)
        if any(e.uuid == reset_uuid(i) for e in n.table.entries)
    )
    where = list(range(len(state.nodes)))
    j = (i + 1) % len(where)
    where[i], where[j] = j, i
    moved = permute(state, where).nodes[j]
    assert reset_uuid(j) in {e.uuid for e in moved.table.entries}
    assert reset_uuid(i) not in {e.uuid for e in moved.table.entries}


def _both(preset: str, ack: str, branch: str, **how: bool) -> dict[str, tuple[object, ...]]:
    model = _model(preset, ack, branch)
    found = explore(model, [*PROPERTIES, SANITY], **how)
    out = {}
    for prop in PROPERTIES:
        result = result_of(model, CLUSTER_PROPERTIES.get(prop), found, preset)
        out[prop] = (result.verdict, result.run and len(result.run), result.confirmed)
    return out


FAST = [("mb-51805", a, b) for a, b in MODELS] + [
    ("mb-34150", "ack-at-snapshot-end", "highest-snapshot")
]


@pytest.mark.parametrize("preset, ack, branch", FAST, ids=["/".join(c) for c in FAST])
def test_every_way_of_searching_gets_the_same_verdicts_and_run_lengths(
    preset: str, ack: str, branch: str
) -> None:
    full = _both(preset, ack, branch, symmetry=False, exact=True)
    for symmetry, exact in ((True, True), (False, False), (True, False)):
        assert _both(preset, ack, branch, symmetry=symmetry, exact=exact) == full
    for verdict, _, confirmed in full.values():
        assert verdict.value != "violated" or confirmed


def test_fingerprints_visit_as_many_states_as_the_exact_set() -> None:
    model = _model("mb-51805", "ack-on-prepare", "highest-snapshot")
    exact = explore(model, [SANITY, "prepare-ack-progress"], exact=True)
    fingerprinted = explore(model, [SANITY, "prepare-ack-progress"], exact=False)
    assert fingerprinted.fingerprints and not exact.fingerprints
    assert (fingerprinted.states, fingerprinted.transitions, fingerprinted.max_depth) == (
        exact.states,
        exact.transitions,
        exact.max_depth,
    )


def test_symmetry_off_searches_every_state() -> None:
    model = _model("mb-34150", "ack-on-prepare", "highest-snapshot")
    assert explore(model, [*PROPERTIES, SANITY], symmetry=False).states == 44622
    assert explore(model, [*PROPERTIES, SANITY], symmetry=True).states == 18451


def test_interchangeable_keys_halve_the_states_of_a_model_whose_nodes_are_not() -> None:
    """mb-51805's two nodes never swap roles (no failover), so its reduction is the keys'
    alone: a SyncWrite and a SET on keys A and B, or on B and A, are one state."""
    model = _model("mb-51805", "ack-on-prepare", "highest-snapshot")
    assert explore(model, [*PROPERTIES, SANITY], symmetry=False).states == 2853
    assert explore(model, [*PROPERTIES, SANITY], symmetry=True).states == 1428


def test_renaming_nodes_commutes_with_successors_where_replicas_get_disk_snapshots() -> None:
    """The same obligation on states where a replica receives a disk snapshot or holds
    one's end (``NodeState.snapshot_is_disk``, ``disk_ends``: they move with the node)."""
    model = model_for(
        ACK_RULES.get("ack-at-snapshot-end"),
        BRANCH_RULES.get("highest-snapshot"),
        RULE_SETS.get("kv-current"),
        PRESETS["small"].bounds.but(disk_snapshots=1),
        tuple(CLUSTER_PROPERTIES.get(p) for p in PROPERTIES),
    )
    rng = random.Random(45)
    states = [
        s
        for s in _reached(model, 60, seed=45)
        if any(n.snapshot_is_disk or n.disk_ends for n in s.nodes)
    ]
    assert len(states) > 20
    for state in rng.sample(states, min(len(states), 100)):
        _renamed_alike(model, state, rng)
