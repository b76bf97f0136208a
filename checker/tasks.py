"""Checks named by their definitions' names: what a Spark executor is sent.

A task is picklable (names, bounds and limits, never a rule set or a
property, which hold functions): ``task.run()`` resolves the names again
(built-ins, or ``FILE.py[:NAME]`` shipped with the job) and returns a
``checker.result.Result``, plain data the driver collects, with the verdict
the harness must reproduce for it, if one is recorded (``spec.expected``,
``spec.cluster.expected``). A single-node task is one door of ``checker.cell``:
its ``Result`` is the one ``dcpcheck check`` gives for the same cell.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

from checker.engines.options import DEFAULT, Options
from checker.result import Result
from spec.bounds import Bounds
from spec.cluster import ClusterBounds

if TYPE_CHECKING:
    from checker.cell import MatrixCell
    from checker.cluster_check import DurabilityCell

__all__ = [
    "AnyTask",
    "ClusterGroupTask",
    "ClusterTask",
    "ScenarioGroupTask",
    "ScenarioTask",
    "Task",
    "planned_any",
    "run_any",
    "run_task",
]


@dataclass(frozen=True)
class ScenarioTask:
    rules: str  # NAME or FILE.py[:NAME]
    consumer: str
    property: str
    bounds: Bounds
    options: Options = DEFAULT
    engine: str = "z3"  # a name in checker.engines.registry.SCENARIO_ENGINES

    @builtins.property  # the field named property shadows the builtin here
    def label(self) -> str:
        every = " (every number of sessions)" if self.options.every_session else ""
        return f"{self.rules}/{self.consumer}: {self.property}{every}"

    def _cell(self) -> MatrixCell:
        from checker.cell import MatrixCell
        from checker.loading import resolve
        from spec.consumers import CONSUMERS, ConsumerVariant
        from spec.properties import PROPERTIES, Property
        from spec.rules import RULE_SETS, RuleSet

        return MatrixCell(
            resolve(RULE_SETS, RuleSet, self.rules),
            resolve(CONSUMERS, ConsumerVariant, self.consumer),
            resolve(PROPERTIES, Property, self.property),
            self.bounds,
        )

    def run(self) -> Result:
        """The cell's ``Result`` (``checker.cell.check_cell``, as ``dcpcheck check`` gives it)."""
        from checker.cell import check_cell
        from checker.engines.registry import scenario_engine

        return check_cell(self._cell(), self.options, scenario_engine(self.engine))

    def planned(self) -> Result:
        """The result before anything is decided (``checker.cell.planned_cell``)."""
        from checker.cell import planned_cell
        from checker.engines.registry import scenario_engine

        return planned_cell(self._cell(), self.options, scenario_engine(self.engine))


@dataclass(frozen=True)
class ScenarioGroupTask:
    """Several properties of one (rule set, consumer): proved together, searched apart
    (``checker.together``); ``run()`` gives one ``Result`` per property, in order."""

    rules: str
    consumer: str
    properties: tuple[str, ...]
    bounds: Bounds
    options: Options = DEFAULT  # its budget: Z3 resource units per property
    # correct's verdicts already decided in this run under these rules, bounds and
    # options, as (rules, property, verdict): not checked again (checker.cell.remember_textbook)
    textbook: tuple[tuple[str, str, str], ...] = ()

    @property
    def label(self) -> str:
        return f"{self.rules}/{self.consumer}: {', '.join(self.properties)}"

    def _alone(self) -> list[ScenarioTask]:
        return [
            ScenarioTask(self.rules, self.consumer, p, self.bounds, self.options)
            for p in self.properties
        ]

    def planned(self) -> list[Result]:
        """The results before anything is decided, one per property."""
        return [task.planned() for task in self._alone()]

    def run(self) -> list[Result]:
        """Each cell's ``Result`` as ``checker.cell.check_cell`` gives it alone
        (``checker.cell.check_cells``: proved together, searched apart)."""
        from checker.cell import check_cells, remember_textbook
        from checker.loading import resolve
        from spec.consumers import CONSUMERS, ConsumerVariant
        from spec.properties import PROPERTIES, Property
        from spec.rules import RULE_SETS, RuleSet

        remember_textbook(self.bounds, self.options, self.textbook)
        return check_cells(
            resolve(RULE_SETS, RuleSet, self.rules),
            resolve(CONSUMERS, ConsumerVariant, self.consumer),
            [resolve(PROPERTIES, Property, p) for p in self.properties],
            self.bounds,
            self.options,
        )


@dataclass(frozen=True)
class ClusterTask:
    ack_rule: str
    branch_rule: str
    property: str
    bounds: ClusterBounds
    preset: str | None = None  # the preset these bounds are, if they are one
    rules: str = "kv-current"
    options: Options = DEFAULT  # its strategy, max_states and timeout_s

    @builtins.property  # the field named property shadows the builtin here
    def label(self) -> str:
        where = f" ({self.preset})" if self.preset else ""
        return f"{self.ack_rule}/{self.branch_rule}: {self.property}{where}"

    def _cell(self) -> DurabilityCell:
        from checker.cluster_check import DurabilityCell
        from checker.loading import resolve
        from spec import cluster
        from spec.rules import RULE_SETS, RuleSet

        return DurabilityCell(
            resolve(cluster.ACK_RULES, cluster.AckRule, self.ack_rule),
            resolve(cluster.BRANCH_RULES, cluster.BranchRule, self.branch_rule),
            resolve(cluster.CLUSTER_PROPERTIES, cluster.ClusterProperty, self.property),
            resolve(RULE_SETS, RuleSet, self.rules),
            self.bounds,
            self.preset,
        )

    def planned(self) -> Result:
        """The result before anything is decided (``checker.cluster_check.planned``)."""
        from checker.cluster_check import planned

        result = planned(self._cell(), self.options.strategy, self.options.symmetry)
        return result.but(expected=self.expected(result))

    def run(self) -> Result:
        from checker.cluster_check import check_durability

        result = check_durability(self._cell(), options=self.options)
        return result.but(expected=self.expected(result))

    @staticmethod
    def expected(result: Result) -> str | None:
        """The recorded verdict, if the bounds are exactly a preset's."""
        from spec.cluster import PRESETS
        from spec.cluster.expected import expected_verdict

        if result.preset is None or result.bounds != PRESETS[result.preset].bounds:
            return None
        s = result.subject
        return expected_verdict(result.preset, s["ack_rule"], s["branch_rule"], result.property)


@dataclass(frozen=True)
class ClusterGroupTask:
    """Several properties of one model of the cluster (an ack rule x branch rule): one
    search of it decides them all (``checker.engines.explore.explore_each``); ``run()``
    gives one ``Result`` per property, in order, each the ``ClusterTask`` of it alone's."""

    ack_rule: str
    branch_rule: str
    properties: tuple[str, ...]
    bounds: ClusterBounds
    preset: str | None = None  # the preset these bounds are, if they are one
    rules: str = "kv-current"
    options: Options = DEFAULT  # its strategy, max_states and timeout_s (per property)

    @property
    def label(self) -> str:
        where = f" ({self.preset})" if self.preset else ""
        return f"{self.ack_rule}/{self.branch_rule}: {', '.join(self.properties)}{where}"

    def _alone(self) -> list[ClusterTask]:
        return [
            ClusterTask(
                self.ack_rule,
                self.branch_rule,
                p,
                self.bounds,
                self.preset,
                self.rules,
                self.options,
            )
            for p in self.properties
        ]

    def planned(self) -> list[Result]:
        """The results before anything is decided, one per property."""
        return [task.planned() for task in self._alone()]

    def run(self) -> list[Result]:
        from checker.cluster_check import SANITY, model_for, result_of
        from checker.engines.registry import EXPLORE
        from checker.timing import Stopwatch

        cells = [task._cell() for task in self._alone()]
        props = tuple(cell.prop for cell in cells)
        first = cells[0]
        model = model_for(first.ack_rule, first.branch_rule, first.rules, self.bounds, props)
        clock = Stopwatch()  # the first check's time holds the model's search
        found = EXPLORE.each(model, [p.id for p in props], [SANITY], self.options)
        results = []
        for prop, exploration in zip(props, found, strict=True):
            result = result_of(model, prop, exploration, self.preset, clock)
            results.append(result.but(expected=ClusterTask.expected(result)))
            clock = Stopwatch()
        return results


Task = ScenarioTask | ClusterTask
AnyTask = ScenarioTask | ClusterTask | ScenarioGroupTask | ClusterGroupTask


def run_task(task: Task) -> Result:
    return task.run()


def run_any(task: AnyTask) -> list[Result]:
    """A task's results as a list (a group gives one per property)."""
    out = task.run()
    return out if isinstance(out, list) else [out]


def planned_any(task: AnyTask) -> list[Result]:
    """A task's results before anything is decided, as a list."""
    out = task.planned()
    return out if isinstance(out, list) else [out]
