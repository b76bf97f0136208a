"""Several properties of one (rule set, consumer variant): proved together, searched apart.

``check_together`` asks the solver once whether any of the properties can be
violated. If none can, each holds (one proof of their conjunction proves
each). If some can, the scenario found says which: each of those is checked
on its own, exactly as ``checker.check.check`` checks it (search, minimise,
replay, explain), and the rest are asked again together. An unknown answer
checks the rest one by one. So every verdict, counterexample and id is the
one a check of that property alone gives; what is shared is the proof work
of the properties that hold (make verify's matrix and client catalogue are
mostly such proofs).
"""

from __future__ import annotations

from collections.abc import Sequence

from checker.check import check, reproduce_command
from checker.result import Result, Stats, Verdict
from spec.bounds import Bounds
from spec.consumers import ConsumerVariant
from spec.errors import HarnessBug
from spec.expr import all_of, evaluate
from spec.properties import Property
from spec.reference.simulate import simulate
from spec.rules.language import RuleSet
from spec.trace import TraceFields, trace_values

__all__ = ["check_together"]


def check_together(
    rules: RuleSet,
    variant: ConsumerVariant,
    props: Sequence[Property],
    bounds: Bounds,
    timeout_s: float | None = 120.0,
) -> list[Result]:
    """One ``Result`` per property, in ``props``' order (Z3 engine)."""
    results: dict[str, Result] = {}
    pending = list(props)
    while len(pending) > 1:
        joint = check(rules, variant, _conjunction(pending), bounds, timeout_s, minimise=False)
        if joint.verdict is Verdict.HOLDS:
            results |= _proved_together(joint, pending, rules, variant, bounds)
            pending = []
        elif joint.verdict is Verdict.VIOLATED and joint.witness is not None:
            broken = _violated_by(joint.witness, pending, rules, variant, bounds)
            if not broken:
                raise HarnessBug(
                    f"{rules.name}/{variant.name}: a scenario violates the conjunction of "
                    f"{', '.join(p.id for p in pending)} on the model but none of them on "
                    "the reference implementation"
                )
            for prop in broken:
                results[prop.id] = check(rules, variant, prop, bounds, timeout_s)
            pending = [p for p in pending if p not in broken]
        else:
            break
    for prop in pending:
        results[prop.id] = check(rules, variant, prop, bounds, timeout_s)
    return [results[p.id] for p in props]


def _conjunction(props: Sequence[Property]) -> Property:
    parts = list(props)
    return Property(
        "+".join(p.id for p in parts),
        "safety" if all(p.kind == "safety" for p in parts) else "cost",
        "every one of " + ", ".join(p.id for p in parts),
        lambda t: all_of(*(p.holds(t) for p in parts)),
    )


def _violated_by(
    scenario: object,
    props: Sequence[Property],
    rules: RuleSet,
    variant: ConsumerVariant,
    bounds: Bounds,
) -> list[Property]:
    """The properties the reference implementation's trace of ``scenario`` violates."""
    trace = simulate(scenario, rules, variant, bounds.rounds)  # type: ignore[arg-type]
    values = trace_values(trace, bounds)
    fields = TraceFields(bounds)
    return [p for p in props if not evaluate(p.holds(fields), values)]


def _proved_together(
    joint: Result,
    props: Sequence[Property],
    rules: RuleSet,
    variant: ConsumerVariant,
    bounds: Bounds,
) -> dict[str, Result]:
    share = len(props)
    stats = Stats(joint.stats.seconds / share, joint.stats.cpu_seconds / share)
    note = f"proved in one solver query with {share - 1} other properties (its time split evenly)"
    return {
        p.id: joint.but(
            property=p.id,
            kind=p.kind,
            command=reproduce_command(rules.name, variant.name, p.id, bounds),
            note=note,
            stats=stats,
        )
        for p in props
    }
