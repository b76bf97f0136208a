"""Progress of a long command on stderr: what is done, what is running, time elapsed.

On a terminal, one live line rewritten in place; otherwise (CI logs, files)
one line per unit when it starts and one when it finishes, so a log shows
where a run stands and where it stopped. ``--quiet`` turns it off, and so does
Ctrl-C (``checker.interrupt``): after it the one line the CLI prints is all.
Results themselves go to stdout; nothing here writes there.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from checker.interrupt import stopping

__all__ = ["Progress"]


class Progress:
    def __init__(
        self,
        total: int,
        what: str = "checks",
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        live: bool | None = None,
    ) -> None:
        self.total = total
        self.what = what
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.started = time.monotonic()
        self.done = 0
        self.running: dict[str, float] = {}
        self._lock = threading.Lock()
        self._shown = 0  # width of the live line on screen

    def elapsed(self) -> str:
        seconds = int(time.monotonic() - self.started)
        return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"

    def _count(self) -> str:
        return f"[{self.done}/{self.total}]" if self.total > 1 else ""

    def start(self, label: str) -> None:
        with self._lock:
            self.running[label] = time.monotonic()
            if not self.live:
                self._line(f"{self._count()} {label} ...".strip())
            else:
                self._refresh()

    def update(self, label: str, detail: str) -> None:
        """A running unit's own progress (states explored, regions found)."""
        with self._lock:
            if self.live:
                self._refresh(f"{label}: {detail}")
            else:
                self._line(f"    {label}: {detail} ({self.elapsed()})")

    def finish(self, label: str, outcome: str, seconds: float | None = None) -> None:
        """``label`` is done; ``seconds``: what it took, if not the time since ``start``
        (a job run elsewhere, whose start this process did not see)."""
        with self._lock:
            began = self.running.pop(label, None)
            self.done += 1
            if seconds is None and began is not None:
                seconds = time.monotonic() - began
            took = "" if seconds is None else f" in {seconds:.1f}s"
            if self.live:
                self._refresh()
            else:
                text = f"{self._count()} done {label}: {outcome}{took}; {self.elapsed()} elapsed"
                self._line(text.strip())

    def close(self) -> None:
        with self._lock:
            if self.live and self._shown and not self.quiet:
                self.stream.write("\r" + " " * self._shown + "\r")
                self.stream.flush()
                self._shown = 0

    def _line(self, text: str) -> None:
        if not self.quiet and not stopping():
            print(text, file=self.stream, flush=True)

    def _refresh(self, detail: str = "") -> None:
        if self.quiet or stopping():
            return
        running = ", ".join(self.running) or "-"
        text = f"{self.done}/{self.total} {self.what} done, running: {detail or running}"
        text = f"{text} ({self.elapsed()})"
        width = 200
        text = text[:width]
        pad = max(0, self._shown - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._shown = len(text)
