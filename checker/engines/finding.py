"""What a scenario engine (Z3, exhaustive, random) found, before replay and reporting."""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.result import Verdict
from spec.scenario import Scenario

__all__ = ["Finding"]


@dataclass(frozen=True)
class Finding:
    verdict: Verdict
    scenario: Scenario | None = None  # the violating scenario
    reason: str = ""  # why unknown
    note: str = ""
    size: dict[str, int] = field(default_factory=dict)  # minimised measures (proved minimal)
    examined: int | None = None  # scenarios evaluated (concrete engines)
    units: int | None = None  # solver resource units spent (Z3)
    interrupted: bool = False  # Ctrl-C stopped the engine after this was decided
