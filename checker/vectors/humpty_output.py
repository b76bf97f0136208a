"""Reading what a humpty_dumpty-speaking command printed, strictly.

After the header (everything before the first ``Testing`` line, not
compared: implementations print tables differently), each request gives::

    Testing UUID:<uuid> snapshot:{<snap_start>,<snap_end>} start:<start>
      Rollback:true|false
      Requested rollback seqno:<seqno>      (only when true)
      Reason: <text>                        (optional, not compared)

The echoed request must be the one sent, in order. Anything else is garbage:
``parse_answers`` returns the answers read before the first problem and a
description of the problem.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from checker.vectors.format import Answer
from spec.types import Outcome, StreamRequest

__all__ = ["parse_answers"]

_TESTING = re.compile(r"Testing UUID:(\d+) snapshot:\{(\d+),(\d+)\} start:(\d+)")
_ROLLBACK = re.compile(r"Rollback:(true|false)")
_SEQNO = re.compile(r"Requested rollback seqno:(\d+)")


def parse_answers(
    stdout: str, requests: Sequence[StreamRequest]
) -> tuple[list[Answer], str | None]:
    lines = [line.strip() for line in stdout.splitlines()]
    lines = [line for line in lines if line]
    position = next((i for i, line in enumerate(lines) if line.startswith("Testing")), len(lines))
    answers: list[Answer] = []
    for req in requests:
        if position >= len(lines):
            return answers, f"printed {len(answers)} answers for {len(requests)} requests"
        echo = _TESTING.fullmatch(lines[position])
        sent = (req.uuid, req.snap_start, req.snap_end, req.start)
        if echo is None or tuple(int(g) for g in echo.groups()) != sent:
            return answers, f"expected 'Testing UUID:{sent[0]} ...', got {_show(lines[position])}"
        position += 1
        verdict = _ROLLBACK.fullmatch(lines[position]) if position < len(lines) else None
        if verdict is None:
            got = _show(lines[position]) if position < len(lines) else "end of output"
            return answers, f"expected 'Rollback:true|false', got {got}"
        position += 1
        if verdict.group(1) == "false":
            answers.append(Answer(Outcome.ACCEPT))
        else:
            seqno = _SEQNO.fullmatch(lines[position]) if position < len(lines) else None
            if seqno is None:
                got = _show(lines[position]) if position < len(lines) else "end of output"
                return answers, f"expected 'Requested rollback seqno:N', got {got}"
            position += 1
            answers.append(Answer(Outcome.ROLLBACK, int(seqno.group(1))))
        if position < len(lines) and lines[position].startswith("Reason:"):
            position += 1
    if position < len(lines):
        return answers, f"unexpected output after the last answer: {_show(lines[position])}"
    return answers, None


def _show(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "...")
