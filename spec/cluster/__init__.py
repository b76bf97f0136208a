"""The multi-node durability model: SyncWrites across failovers, restarts and rollbacks.

``ClusterModel(Setup(bounds, ack_rule, branch_rule, rules))`` is an
explicit-state model (``init_states``, ``actions``, ``next_state``,
``properties``) that ``checker.engines.explore`` searches. Variants are named:
``ACK_RULES``, ``BRANCH_RULES``, ``CLUSTER_PROPERTIES``; bounds presets are
in ``PRESETS``; the verdicts the built-ins must get are in
``spec.cluster.expected``. docs/durability.md describes the model.
"""

from spec.cluster.bounds import PRESETS, ClusterBounds, Preset, preset
from spec.cluster.model import ClusterModel
from spec.cluster.properties import CLUSTER_PROPERTIES, ClusterProperty
from spec.cluster.rules import ACK_RULES, BRANCH_RULES, AckRule, BranchRule
from spec.cluster.setup import Setup

__all__ = [
    "ACK_RULES",
    "BRANCH_RULES",
    "CLUSTER_PROPERTIES",
    "PRESETS",
    "AckRule",
    "BranchRule",
    "ClusterBounds",
    "ClusterModel",
    "ClusterProperty",
    "Preset",
    "Setup",
    "preset",
]
