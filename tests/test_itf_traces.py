"""Every ITF trace the project writes or keeps is valid ITF, read back by itf-py.

The checked-in traces (counterexamples of both models, the regression
vectors) and traces written now by `check` and `durability` are validated
twice: by the rules of the format (no null, every state has exactly the
variables `vars` names, states numbered in order) and by itf-py, the
Apalache/Quint trace library, which must read every state and give back the
same values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import itf_py
import pytest
from clihelp import MB51805_STALL, ROOT, run_cli

from checker.report.itf import itf_problems

CHECKED_IN = sorted((ROOT / "counterexamples").rglob("*.itf.json"))


def _plain(value: Any) -> Any:
    """An ITF JSON value with integers in one form, to compare itf-py's output with ours."""
    if isinstance(value, dict):
        if set(value) == {"#bigint"}:
            return int(value["#bigint"])
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def assert_valid_itf(path: Path) -> None:
    data = json.loads(path.read_text())
    assert itf_problems(data) == [], path
    trace = itf_py.trace_from_json(data)
    assert trace.vars == data["vars"]
    assert len(trace.states) == len(data["states"])
    for state, raw in zip(trace.states, data["states"], strict=True):
        back = itf_py.state_to_json(state)
        assert _plain({k: v for k, v in back.items() if k != "#meta"}) == _plain(
            {k: v for k, v in raw.items() if k != "#meta"}
        ), path


def test_the_checked_in_traces_cover_both_models_and_the_vectors() -> None:
    folders = {p.parent.name for p in CHECKED_IN}
    assert {"counterexamples", "durability", "itf"} <= folders


@pytest.mark.parametrize("path", CHECKED_IN, ids=lambda p: p.name[:70])
def test_checked_in_trace_is_valid_itf(path: Path) -> None:
    assert_valid_itf(path)


def test_traces_written_now_are_valid_itf(tmp_path: Path, monkeypatch, capsys) -> None:
    single = ["check", "--consumer", "collapse-snapshot", "--property", "no-missed-item"]
    small = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]
    assert run_cli([*single, *small, "--out", tmp_path], "", monkeypatch, capsys).code == 1
    assert run_cli([*MB51805_STALL, "--out", tmp_path], "", monkeypatch, capsys).code == 0
    written = sorted(tmp_path.glob("*.itf.json"))
    assert len(written) >= 3  # two rule sets' single-node traces and one durability trace
    for path in written:
        assert_valid_itf(path)


def test_a_null_is_not_itf() -> None:
    trace = {"vars": ["x"], "states": [{"#meta": {"index": 0}, "x": {"a": None}}]}
    assert itf_problems(trace) == ["states[0].x.a: null (ITF has no null)"]
    missing = {"vars": ["x", "y"], "states": [{"x": 1}]}
    assert "not vars" in itf_problems(missing)[0]
