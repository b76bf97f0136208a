"""In-process durability results, computed once per test run (several tests compare them)."""

from __future__ import annotations

from functools import cache

from checker.cluster_check import (
    SANITY,
    DurabilityCell,
    check_durability,
    model_for,
    result_of,
)
from checker.engines.options import DEFAULT
from checker.engines.registry import EXPLORE
from checker.result import Result
from spec.cluster import ACK_RULES, BRANCH_RULES, CLUSTER_PROPERTIES, PRESETS
from spec.rules import RULE_SETS

PROPERTIES = ("no-lost-syncwrite", "prepare-ack-progress")
MODELS = [(a, b) for a in ACK_RULES.names() for b in BRANCH_RULES.names()]


@cache
def together(preset: str, ack: str, branch: str) -> tuple[dict[str, Result], int | None]:
    """Both properties of one model decided by one breadth-first search (the engine
    watches several properties at once: each verdict and counterexample is the one its
    own search finds, since every search visits states in the same order), and the
    number of unique states when the search was complete."""
    model = model_for(
        ACK_RULES.get(ack),
        BRANCH_RULES.get(branch),
        RULE_SETS.get("kv-current"),
        PRESETS[preset].bounds,
        tuple(CLUSTER_PROPERTIES.get(p) for p in PROPERTIES),
    )
    explorations = EXPLORE.each(model, PROPERTIES, [SANITY], DEFAULT)
    results = {
        p: result_of(model, CLUSTER_PROPERTIES.get(p), found, preset)
        for p, found in zip(PROPERTIES, explorations, strict=True)
    }
    complete = [found.states for found in explorations if found.complete]
    return results, complete[0] if complete else None


@cache
def in_process(preset: str, ack: str, branch: str, prop: str) -> Result:
    return check_durability(
        DurabilityCell(
            ACK_RULES.get(ack),
            BRANCH_RULES.get(branch),
            CLUSTER_PROPERTIES.get(prop),
            RULE_SETS.get("kv-current"),
            PRESETS[preset].bounds,
            preset,
        )
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
