"""Where a replica's rollback lands on couchstore: the cluster model, kv-replica, the references.

kv_engine eba4298, ``CouchKVStore::rollback``: rewind to the newest header <= R; with
``couchstore_midpoint_rollback_optimisation`` (default on) reset to 0 when
``totSeqCount / 2 <= rollbackSeqCount``, counting the file's by-seqno entries from that
header to the newest, both included. ``spec.cluster.disk`` and
``spec.reference.cluster.Cluster.rollback_point`` are written apart; both are pinned here,
and a hypothesis test requires that they agree.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import scenarios

from checker.confirm import replay_scenario
from spec.bounds import Bounds
from spec.cluster.disk import changes_count, newest_header_at_or_below, rollback_landing
from spec.cluster.state import COMMIT, PREPARE, SET, ClusterItem
from spec.consumers import CONSUMERS
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.reference.cluster import Cluster
from spec.reference.cluster_node import ClusterItem as RefItem
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Failover, Mutation, Scenario
from spec.trace import trace_values


def sets(*keys: int) -> tuple[ClusterItem, ...]:
    return tuple(ClusterItem(SET, k, 0) for k in keys)


def reference_landing(
    items: tuple[ClusterItem, ...], headers: tuple[int, ...], seqno: int, midpoint: bool
) -> int:
    cluster = Cluster(
        {"nodes": 2, "midpoint_rollback": int(midpoint)}, "ack-on-prepare", "highest-snapshot"
    )
    replica = cluster.nodes[1]
    replica.items = [RefItem(i.op, chr(ord("A") + i.key), i.epoch, i.prepare_seqno) for i in items]
    replica.disk.headers = list(headers)
    replica.disk.seqno = headers[-1] if headers else 0
    return cluster.rollback_point(replica, seqno)


def both(
    items: tuple[ClusterItem, ...], headers: tuple[int, ...], seqno: int, midpoint: bool
) -> int:
    model = rollback_landing(items, headers, seqno, midpoint)
    assert reference_landing(items, headers, seqno, midpoint) == model
    return model


def test_it_lands_on_the_newest_header_at_or_below_the_rollback_seqno() -> None:
    items = sets(0, 1, 2, 3, 4, 5, 6, 7)
    headers = (2, 5, 8)  # three flushes, each spanning several seqnos
    assert [both(items, headers, r, midpoint=False) for r in range(9)] == [
        0, 0, 2, 2, 2, 5, 5, 5, 8,
    ]  # fmt: skip
    assert newest_header_at_or_below(headers, 4) == 2


def test_no_header_at_or_below_the_rollback_seqno_resets_the_vbucket() -> None:
    assert both(sets(0, 1, 2), (3,), 2, midpoint=False) == 0
    assert both(sets(0, 1, 2), (), 2, midpoint=False) == 0


def test_a_flush_spanning_several_snapshots_leaves_no_header_between_them() -> None:
    # Snapshots [1,2] and [3,4] flushed together: one header, at 4; R = 2 (the first
    # snapshot's end) finds no header at or below it.
    assert both(sets(0, 1, 2, 3), (4,), 2, midpoint=False) == 0
    assert both(sets(0, 1, 2, 3), (2, 4), 2, midpoint=False) == 2


@pytest.mark.parametrize(
    "entries, header, landing",
    [
        # 6 entries, 6 // 2 = 3: discarding seqnos 5..6 (2 entries) is fine, 4..6 is not.
        (6, 5, 5),
        (6, 4, 0),
        # 5 entries, 5 // 2 = 2: discarding 4..5 (2 entries, both counted) resets.
        (5, 4, 0),
        (5, 5, 5),
        # 4 entries: discarding only the header's own entry (4..4) is 1 < 2.
        (4, 4, 4),
        (4, 3, 0),
        # 3 entries: 3 // 2 = 1 <= any count, so every rollback resets.
        (3, 3, 0),
    ],
)
def test_the_midpoint_reset_compares_half_the_entries_with_an_inclusive_count(
    entries: int, header: int, landing: int
) -> None:
    items = sets(*range(entries))
    headers = tuple(range(1, entries + 1))
    assert both(items, headers, header, midpoint=True) == landing
    assert both(items, headers, header, midpoint=False) == header


def test_entries_are_documents_a_prepare_apart_from_its_committed_value() -> None:
    # 1:SET(A) 2:PREPARE(A) 3:COMMIT(A) 4:SET(B) 5:SET(A): A's committed value at 5, its
    # prepare at 2, B at 4: 3 entries.
    items = (
        ClusterItem(SET, 0, 0),
        ClusterItem(PREPARE, 0, 0),
        ClusterItem(COMMIT, 0, 0, 2),
        ClusterItem(SET, 1, 0),
        ClusterItem(SET, 0, 0),
    )
    assert changes_count(items, 5, 0, 5) == 3
    assert changes_count(items, 5, 3, 5) == 2
    assert changes_count(items, 3, 0, 3) == 2  # the file at its header 3: A@3, PREPARE(A)@2


OPS = st.sampled_from([SET, SET, PREPARE, COMMIT])


@st.composite
def disks(draw: st.DrawFn) -> tuple[tuple[ClusterItem, ...], tuple[int, ...], int]:
    length = draw(st.integers(0, 10))
    items = tuple(ClusterItem(draw(OPS), draw(st.integers(0, 3)), 0) for _ in range(length))
    flushed = draw(st.sets(st.integers(1, length), max_size=length)) if length else set()
    headers = tuple(sorted(flushed))
    return items, headers, draw(st.integers(0, length + 1))


@settings(max_examples=300, deadline=None)
@given(disks(), st.booleans())
def test_model_and_reference_land_a_rollback_on_the_same_seqno(disk, midpoint: bool) -> None:
    items, headers, seqno = disk
    landing = both(items, headers, seqno, midpoint)
    assert landing == 0 or (landing in headers and landing <= seqno)
    if not midpoint:
        assert landing == newest_header_at_or_below(headers, seqno) or seqno == 0


# -- kv-replica (the single-node scenario model) -------------------------------------------
# kv-replica lands on its header h (the highest seqno it holds at or below R, nothing
# persisted above h); the midpoint rule resets it when its file at h has at most
# 2 * 1 + 1 = 3 entries (one per key).

LARGE = Bounds(seqnos=6, keys=4, entries=2, failovers=1)


def story(keys: tuple[int, ...]) -> Scenario:
    """1:SET(A), then snapshot [2,6]: 2:SET(A) ... 6:SET(A), received deduplicated
    (2:SET(A) away); the next producer kept the history up to 5."""
    history = (Mutation(0), Mutation(0), *(Mutation(k) for k in keys), Mutation(0))
    high = len(history)
    return Scenario(
        history=history,
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(1, high),
        received=high,
        failovers=(Failover(high - 1, 2222),),
    )


def replayed(scenario: Scenario, consumer: str, bounds: Bounds = LARGE):
    model = ScenarioModel(bounds, RULE_SETS.get("kv-current"), CONSUMERS.get(consumer))
    replay = replay_scenario(scenario, model, PROPERTIES.get("no-missed-item"))
    assert not replay.mismatches, replay.mismatches  # the model predicts the reference's trace
    return replay


def test_kv_replica_loses_a_key_when_its_file_holds_four_keys() -> None:
    # File at h = 5: A@1 B@3 C@4 D@5, 4 entries; discarding 1 (5..5) is below 4 / 2.
    replay = replayed(story((1, 2, 3)), "kv-replica")
    assert replay.violated_on_reference and replay.confirmed
    assert replay.trace is not None and replay.trace.rounds[0].decision.rollback_seqno == 5


def test_the_midpoint_reset_saves_kv_replica_when_its_file_holds_three_keys() -> None:
    # File at h = 4: A@1 B@3 C@4, 3 entries: 3 / 2 <= 1, so the vbucket is reset to 0.
    small = Bounds(seqnos=5, keys=3, entries=2, failovers=1)
    assert not replayed(story((1, 2)), "kv-replica", small).violated_on_reference
    off = replayed(story((1, 2)), "kv-replica:midpoint=off", small)
    assert off.violated_on_reference and off.confirmed


@pytest.mark.parametrize("consumer", ["kv-replica", "kv-replica:midpoint=off"])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(scenario=scenarios(LARGE))
def test_kv_replica_model_and_reference_agree_on_large_vbuckets(consumer, scenario) -> None:
    model = MODELS[consumer]
    reference = trace_values(simulate(scenario, model.rules, model.variant, LARGE.rounds), LARGE)
    predicted = model.predicted(scenario)
    assert {k: v for k, v in predicted.items() if k in reference} == reference


MODELS = {
    name: ScenarioModel(LARGE, RULE_SETS.get("kv-current"), CONSUMERS.get(name))
    for name in ("kv-replica", "kv-replica:midpoint=off")
}
