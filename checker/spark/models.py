"""The scenario model on an executor, rebuilt from names and bounds.

Tasks carry names (built-in, or a shipped file: ``checker.spark.shipping``)
and bounds, never model terms. The model last built is kept, so the next
task of the same check in this Python worker starts from it (its
expressions, cached, are most of the cost).
"""

from __future__ import annotations

from spec.bounds import Bounds
from spec.model.build import ScenarioModel
from spec.properties import Property

__all__ = ["scenario_model"]

_built: dict[tuple[str, str, str, Bounds], tuple[ScenarioModel, Property]] = {}


def scenario_model(
    rules: str, consumer: str, prop: str, bounds: Bounds
) -> tuple[ScenarioModel, Property]:
    """The model of (``rules``, ``consumer``) within ``bounds`` and the property ``prop``,
    named as ``checker.spark.shipping.ship`` names them."""
    from checker.loading import resolve
    from checker.spark.shipping import on_executor
    from spec.consumers import CONSUMERS, ConsumerVariant
    from spec.properties import PROPERTIES
    from spec.rules import RULE_SETS, RuleSet

    key = (rules, consumer, prop, bounds)
    if key not in _built:
        _built.clear()
        model = ScenarioModel(
            bounds,
            resolve(RULE_SETS, RuleSet, on_executor(rules)),
            resolve(CONSUMERS, ConsumerVariant, on_executor(consumer)),
        )
        _built[key] = (model, resolve(PROPERTIES, Property, on_executor(prop)))
    return _built[key]
