"""The multi-node durability model: states and time per preset; BFS vs DFS side by side.

For each preset, the 6.0 rules (ack-on-prepare, persisted-snapshot) and the
fixed rules (ack-at-snapshot-end+restart-fix, highest-snapshot) are checked
for no-lost-syncwrite: unique states explored, seconds, states per second.
Then the same checks with depth-first search, in the same run: a search that
proves ``holds`` visits the same states either way, so the ratio is the cost
of the search order; a violation is found after a different number of states
and DFS's counterexample is longer (BFS's is a shortest one).
"""

from __future__ import annotations

import time

from tabulate import tabulate

from checker.cluster_check import SANITY
from checker.engines.explore import Exploration, explore
from spec.cluster import ACK_RULES, BRANCH_RULES, PRESETS, ClusterModel, Setup
from spec.rules import RULE_SETS

RULES = {
    "6.0": ("ack-on-prepare", "persisted-snapshot"),
    "fixed": ("ack-at-snapshot-end+restart-fix", "highest-snapshot"),
}
PROPERTY = "no-lost-syncwrite"


def _run(preset: str, rules: str, strategy: str) -> tuple[Exploration, float]:
    """The search, and the CPU seconds it took."""
    ack, branch = RULES[rules]
    setup = Setup(
        PRESETS[preset].bounds,
        ACK_RULES.get(ack),
        BRANCH_RULES.get(branch),
        RULE_SETS.get("kv-current"),
    )
    started = time.process_time()
    exploration = explore(ClusterModel(setup), [PROPERTY, SANITY], strategy=strategy)
    return exploration, time.process_time() - started


def _length(e: Exploration) -> str:
    path = e.outcomes[PROPERTY].path
    return "-" if path is None else str(len(path))


def run(quick: bool = False) -> None:
    presets = (
        ["mb-51805", "mb-34150"] if quick else ["mb-51805", "mb-34150", "small", "mb-34150-wide"]
    )
    rows, versus = [], []
    for preset in presets:
        for rules in RULES:
            bfs, cpu = _run(preset, rules, "bfs")
            dfs, _ = _run(preset, rules, "dfs")
            verdict = bfs.outcomes[PROPERTY].verdict.value
            assert verdict == dfs.outcomes[PROPERTY].verdict.value, (preset, rules)
            rate = bfs.states / cpu if cpu else 0.0
            rows.append(
                [
                    preset,
                    rules,
                    verdict,
                    f"{bfs.states:,}",
                    f"{bfs.transitions:,}",
                    bfs.max_depth,
                    f"{bfs.seconds:.2f}",
                    f"{cpu:.2f}",
                    f"{rate:,.0f}",
                ]
            )
            versus.append(
                [
                    preset,
                    rules,
                    verdict,
                    f"{bfs.states:,} / {dfs.states:,}",
                    f"{bfs.seconds:.2f} / {dfs.seconds:.2f}",
                    f"{dfs.seconds / bfs.seconds:.2f}" if bfs.seconds else "-",
                    f"{_length(bfs)} / {_length(dfs)}",
                ]
            )
    print(f"{PROPERTY}, breadth-first (kv-current answers stream requests)")
    print(
        tabulate(
            rows,
            headers=[
                "preset",
                "rules",
                "verdict",
                "states",
                "transitions",
                "depth",
                "seconds",
                "cpu seconds",
                "states / cpu s",
            ],
        )
    )
    print()
    print("BFS vs DFS, same checks, same run")
    print(
        tabulate(
            versus,
            headers=[
                "preset",
                "rules",
                "verdict",
                "states bfs / dfs",
                "seconds bfs / dfs",
                "x bfs (time)",
                "steps bfs / dfs",
            ],
        )
    )
    print()
