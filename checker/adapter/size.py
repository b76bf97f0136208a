"""How big an adapter run is, before it starts: scenarios, time, and whether it fits.

``clients --target`` and ``conform`` play every scenario within the bounds to
a client's own code, at a few thousand scenarios a second at best: the
default bounds hold about 2 x 10^19. Before a run starts they print how many
scenarios it plays (``checker.adapter.count``: counted, not listed) and, from
the adapter's rate on a sample of scenarios drawn from across the
enumeration (``sampled_rate``), how long it should take; above an hour on
this machine they stop with one line naming the bounds that fit
(``refusal``), unless ``--force``. While it runs, progress shows what is
done of the total and the time left at the rate so far (``Tally``).
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from checker.adapter.count import scenario_count
from checker.engines.exhaustive import history_at, history_count, scenarios
from spec.bounds import Bounds
from spec.errors import UsageError
from spec.scenario import Scenario

__all__ = [
    "HOUR",
    "Estimate",
    "Tally",
    "announce",
    "cores_of",
    "duration",
    "fitting_bounds",
    "refusal",
    "sampled_rate",
]

HOUR = 3600.0
# A run's sample: this many seconds or scenarios, whichever comes first, from
# SAMPLE_HISTORIES first histories spread over the enumeration (most scenarios have the
# longest histories, so the first ones alone would be quicker than the run).
SAMPLE_SECONDS, SAMPLE_SCENARIOS, SAMPLE_HISTORIES = 2.0, 400, 16
SPARK_START = 20.0  # seconds a local Spark session takes to start on the 2-core machine


def duration(seconds: float) -> str:
    """``40s``, ``12m``, ``3.5h``, ``41 days``, ``2.1e+08 years``."""
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f}m"
    if seconds < 48 * HOUR:
        return f"{seconds / HOUR:.1f}h"
    days = seconds / (24 * HOUR)
    return f"{days:.0f} days" if days < 730 else f"{days / 365:.2g} years"


def cores_of(master: str | None) -> int:
    """Adapter processes at once: ``local[N]``'s N, this machine's cores for ``local[*]``
    (and a cluster: this machine is what is known), 1 without Spark (``None``)."""
    if master is None:
        return 1
    if master.startswith("local[") and master[6:-1].isdigit():
        return int(master[6:-1])
    return os.cpu_count() or 1


@dataclass(frozen=True)
class Estimate:
    """Scenarios (None: too many to count), one adapter process's rate, processes at
    once, and seconds of start-up (Spark's)."""

    scenarios: int | None
    rate: float
    processes: int = 1
    start_up: float = 0.0

    def seconds(self, scenarios: int | None = None) -> float:
        count = self.scenarios if scenarios is None else scenarios
        if count is None:
            return float("inf")
        return self.start_up + count / (self.rate * self.processes)

    def describe(self) -> str:
        where = "one process" if self.processes == 1 else f"{self.processes} processes at once"
        return (
            f"about {duration(self.seconds())} at {self.rate:,.0f} scenarios/s per adapter "
            f"process (measured on a sample), {where}"
        )


def sampled_rate(
    bounds: Bounds,
    play: Callable[[Scenario], object],
    seconds: float = SAMPLE_SECONDS,
    most: int = SAMPLE_SCENARIOS,
) -> float:
    """Scenarios per second ``play`` takes on a sample: the first scenarios of
    ``SAMPLE_HISTORIES`` first histories spread evenly over the enumeration."""
    histories = history_count(bounds)
    spread = range(SAMPLE_HISTORIES)
    picks = sorted({histories - 1 - (histories * k) // SAMPLE_HISTORIES for k in spread})
    each = max(1, most // len(picks))
    played, started = 0, time.perf_counter()
    for index in picks:
        for scenario in itertools.islice(scenarios(bounds, history_at(bounds, index)), each):
            play(scenario)
            played += 1
        if time.perf_counter() - started > seconds:
            break
    return played / max(time.perf_counter() - started, 1e-6)


def fitting_bounds(bounds: Bounds, fits: Callable[[int], bool], most: int = 3) -> list[Bounds]:
    """The largest bounds no bigger than ``bounds`` in any dimension whose scenario count
    ``fits``: for each keys, entries, failovers and sessions, the most seqnos that fit;
    those no other fitting bounds exceed in every dimension, most scenarios first."""
    found: list[tuple[int, Bounds]] = []
    for keys, failovers, sessions in itertools.product(
        range(1, bounds.keys + 1), range(bounds.failovers + 1), range(1, bounds.sessions + 1)
    ):
        for entries in range(failovers + 1, bounds.entries + 1):
            best = None
            for seqnos in range(1, bounds.seqnos + 1):
                smaller = replace(bounds, seqnos=seqnos, keys=keys, entries=entries,
                                  failovers=failovers, sessions=sessions, rounds=0)  # fmt: skip
                count = scenario_count(smaller)
                if count is None or not fits(count):
                    break
                best = (count, smaller)
            if best is not None:
                found.append(best)
    dims = ("seqnos", "keys", "entries", "failovers", "sessions")

    def below(a: Bounds, b: Bounds) -> bool:
        return a != b and all(getattr(a, d) <= getattr(b, d) for d in dims)

    top = [(c, b) for c, b in found if not any(below(b, other) for _, other in found)]
    return [b for _, b in sorted(top, key=lambda cb: -cb[0])[:most]]


def flags(bounds: Bounds) -> str:
    """The bounds as the options that give them (``--sessions`` only when not 1)."""
    text = (
        f"--seqnos {bounds.seqnos} --keys {bounds.keys} --entries {bounds.entries} "
        f"--failovers {bounds.failovers}"
    )
    return text + (f" --sessions {bounds.sessions}" if bounds.sessions != 1 else "")


def refusal(command: str, bounds: Bounds, estimate: Estimate, limit: float = HOUR) -> str | None:
    """The one line a run that cannot finish within ``limit`` stops with (None: it fits)."""
    if estimate.seconds() <= limit:
        return None
    count = "more than 10^30" if estimate.scenarios is None else f"{estimate.scenarios:,}"
    fit = fitting_bounds(bounds, lambda n: estimate.seconds(n) <= limit)
    listed = "; ".join(
        f"{flags(b)} ({scenario_count(b):,} scenarios, about "
        f"{duration(estimate.seconds(scenario_count(b)))})"
        for b in fit
    )
    return (
        f"{command}: {count} scenarios within {flags(bounds)}: {estimate.describe()}, "
        f"more than {'an hour' if limit == HOUR else duration(limit)} on this machine; bounds "
        f"that fit: {listed or 'none at this rate'}; "
        "--force runs it anyway"
    )


def announce(command: str, bounds: Bounds, estimate: Estimate, force: bool, run: str = "") -> None:
    """Stop a run (``run``, default ``command``) that cannot finish within the hour
    (``refusal``: a usage error) unless ``force``; else say on stderr how long it takes."""
    stop = refusal(run or command, bounds, estimate)
    if stop is not None and not force:
        raise UsageError(stop)
    forced = "; --force: running anyway" if stop is not None else ""
    print(f"{command}: {estimate.describe()}{forced}", file=sys.stderr, flush=True)


class Tally:
    """Progress against a known total: ``72,724 of 1,396,442 scenarios, about 4m left``
    (the time left at the rate since ``Tally`` was made)."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.started = time.monotonic()

    def text(self, done: int) -> str:
        if self.total is None:
            return f"{done:,} scenarios"
        out = f"{done:,} of {self.total:,} scenarios"
        spent = time.monotonic() - self.started
        if 0 < done < self.total and spent > 0:
            out += f", about {duration((self.total - done) * spent / done)} left"
        return out
