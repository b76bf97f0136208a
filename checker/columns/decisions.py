"""Rule sets deciding many inputs at once, and the regions where two of them differ.

``Decisions(rule_sets, space)`` evaluates, with ``checker.columns.expr``,
the very expressions ``DecisionSpace.decision(rules)`` builds from each rule
set's clauses (the ones ``Decider`` compiles and Z3 reasons about), all rule
sets in one program so shared fields (``upper``, ``uuid_found``) are computed
once. For every pair (A, B) of rule sets it also evaluates
``Change.condition`` of each change in ``checker.diff.regions.ANSWER_CHANGES``,
so an input's region (A's clause, B's clause, the change) is named by the
same definitions ``dcpcheck diff`` uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from checker.columns.expr import Vectorised
from checker.diff.regions import ANSWER_CHANGES, Region
from spec.errors import HarnessBug
from spec.rules.inputs import DecisionSpace
from spec.rules.language import RuleSet

__all__ = ["NO_REGION", "Answers", "Decisions", "region_table"]

NO_REGION = -1  # region code of an input on which the two rule sets agree


@dataclass(frozen=True)
class Answers:
    """One rule set's answers to a batch of inputs."""

    outcome: np.ndarray  # ACCEPT_CODE / ROLLBACK_CODE / ERANGE_CODE (spec.rules.language)
    seqno: np.ndarray  # uint64 rollback seqno, 0 unless the outcome is a rollback
    case: np.ndarray  # index into RuleSet.case_names (the last one is "erange")


def region_table(rules_a: RuleSet, rules_b: RuleSet) -> list[Region]:
    """Every region two rule sets can differ in, indexed by region code."""
    return [
        Region(case_a, case_b, change)
        for case_a in rules_a.case_names
        for case_b in rules_b.case_names
        for change in ANSWER_CHANGES
    ]


class Decisions:
    def __init__(self, rule_sets: Sequence[RuleSet], space: DecisionSpace) -> None:
        self.rule_sets = list(rule_sets)
        self.pairs = list(combinations(range(len(self.rule_sets)), 2))
        exprs = [space.decision(rules) for rules in self.rule_sets]
        roots = [e for d in exprs for e in (d.outcome, d.seqno, d.case)]
        for a, b in self.pairs:
            roots += [change.condition(exprs[a], exprs[b]) for change in ANSWER_CHANGES]
        self._program = Vectorised(roots)

    def regions(self, pair: int) -> list[Region]:
        """Every region of pair ``pair``, indexed by its region code."""
        a, b = (self.rule_sets[i] for i in self.pairs[pair])
        return region_table(a, b)

    def __call__(
        self, columns: Mapping[str, np.ndarray], size: int
    ) -> tuple[list[Answers], list[np.ndarray]]:
        """Each rule set's answers, and each pair's region code per input (``NO_REGION``
        where the two agree)."""
        values = self._program(columns, size)
        count = 3 * len(self.rule_sets)
        answers = [
            Answers(values[k].astype(np.uint8), values[k + 1], values[k + 2].astype(np.int64))
            for k in range(0, count, 3)
        ]
        codes = []
        changes = len(ANSWER_CHANGES)
        for n, (a, b) in enumerate(self.pairs):
            held = np.stack(values[count + n * changes : count + (n + 1) * changes])
            matching = held.sum(axis=0, dtype=np.int64)
            differ = (answers[a].outcome != answers[b].outcome) | (
                answers[a].seqno != answers[b].seqno
            )
            if (matching > 1).any() or (differ != (matching == 1)).any():
                raise HarnessBug(
                    f"{self.rule_sets[a].name} vs {self.rule_sets[b].name}: the changes of "
                    "checker.diff.regions do not name exactly one change per differing answer"
                )
            cases_b = len(self.rule_sets[b].case_names)
            code = (answers[a].case * cases_b + answers[b].case) * changes + held.argmax(axis=0)
            codes.append(np.where(differ, code, NO_REGION))
        return answers, codes
