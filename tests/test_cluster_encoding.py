"""A cluster state's bytes and fingerprint (spec/cluster/encode.py): what a search keys on."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import subprocess
import sys

import pytest

from spec.cluster import ACK_RULES, BRANCH_RULES, PRESETS, ClusterModel, Setup
from spec.cluster.encode import decode, encode, fingerprint
from spec.cluster.state import ClusterState, SyncWrite
from spec.rules import RULE_SETS


def _model(
    preset: str, ack: str = "ack-at-snapshot-end", branch: str = "persisted-snapshot", disk: int = 0
):
    setup = Setup(
        PRESETS[preset].bounds.but(disk_snapshots=disk),
        ACK_RULES.get(ack),
        BRANCH_RULES.get(branch),
        RULE_SETS.get("kv-current"),
    )
    return ClusterModel(setup)


def _reachable(model: ClusterModel, limit: int = 50_000) -> list[ClusterState]:
    seen = dict.fromkeys(model.init_states())
    todo = list(seen)
    while todo and len(seen) < limit:
        state = todo.pop()
        for action in model.actions(state):
            after = model.next_state(state, action)
            if after not in seen:
                seen[after] = None
                todo.append(after)
    return list(seen)


@pytest.fixture(scope="module")
def states() -> list[ClusterState]:
    return (
        _reachable(_model("mb-51805"))
        + _reachable(_model("mb-34150"), limit=20_000)
        + _reachable(_model("levels-pm"), limit=10_000)
        + _reachable(_model("small", disk=1), limit=5_000)
    )


def test_the_states_encoded_have_levels_and_fences(states) -> None:
    """The fixture reaches what format 3 added: PREPAREs of other levels than Majority,
    SyncWrites of those levels and replicas with snapshot ends behind a fence."""
    assert any(i.level for s in states for n in s.nodes for i in n.items)
    assert any(w.level for s in states for w in s.in_flight)
    assert any(n.snapshot_ends for s in states for n in s.nodes)


def test_the_states_encoded_have_disk_snapshots(states) -> None:
    """And what format 4 added: replicas receiving a disk snapshot, and disk snapshot
    ends queued in their PassiveDurabilityMonitor."""
    assert any(n.snapshot_is_disk for s in states for n in s.nodes)
    assert any(n.disk_ends for s in states for n in s.nodes)


def test_every_reachable_state_round_trips_through_its_bytes(states) -> None:
    for state in states:
        data = encode(state)
        assert decode(data) == state
        assert encode(decode(data)) == data


def test_different_states_have_different_bytes_and_fingerprints(states) -> None:
    assert len({encode(s) for s in states}) == len(set(states))
    assert len({fingerprint(encode(s)) for s in states}) == len(set(states))


def test_the_bytes_do_not_depend_on_the_encoders_memories(states, monkeypatch) -> None:
    """encode remembers each node's bytes by the node and on its object
    (``NodeState._bytes``), and clears its memories when they are full: a memory of 3
    is cleared all the time, and equal nodes that are other objects give the same bytes."""
    from spec.cluster import encode as encoding

    want = [encode(s) for s in states[:3000]]
    monkeypatch.setattr(encoding, "_MEMORY", 3)
    _forget(encoding)
    copies = [s.but(nodes=tuple(dataclasses.replace(n) for n in s.nodes)) for s in states[:3000]]
    assert [encode(s) for s in states[:3000]] == want
    assert [encode(s) for s in copies] == want
    assert [decode(b) for b in want] == states[:3000]


def _forget(encoding) -> None:
    for memory in (encoding._node_bytes, encoding._node_values):
        memory.clear()


def test_a_model_decodes_onto_the_node_objects_its_own_states_share() -> None:
    """``ClusterModel.decode`` gives back the very node objects the model's states hold
    (its memories then find them by identity), even where the bytes were made in
    another process: here the codec's memories are emptied between encode and decode.
    Plain ``decode`` gives equal nodes that are other objects."""
    from spec.cluster import encode as encoding

    model = _model("mb-51805")
    states = _reachable(model, limit=3000)
    blobs = [encode(s) for s in states]
    _forget(encoding)
    plain = [decode(b) for b in blobs]
    assert plain == states
    assert not any(_same_nodes(s, d) for s, d in zip(states, plain, strict=True))
    _forget(encoding)
    shared = [model.decode(b) for b in blobs]
    assert shared == states
    assert all(_same_nodes(s, d) for s, d in zip(states, shared, strict=True))


def _same_nodes(a: ClusterState, b: ClusterState) -> bool:
    """The two states hold the very same node objects."""
    return all(x is y for x, y in zip(a.nodes, b.nodes, strict=True))


def test_a_node_object_freed_and_its_address_reused_is_not_mistaken(states) -> None:
    """A node's bytes remembered by its object's id stay right when other node objects
    come and go: the memory keeps the node it names alive, so no other node takes its
    id (CPython reuses a freed object's address at once)."""
    for before, after in itertools.pairwise(states[:2001]):
        gone = before.but(nodes=tuple(dataclasses.replace(n) for n in before.nodes))
        assert encode(gone) == encode(before)
        del gone
        fresh = after.but(nodes=tuple(dataclasses.replace(n) for n in after.nodes))
        assert encode(fresh) == encode(after)


def test_numbers_of_several_bytes_round_trip(states) -> None:
    # failover table uuids (0xAAAA, ...) take three bytes; a long history grows every count
    state = states[-1]
    node = state.nodes[0]
    bigger = node.table.create_entry(node.high_seqno, 0x123456789)
    grown = state.with_node(
        0, type(node)(**{**_fields(node), "table": bigger, "persisted_seqno": 300})
    )
    assert decode(encode(grown)) == grown


def test_header_numbers_of_several_bytes_round_trip(states) -> None:
    # the header's counts are read as single bytes first: a longer number before them
    # must still decode, not be refused
    state = states[-1]
    for grown in (
        dataclasses.replace(state, acks=tuple(500 for _ in state.acks)),
        dataclasses.replace(state, epoch=200, restarts=300),
        dataclasses.replace(state, acknowledged=(SyncWrite(200, 1, 0, 0),)),
        dataclasses.replace(state, in_flight=tuple(SyncWrite(130 + i, 1, 0, 0) for i in range(9))),
    ):
        assert decode(encode(grown)) == grown


def _fields(node) -> dict[str, object]:
    return {f.name: getattr(node, f.name) for f in dataclasses.fields(node) if f.init}


def test_fingerprints_are_the_same_in_another_process(states) -> None:
    sample = states[:: max(1, len(states) // 200)]
    blobs = [encode(s).hex() for s in sample]
    script = (
        "import json, sys\n"
        "from spec.cluster.encode import decode, encode, fingerprint\n"
        "blobs = json.load(sys.stdin)\n"
        "print(json.dumps([[fingerprint(bytes.fromhex(b)), encode(decode(bytes.fromhex(b))).hex()]"
        " for b in blobs]))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(blobs),
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    there = json.loads(out)
    assert [f for f, _ in there] == [fingerprint(bytes.fromhex(b)) for b in blobs]
    assert [b for _, b in there] == blobs


def test_a_fingerprint_fits_a_signed_64_bit_column(states) -> None:
    prints = [fingerprint(encode(s)) for s in states]
    assert all(-(2**63) <= f < 2**63 for f in prints)
    assert any(f < 0 for f in prints) and any(f > 0 for f in prints)


def test_bytes_that_are_not_a_state_are_refused(states) -> None:
    data = encode(states[0])
    with pytest.raises(ValueError):
        decode(data[:-1])
    with pytest.raises(ValueError):
        decode(data + b"\x00")
