"""Ctrl-C, once for every command: one line, exit 130, nothing written, no noise after it.

``install()`` (the CLI entry calls it) makes the first SIGINT set ``stopping()``,
run what ``on_interrupt`` registered (Spark mutes its JVM's stderr and py4j's
log) and raise ``KeyboardInterrupt`` where the main thread is; a second SIGINT
while the command winds down is ignored, so no clean-up is cut short into a
traceback. ``uninterruptible()`` marks a block Ctrl-C must not cut in two (writing a
report's files): a SIGINT in it is dropped, the block and the command finish;
``deferred()`` one that must finish before Ctrl-C stops the command (launching
a JVM that would otherwise outlive it): the SIGINT takes effect after it.
Progress lines stop (``checker.progress``), the report writes no file
(``checker.report.emit``), and the CLI prints ``LINE`` and exits 130. What the
interrupt leaves in finalisers (a KeyboardInterrupt raised in one; an error in
one of a ``quiet_finalisers`` library's) is not printed.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import TYPE_CHECKING, TypeVar

__all__ = [
    "LINE",
    "deferred",
    "in_helper_thread",
    "install",
    "on_interrupt",
    "quiet_finalisers",
    "reset",
    "stopping",
    "uninterruptible",
]

if TYPE_CHECKING:
    from sys import UnraisableHookArgs

T = TypeVar("T")

LINE = "dcpcheck: interrupted; nothing was written"

_stopping = threading.Event()
_callbacks: list[Callable[[], None]] = []
_quiet: list[str] = []  # modules whose finalisers' errors after Ctrl-C are not printed
_previous: Callable[[UnraisableHookArgs], object] | None = None  # the unraisable hook replaced


def stopping() -> bool:
    """Whether Ctrl-C has stopped this command."""
    return _stopping.is_set()


def on_interrupt(callback: Callable[[], None]) -> None:
    """Call ``callback`` (quick, no I/O that can block) when Ctrl-C arrives."""
    _callbacks.append(callback)


def _handler(signum: int, frame: FrameType | None) -> None:
    if _stopping.is_set():
        return  # winding down already: one Ctrl-C is enough
    _stopping.set()
    for callback in list(_callbacks):
        with suppress(Exception):  # a mute that fails must not turn Ctrl-C into a crash
            callback()
    raise KeyboardInterrupt


def handler() -> Callable[[int, FrameType | None], None]:
    """The SIGINT handler ``install`` sets (to restore it where a library replaced it)."""
    return _handler


def install() -> None:
    """Handle SIGINT as the module's docstring says (main thread only), and keep what
    Ctrl-C leaves in finalisers off stderr (``quiet_finalisers``) until ``reset``."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _handler)
    global _previous
    if sys.unraisablehook is not _unraisable:
        _previous, sys.unraisablehook = sys.unraisablehook, _unraisable


def reset() -> None:
    """Forget an earlier Ctrl-C (a process that runs several commands: tests)."""
    _stopping.clear()
    _callbacks.clear()
    global _previous
    if sys.unraisablehook is _unraisable and _previous is not None:
        sys.unraisablehook, _previous = _previous, None


def quiet_finalisers(module: str) -> None:
    """After Ctrl-C, say nothing of an error in a finaliser of ``module`` (or a module
    under it). The interrupt lands where the main thread is, which can be inside a
    library's own Python code: in z3's, half through building a ``Context`` (whose
    finaliser then fails on what was never set) or in a term's finaliser. Python can
    only print such an error ("Exception ignored in ..."), before or after the
    command's one line; measured: 1 of 78 Ctrl-Cs of a ``dcpcheck check`` busy
    translating printed one."""
    if module not in _quiet:
        _quiet.append(module)


def _unraisable(unraisable: UnraisableHookArgs) -> None:
    """``sys.unraisablehook`` while a command runs: a KeyboardInterrupt raised in a
    finaliser is the Ctrl-C that stopped the command; an error in a finaliser of a
    ``quiet_finalisers`` module after it is its consequence. Both are dropped; anything
    else goes to the hook that was there before."""
    if _stopping.is_set():
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            return
        module = getattr(unraisable.object, "__module__", None) or ""
        if any(module == m or module.startswith(f"{m}.") for m in _quiet):
            return
    (_previous or sys.__unraisablehook__)(unraisable)


@contextmanager
def uninterruptible() -> Iterator[None]:
    """A block Ctrl-C does not cut in two: a SIGINT arriving in it is dropped (the files
    the block writes are all written, and the command finishes as if it came later)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def deferred() -> Iterator[None]:
    """A block that finishes before Ctrl-C stops the command: a SIGINT arriving in it
    is handled (``stopping()``, ``KeyboardInterrupt``) once the block is over. The
    block may replace the SIGINT handler (pyspark does): the one it finds then is
    the one called."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: arrived.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if arrived:
        if callable(previous):
            previous(signal.SIGINT, None)
        raise KeyboardInterrupt


def in_helper_thread(
    work: Callable[[], T], cancel: Callable[[], None], every: float, name: str
) -> T:
    """``work()`` in a daemon thread named ``name``, its value or exception handed back.
    Ctrl-C in the waiting thread calls ``cancel()`` every ``every`` seconds until the work
    is over (a Z3 call or a Spark job submitted just after a cancel runs on), then raises
    ``KeyboardInterrupt``. The wait is an ``Event``, not ``Thread.join``: an interrupted
    join can mark a running thread stopped (CPython's bpo-45274 handling), and the work
    would run on unwatched."""
    value: list[T] = []  # work()'s value, or
    error: list[BaseException] = []  # what it raised
    finished = threading.Event()

    def target() -> None:
        try:
            value.append(work())
        except BaseException as exc:  # handed to the waiting thread
            error.append(exc)
        finally:
            finished.set()

    try:
        # Ctrl-C while the thread starts (``Thread.start`` waits for it, and a signal's
        # KeyboardInterrupt lands in that wait) takes effect once it has started: raised
        # in the start, it would leave the work running unwatched, and the process would
        # end under it (a Z3 call still running when the interpreter exits: SIGSEGV).
        with deferred():
            threading.Thread(target=target, name=name, daemon=True).start()
        finished.wait()
    except KeyboardInterrupt:
        while not finished.is_set():
            cancel()
            finished.wait(every)
        raise
    if error:
        raise error[0]
    return value[0]
