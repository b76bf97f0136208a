"""The black-box search: every scenario of some first histories played to a client.

``judge_part`` plays every scenario of the first histories numbered
``start, start + step, ...`` below ``end`` (``checker.engines.exhaustive``: the
same scenario space, in the same order) to one client, evaluates every property on each trace
(the properties' formulas over the trace fields, as the reference's replay
does), and keeps for each property its smallest violating scenario
(``size``: the measures a minimisation shrinks, most important first; ties
go to the first in the enumeration's order). A part is the unit Spark runs
on an executor with its own adapter process (``checker.spark.clients``), so
parts merge (``merge``) into what one search of them all would give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from checker.adapter.client import Client
from checker.adapter.play import play
from checker.adapter.protocol import AdapterFault
from checker.engines.exhaustive import history_at, scenarios
from spec.bounds import Bounds
from spec.expr import Compiled
from spec.properties import Property
from spec.reference.simulate import NotARun
from spec.rules import RuleSet
from spec.scenario import Scenario
from spec.trace import Trace, TraceFields, resume_values

__all__ = ["Judge", "PartSummary", "judge_part", "merge", "size"]


def size(s: Scenario) -> tuple[int, ...]:
    """What minimisation shrinks, most important first: seqnos, failovers, their new
    mutations, resumes, table entries, snapshots, what was received, the purge seqno."""
    failovers = s.all_failovers
    return (
        len(s.history) + sum(len(f.mutations) for f in failovers),
        len(failovers),
        len(s.later),
        len(s.table),
        len(s.snapshot_ends) + sum(len(c.snapshot_ends) for c in s.later),
        s.received + sum(c.received for c in s.later),
        s.purge_seqno + sum(c.purge_seqno for c in s.later),
        s.first_snapshot_start,
    )


@dataclass
class PartSummary:
    """What a part found: scenarios examined (and ruled out by the client's mitigation),
    each violated property's smallest scenario (with its size and place in the order), and
    the first fault of the adapter (kind, detail, the scenario it was playing)."""

    examined: int = 0
    not_runs: int = 0
    smallest: dict[str, tuple[tuple[int, ...], tuple[int, int], Scenario]] = field(
        default_factory=dict
    )
    fault: tuple[str, str, Scenario | None] | None = None
    # CPU seconds spent where the caller's clock cannot see: a Spark task's Python worker
    # and the adapter process it started and reaped (0 for a part judged in this process,
    # whose adapter is this process's own child)
    cpu_elsewhere: float = 0.0


class Judge:
    """``judge(trace)``: the ids of the properties a trace violates (any resume)."""

    def __init__(self, props: Sequence[Property], bounds: Bounds) -> None:
        fields = TraceFields(bounds)
        self.ids = [p.id for p in props]
        self.bounds = bounds
        self._program = Compiled([p.holds(fields) for p in props])

    def __call__(self, trace: Trace) -> set[str]:
        out: set[str] = set()
        for values in resume_values(trace, self.bounds):
            for pid, holds in zip(self.ids, self._program(values), strict=True):
                if not holds:
                    out.add(pid)
        return out


def judge_part(
    client: Client,
    rules: RuleSet,
    props: Sequence[Property],
    bounds: Bounds,
    start: int,
    end: int,
    mitigation: bool = False,
    first: Iterable[Scenario] = (),
    progress: Callable[[int], None] | None = None,
    stop: Callable[[PartSummary], bool] | None = None,
    step: int = 1,
) -> PartSummary:
    """Judge every scenario of the first histories ``start, start + step, ...`` below
    ``end`` (after the ``first`` scenarios, if given: tried before the rest);
    ``stop(part)``, asked before each history: nothing more is needed."""
    judge = Judge(props, bounds)
    part = PartSummary()

    def examine(order: tuple[int, int], scenario: Scenario) -> bool:
        try:
            played = play(client, scenario, rules, bounds.rounds, mitigation, told=False)
        except NotARun:
            part.not_runs += 1
            return True
        except AdapterFault as fault:
            part.fault = (fault.kind, fault.detail, scenario)
            return False
        part.examined += 1
        measure = size(scenario)
        for pid in judge(played.trace):
            known = part.smallest.get(pid)
            if known is None or (measure, order) < known[:2]:
                part.smallest[pid] = (measure, order, scenario)
        if progress is not None and part.examined % 500 == 0:
            progress(part.examined)
        return True

    for n, scenario in enumerate(first):
        if not examine((-1, n), scenario):
            return part
    for index in range(start, end, step):
        if stop is not None and stop(part):
            return part
        for n, scenario in enumerate(scenarios(bounds, history_at(bounds, index))):
            if not examine((index, n), scenario):
                return part
    return part


def merge(parts: Iterable[PartSummary]) -> PartSummary:
    """Parts judged apart, as one search of them all would have judged them."""
    out = PartSummary()
    for part in parts:
        out.examined += part.examined
        out.not_runs += part.not_runs
        for pid, found in part.smallest.items():
            known = out.smallest.get(pid)
            if known is None or found[:2] < known[:2]:
                out.smallest[pid] = found
        if out.fault is None and part.fault is not None:
            out.fault = part.fault
        out.cpu_elsewhere += part.cpu_elsewhere
    return out
