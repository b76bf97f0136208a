"""Wall-clock and CPU time of a piece of work, read together (the machine may be busy)."""

from __future__ import annotations

import time

__all__ = ["Stopwatch", "deadline_after"]


class Stopwatch:
    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def read(self) -> tuple[float, float]:
        """(wall seconds, CPU seconds of this process) since the stopwatch started."""
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def deadline_after(timeout_s: float | None) -> float | None:
    """The monotonic time ``timeout_s`` from now (None: no deadline)."""
    return None if timeout_s is None else time.monotonic() + timeout_s
