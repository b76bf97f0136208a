"""A deterministic allowance of solver work, counted in Z3 resource units.

Z3 counts the work of every solver call in *resource units* (its ``rlimit``
counter: propagations, conflicts, simplifier steps). Unlike seconds, the
count depends only on the query, the seed and Z3's version, not on the
machine or its load: the same check spends the same units on a quiet
laptop and on a busy 2-core CI runner, and a limit in units stops it at the
same point. A ``Budget`` is shared by every solver call of one check (the
search and the minimisation of its counterexample; a whole diff; a whole
vector generation): each call may spend what is left, and the units it
spent are charged. On the command line budgets are given in millions of
units (``--budget 1000`` is 10^9 units); about 3-5 million units are one
CPU second of Z3 on the scenario model (docs/cli.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CHECK_BUDGET", "MILLION", "PER_CALL_MAX", "Budget"]

MILLION = 1_000_000
# Units per check of the scenario model unless told otherwise: enough for kv-current x
# correct's proofs at 16 seqnos, 4 keys, 8 entries, 5 failovers (docs/findings.md).
CHECK_BUDGET = 2_000 * MILLION
# Z3 reads its rlimit parameter as an unsigned 32-bit number: one call can be
# given at most this many units (a larger budget is spread over several calls).
PER_CALL_MAX = 2**32 - 1


@dataclass
class Budget:
    """``limit`` resource units for a piece of work (None: no limit); ``spent`` so far."""

    limit: int | None = None
    spent: int = 0

    @classmethod
    def millions(cls, units: float | None) -> Budget:
        return cls(None if units is None else int(units * MILLION))

    @property
    def exhausted(self) -> bool:
        return self.limit is not None and self.spent >= self.limit

    def allowance(self) -> int:
        """The units the next call may spend (0: no limit), at most ``PER_CALL_MAX``."""
        if self.limit is None:
            return 0
        return max(1, min(PER_CALL_MAX, self.limit - self.spent))

    def charge(self, units: int) -> None:
        self.spent += max(0, units)

    def describe(self) -> str:
        spent = f"{self.spent / MILLION:,.1f}M units"
        if self.limit is None:
            return spent
        return f"{spent} of {self.limit / MILLION:,.0f}M"
