"""Replay a stored durability counterexample on the reference cluster, step by step."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from spec.reference.cluster import PROPERTIES, ActionNotEnabled, Cluster
from spec.reference.cluster_observe import differences, observe_model_state

__all__ = ["reference_knows", "replay_on_reference"]


def replay_on_reference(stored: Mapping[str, Any] | str | Path) -> tuple[bool, str]:
    """Replay a stored counterexample (its JSON record, or the file) on the reference.

    Every step's action must be enabled here, the observed summary must equal the
    recorded state's after every step, and the reference's own evaluation of the
    property must fail at the last step and not before.
    """
    record = stored if isinstance(stored, Mapping) else json.loads(Path(stored).read_text())
    prop = record["property"]
    cluster = Cluster(record["bounds"], record["ack_rule"], record["branch_rule"], record["rules"])
    if "init" in record:
        diff = differences(cluster.observe(), observe_model_state(record["init"]))
        if diff:
            return False, "initial state differs: " + "; ".join(diff)
    steps = record["steps"]
    check = PROPERTIES[prop]
    sometimes = check.expectation == "sometimes"
    for n, step in enumerate(steps, start=1):
        if not sometimes and not check.holds(cluster):
            return False, f"{prop} already fails on the reference before step {n}"
        try:
            cluster.apply(step["action"])
        except ActionNotEnabled as exc:
            return False, f"step {n}: the reference refuses it: {exc}"
        if "state" in step:
            diff = differences(cluster.observe(), observe_model_state(step["state"]))
            if diff:
                label = json.dumps(step["action"], sort_keys=True)
                return False, f"step {n} {label}: " + "; ".join(diff)
    if check.holds(cluster) != sometimes:
        where = "is not reached" if sometimes else "holds"
        return False, f"{prop} {where} on the reference at the end of the run"
    return True, check.evidence(cluster)


def reference_knows(prop: str) -> bool:
    """True if the reference cluster has its own reading of property ``prop``."""
    return prop in PROPERTIES
