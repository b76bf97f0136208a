"""The cluster model against its independent reference (spec/reference/cluster*.py).

The reference is a plain, mutable simulation of docs/durability.md written
apart from ``spec.cluster``. Here it replays (a) every stored counterexample,
matching each recorded state and confirming the violation with its own
properties, and (b) random walks of the model under every ack rule, branch
rule and rule set, where both must agree on the state summary, the enabled
actions and each property after every step. (c) and (d) show the comparison
has teeth: the reference refuses what is not enabled, and a reference with a
wrong ack rule is caught at the step where it goes wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clihelp import MB51805_STALL, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker.cluster_check import model_for
from checker.confirm import replay_stored
from spec.cluster import ACK_RULES, BRANCH_RULES, ClusterBounds, ClusterModel, preset
from spec.cluster.actions import Action, action_from_json
from spec.failover_table import FailoverTable
from spec.reference.cluster import ActionNotEnabled, Cluster
from spec.reference.cluster_node import ClusterItem, Node
from spec.reference.cluster_observe import differences, observe_model_state
from spec.reference.cluster_replay import replay_on_reference
from spec.rules import RULE_SETS

ROOT = Path(__file__).resolve().parent.parent
STORED = sorted(
    p
    for p in (ROOT / "counterexamples" / "durability").glob("*.json")
    if not p.name.endswith(".itf.json")
)
PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress", "syncwrite-acknowledged")
# ClientPrepare(A), ClientSet(B), CloseSnapshot, then N1 receives the marker and 1:PREPARE(A).
PREPARE_RECEIVED = [
    {"name": "ClientPrepare", "key": "A"},
    {"name": "ClientSet", "key": "B"},
    {"name": "CloseSnapshot"},
    {"name": "ReplicateItem", "node": "N1"},
    {"name": "ReplicateItem", "node": "N1"},
]


def build(
    ack: str,
    branch: str,
    preset_name: str,
    rules: str = "kv-current",
    midpoint: int = 1,
    disk: int = 0,
) -> ClusterModel:
    return model_for(
        ACK_RULES.get(ack),
        BRANCH_RULES.get(branch),
        RULE_SETS.get(rules),
        preset(preset_name).bounds.but(midpoint_rollback=midpoint, disk_snapshots=disk),
    )


def model_record(model: ClusterModel, actions: list[Action], prop: str) -> dict[str, Any]:
    """A counterexample-shaped record of ``actions`` taken on ``model``."""
    (state,) = model.init_states()
    init = state
    steps = []
    for action in actions:
        state = model.next_state(state, action)
        steps.append({"action": action.to_json(), "state": state.to_json()})
    setup = model.setup
    return {
        "ack_rule": setup.ack_rule.id,
        "branch_rule": setup.branch_rule.id,
        "rules": setup.rules.name,
        "property": prop,
        "bounds": setup.bounds.to_json(),
        "init": init.to_json(),
        "steps": steps,
    }


def as_set(actions: list[dict[str, Any]]) -> set[tuple[tuple[str, Any], ...]]:
    return {tuple(sorted(a.items())) for a in actions}


# -- (a) stored counterexamples ---------------------------------------------------------


@pytest.mark.parametrize("path", STORED, ids=[p.name[:60] for p in STORED])
def test_the_reference_confirms_every_stored_counterexample(path: Path) -> None:
    confirmed, detail = replay_on_reference(path)
    assert confirmed, detail


@pytest.mark.parametrize("path", STORED, ids=[p.name[:60] for p in STORED])
def test_replay_counterexample_confirms_on_model_and_reference(path: Path) -> None:
    replayed = replay_stored(path).replayed
    assert replayed.confirmed, replayed.detail


def test_a_recorded_state_the_reference_does_not_reach_is_named(tmp_path: Path) -> None:
    path = next(p for p in STORED if p.name.startswith("prepare-ack-progress"))
    record = json.loads(path.read_text())
    record["steps"][4]["state"]["nodes"]["N1"]["high_prepared_seqno"] = 7
    confirmed, detail = replay_on_reference(record)
    assert not confirmed
    assert detail.startswith("step 5 ") and "N1.hps: reference 0, model 7" in detail


def test_the_stored_mb34150_run_is_the_seeds_scenario_on_the_reference() -> None:
    path = next(p for p in STORED if "ack-on-prepare--persisted-snapshot" in p.name)
    record = json.loads(path.read_text())
    cluster = Cluster(record["bounds"], record["ack_rule"], record["branch_rule"], record["rules"])
    for step in record["steps"]:
        cluster.apply(step["action"])
    assert cluster.active is not None and cluster.active.name == "N2"
    assert cluster.lost_syncwrites() == [(3, 0, "A", 0, "majority")]
    assert cluster.failures == 2 and cluster.majority == 3
    # one failure more (a restart) and a majority has failed since the ack: no longer owed
    cluster.restarts += 1
    assert cluster.lost_syncwrites() == []


def test_a_rollback_keeps_the_hps_of_the_last_prepare_at_or_below_its_landing() -> None:
    """Cluster's rollback: an HPS above the landing falls to the last PREPARE kept, 0 when the
    landing is below every PREPARE (the random walks below rarely get there at their
    sizes; the wide preset's searches, now replayed from stored runs, did)."""
    node = Node(1, FailoverTable.of((1, 0)))
    node.items = [
        ClusterItem("SET", "A", 0),
        ClusterItem("PREPARE", "B", 0),
        ClusterItem("SET", "C", 0),
    ]
    node.items.append(ClusterItem("PREPARE", "A", 0))
    assert [node.last_prepare_up_to(x) for x in range(6)] == [0, 0, 2, 2, 4, 4]


# -- (b) random walks: model and reference in lockstep ------------------------------------


def walk_in_lockstep(model: ClusterModel, cluster: Cluster, choices: list[int], what: str) -> None:
    """Take the enabled action each choice picks, on the model and on the reference: after
    every step both enable the same actions, hold the same state and judge every property
    alike."""
    bound = {p.name: p for p in model.properties()}
    (state,) = model.init_states()
    taken: list[str] = []
    for choice in choices:
        where = f"{what} after {taken}"
        enabled = model.actions(state)
        assert as_set([a.to_json() for a in enabled]) == as_set(cluster.enabled()), where
        if not enabled:
            break
        action = enabled[choice % len(enabled)]
        taken.append(str(action))
        state = model.next_state(state, action)
        cluster.apply(action.to_json())
        diff = differences(cluster.observe(), observe_model_state(state.to_json()))
        assert not diff, f"{where}: {diff}"
        for name in PROPERTIES:
            assert bound[name].holds(state) == cluster.holds(name), f"{name}: {where}"


@st.composite
def walks(draw: st.DrawFn) -> tuple[str, str, str, str, int, int, list[int]]:
    ack = draw(st.sampled_from(ACK_RULES.names()))
    branch = draw(st.sampled_from(BRANCH_RULES.names()))
    preset_name = draw(st.sampled_from(["mb-34150", "mb-51805", "small"]))
    rules = draw(st.sampled_from(RULE_SETS.names()))
    midpoint = draw(st.sampled_from([1, 0]))  # couchstore's midpoint rollback on or off
    disk = draw(st.sampled_from([0, 1]))  # backfills (disk snapshots) off or on
    choices = draw(st.lists(st.integers(0, 2**16), min_size=5, max_size=25))
    return ack, branch, preset_name, rules, midpoint, disk, choices


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks())
def test_model_and_reference_agree_along_random_walks(
    walk: tuple[str, str, str, str, int, int, list[int]],
) -> None:
    ack, branch, preset_name, rules, midpoint, disk, choices = walk
    model = build(ack, branch, preset_name, rules, midpoint, disk)
    cluster = Cluster(model.setup.bounds.to_json(), ack, branch, rules)
    walk_in_lockstep(
        model,
        cluster,
        choices,
        f"{ack}/{branch}/{preset_name}/{rules}/midpoint {midpoint}/disk snapshots {disk}",
    )


@st.composite
def level_walks(draw: st.DrawFn) -> tuple[str, str, ClusterBounds, list[int]]:
    """Walks with SyncWrites of mixed levels (and flushes that stop after one item)."""
    ack = draw(st.sampled_from(ACK_RULES.names()))
    branch = draw(st.sampled_from(BRANCH_RULES.names()))
    base = draw(st.sampled_from(["small", "mb-34150"]))
    levels = draw(st.sampled_from([13, 31, 3, 2, 23, 32]))
    bounds = preset(base).bounds.but(
        levels=levels,
        partial_flush=draw(st.sampled_from([0, 1])),
        disk_snapshots=draw(st.sampled_from([0, 1])),
        keys=2,
        prepares=2,
        sets=0,
        items=draw(st.sampled_from([4, 5])),
    )
    choices = draw(st.lists(st.integers(0, 2**16), min_size=8, max_size=30))
    return ack, branch, bounds, choices


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level_walks())
def test_model_and_reference_agree_along_random_walks_of_mixed_levels(
    walk: tuple[str, str, ClusterBounds, list[int]],
) -> None:
    ack, branch, bounds, choices = walk
    model = model_for(
        ACK_RULES.get(ack), BRANCH_RULES.get(branch), RULE_SETS.get("kv-current"), bounds
    )
    walk_in_lockstep(
        model,
        Cluster(bounds.to_json(), ack, branch),
        choices,
        f"{ack}/{branch}/{bounds.describe()}",
    )


# -- (c) the reference refuses what is not enabled -----------------------------------------


def test_commit_before_any_ack_is_refused() -> None:
    cluster = Cluster(
        preset("mb-51805").bounds.to_json(), "ack-at-snapshot-end", "highest-snapshot"
    )
    cluster.ClientPrepare(key="A")
    with pytest.raises(ActionNotEnabled, match=r"Commit: PREPARE 1 is acked by 1 nodes"):
        cluster.Commit()
    with pytest.raises(ActionNotEnabled, match="no PREPARE is pending"):
        Cluster(preset("small").bounds.to_json(), "ack-on-prepare", "highest-snapshot").Commit()


def test_other_disabled_actions_are_refused_with_a_reason() -> None:
    cluster = Cluster(preset("mb-34150").bounds.to_json(), "ack-on-prepare", "persisted-snapshot")
    with pytest.raises(ActionNotEnabled, match="N0 is active, not a replica"):
        cluster.apply({"name": "ReplicateItem", "node": "N0"})
    with pytest.raises(ActionNotEnabled, match="nothing to receive"):
        cluster.apply({"name": "ReplicateItem", "node": "N1"})
    with pytest.raises(ActionNotEnabled, match="N0 is active"):
        cluster.apply({"name": "PromoteReplica", "node": "N1"})
    cluster.CrashActive()
    with pytest.raises(ActionNotEnabled, match="high seqno 0, another has 2"):
        cluster.PromoteReplica(node="N3")
    with pytest.raises(ActionNotEnabled, match="no active"):
        cluster.ClientPrepare(key="A")
    with pytest.raises(ActionNotEnabled, match="unknown action"):
        cluster.apply({"name": "Abort"})


# -- (d) a wrong reference is caught --------------------------------------------------------


def test_acking_on_receipt_under_ack_at_snapshot_end_is_caught(monkeypatch) -> None:
    model = build("ack-at-snapshot-end", "highest-snapshot", "mb-51805")
    actions = [action_from_json(a, "walk") for a in PREPARE_RECEIVED]
    record = model_record(model, actions, "no-lost-syncwrite")
    assert replay_on_reference(record) == (
        False,
        "no-lost-syncwrite holds on the reference at the end of the run",
    )
    # The broken reference: the HPS moves as each PREPARE arrives, whatever the rule.
    monkeypatch.setattr(Cluster, "acks_at_snapshot_end", property(lambda self: False))
    confirmed, detail = replay_on_reference(record)
    assert not confirmed
    assert detail.startswith("step 5 ") and "N1.hps: reference 1, model 0" in detail
    mb51805 = next(p for p in STORED if p.name.startswith("prepare-ack-progress"))
    confirmed, detail = replay_on_reference(mb51805)
    assert not confirmed and "hps" in detail
    replayed = replay_stored(mb51805).replayed
    assert not replayed.confirmed and replayed.detail.startswith("the reference disagrees: step")


def test_a_violation_the_reference_does_not_confirm_is_a_harness_bug(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    args = [
        *MB51805_STALL,
        "--out",
        tmp_path,
    ]
    assert run_cli(args, "", monkeypatch, capsys).code == 0  # MB-51805, confirmed, as expected
    monkeypatch.setattr(Cluster, "acks_at_snapshot_end", property(lambda self: False))
    result = run_cli(args, "", monkeypatch, capsys)
    assert result.code == 4
    assert "NOT CONFIRMED" in result.out and "HARNESS BUG" in result.out
