"""Wall-clock and CPU time of a piece of work, read together (the machine may be busy)."""

from __future__ import annotations

import os
import time

__all__ = ["Stopwatch", "deadline_after"]


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (cube workers)."""
    children = os.times()
    return time.process_time() + children.children_user + children.children_system


class Stopwatch:
    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = _cpu()

    def read(self) -> tuple[float, float]:
        """(wall seconds, CPU seconds of this process and its ended children) since the
        stopwatch started."""
        return time.perf_counter() - self.wall, _cpu() - self.cpu


def deadline_after(timeout_s: float | None) -> float | None:
    """The monotonic time ``timeout_s`` from now (None: no deadline)."""
    return None if timeout_s is None else time.monotonic() + timeout_s
