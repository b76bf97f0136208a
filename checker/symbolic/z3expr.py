"""The symbolic interpretation of ``spec.expr``: expressions to Z3 terms.

Integers are uint64: each variable is restricted to its declared range
(``[0, 2**64 - 1]`` unless the model declares a smaller one, which the
model's own constraints then imply), and ``+`` and ``-`` wrap modulo
``2**64`` exactly as ``spec.expr.evaluate`` does. The translation follows
the range of every integer term (``checker.symbolic.ranges``): a sum that
cannot wrap is translated without the wrap-around case, a comparison the
ranges decide is a constant, and with ``width`` set every integer is a
``width``-bit vector (Z3 then bit-blasts instead of running its arithmetic
solver). ``width`` must hold every term (``ranges.width_for``); a term that
does not fit is an error, never a silent truncation.

This module and the others of ``checker.symbolic`` are the only ones
importing z3: no Z3 object leaves the symbolic layer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import z3

from checker.symbolic.ranges import FULL, Span, decided, difference_span, floored_span, sum_span
from spec.errors import HarnessBug
from spec.expr import BOOL, MODULUS, UINT64_MAX, Expr, Value, walk

__all__ = ["Translator"]


# The terms below are made with Z3's C API directly: the same calls, in the same order, as
# z3.And, z3.If, ``==`` and the rest make on operands of one sort (so the same terms, and
# the same answers), without those wrappers' per-argument checks in Python, which were
# most of a session's set-up time.
#
# Hot (every node of every formula a session sees), so the C functions are called bare:
# z3core's wrappers ask Z3 for its error code after each call, and an AstRef's __init__
# takes three more calls, which together cost more than the term itself. Nothing these
# calls make can be ill-sorted (spec.expr checks sorts), and a call that failed anyway
# returns a null term, which ``_made`` turns into a HarnessBug.


def _bare(wrapper: Any) -> Callable[..., Any]:
    """The C function behind one of z3core's wrappers (which keeps it as its default
    argument ``_elems``), called without the error-code check; the wrapper itself where a
    z3-solver other than the pinned one keeps it elsewhere (slower, the same terms)."""
    function: Callable[..., Any] = getattr(
        (getattr(wrapper, "__defaults__", None) or (None,))[0], "f", wrapper
    )
    return function


_INC_REF = _bare(z3.Z3_inc_ref)
_MK_EQ = _bare(z3.Z3_mk_eq)
_MK_DISTINCT = _bare(z3.Z3_mk_distinct)
_MK_AND = _bare(z3.Z3_mk_and)
_MK_OR = _bare(z3.Z3_mk_or)
_MK_NOT = _bare(z3.Z3_mk_not)
_MK_ITE = _bare(z3.Z3_mk_ite)
_MK_BVADD = _bare(z3.Z3_mk_bvadd)
_MK_BVSUB = _bare(z3.Z3_mk_bvsub)
_GET_BOOL_VALUE = _bare(z3.Z3_get_bool_value)
_UNSIGNED = {"lt": _bare(z3.Z3_mk_bvult), "le": _bare(z3.Z3_mk_bvule),
             "gt": _bare(z3.Z3_mk_bvugt), "ge": _bare(z3.Z3_mk_bvuge)}  # fmt: skip
_AST_PAIR = z3.Ast * 2
_NEW = object.__new__


def _mk_distinct(ref: object, x: object, y: object) -> object:
    pair = _AST_PAIR()
    pair[0], pair[1] = x, y
    return _MK_DISTINCT(ref, 2, pair)


def _asts(terms: list[Any]) -> object:
    """The terms as the C array Z3's n-ary constructors take."""
    array = (z3.Ast * len(terms))()
    for i, term in enumerate(terms):
        array[i] = term.ast
    return array


class _Wide:
    """An integer constant too wide for the bit-vectors; usable only where folded away."""

    def __init__(self, value: int) -> None:
        self.value = value


class Translator:
    """Translates expressions, creating one Z3 constant per variable name."""

    def __init__(
        self,
        ctx: z3.Context | None = None,
        ranges: Mapping[str, Span] | None = None,
        width: int | None = None,
    ) -> None:
        self.ctx = ctx or z3.main_ctx()
        self._ref = self.ctx.ref()
        self.ranges: dict[str, Span] = dict(ranges or {})
        self.width = width
        self.consts: dict[str, z3.ExprRef] = {}
        self.domain: list[z3.BoolRef] = []  # range constraints of the integer constants
        self._memo: dict[int, z3.ExprRef | _Wide] = {}
        self._span: dict[int, Span] = {}  # integer nodes: the values they can take
        self._keep: list[Expr] = []  # keep translated nodes alive so ids stay unique
        self._literals: dict[tuple[bool, int], z3.ExprRef] = {}
        self._numbers: dict[tuple[int | None, int], z3.ExprRef | _Wide] = {}
        self._sources: dict[tuple[int, tuple[str, ...]], object] = {}  # substitution sources
        self._truths: dict[bool, z3.BoolRef] = {}

    # -- constants -------------------------------------------------------------------
    def const(self, node: Expr) -> z3.ExprRef:
        name = node.name
        assert name is not None
        if name not in self.consts:
            if node.sort is BOOL:
                self.consts[name] = z3.Bool(name, self.ctx)
            else:
                lo, hi = self.ranges.get(name, FULL)
                if self.width is None:
                    c = z3.Int(name, self.ctx)
                    self.domain.append(z3.And(c >= lo, c <= hi))
                else:
                    self._fits(hi, name)
                    c = z3.BitVec(name, self.width, self.ctx)
                    self.domain.append(z3.And(z3.UGE(c, lo), z3.ULE(c, hi)))
                self.consts[name] = c
        return self.consts[name]

    def _number(self, value: int) -> z3.ExprRef | _Wide:
        key = (self.width, value)
        if key not in self._numbers:  # a numeral once: every later use is the same term
            if self.width is None:
                self._numbers[key] = z3.IntVal(value, self.ctx)
            elif value >= 1 << self.width:
                self._numbers[key] = _Wide(value)
            else:
                self._numbers[key] = z3.BitVecVal(value, self.width, self.ctx)
        return self._numbers[key]

    def _fits(self, value: int, what: str) -> None:
        if self.width is not None and value >= 1 << self.width:
            raise HarnessBug(
                f"{what} may reach {value}, beyond the solver's {self.width}-bit width"
            )

    # -- terms -------------------------------------------------------------------------
    def translate(self, root: Expr) -> z3.ExprRef:
        memo = self._memo
        term = memo.get(id(root))
        if term is None:
            keep, handle = self._keep.append, _HANDLERS
            for node in walk([root], memo):  # what memo holds, it holds with its children
                keep(node)
                memo[id(node)] = handle[node.op](self, node, [memo[id(a)] for a in node.args])
            term = memo[id(root)]
        if isinstance(term, _Wide):
            raise HarnessBug(f"the constant {term.value} reaches the solver beyond its width")
        return term

    def _truth(self, value: bool) -> z3.BoolRef:
        """Z3's true or false (terms every context has from the start: no new term)."""
        truth = self._truths.get(value)
        if truth is None:
            truth = self._truths[value] = z3.BoolVal(value, self.ctx)
        return truth

    def _made(self, kind: type[z3.ExprRef], ast: Any) -> Any:
        """A new term ``ast`` as a ``kind`` wrapper, as ``kind(ast, ctx)`` makes it (the same
        reference taken, dropped by the wrapper's __del__) without its calls through Python."""
        if not ast:  # what the skipped error-code check would have caught
            code = z3.Z3_get_error_code(self._ref)
            raise HarnessBug(f"Z3 made no term: {z3.Z3_get_error_msg(self._ref, code)}")
        term = _NEW(kind)
        term.ast = ast
        term.ctx = self.ctx
        _INC_REF(self._ref, ast)
        return term

    def _bool(self, ast: object) -> z3.BoolRef:
        return self._made(z3.BoolRef, ast)

    def _equal(self, make: Callable[..., Any], x: z3.ExprRef, y: z3.ExprRef) -> z3.BoolRef:
        """``x == y`` (``make`` Z3_mk_eq) or ``x != y`` (distinct) with Python's operand
        order: a right operand whose type subclasses the left's (a numeral beside a term)
        has its method called first, so it comes first in the term."""
        if type(y) is not type(x) and isinstance(y, type(x)):
            x, y = y, x
        return self._bool(make(self._ref, x.ast, y.ast))

    def span(self, node: Expr) -> Span:
        """The values an integer node can take (after ``translate`` saw it)."""
        return self._span.get(id(node), FULL)

    def _eq(self, node: Expr, a: list[Any]) -> z3.ExprRef:
        if node.args[0].sort is not BOOL:
            return self._compare(node, a)
        return self._equal(_MK_EQ, *a)

    def _ne(self, node: Expr, a: list[Any]) -> z3.ExprRef:
        if node.args[0].sort is not BOOL:
            return self._compare(node, a)
        return self._equal(_mk_distinct, *a)

    def _and(self, node: Expr, a: list[Any]) -> z3.BoolRef:
        return self._bool(_MK_AND(self._ref, len(a), _asts(a)))

    def _or(self, node: Expr, a: list[Any]) -> z3.BoolRef:
        return self._bool(_MK_OR(self._ref, len(a), _asts(a)))

    def _not(self, node: Expr, a: list[Any]) -> z3.BoolRef:
        return self._bool(_MK_NOT(self._ref, a[0].ast))

    def _leaf(self, node: Expr, a: list[Any]) -> z3.ExprRef | _Wide:
        if node.op == "const":
            if node.sort is BOOL:
                return self._truth(bool(node.value))
            value = int(node.value)  # type: ignore[arg-type]  # a const has a value
            self._span[id(node)] = (value, value)
            return self._number(value)
        if node.sort is not BOOL:
            self._span[id(node)] = self.ranges.get(node.name or "", FULL)
        return self.const(node)

    def _ite(self, node: Expr, a: list[Any]) -> z3.ExprRef | _Wide:
        cond, then, otherwise = a
        known = _GET_BOOL_VALUE(self._ref, cond.ast)  # a literal true or false
        if node.sort is not BOOL:
            first, second = self.span(node.args[1]), self.span(node.args[2])
            if known == z3.Z3_L_TRUE:
                self._span[id(node)] = first
            elif known == z3.Z3_L_FALSE:
                self._span[id(node)] = second
            else:
                self._span[id(node)] = (min(first[0], second[0]), max(first[1], second[1]))
        if known == z3.Z3_L_TRUE:
            return then
        if known == z3.Z3_L_FALSE:
            return otherwise
        self._solid(node, then, otherwise)
        ite = _MK_ITE(self._ref, cond.ast, then.ast, otherwise.ast)
        if node.sort is BOOL:
            return self._bool(ite)
        return self._made(z3.BitVecRef if self.width is not None else z3.ArithRef, ite)

    def _solid(self, node: Expr, *terms: object) -> None:
        for term in terms:
            if isinstance(term, _Wide):
                raise HarnessBug(
                    f"the constant {term.value} in a `{node.op}` term does not fit the "
                    f"solver's {self.width}-bit width"
                )

    def _compare(self, node: Expr, a: list[Any]) -> z3.ExprRef:
        """An integer comparison; a constant when the operands' ranges decide it."""
        verdict = decided(node.op, self.span(node.args[0]), self.span(node.args[1]))
        if verdict is not None:
            return self._truth(verdict)
        x, y = a
        self._solid(node, x, y)
        if node.op == "eq":
            return self._equal(_MK_EQ, x, y)
        if node.op == "ne":
            return self._equal(_mk_distinct, x, y)
        if self.width is None:  # rare (ranges too wide for bit-vectors): the wrappers' way
            return {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[node.op]
        return self._bool(_UNSIGNED[node.op](self._ref, x.ast, y.ast))

    def _add(self, node: Expr, a: list[Any]) -> z3.ExprRef:
        span, wraps = sum_span(self.span(node.args[0]), self.span(node.args[1]))
        self._span[id(node)] = span
        self._solid(node, *a)
        total = self._plus(a[0], a[1])
        if wraps == "never":
            self._fits(span[1], "a sum")
            return total
        self._fits(UINT64_MAX, "a sum that wraps")
        if wraps == "always":
            return total - MODULUS
        return z3.If(total > UINT64_MAX, total - MODULUS, total)

    def _sub(self, node: Expr, a: list[Any]) -> z3.ExprRef:
        floored = floored_span(node, self.span)
        if floored is not None:  # max_of(x, y) - y: never wraps, so no wrap-around case
            self._span[id(node)] = floored
            self._solid(node, *a)
            return self._minus(a[0], a[1])
        span, wraps = difference_span(self.span(node.args[0]), self.span(node.args[1]))
        self._span[id(node)] = span
        self._solid(node, *a)
        diff = self._minus(a[0], a[1])
        if wraps == "never":
            return diff
        self._fits(UINT64_MAX, "a difference that wraps")
        if wraps == "always":
            return diff + MODULUS
        return z3.If(a[0] >= a[1], diff, diff + MODULUS)

    def _plus(self, x: Any, y: Any) -> Any:
        """``x + y`` as z3's ``+`` makes it (over bit-vectors: bvadd of the two, in order)."""
        if self.width is None:
            return x + y
        return self._made(z3.BitVecRef, _MK_BVADD(self._ref, x.ast, y.ast))

    def _minus(self, x: Any, y: Any) -> Any:
        """``x - y`` as z3's ``-`` makes it (over bit-vectors: bvsub of the two, in order)."""
        if self.width is None:
            return x - y
        return self._made(z3.BitVecRef, _MK_BVSUB(self._ref, x.ast, y.ast))

    # -- instances -----------------------------------------------------------------------
    def instance(self, expr: Expr, values: Mapping[str, Value]) -> z3.ExprRef:
        """``expr`` translated, with the variables in ``values`` replaced by those values.

        Z3's own substitution on the term translated once (through its C API:
        ``z3.substitute`` checks every pair in Python, which dominates when one
        expression is instantiated for many inputs).
        """
        term = self.translate(expr)
        names = tuple(name for name in values if name in self.consts)
        if not names:
            return term
        key = (id(term), names)
        if key not in self._sources:
            sources = (z3.Ast * len(names))()
            for i, name in enumerate(names):
                sources[i] = self.consts[name].as_ast()
            self._sources[key] = sources
        targets = (z3.Ast * len(names))()
        for i, name in enumerate(names):
            targets[i] = self.literal(values[name]).as_ast()
        ast = z3.Z3_substitute(
            self.ctx.ref(), term.as_ast(), len(names), self._sources[key], targets
        )
        # Wrapped at once (the wrapper holds a reference), then folded where the values decide.
        if z3.is_bool(term):
            result: z3.ExprRef = z3.BoolRef(ast, self.ctx)
        elif self.width is not None:
            result = z3.BitVecRef(ast, self.ctx)
        else:
            result = z3.ArithRef(ast, self.ctx)
        return z3.simplify(result)

    def literal(self, value: Value) -> z3.ExprRef:
        """A Z3 constant for a plain value (made once per value)."""
        key = (type(value) is bool, int(value))
        if key not in self._literals:
            if isinstance(value, bool):
                self._literals[key] = z3.BoolVal(value, self.ctx)
            else:
                number = self._number(int(value))
                if isinstance(number, _Wide):
                    raise HarnessBug(
                        f"the value {number.value} does not fit the solver's {self.width}-bit width"
                    )
                self._literals[key] = number
        return self._literals[key]

    # -- models --------------------------------------------------------------------------
    def value(self, model: z3.ModelRef, name: str) -> Value:
        """A variable's value in ``model`` (Z3's default if the model leaves it free)."""
        c = self.consts[name]
        v = model.eval(c, model_completion=True)
        if z3.is_bool(c):
            return bool(z3.is_true(v))
        return int(v.as_long())


# Each operator's translation of a node whose children are translated (functions, not bound
# methods: a translator holding its own bound methods would be a cycle, its Z3 context
# freed only by the cycle collector, late and all at once).
_HANDLERS: dict[str, Callable[[Translator, Expr, list[Any]], Any]] = {
    "const": Translator._leaf, "var": Translator._leaf,
    "lt": Translator._compare, "le": Translator._compare,
    "gt": Translator._compare, "ge": Translator._compare,
    "eq": Translator._eq, "ne": Translator._ne,
    "add": Translator._add, "sub": Translator._sub,
    "and": Translator._and, "or": Translator._or, "not": Translator._not,
    "ite": Translator._ite,
}  # fmt: skip
