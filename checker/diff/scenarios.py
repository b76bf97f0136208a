"""Two resumes of one scenario, side by side: where they first part, and in which region.

A ``Pair`` holds two scenario models built over the same bounds, so they
share every scenario variable: one assignment is one scenario, run twice.

* ``rule_pair``: one consumer variant, rule sets A and B. The two runs are
  identical until the first round whose answers differ; that round's request
  is the same in both runs, and A's and B's decisions on it place the
  scenario in a region of the decision space.
* ``consumer_pair``: one rule set, consumer variants 1 and 2. The runs are
  identical until the first round in which the two consumers send different
  requests (or hold different items); the two decisions of that round place
  the scenario in a region.

Everything that happens after the first divergence follows from it, so a
property that one run violates and the other does not is a consequence of
that region.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter

from checker.diff.regions import (
    REQUEST_CHANGES,
    Region,
    region_condition,
    region_in_fields,
    region_of,
    same_answer,
)
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.expr import TRUE, Expr, Value, all_of, any_of, evaluate
from spec.model.build import ScenarioModel
from spec.rules.inputs import DecisionExprs, producer_decision
from spec.rules.language import RuleSet

__all__ = ["Pair", "consumer_pair", "rule_pair"]

# The request fields a consumer variant chooses (and the trace field for held items).
REQUEST_FIELDS: tuple[str, ...] = ("uuid", "start", "snap_start", "snap_end", "strict")
REQUEST_FIELDS += ("ignore_purged", "remote_purge")


@dataclass(frozen=True)
class Divergence:
    """Round ``index`` is the first in which the two runs differ (when ``first`` holds)."""

    index: int
    first: Expr
    a: DecisionExprs  # A's decision in that round
    b: DecisionExprs
    fields: dict[str, Expr] | None  # the shared decision inputs (rule pairs only)


@dataclass(frozen=True)
class Pair:
    """Two runs of every scenario: ``a`` (the baseline) and ``b`` (the change)."""

    name_a: str
    name_b: str
    model_a: ScenarioModel
    model_b: ScenarioModel
    divergences: tuple[Divergence, ...]
    region_at: Callable[[Region, Divergence], Expr]
    consumer: str  # the consumer variant both runs use ("" for a consumer pair)

    rules_a = property(attrgetter("model_a.rules"))  # RuleSet
    rules_b = property(attrgetter("model_b.rules"))

    @property
    def parts(self) -> Expr:
        """The runs differ at all."""
        return any_of(*(s.first for s in self.divergences))

    def diverges_in(self, region: Region) -> Expr:
        """The runs first differ in a round whose decisions lie in ``region``."""
        return any_of(*(s.first & self.region_at(region, s) for s in self.divergences))

    def split_of(self, values: dict[str, Value]) -> tuple[int, Region] | None:
        """The first round in which the runs differ, and its region (None if they never do)."""
        for divergence in self.divergences:
            if evaluate(divergence.first, values):
                region = region_of(
                    values, self.rules_a, self.rules_b, divergence.a, divergence.b, REQUEST_CHANGES
                )
                return divergence.index, region
        return None


def rule_pair(bounds: Bounds, rules_a: RuleSet, rules_b: RuleSet, variant: ConsumerVariant) -> Pair:
    model_a = ScenarioModel(bounds, rules_a, variant)
    model_b = ScenarioModel(bounds, rules_b, variant)
    model_a.trace, model_b.trace  # noqa: B018 -- building the trace fills round_inputs
    divergences, same_so_far = [], TRUE
    for i, fields in enumerate(model_b.round_inputs):
        a = producer_decision(rules_a, fields)
        b = model_b.round_decisions[i]
        sent = model_b.trace[f"r{i}.sent"]
        divergences.append(
            Divergence(i, all_of(sent, same_so_far, ~same_answer(a, b)), a, b, fields)
        )
        same_so_far = all_of(same_so_far, same_answer(a, b))

    # A region's condition in a round, built once: a diff asks for it in several sweeps, and
    # the same expression objects are translated to Z3 once (its translation memo is by id).
    built: dict[tuple[Region, int], Expr] = {}

    def region_at(region: Region, divergence: Divergence) -> Expr:
        assert divergence.fields is not None
        key = (region, divergence.index)
        if key not in built:
            decisions = (divergence.a, divergence.b)  # producer_decision's on its fields
            fields = divergence.fields
            built[key] = region_in_fields(region, rules_a, rules_b, fields, decisions)
        return built[key]

    return Pair(
        rules_a.name, rules_b.name, model_a, model_b, tuple(divergences), region_at, variant.name
    )


def consumer_pair(
    bounds: Bounds, rules: RuleSet, variant_a: ConsumerVariant, variant_b: ConsumerVariant
) -> Pair:
    model_a = ScenarioModel(bounds, rules, variant_a)
    model_b = ScenarioModel(bounds, rules, variant_b)
    trace_a, trace_b = model_a.trace, model_b.trace
    divergences, same_so_far = [], TRUE
    for i in range(bounds.rounds):
        inputs_a, inputs_b = model_a.round_inputs[i], model_b.round_inputs[i]
        same_request = all_of(
            *(inputs_a[name] == inputs_b[name] for name in REQUEST_FIELDS),
            trace_a[f"r{i}.keep"] == trace_b[f"r{i}.keep"],
        )
        sent = trace_a[f"r{i}.sent"] & trace_b[f"r{i}.sent"]
        a, b = model_a.round_decisions[i], model_b.round_decisions[i]
        divergences.append(Divergence(i, all_of(sent, same_so_far, ~same_request), a, b, None))
        same_so_far = all_of(same_so_far, same_request)

    def region_at(region: Region, divergence: Divergence) -> Expr:
        return region_condition(region, rules, rules, divergence.a, divergence.b)

    return Pair(variant_a.name, variant_b.name, model_a, model_b, tuple(divergences), region_at, "")
