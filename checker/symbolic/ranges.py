"""The values an integer expression can take, from the ranges of its variables.

Interval arithmetic over ``spec.expr`` nodes, with uint64 semantics: a sum
that may exceed ``2**64 - 1`` (or a difference that may go below 0) wraps,
and its range is then the whole of uint64. The translation to Z3 uses it to
leave out wrap-around cases that cannot happen, to fold comparisons the
ranges decide, and to choose bit-vectors of a few bits when every term of a
query is small (``width_for``). Pure Python: no Z3 here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from spec.expr import BOOL, MODULUS, UINT64_MAX, Expr, walk

__all__ = [
    "FULL",
    "Span",
    "decided",
    "difference_span",
    "floored_span",
    "sum_span",
    "width_for",
]

Span = tuple[int, int]  # (lowest, highest) value
FULL: Span = (0, UINT64_MAX)  # an unconstrained uint64


def sum_span(a: Span, b: Span) -> tuple[Span, str]:
    """The range of ``a + b`` and how it wraps: ``never``, ``always`` or ``maybe``."""
    if a[1] + b[1] <= UINT64_MAX:
        return (a[0] + b[0], a[1] + b[1]), "never"
    if a[0] + b[0] > UINT64_MAX:
        return (a[0] + b[0] - MODULUS, a[1] + b[1] - MODULUS), "always"
    return FULL, "maybe"


def difference_span(a: Span, b: Span) -> tuple[Span, str]:
    """The range of ``a - b`` and how it wraps: ``never``, ``always`` or ``maybe``."""
    if a[0] >= b[1]:
        return (a[0] - b[1], a[1] - b[0]), "never"
    if a[1] < b[0]:
        return (a[0] - b[1] + MODULUS, a[1] - b[0] + MODULUS), "always"
    return FULL, "maybe"


def floored_span(node: Expr, span_of: Callable[[Expr], Span]) -> Span | None:
    """The range of ``max_of(x, y) - y`` (``spec.expr.saturating_sub``): that difference
    never wraps, and is ``max(x - y, 0)``; None for any other ``sub`` node."""
    larger, subtrahend = node.args
    if larger.op != "ite":
        return None
    cond, first, second = larger.args
    if cond.op in ("gt", "ge"):
        is_max = cond.args[0] is first and cond.args[1] is second
    elif cond.op in ("lt", "le"):
        is_max = cond.args[0] is second and cond.args[1] is first
    else:
        return None
    if not is_max or first is second or not (subtrahend is first or subtrahend is second):
        return None
    other = second if subtrahend is first else first
    (o_low, o_high), (s_low, s_high) = span_of(other), span_of(subtrahend)
    return max(o_low - s_high, 0), max(o_high - s_low, 0)


def decided(op: str, a: Span, b: Span) -> bool | None:
    """The comparison ``a op b`` when the ranges alone decide it, else None."""
    # Only the pair of tests ``op`` needs (hot: every integer comparison translated).
    if op == "lt":
        always, never = a[1] < b[0], a[0] >= b[1]
    elif op == "le":
        always, never = a[1] <= b[0], a[0] > b[1]
    elif op == "gt":
        always, never = a[0] > b[1], a[1] <= b[0]
    elif op == "ge":
        always, never = a[0] >= b[1], a[1] < b[0]
    elif op == "eq":
        always, never = a[0] == a[1] == b[0] == b[1], a[1] < b[0] or b[1] < a[0]
    elif op == "ne":
        always, never = a[1] < b[0] or b[1] < a[0], a[0] == a[1] == b[0] == b[1]
    else:
        raise KeyError(op)
    if always:
        return True
    if never:
        return False
    return None


_COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")


def width_for(roots: Iterable[Expr], ranges: Mapping[str, Span]) -> int | None:
    """The fewest bits that hold every integer term of ``roots`` a solver must see, or
    None when some term may wrap around (or is unbounded): those need Z3's integers.

    A constant compared only where the ranges decide the comparison does not count.
    """
    span: dict[int, Span] = {}
    known: dict[int, bool] = {}  # boolean nodes the ranges decide
    needed = 0
    variables: list[int] = []  # integer variables: each counts, whatever its terms
    for node in walk(list(roots)):
        op = node.op
        if node.sort is BOOL:
            if op in _COMPARISONS and node.args[0].sort is not BOOL:
                a, b = span[id(node.args[0])], span[id(node.args[1])]
                verdict = decided(op, a, b)
                if verdict is not None:
                    known[id(node)] = verdict
                    continue
                needed = max(needed, a[1], b[1])
            continue
        if op == "const":
            span[id(node)] = (int(node.value), int(node.value))  # type: ignore[arg-type]  # a const has a value
        elif op == "var":
            span[id(node)] = ranges.get(node.name or "", FULL)
            variables.append(id(node))
        elif op == "ite":
            cond = known.get(id(node.args[0]))
            (a, b) = span[id(node.args[1])], span[id(node.args[2])]
            chosen = (
                a if cond is True else b if cond is False else (min(a[0], b[0]), max(a[1], b[1]))
            )
            span[id(node)] = chosen
        else:
            a, b = span[id(node.args[0])], span[id(node.args[1])]
            floored = floored_span(node, lambda n: span[id(n)]) if op == "sub" else None
            if floored is not None:
                span[id(node)] = floored
                needed = max(needed, a[1], b[1])
                continue
            result, wraps = sum_span(a, b) if op == "add" else difference_span(a, b)
            if wraps != "never":
                return None
            span[id(node)] = result
            needed = max(needed, a[1], b[1], result[1])
    for ident in variables:
        needed = max(needed, span[ident][1])
    return max(1, needed.bit_length())
