"""Reading user input: numbers on the command line, failover tables in JSON.

Every problem becomes one ``InvalidInput`` naming the file (line, entry,
field) or argument, what is wrong, and what is expected.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spec.errors import InvalidInput
from spec.failover_table import UINT64_MAX, FailoverEntry

__all__ = [
    "TableFile",
    "count",
    "load_json",
    "load_table_file",
    "parse_seconds",
    "parse_uint64",
    "read_text",
    "seconds",
]

MAX_SECONDS = 7 * 24 * 3600.0  # a week: longer is a typo, and overflows timers

TABLE_SHAPE = 'a JSON array of {"id": <uuid>, "seq": <seqno>} objects, newest first'


def parse_uint64(text: str, where: str) -> int:
    """A decimal uint64, strictly: digits only, at most 2^64-1."""
    if not text.isascii() or not text.isdigit():
        raise InvalidInput(where, f"expected a non-negative integer, got {text!r}")
    value = int(text)
    if value > UINT64_MAX:
        raise InvalidInput(where, f"{text} is above 2^64-1, the largest seqno/uuid")
    return value


def parse_seconds(text: str, where: str) -> float:
    """A time limit: a finite number of seconds, above 0 and at most a week."""
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(where, f"expected seconds (a number), got {text!r}") from None
    if not 0 < value <= MAX_SECONDS:  # also false for nan; inf is above the week
        raise InvalidInput(
            where, f"expected seconds above 0 and at most {MAX_SECONDS:.0f} (a week), got {text}"
        )
    return value


def seconds(text: str) -> float:
    """``parse_seconds`` as an argparse ``type`` (its error names the argument)."""
    try:
        return parse_seconds(text, "")
    except InvalidInput as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def count(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {low}..{high:,}, got {text}")
        return value

    parse.__name__ = "count"
    return parse


def read_text(path: str | Path) -> str:
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidInput(str(path), "no such file") from None
    except IsADirectoryError:
        raise InvalidInput(str(path), "is a directory, expected a file") from None
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            str(path), f"is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except OSError as exc:
        raise InvalidInput(str(path), f"cannot read: {exc.strerror}") from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def load_json(path: str | Path) -> Any:
    text = read_text(path)
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{path}:{exc.lineno}:{exc.colno}", f"malformed JSON: {exc.msg}"
        ) from None
    except ValueError as exc:
        raise InvalidInput(str(path), f"malformed JSON: {exc}") from None


def uint64_field(obj: dict[str, Any], key: str, where: str) -> int:
    if key not in obj:
        raise InvalidInput(where, f'missing field "{key}"')
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(
            where, f'field "{key}" must be a non-negative integer, got {json.dumps(value)}'
        )
    if value < 0:
        raise InvalidInput(where, f'field "{key}" must be a non-negative integer, got {value}')
    if value > UINT64_MAX:
        raise InvalidInput(where, f'field "{key}" is {value}, above 2^64-1 (uint64)')
    return value


@dataclass(frozen=True)
class TableFile:
    """A failover table as written in a file: entries in order, and the raw JSON objects."""

    path: str
    entries: tuple[FailoverEntry, ...]
    raw: tuple[dict[str, Any], ...]


def table_from_json(
    data: Any, where: str
) -> tuple[tuple[FailoverEntry, ...], tuple[dict[str, Any], ...]]:
    if not isinstance(data, list):
        raise InvalidInput(where, f"expected {TABLE_SHAPE}; got a JSON {_json_kind(data)}")
    if not data:
        raise InvalidInput(where, f"the failover table is empty; expected {TABLE_SHAPE}")
    entries = []
    for index, item in enumerate(data):
        at = f"{where}: entry {index}"
        if not isinstance(item, dict):
            raise InvalidInput(
                at, f'expected an object with "id" and "seq", got a JSON {_json_kind(item)}'
            )
        entries.append(FailoverEntry(uint64_field(item, "id", at), uint64_field(item, "seq", at)))
    return tuple(entries), tuple(data)


def load_table_file(path: str | Path) -> TableFile:
    entries, raw = table_from_json(load_json(path), str(path))
    return TableFile(str(path), entries, raw)


def _json_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"
