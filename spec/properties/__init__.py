"""The property catalogue, by stable id: ``PROPERTIES.get("no-missed-item")``.

A property is a formula over the trace fields of ``spec.trace`` that is true
when the property holds. The same formula is searched by Z3 (over the
symbolic model's trace) and evaluated on a trace the reference
implementation produced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from spec.bounds import Bounds
from spec.expr import Compiled, Expr, Value
from spec.registry import Registry
from spec.trace import Trace, TraceFields

__all__ = ["PROPERTIES", "Property"]


@dataclass(frozen=True)
class Property:
    """A named formula over trace fields; ``explanation`` says, from a reference
    trace that violates it, what went wrong (in one line)."""

    id: str
    kind: Literal["safety", "cost"]
    summary: str
    formula: Callable[[TraceFields], Expr]
    explanation: Callable[[Trace, Bounds], str] | None = None
    # For a property that holds key by key: its part for one key, ``formula`` being the
    # conjunction of the parts over every key. Keys are interchangeable in the model, so
    # a solver may look for a violation at one key only (``ScenarioModel.violation``).
    per_key: Callable[[TraceFields, int], Expr] | None = None

    @property
    def name(self) -> str:
        return self.id

    def holds(self, fields: TraceFields) -> Expr:
        return self.formula(fields)

    def on_trace(self, bounds: Bounds) -> Expr:
        """The formula over a reference trace's fields within ``bounds`` (what replay and
        the explanation evaluate): built once per property and bounds in a process, the
        same expression ``holds(TraceFields(bounds))`` builds each time."""
        return _on_trace(self, bounds)

    def holds_on(self, values: Mapping[str, Value], bounds: Bounds) -> bool:
        """``on_trace(bounds)`` evaluated on one resume's trace ``values`` (compiled once
        per property and bounds in a process: replay evaluates it on every counterexample)."""
        return bool(_on_trace_program(self, bounds)(values)[0])

    def explain(self, trace: Trace, bounds: Bounds) -> str:
        """What goes wrong in ``trace`` (a run that violates this property), in one line."""
        if self.explanation is not None:
            text = self.explanation(trace, bounds)
            if text:
                return text
        return f"{self.id} is violated"


@lru_cache(maxsize=256)  # no-needless-rollback's formula takes a tenth of a second to build
def _on_trace(prop: Property, bounds: Bounds) -> Expr:
    return prop.holds(TraceFields(bounds))


@lru_cache(maxsize=256)
def _on_trace_program(prop: Property, bounds: Bounds) -> Compiled:
    return Compiled([_on_trace(prop, bounds)])


def _builtins() -> None:
    from spec.properties import catalogue

    for prop in catalogue.CATALOGUE:
        PROPERTIES.register(prop.id, prop)


PROPERTIES: Registry[Property] = Registry("property", _builtins)
