"""Producer rule sets in clause form, by name.

``RULE_SETS.get("kv-current")``; user rule sets are ``RuleSet`` values in a
``.py`` file (see docs/authoring-rules.md), loaded by ``checker.loading``.
"""

from spec.registry import Registry
from spec.rules.inputs import Decider, DecisionExprs, DecisionSpace
from spec.rules.language import (
    FIELDS,
    Adjust,
    Clause,
    F,
    RuleSet,
    accept,
    otherwise,
    rollback,
)

__all__ = [
    "FIELDS",
    "RULE_SETS",
    "Adjust",
    "Clause",
    "Decider",
    "DecisionExprs",
    "DecisionSpace",
    "F",
    "RuleSet",
    "accept",
    "otherwise",
    "rollback",
]


def _builtins() -> None:
    from spec.rules import kv_current, rollback_doc

    for module in (kv_current, rollback_doc):
        RULE_SETS.register(module.RULES.name, module.RULES)


RULE_SETS: Registry[RuleSet] = Registry("rules", _builtins)
