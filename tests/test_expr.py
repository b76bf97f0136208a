"""The expression language: uint64 semantics, two evaluators that agree, clear errors."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from strategies import B, X, Y, Z, expression_envs, expressions

from spec.errors import RuleLanguageError
from spec.expr import (
    Compiled,
    Expr,
    all_of,
    any_of,
    const,
    evaluate,
    ite,
    substitute,
    walk,
)

MAX = 2**64 - 1


def test_arithmetic_wraps_like_uint64() -> None:
    assert evaluate(X - Y, {"x": 1, "y": 2}) == MAX
    assert evaluate(X + 1, {"x": MAX}) == 0


def test_constants_fold() -> None:
    assert (const(3) < 4).same(const(True))
    assert ite(const(True), X, Y) is X
    assert all_of(B, True).same(B)
    assert any_of(B, True).same(const(True))


def test_python_truth_value_is_refused_with_advice() -> None:
    with pytest.raises(RuleLanguageError, match=re.escape("use & | ~")):
        if X < Y:
            pass


def test_missing_parentheses_around_a_comparison_is_explained() -> None:
    with pytest.raises(RuleLanguageError, match="forget parentheses"):
        _ = X == 0 & B  # parses as X == (0 & B)


def test_sorts_are_checked() -> None:
    with pytest.raises(RuleLanguageError, match="needs int operands"):
        _ = B < X
    with pytest.raises(RuleLanguageError, match="cannot compare"):
        _ = B == X
    with pytest.raises(RuleLanguageError, match="outside uint64"):
        const(-1)


def test_substitute_replaces_variables_and_checks_sorts() -> None:
    (expr,) = substitute([X + Y], {"x": const(5)})
    assert evaluate(expr, {"y": 1}) == 6
    with pytest.raises(RuleLanguageError):
        substitute([X + Y], {"x": B})


def test_deep_chains_do_not_hit_the_recursion_limit() -> None:
    expr: Expr = X
    for i in range(5000):
        expr = ite(i == X, const(i), expr)
    assert evaluate(expr, {"x": 4000}) == 4000
    assert Compiled([expr]).function()({"x": 4000}) == [4000]


def test_a_compiled_expression_missing_a_variable_fails_even_in_a_branch_not_taken() -> None:
    """Compiled writes single-use nodes inside their parents (a branch not taken is not
    computed), but reads every variable first, as evaluate() would need them all."""
    program = Compiled([ite(B, X + const(1), Y + const(2))])
    assert program({"b": True, "x": 1, "y": 5}) == [2]  # interpreted
    assert program({"b": True, "x": 1, "y": 5}) == [2]  # compiled
    with pytest.raises(RuleLanguageError, match="no value given for `y`"):
        program({"b": True, "x": 1})
    with pytest.raises(RuleLanguageError, match="no value given for `y`"):
        Compiled([ite(B, X + const(1), Y + const(2))])({"b": True, "x": 1})  # interpreted


def test_a_program_is_compiled_once_however_often_it_is_called_or_asked_for() -> None:
    program = Compiled([X + Y])
    assert program({"x": 1, "y": 2}) == [3]  # interpreted: nothing compiled yet
    compiled = program.function()
    assert program.function() is compiled
    assert program({"x": 2, "y": 2}) == [4] and program.function() is compiled


def test_a_node_shared_by_many_parents_and_a_long_single_use_chain_compile_and_agree() -> None:
    shared = X + Y
    chain: Expr = shared
    for i in range(300):  # each link used once: written inside the next, up to a depth
        chain = (chain + const(i)) - shared
    env = {"x": 3, "y": 4}
    assert Compiled([chain, shared]).function()(env) == [evaluate(chain, env), 7]


@given(expressions(), expression_envs)
def test_compiled_and_interpreted_evaluation_agree(expr: Expr, env) -> None:
    """Value for value and type for type: a program's first call is interpreted, the
    others run the compiled function."""
    program = Compiled([expr])
    first, second = program(env), program(env)
    assert first == second == [evaluate(expr, env)]
    assert [type(v) for v in first] == [type(v) for v in second]
    assert program.inputs == sorted({n.name for n in walk([expr]) if n.op == "var"})


@given(expressions(), expression_envs)
def test_printed_expressions_read_back_as_the_same_expression(expr: Expr, env) -> None:
    namespace = {"x": X, "y": Y, "z": Z, "b": B, "ite": ite, "true": True, "false": False}
    again = eval(str(expr), namespace)
    again = const(again) if isinstance(again, bool | int) else again
    assert evaluate(again, env) == evaluate(expr, env)


@given(expressions(), expressions())
def test_a_walk_past_what_is_done_yields_the_rest_in_the_same_order(
    first: Expr, second: Expr
) -> None:
    """What a translator's memo holds (a walk's nodes, each with its children) is skipped,
    the other nodes come as a walk from scratch brings them."""
    done = {id(node) for node in walk([first])}
    rest = [node for node in walk([second]) if id(node) not in done]
    assert [id(node) for node in walk([second], done)] == [id(node) for node in rest]
