"""One solver call: under a budget, stoppable by Ctrl-C, its work counted.

Every other Z3 API call (building terms, reading models) runs inside
``deferred_interrupts()``: a SIGINT arriving then is held until the call is
done and raised right after, because a ``KeyboardInterrupt`` raised inside
ctypes' argument conversion surfaces as a ``ctypes.ArgumentError`` instead.

``run_check(engine, ctx, assumptions, budget, deadline)`` sets Z3's
resource limit to what ``budget`` has left (and, as an outer guard, its
timeout to what is left before ``deadline``), runs ``engine.check`` and
charges the units spent. The check runs in a helper thread while the main
thread waits, so that SIGINT reaches Python promptly even while Z3 works:
the wait raises ``KeyboardInterrupt``, Z3 is told to stop
(``Context.interrupt``), and the interrupt is raised again once Z3 has
returned. Z3's own Ctrl-C handler is switched off (``ctrl_c``), since it
would swallow the signal and answer a plain ``unknown``.

The answer's reason says why a call was cut short: ``budget`` (the
resource limit: deterministic), ``timeout`` (the wall clock: it depends on
the machine's load), or Z3's own reason.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

import z3

from checker import interrupt
from checker.symbolic.budget import Budget

__all__ = ["Call", "deferred_interrupts", "run_check"]

T = TypeVar("T")

# After Ctrl-C, nothing printed for a Z3 object whose construction the interrupt cut
# short (its finaliser fails on what was never set).
interrupt.quiet_finalisers("z3")


@dataclass(frozen=True)
class Call:
    result: z3.CheckSatResult
    spent: int  # resource units
    reason: str = ""  # why unknown


def _units(engine: z3.Solver | z3.Optimize) -> int:
    """Z3's resource counter for the engine's context (0 before its first call)."""
    try:
        return int(engine.statistics().get_key_value("rlimit count"))
    except z3.Z3Exception:  # not counted yet
        return 0


def _interruptible() -> bool:
    """Signals reach Python only in the main thread, and only when SIGINT is not ignored
    (Spark's workers ignore it): elsewhere a helper thread buys nothing."""
    if threading.current_thread() is not threading.main_thread():
        return False
    return signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, None)


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold SIGINT while Z3's API is called; raise it (through the handler it was meant
    for) once the block is done."""
    if not _interruptible():
        yield
        return
    with interrupt.deferred():
        yield


def _in_helper(work: Callable[[], T], ctx: z3.Context) -> T:
    return interrupt.in_helper_thread(work, ctx.interrupt, 0.05, "z3-check")


def run_check(
    engine: z3.Solver | z3.Optimize,
    ctx: z3.Context,
    assumptions: Sequence[z3.BoolRef],
    budget: Budget,
    deadline: float | None,
) -> Call:
    if budget.exhausted:
        return Call(z3.unknown, 0, "budget")
    with deferred_interrupts():
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Call(z3.unknown, 0, "timeout")
            engine.set("timeout", max(1, int(remaining * 1000)))
        allowance = budget.allowance()
        engine.set("rlimit", allowance)
        engine.set("ctrl_c", False)
        before = _units(engine)
    if _interruptible():
        result = _in_helper(lambda: engine.check(*assumptions), ctx)
    else:
        result = engine.check(*assumptions)
    with deferred_interrupts():
        spent = _units(engine) - before
        reason = engine.reason_unknown() if result == z3.unknown else ""
    budget.charge(spent)
    if result != z3.unknown:
        return Call(result, spent)
    if allowance and spent >= allowance:
        reason = "budget"
    elif deadline is not None and time.monotonic() >= deadline:
        reason = "timeout"
    elif reason in ("canceled", "timeout"):
        reason = "timeout" if deadline is not None else reason
    return Call(result, spent, reason)
