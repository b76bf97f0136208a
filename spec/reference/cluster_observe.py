"""Plain, comparable summaries of a cluster state, from the reference or from the model.

``node_summary`` is the one shape both sides produce: ``Cluster.observe()``
(``spec.reference.cluster``) builds it from the reference's objects and
``observe_model_state`` from a model state's JSON form (the ``state`` of each
step of a ``dcpcheck-durability-counterexample/1`` file, ``ClusterState.to_json``),
without importing the model. Replica-side fields (persisted seqno, disk headers, HPS,
streaming) are ``None`` for the active, and a dead node is only ``dead``: the
model clears or ignores them there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["differences", "node_summary", "observe_model_state"]


def node_summary(
    alive: bool,
    role: str,
    items: list[tuple[int, str, str, int, str]],
    persisted: int | None,
    headers: list[int] | None,
    hps: int | None,
    table: list[tuple[int, int]],
    streaming: bool | None,
    snapshot_ends: list[int] | None = None,
    self_acked: list[int] | None = None,
    disk_ends: list[list[int]] | None = None,
    snapshot_is_disk: bool | None = None,
) -> dict[str, Any]:
    if not alive:
        return {"alive": False, "role": "dead"}
    return {
        "alive": True,
        "role": role,
        "high_seqno": len(items),
        "items": items,
        "persisted_seqno": persisted,
        "headers": headers,
        "hps": hps,
        "table": table,
        "streaming": streaming,
        "snapshot_ends": snapshot_ends,
        "self_acked": self_acked,
        "disk_ends": disk_ends,
        "snapshot_is_disk": snapshot_is_disk,
    }


def observe_model_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """``Cluster.observe()``'s summary of a model state in its JSON form (``to_json``)."""
    active = state["active"]
    nodes = {}
    for name, node in state["nodes"].items():
        role = "active" if name == active else ("replica" if node["alive"] else "dead")
        replica = role == "replica"
        nodes[name] = node_summary(
            bool(node["alive"]),
            role,
            [
                (
                    i["seqno"],
                    i["op"],
                    i["key"],
                    i["epoch"],
                    i.get("level", "majority") if i["op"] == "PREPARE" else "",
                )
                for i in node["items"]
            ],
            node["persisted_seqno"] if replica else None,
            # (a file written before headers were recorded has none: it then differs)
            list(node.get("headers", ["not recorded"])) if replica else None,
            node["high_prepared_seqno"] if replica else None,
            [(e["id"], e["seq"]) for e in node["table"]],
            node["connected"] if replica else None,
            list(node.get("snapshot_ends", [])) if replica else None,
            _self_acked(node) if role == "active" else None,
            # (absent from a state without disk snapshots: none)
            [list(d) for d in node.get("disk_ends", [])] if replica else None,
            bool(node.get("snapshot_is_disk", False)) if replica else None,
        )
    acks = None
    if active is not None:
        acks = {
            name: state["acks"][name]
            for name, node in state["nodes"].items()
            if node["alive"] and name != active
        }
    acknowledged = sorted(
        (w["seqno"], w["epoch"], w["key"], w["faults_before"], w.get("level", "majority"))
        for w in state["acknowledged"]
    )
    return {
        "active": active,
        "epoch": state["epoch"],
        "acks": acks,
        "acknowledged": acknowledged,
        "nodes": nodes,
    }


def _self_acked(node: Mapping[str, Any]) -> list[int]:
    """The active's pending PREPAREs it acks itself, read from its JSON: a pending PREPARE
    unpersisted at or below one of a level that needs the active's disk fences it."""
    items = node["items"]
    committed = {i["prepare_seqno"] for i in items if i["op"] == "COMMIT"}
    pending = [i for i in items if i["op"] == "PREPARE" and i["seqno"] not in committed]
    out, fenced = [], False
    for item in pending:
        if item["seqno"] > node["persisted_seqno"] and item.get("level", "majority") != "majority":
            fenced = True
        if not fenced:
            out.append(item["seqno"])
    return out


def differences(reference: Mapping[str, Any], model: Mapping[str, Any]) -> list[str]:
    """Each field where two summaries differ: ``N1.hps: reference 3, model 0``."""
    out = []
    for field in ("active", "epoch", "acks", "acknowledged"):
        if reference[field] != model[field]:
            out.append(f"{field}: reference {reference[field]!r}, model {model[field]!r}")
    for name in sorted(set(reference["nodes"]) | set(model["nodes"])):
        mine = reference["nodes"].get(name, {})
        theirs = model["nodes"].get(name, {})
        for field in sorted(set(mine) | set(theirs)):
            if mine.get(field) != theirs.get(field):
                out.append(
                    f"{name}.{field}: reference {mine.get(field)!r}, model {theirs.get(field)!r}"
                )
    return out
