"""Running external targets without ever waiting on them unboundedly.

Every target process is started in a session of its own, so that on a
timeout the whole process group (a shell and its children included) is
killed by its id. ``run_once`` is one bounded invocation (humpty_dumpty
style); ``LineSession`` keeps one process and exchanges lines with it, each
answer awaited at most ``timeout`` seconds (the JSON-lines protocol).
"""

from __future__ import annotations

import collections
import contextlib
import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Finished", "LineSession", "NoAnswer", "run_once"]

REAP_S = 2.0  # after a kill, how long to wait for the pipes to close


@dataclass(frozen=True)
class Finished:
    returncode: int | None  # None: killed after the timeout
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def run_once(argv: Sequence[str], stdin: str, timeout: float) -> Finished:
    """Run ``argv`` with ``stdin``; kill it (and its group) after ``timeout`` seconds.

    Raises OSError if the command cannot be started at all.
    """
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(stdin.encode(), timeout=timeout)
        return Finished(proc.returncode, _text(out), _text(err))
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            out, err = proc.communicate(timeout=REAP_S)
        except subprocess.TimeoutExpired:  # a grandchild escaped the group and holds the pipes
            out, err = b"", b""
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            proc.wait(timeout=REAP_S)
        return Finished(None, _text(out), _text(err))
    except BaseException:  # Ctrl-C: the target, in a session of its own, goes too
        _kill_group(proc)
        raise


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


class NoAnswer(Exception):
    """The process gave no line: ``kind`` is ``timeout`` or ``crash``."""

    def __init__(self, kind: str, detail: str, answered: Sequence[str] = ()) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.answered = list(answered)  # ``ask_many``: the answers before the missing one


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the parent dies (Linux ``prctl``), so a
    killed Spark worker leaves no target process behind."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class LineSession:
    """One long-running process; ``ask(line)`` writes a line and awaits one back.
    ``die_with_parent``: the process is killed when the one that started it dies."""

    def __init__(self, argv: Sequence[str], die_with_parent: bool = False) -> None:
        self.proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=_die_with_parent if die_with_parent else None,
        )
        # What the process printed and was not yet asked for: whole lines, then the rest.
        self._stdout = self.proc.stdout.fileno() if self.proc.stdout is not None else -1
        self._ready = select.poll()
        self._ready.register(self._stdout, select.POLLIN | select.POLLHUP | select.POLLERR)
        self._pending: collections.deque[bytes] = collections.deque()
        self._partial = b""
        self._eof = False
        self.stderr_tail: list[str] = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _next_line(self, timeout: float) -> bytes | None:
        """The next line of output (None: the process closed it); TimeoutError when none
        came within ``timeout`` seconds. Read here, in the asking thread (``poll``, then
        whatever is there, up to 64 kB, split into whole lines): no reader thread, so an
        answer wakes one thread, not a reader that then hands it over."""
        deadline = time.monotonic() + timeout
        while not self._pending:
            if self._eof:
                return None
            left = deadline - time.monotonic()
            wait = None if math.isinf(left) else max(0, math.ceil(left * 1000))
            if not self._ready.poll(wait):
                if time.monotonic() >= deadline:
                    raise TimeoutError
                continue
            try:
                chunk = os.read(self._stdout, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._eof = True
                if self._partial:
                    self._pending.append(self._partial)
                    self._partial = b""
                continue
            *whole, self._partial = (self._partial + chunk).split(b"\n")
            self._pending.extend(whole)
        return self._pending.popleft()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for line in self.proc.stderr:
                self.stderr_tail = [*self.stderr_tail[-4:], _text(line).rstrip()]

    def ask(self, line: str, timeout: float) -> str:
        """Send ``line``; the next non-blank line of output, or NoAnswer."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise NoAnswer("crash", self._exit_text()) from None
        return self.answer(timeout)

    def answer(self, timeout: float) -> str:
        """The next non-blank line of output (to a question already written), or NoAnswer."""
        while True:
            try:
                answer = self._next_line(timeout)
            except TimeoutError:
                raise NoAnswer("timeout", f"no answer within {timeout:g}s") from None
            if answer is None:
                raise NoAnswer("crash", self._exit_text())
            text = _text(answer).strip()
            if text:
                return text

    def ask_many(self, lines: Sequence[str], timeout: float) -> list[str]:
        """Send ``lines`` at once (pipelined, from a thread of its own: a target that reads
        nothing blocks only that thread, until ``close`` kills it), then await one answer
        each; NoAnswer at the first one missing, with ``answered`` the answers before it."""
        stdin = self.proc.stdin
        assert stdin is not None
        blob = "".join(line + "\n" for line in lines).encode()

        def write() -> None:
            with contextlib.suppress(OSError, ValueError):
                stdin.write(blob)
                stdin.flush()

        threading.Thread(target=write, daemon=True).start()
        answers: list[str] = []
        while len(answers) < len(lines):
            try:
                answer = self._next_line(timeout)
            except TimeoutError:
                raise NoAnswer("timeout", f"no answer within {timeout:g}s", answers) from None
            if answer is None:
                raise NoAnswer("crash", self._exit_text(), answers)
            text = _text(answer).strip()
            if text:
                answers.append(text)
        return answers

    def _exit_text(self) -> str:
        try:
            code = self.proc.wait(timeout=REAP_S)
        except subprocess.TimeoutExpired:
            code = None
        said = f"; stderr: {self.stderr_tail[-1]}" if self.stderr_tail else ""
        if code is None:
            return f"closed its output without exiting{said}"
        return f"exited with code {code} before answering{said}"

    def close(self) -> None:
        """End the process: close its stdin, give it a moment, then kill its group."""
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            _kill_group(self.proc)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=REAP_S)
