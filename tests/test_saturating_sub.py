"""``saturating_sub``: a difference that cannot wrap, so a query keeps small bit-vectors.

``a - b`` is uint64 and wraps below 0; a query holding one that may wrap is
solved over Z3's unbounded integers, about 100x the work of the bit-vector
solver on the xdcr client's checks. ``saturating_sub(a, b)`` (``max_of(a, b) - b``)
is ``a - b`` where ``a >= b`` and 0 below: the ranges know it never wraps.
"""

from __future__ import annotations

from checker.symbolic.ranges import width_for
from checker.symbolic.session import Session, SolverAnswer
from spec.expr import INT, MODULUS, evaluate, max_of, saturating_sub, var

x, y, z = var("x", INT), var("y", INT), var("z", INT)
SMALL = {"x": (0, 8), "y": (0, 8), "z": (0, 8)}


def test_it_is_the_difference_or_zero_and_never_wraps() -> None:
    for a in (0, 1, 5, 8):
        for b in (0, 1, 5, 8):
            values = {"x": a, "y": b}
            assert evaluate(saturating_sub(x, y), values) == max(a - b, 0)
            assert evaluate(x - y, values) == (a - b) % MODULUS


def test_a_query_with_it_keeps_small_bit_vectors_where_a_minus_b_needs_integers() -> None:
    assert width_for([saturating_sub(x, 1) == y], SMALL) == 4
    assert width_for([saturating_sub(x, y) == z], SMALL) == 4
    assert width_for([(x - 1) == y], SMALL) is None
    # only max_of(a, b) - b itself: the larger of two minus a third may still wrap
    assert width_for([(max_of(x, y) - z) == x], SMALL) is None


def test_the_solver_agrees_with_the_concrete_values_at_every_pair() -> None:
    """Over the 4-bit width the ranges chose, no pair (x, y) gets another value than
    evaluate() gives: the bit-vector subtraction never wraps there."""
    session = Session()
    expected = var("expected", INT)
    formula = saturating_sub(x, y) != expected
    session.declare({"x": INT, "y": INT, "expected": INT}, {**SMALL, "expected": (0, 8)}, [formula])
    assert session.width == 4
    for a in range(9):
        for b in range(9):
            session.engine.push()
            session.add(formula, x == a, y == b, expected == max(a - b, 0))
            assert session.check().answer is SolverAnswer.UNSAT, (a, b)
            session.engine.pop()
