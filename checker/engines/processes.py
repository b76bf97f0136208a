"""Independent pieces of work solved on forked processes side by side.

The work is set before the pool forks, so what it closes over (models built
from user files, rule sets, bounds) is inherited rather than pickled; only
each piece's index goes to a worker and its result comes back. Workers leave
Ctrl-C to the parent, which stops them by leaving the pool.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["ignore_interrupts", "in_order"]

T = TypeVar("T")

_WORK: Sequence[Callable[[], Any]] | None = None


def ignore_interrupts() -> None:
    """A worker's initializer: Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_nth(n: int) -> Any:
    assert _WORK is not None
    return _WORK[n]()


@contextmanager
def in_order(work: Sequence[Callable[[], T]], workers: int) -> Iterator[Iterator[T]]:
    """The results of ``work``'s pieces, in order, computed on ``workers`` forked processes
    (each takes the next piece not started as it becomes free). Leaving the context stops
    the processes still working (a result not yet taken is dropped)."""
    global _WORK
    if _WORK is not None:
        raise RuntimeError("in_order does not nest")
    _WORK = work
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(min(workers, len(work)) or 1, initializer=ignore_interrupts) as pool:
            yield pool.imap(_run_nth, range(len(work)), chunksize=1)
    finally:
        _WORK = None
