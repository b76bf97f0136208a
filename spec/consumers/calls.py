"""Calling a consumer variant: the one way both interpretations ask it anything.

The symbolic model (``spec.model``) and the reference consumer
(``spec.reference``) call ``remembered``, ``request`` and ``reaction`` below,
never the variant's methods directly, so a variant that cannot be evaluated is
reported the same way whichever interpretation meets it first: one
``InvalidInput`` naming ``file:line`` in the variant's code and what to do
(exit code 2). The usual causes: Python control flow on an expression
(``if``, ``and``, ``or``, ``not``, ``min``, ``max``), an exception raised by the
variant, or a result of the wrong type.

A built-in variant that fails is a harness bug: its exception is not
translated.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from spec.consumers.api import (
    ConsumerVariant,
    ConsumerView,
    LogView,
    Reaction,
    ResumeRequest,
)
from spec.errors import HarnessBug, InvalidInput
from spec.expr import Expr

__all__ = ["reaction", "remembered", "request"]

T = TypeVar("T")

RETURNS = {
    "remembered": "a ResumeRequest(uuid, start, snap_start, snap_end, ...)",
    "request": "a ResumeRequest(uuid, start, snap_start, snap_end, ...), e.g. view.claim",
    "on_rollback": "a Reaction(keep=..., claim=..., log=..., filter=...)",
}


def remembered(variant: ConsumerVariant, view: ConsumerView) -> ResumeRequest:
    """What ``variant`` remembers when its stream ends."""
    return _ask(variant, "remembered", ResumeRequest, lambda: variant.remembered(view))


def request(variant: ConsumerVariant, view: ConsumerView) -> ResumeRequest:
    """The stream request ``variant`` sends from ``view``."""
    return _ask(variant, "request", ResumeRequest, lambda: variant.request(view))


def reaction(
    variant: ConsumerVariant, view: ConsumerView, rollback_seqno: Expr, producer_log: LogView
) -> Reaction:
    """How ``variant`` reacts to ``ROLLBACK(rollback_seqno)``; its log must come from the view."""
    answer = _ask(
        variant,
        "on_rollback",
        Reaction,
        lambda: variant.on_rollback(view, rollback_seqno, producer_log),
    )
    if answer.log is not None and not isinstance(answer.log, type(view.log)):
        raise InvalidInput(
            _where(variant, "on_rollback", None),
            f"consumer '{variant.name}': on_rollback() returned a Reaction whose log is a "
            f"{type(answer.log).__name__}; use a log from the view (view.log, producer_log, "
            "or their pruned()/single())",
        )
    return answer


def _ask(variant: ConsumerVariant, method: str, kind: type[T], call: Callable[[], object]) -> T:
    try:
        answer = call()
    except HarnessBug:
        raise
    except Exception as exc:
        if _is_builtin(variant):
            raise
        if isinstance(exc, InvalidInput):
            text = _advice(_line_text(variant, method, exc), exc.message)
        else:
            text = (
                f"raised {type(exc).__name__}: {exc}; a variant is a policy for every consumer "
                "state and must not raise (choose with ite(condition, a, b))"
            )
        raise InvalidInput(
            _where(variant, method, exc), f"consumer '{variant.name}': {method}(): {text}"
        ) from None
    if not isinstance(answer, kind):
        raise InvalidInput(
            _where(variant, method, None),
            f"consumer '{variant.name}': {method}() returned {type(answer).__name__}; "
            f"it must return {RETURNS[method]}",
        )
    return answer


def _is_builtin(variant: ConsumerVariant) -> bool:
    from spec.consumers import CONSUMERS

    return variant.name in CONSUMERS and CONSUMERS.get(variant.name) is variant


# What a line of the variant does that the expression language cannot, and what to write.
_PYTHON_ON_EXPRESSIONS = (
    (
        re.compile(r"\bmin\("),
        "min() compares with a Python truth value; write min_of(a, b) (from spec.expr import "
        "min_of)",
    ),
    (
        re.compile(r"\bmax\("),
        "max() compares with a Python truth value; write max_of(a, b) (from spec.expr import "
        "max_of)",
    ),
    (
        re.compile(r"\bif\b"),
        "a Python `if` cannot branch on an expression; choose with ite(condition, a, b) (from "
        "spec.expr import ite)",
    ),
    (
        re.compile(r"\b(and|or|not)\b"),
        "Python's and/or/not cannot combine expressions; write & | ~ and parenthesise each "
        "comparison: (a < b) & c",
    ),
)
_PRECEDENCE = (
    "`&` and `|` bind tighter than comparisons, so `a < b & c` is `a < (b & c)`; "
    "parenthesise each comparison: (a < b) & c"
)


def _advice(line: str, message: str) -> str:
    """The expression language's complaint, said for the line of the variant that caused it:
    what it does that the language cannot, and what to write instead."""
    if "no Python truth value" in message:
        for pattern, advice in _PYTHON_ON_EXPRESSIONS:
            if pattern.search(line):
                return advice
        return message
    if re.match(r"`[&|]` needs (booleans|bool operands)", message) and re.search(
        r"[<>=]=?|!=", line
    ):
        return _PRECEDENCE
    return message


def _line_text(variant: ConsumerVariant, method: str, exc: BaseException) -> str:
    """The source line of the variant's code where ``exc`` was raised ("" if unknown)."""
    code = getattr(type(variant), method).__code__
    lines = [
        frame.line or ""
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename == code.co_filename
    ]
    return lines[-1] if lines else ""


def _where(variant: ConsumerVariant, method: str, exc: BaseException | None) -> str:
    """``file:line``: the deepest frame of the exception in the method's file, else the
    line that defines the method."""
    code = getattr(type(variant), method).__code__
    line = code.co_firstlineno
    if exc is not None:
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == code.co_filename and frame.lineno is not None:
                line = frame.lineno
    return f"{_shown(code.co_filename)}:{line}"


def _shown(filename: str) -> str:
    """A path as the user would type it here: relative to the current directory when the
    file is under it (``my_client.py``), else as it is."""
    path = Path(filename)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return filename
