"""The NumPy interpretation of spec.expr agrees with the concrete one, uint64 wrap included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import B, X, Y, expression_envs, expressions

from checker.columns.expr import Vectorised
from spec.errors import RuleLanguageError
from spec.expr import UINT64_MAX, Expr, evaluate, ite

NAMES = {"x": np.uint64, "y": np.uint64, "z": np.uint64, "b": np.bool_}


def columns(envs: list[dict[str, int | bool]]) -> dict[str, np.ndarray]:
    return {name: np.array([e[name] for e in envs], dtype=dtype) for name, dtype in NAMES.items()}


@given(st.lists(expressions(), min_size=1, max_size=4), st.lists(expression_envs, min_size=1))
def test_vectorised_and_concrete_evaluation_agree(roots: list[Expr], envs) -> None:
    got = Vectorised(roots)(columns(envs), len(envs))
    for k, root in enumerate(roots):
        expected = [evaluate(root, env) for env in envs]
        assert [v.item() for v in got[k]] == expected, str(root)


def test_addition_and_subtraction_wrap_like_uint64() -> None:
    envs = [{"x": UINT64_MAX, "y": 1, "z": 0, "b": True}, {"x": 0, "y": 1, "z": 0, "b": False}]
    total, difference = Vectorised([X + Y, X - Y])(columns(envs), 2)
    assert total.tolist() == [0, 1]
    assert difference.tolist() == [UINT64_MAX - 1, UINT64_MAX]


def test_comparisons_are_unsigned_near_two_to_the_64() -> None:
    envs = [{"x": UINT64_MAX, "y": 1, "z": 0, "b": True}]
    (less,) = Vectorised([X < Y])(columns(envs), 1)
    assert less.tolist() == [False]


def test_a_constant_result_fills_the_column() -> None:
    (value,) = Vectorised([ite(B, X, X)])(columns([{"x": 5, "y": 0, "z": 0, "b": True}] * 3), 3)
    assert value.tolist() == [5, 5, 5]


def test_a_missing_or_mistyped_column_is_an_error() -> None:
    program = Vectorised([X + Y])
    with pytest.raises(RuleLanguageError, match="no column given for `y`"):
        program({"x": np.zeros(2, dtype=np.uint64)}, 2)
    with pytest.raises(ValueError, match="uint64"):
        program({"x": np.zeros(2, dtype=np.int64), "y": np.zeros(2, dtype=np.uint64)}, 2)
