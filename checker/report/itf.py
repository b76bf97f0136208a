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

__all__ = ["itf_problems", "itf_value", "to_itf"]

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


def _state(
    index: int, action: Mapping[str, Any], variables: Mapping[str, Any], note: str
) -> dict[str, Any]:
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


def itf_problems(data: Any) -> list[str]:
    """What makes ``data`` (a parsed ``.itf.json``) not a valid ITF trace: a ``null``
    anywhere, ``vars`` not naming exactly each state's variables, a bad ``#meta``
    index. Empty when it is valid."""
    problems: list[str] = []

    def walk(value: Any, where: str) -> None:
        if value is None:
            problems.append(f"{where}: null (ITF has no null)")
        elif isinstance(value, float):
            problems.append(f"{where}: {value} is not an integer (ITF has no floats)")
        elif isinstance(value, dict):
            for key, item in value.items():
                if key != "#meta":
                    walk(item, f"{where}.{key}")
        elif isinstance(value, list):
            for n, item in enumerate(value):
                walk(item, f"{where}[{n}]")

    if not isinstance(data, dict) or not isinstance(data.get("states"), list):
        return ["not an ITF trace: expected an object with a list of states"]
    names = data.get("vars")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return ["vars: expected a list of variable names"]
    for n, state in enumerate(data["states"]):
        if not isinstance(state, dict):
            problems.append(f"states[{n}]: expected an object")
            continue
        have = sorted(k for k in state if k != "#meta")
        if have != sorted(names):
            problems.append(f"states[{n}]: variables {have} are not vars {sorted(names)}")
        meta = state.get("#meta", {})
        if isinstance(meta, dict) and meta.get("index", n) != n:
            problems.append(f"states[{n}]: #meta.index is {meta.get('index')}")
        walk({k: v for k, v in state.items() if k != "#meta"}, f"states[{n}]")
    return problems
