"""In-process durability results, computed once per test run (several tests compare them)."""

from __future__ import annotations

from functools import cache

from checker.cluster_check import check_durability
from checker.result import Result
from spec.cluster import ACK_RULES, BRANCH_RULES, CLUSTER_PROPERTIES, PRESETS
from spec.rules import RULE_SETS

PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")
MODELS = [(a, b) for a in ACK_RULES.names() for b in BRANCH_RULES.names()]


@cache
def in_process(preset: str, ack: str, branch: str, prop: str) -> Result:
    return check_durability(
        ACK_RULES.get(ack),
        BRANCH_RULES.get(branch),
        CLUSTER_PROPERTIES.get(prop),
        RULE_SETS.get("kv-current"),
        PRESETS[preset].bounds,
        preset=preset,
    )


def same_search(a: Result, b: Result) -> dict[str, tuple[object, object]]:
    """What two searches of one check disagree on (empty: nothing)."""
    fields = {
        "verdict": (a.verdict, b.verdict),
        "states": (a.stats.states, b.stats.states),
        "max_depth": (a.stats.max_depth, b.stats.max_depth),
        "complete": (a.stats.complete, b.stats.complete),
        "steps": (a.run and len(a.run), b.run and len(b.run)),
        "counterexample": (a.ident, b.ident),
        "confirmed": (a.confirmed, b.confirmed),
        "vacuous": (a.vacuous, b.vacuous),
        "explanation": (a.explanation, b.explanation),
    }
    return {k: v for k, v in fields.items() if v[0] != v[1]}
