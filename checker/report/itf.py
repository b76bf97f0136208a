"""Runs as ITF traces (the Informal Trace Format of Apalache and Quint).

One ITF state per state of the run: the start state, then one per step,
each with the variable ``action`` (a record: the action's ``name`` and its
arguments; ``Init`` for the start state) beside the model's own variables.
A state's ``#meta`` has its index and, where the model tells it, what
happened. ITF has no ``null``: a variable that is absent is the string
``"none"``, an absent field of a record is left out. Integers at or beyond
2^53 are written ``{"#bigint": "..."}``; maps are ``{"#map": [[key, value], ...]}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spec.run import Run

__all__ = ["itf_value", "to_itf"]

SAFE = 2**53
FORMAT_URL = "https://apalache-mc.org/docs/adr/015adr-trace.html"


def itf_value(value: Any) -> Any:
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value if -SAFE < value < SAFE else {"#bigint": str(value)}
    if isinstance(value, Mapping):
        return {str(k): itf_value(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [itf_value(v) for v in value]
    raise TypeError(f"no ITF encoding for {type(value).__name__}")


def _state(index: int, action: Mapping[str, Any], variables: Mapping[str, Any], note: str) -> dict:
    meta: dict[str, Any] = {"index": index}
    if note:
        meta["description"] = note
    return {
        "#meta": meta,
        "action": itf_value(action),
        **{name: "none" if v is None else itf_value(v) for name, v in variables.items()},
    }


def to_itf(run: Run, meta: Mapping[str, Any]) -> dict[str, Any]:
    states = [_state(0, {"name": "Init"}, run.init, run.start)]
    for n, step in enumerate(run.steps, start=1):
        states.append(_state(n, step.action, step.state, step.narration))
    return {
        "#meta": {"format": "ITF", "format-description": FORMAT_URL, **meta},
        "vars": ["action", *run.init],
        "states": states,
    }
