"""The bounds a check holds for, kept apart from the rules (like TLA+'s MC*.cfg)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from spec.failover_table import DEFAULT_MAX_ENTRIES

__all__ = ["LIMITS", "Bounds"]

# The largest model dcpcheck builds: beyond these a check cannot finish (and a
# mistyped bound would only hang).
LIMITS = {
    "seqnos": 64,
    "keys": 26,
    "entries": 64,
    "failovers": 32,
    "rounds": 128,
    "max_entries": 10_000,
    "sessions": 4,
}


@dataclass(frozen=True)
class Bounds:
    """How big a scenario may be.

    * ``seqnos``: every producer's history has at most this many mutations;
    * ``keys``: mutations touch at most this many distinct keys;
    * ``entries``: the consumer's (first producer's) failover table has at most
      ``entries - failovers`` entries, so that every later table fits;
    * ``failovers``: failures (promotion or unclean restart) between the
      consumer's disconnect and its resume;
    * ``rounds``: request/rollback rounds unrolled; ``entries + 3`` by default,
      one more than ``bounded-rollback`` allows, so a loop that runs too long
      is seen;
    * ``sessions``: resumes (K): the stream of every resume but the last may be
      cut after any prefix, failovers and compactions may happen before the next
      resume (docs/model.md, "Several sessions"). 1: one resume, whose stream
      runs to completion.
    """

    seqnos: int = 6
    keys: int = 3
    entries: int = 4
    failovers: int = 2
    rounds: int = 0  # 0: entries + 3
    max_entries: int = DEFAULT_MAX_ENTRIES  # kv_engine's cap on table length
    sessions: int = 1  # resumes (K); each but the last may be cut short

    def __post_init__(self) -> None:
        for name in ("seqnos", "keys", "entries", "sessions"):
            if getattr(self, name) < 1:
                raise ValueError(f"bound {name} must be at least 1")
        for name, most in LIMITS.items():
            value = getattr(self, name)
            if value > most:
                raise ValueError(
                    f"bound {name} must be at most {most} (got {value}); "
                    "proofs already take minutes at 16 seqnos"
                )
        if self.max_entries < 1:
            raise ValueError("bound max_entries must be at least 1")
        if self.rounds < 0:
            raise ValueError("bound rounds must be at least 1 (0: the default, entries + 3)")
        if self.failovers < 0:
            raise ValueError("bound failovers must be at least 0")
        if self.entries <= self.failovers:
            raise ValueError("bound entries must exceed failovers (each failover adds an entry)")
        if self.rounds == 0:
            object.__setattr__(self, "rounds", self.entries + 3)

    @property
    def first_table_entries(self) -> int:
        return self.entries - self.failovers

    def describe(self) -> str:
        text = (
            f"seqnos<={self.seqnos}, keys<={self.keys}, table entries<={self.entries}, "
            f"failovers<={self.failovers}, rounds<={self.rounds}, sessions {self.sessions}"
        )
        if self.max_entries < self.entries:
            text += f", tables capped at {self.max_entries}"
        return text

    def to_json(self) -> dict[str, int]:
        """Every bound, in order; ``sessions`` only when it is not 1."""
        bounds = asdict(self)
        if self.sessions == 1:
            del bounds["sessions"]
        return bounds
