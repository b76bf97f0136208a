"""Evaluate a user's consumer variant once, here, before any search or Spark task.

A variant that cannot be evaluated (Python control flow on an expression, an
exception, a result of the wrong type) fails while its model is built, with
one line naming ``file:line`` (``spec.consumers.calls``). Building it here, in
the driver at the smallest bounds, reports that before a Spark executor
would meet it (where it would surface as a Spark failure, not as exit 2).
"""

from __future__ import annotations

from collections.abc import Iterable

from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant
from spec.model.build import ScenarioModel
from spec.rules import RULE_SETS

__all__ = ["probe_consumers"]

SMALLEST = Bounds(seqnos=1, keys=1, entries=2, failovers=1, rounds=2)


def probe_consumers(variants: Iterable[ConsumerVariant]) -> None:
    """Build each non-built-in variant's symbolic model (both rounds call every method)."""
    builtin = list(CONSUMERS)
    for variant in variants:
        if not any(variant is b for b in builtin):
            ScenarioModel(SMALLEST, RULE_SETS.get("kv-current"), variant).trace  # noqa: B018
