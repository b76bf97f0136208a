"""The symbolic interpretation of ``spec.expr``: expressions to Z3 terms.

Integers become Z3 ``Int`` constants restricted to ``[0, 2**64 - 1]``; ``+``
and ``-`` wrap modulo ``2**64`` exactly as ``spec.expr.evaluate`` does. This
module and ``checker.symbolic.session`` are the only ones importing z3: no Z3
object leaves the symbolic layer.
"""

from __future__ import annotations

from collections.abc import Mapping

import z3

from spec.expr import BOOL, MODULUS, UINT64_MAX, Expr, Value, walk

__all__ = ["Translator"]


class Translator:
    """Translates expressions, creating one Z3 constant per variable name."""

    def __init__(self, ctx: z3.Context | None = None) -> None:
        self.ctx = ctx or z3.main_ctx()
        self.consts: dict[str, z3.ExprRef] = {}
        self.domain: list[z3.BoolRef] = []  # range constraints of the Int constants
        self._memo: dict[int, z3.ExprRef] = {}
        self._keep: list[Expr] = []  # keep translated nodes alive so ids stay unique
        self._literals: dict[tuple[bool, int], z3.ExprRef] = {}
        self._sources: dict[tuple[int, tuple[str, ...]], object] = {}  # substitution sources

    def const(self, node: Expr) -> z3.ExprRef:
        name = node.name
        assert name is not None
        if name not in self.consts:
            if node.sort is BOOL:
                self.consts[name] = z3.Bool(name, self.ctx)
            else:
                c = z3.Int(name, self.ctx)
                self.consts[name] = c
                self.domain.append(z3.And(c >= 0, c <= UINT64_MAX))
        return self.consts[name]

    def translate(self, root: Expr) -> z3.ExprRef:
        memo = self._memo
        if id(root) in memo:
            return memo[id(root)]
        for node in walk([root]):
            if id(node) in memo:
                continue
            self._keep.append(node)
            memo[id(node)] = self._node(node, [memo[id(a)] for a in node.args])
        return memo[id(root)]

    def _node(self, node: Expr, a: list[z3.ExprRef]) -> z3.ExprRef:
        op = node.op
        if op == "const":
            if node.sort is BOOL:
                return z3.BoolVal(bool(node.value), self.ctx)
            return z3.IntVal(int(node.value), self.ctx)  # type: ignore[arg-type]
        if op == "var":
            return self.const(node)
        if op == "lt":
            return a[0] < a[1]
        if op == "le":
            return a[0] <= a[1]
        if op == "gt":
            return a[0] > a[1]
        if op == "ge":
            return a[0] >= a[1]
        if op == "eq":
            return a[0] == a[1]
        if op == "ne":
            return a[0] != a[1]
        if op == "add":
            total = a[0] + a[1]
            return z3.If(total > UINT64_MAX, total - MODULUS, total)
        if op == "sub":
            diff = a[0] - a[1]
            return z3.If(a[0] >= a[1], diff, diff + MODULUS)
        if op == "and":
            return z3.And(*a)
        if op == "or":
            return z3.Or(*a)
        if op == "not":
            return z3.Not(a[0])
        if op == "ite":
            return z3.If(a[0], a[1], a[2])
        raise ValueError(f"unknown operator {op}")

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
        result = z3.BoolRef(ast, self.ctx) if z3.is_bool(term) else z3.ArithRef(ast, self.ctx)
        return z3.simplify(result)

    def literal(self, value: Value) -> z3.ExprRef:
        """A Z3 constant for a plain value (made once per value)."""
        key = (type(value) is bool, int(value))
        if key not in self._literals:
            if isinstance(value, bool):
                self._literals[key] = z3.BoolVal(value, self.ctx)
            else:
                self._literals[key] = z3.IntVal(int(value), self.ctx)
        return self._literals[key]

    def value(self, model: z3.ModelRef, name: str) -> Value:
        """A variable's value in ``model`` (Z3's default if the model leaves it free)."""
        c = self.consts[name]
        v = model.eval(c, model_completion=True)
        if z3.is_bool(c):
            return bool(z3.is_true(v))
        return int(v.as_long())  # type: ignore[attr-defined]
