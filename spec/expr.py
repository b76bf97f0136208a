"""A small expression language: one definition, three interpretations.

Rule sets, consumer variants, properties and the history model are built from
these nodes. ``evaluate`` interprets an expression over plain ints and bools;
``checker.symbolic`` translates the very same nodes into Z3 terms;
``checker.columns`` evaluates them over NumPy columns, many inputs at once
(``dcpcheck sweep``). Nothing else interprets them, and the tests check the
interpretations against each other, so the readings cannot drift apart.

Integers are kv_engine's ``uint64_t``: every value lies in ``[0, 2**64 - 1]``,
``+`` and ``-`` wrap modulo ``2**64``, comparisons are unsigned.

Build expressions with Python operators on ``Expr`` values: ``< <= > >= == !=``
compare, ``+ -`` add and subtract, ``& | ~`` are and/or/not on booleans, and
``ite(c, a, b)`` chooses. Python's ``and``/``or``/``not``/``if`` cannot be
overloaded, so using an expression as a Python truth value is an error. Note
that ``&`` binds tighter than ``==``: write ``(F.start == 0) & F.strict``.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cached_property, lru_cache

from spec.errors import RuleLanguageError

UINT64_MAX = 2**64 - 1
MODULUS = 2**64

__all__ = [
    "BOOL",
    "INT",
    "Expr",
    "Sort",
    "Value",
    "all_of",
    "any_of",
    "brief",
    "const",
    "evaluate",
    "evaluate_many",
    "implies",
    "ite",
    "lift",
    "max_of",
    "min_of",
    "saturating_sub",
    "substitute",
    "var",
    "variables",
    "walk",
]

Value = int | bool


class Sort(Enum):
    INT = "int"
    BOOL = "bool"


INT = Sort.INT
BOOL = Sort.BOOL

COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
_SYMBOL = {
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
    "add": "+",
    "sub": "-",
    "and": "&",
    "or": "|",
}
# Python's own precedence, so that printed expressions read back as the same expression.
_PRECEDENCE = {"cmp": 2, "or": 3, "and": 4, "add": 6, "sub": 6, "not": 7}


@dataclass(eq=False, repr=False, slots=True)  # its == and != build expressions
class Expr:
    """An immutable expression node. Compare with ``same()``, not ``==``."""

    op: str
    sort: Sort
    args: tuple[Expr, ...] = ()
    value: Value | None = None
    name: str | None = None

    # -- identity and printing -------------------------------------------------
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise RuleLanguageError(
            "",
            f"the expression `{brief(self)}` has no Python truth value: use & | ~ instead of "
            "and/or/not, ite(c, a, b) instead of if, and parenthesise comparisons",
        )

    def __repr__(self) -> str:
        return f"Expr({self})"

    def __str__(self) -> str:
        return _show(self, 0)

    def same(self, other: Expr) -> bool:
        """Structural equality."""
        return _key(self) == _key(other)

    @property
    def is_const(self) -> bool:
        return self.op == "const"

    @property
    def var_name(self) -> str:
        """A ``var`` node's name (``name`` is None on every other node)."""
        if self.name is None:
            raise TypeError(f"`{brief(self)}` is not a variable")
        return self.name

    # -- operators -------------------------------------------------------------
    def __lt__(self, other: object) -> Expr:
        return _compare("lt", self, other)

    def __le__(self, other: object) -> Expr:
        return _compare("le", self, other)

    def __gt__(self, other: object) -> Expr:
        return _compare("gt", self, other)

    def __ge__(self, other: object) -> Expr:
        return _compare("ge", self, other)

    def __eq__(self, other: object) -> Expr:  # type: ignore[override]  # == builds an Expr
        return _compare("eq", self, other)

    def __ne__(self, other: object) -> Expr:  # type: ignore[override]  # != builds an Expr
        return _compare("ne", self, other)

    def __add__(self, other: object) -> Expr:
        return _arith("add", self, other)

    def __radd__(self, other: object) -> Expr:
        return _arith("add", other, self)

    def __sub__(self, other: object) -> Expr:
        return _arith("sub", self, other)

    def __rsub__(self, other: object) -> Expr:
        return _arith("sub", other, self)

    def __and__(self, other: object) -> Expr:
        return all_of(self, _bool_operand("&", other))

    def __rand__(self, other: object) -> Expr:
        return all_of(_bool_operand("&", other), self)

    def __or__(self, other: object) -> Expr:
        return any_of(self, _bool_operand("|", other))

    def __ror__(self, other: object) -> Expr:
        return any_of(_bool_operand("|", other), self)

    def __invert__(self) -> Expr:
        return not_(self)


# -- constructors ------------------------------------------------------------------

TRUE = Expr("const", BOOL, value=True)
FALSE = Expr("const", BOOL, value=False)


def const(value: Value) -> Expr:
    if isinstance(value, bool):
        return TRUE if value else FALSE
    if isinstance(value, int):
        if not 0 <= value <= UINT64_MAX:
            raise RuleLanguageError("", f"integer constant {value} is outside uint64 [0, 2^64-1]")
        return Expr("const", INT, value=value)
    raise RuleLanguageError("", f"cannot use {type(value).__name__} {value!r} in an expression")


def brief(expr: Expr, width: int = 48) -> str:
    """``expr`` as an error message shows it: whole when short, else its outermost operation
    (``... < ...``, ``ite(...)``): a symbolic value can print as thousands of characters."""
    text = str(expr)
    if len(text) <= width:
        return text
    if expr.op in _SYMBOL:
        return f"... {_SYMBOL[expr.op]} ..."
    if expr.op == "not":
        return "~(...)"
    return f"{expr.op}(...)"


def var(name: str, sort: Sort) -> Expr:
    return Expr("var", sort, name=name)


def lift(value: object) -> Expr:
    if isinstance(value, Expr):
        return value
    return const(value)  # type: ignore[arg-type]  # const refuses a non-Value


def _need(sort: Sort, expr: Expr, context: str) -> Expr:
    if expr.sort is not sort:
        raise RuleLanguageError(
            "", f"{context} needs {sort.value} operands, got {expr.sort.value} `{brief(expr)}`"
        )
    return expr


def _bool_operand(symbol: str, other: object) -> Expr:
    expr = lift(other)
    if expr.sort is not BOOL:
        raise RuleLanguageError(
            "",
            f"`{symbol}` needs booleans on both sides, got `{brief(expr)}`; "
            "did you forget parentheses around a comparison?",
        )
    return expr


def _compare(op: str, left: object, right: object) -> Expr:
    a, b = lift(left), lift(right)
    if op in ("eq", "ne"):
        if a.sort is not b.sort:
            raise RuleLanguageError(
                "",
                f"cannot compare {a.sort.value} `{brief(a)}` with {b.sort.value} `{brief(b)}`",
            )
    else:
        _need(INT, a, f"`{_SYMBOL[op]}`")
        _need(INT, b, f"`{_SYMBOL[op]}`")
    if a.is_const and b.is_const:
        return const(_apply(op, (a.value, b.value)))  # type: ignore[arg-type]  # consts have values
    return Expr(op, BOOL, (a, b))


def _arith(op: str, left: object, right: object) -> Expr:
    a = _need(INT, lift(left), f"`{_SYMBOL[op]}`")
    b = _need(INT, lift(right), f"`{_SYMBOL[op]}`")
    if a.is_const and b.is_const:
        return const(_apply(op, (a.value, b.value)))  # type: ignore[arg-type]  # consts have values
    if b.is_const and b.value == 0:
        return a
    return Expr(op, INT, (a, b))


def not_(expr: Expr) -> Expr:
    expr = _need(BOOL, lift(expr), "`~`")
    if expr.is_const:
        return const(not expr.value)
    if expr.op == "not":
        return expr.args[0]
    return Expr("not", BOOL, (expr,))


def all_of(*exprs: object) -> Expr:
    """Conjunction; ``all_of()`` is true."""
    return _junction("and", exprs)


def any_of(*exprs: object) -> Expr:
    """Disjunction; ``any_of()`` is false."""
    return _junction("or", exprs)


def _junction(op: str, exprs: Iterable[object]) -> Expr:
    unit, zero = (True, False) if op == "and" else (False, True)
    args: list[Expr] = []
    for item in exprs:
        expr = _need(BOOL, lift(item), f"`{_SYMBOL[op]}`")
        if expr.is_const:
            if expr.value is zero:
                return const(zero)
            continue
        if expr.op == op:
            args.extend(expr.args)
        else:
            args.append(expr)
    if not args:
        return const(unit)
    if len(args) == 1:
        return args[0]
    return Expr(op, BOOL, tuple(args))


def implies(premise: object, conclusion: object) -> Expr:
    return any_of(not_(lift(premise)), conclusion)


def ite(cond: object, then: object, otherwise: object) -> Expr:
    c = _need(BOOL, lift(cond), "ite condition")
    a, b = lift(then), lift(otherwise)
    if a.sort is not b.sort:
        raise RuleLanguageError(
            "",
            f"ite branches differ: {a.sort.value} `{brief(a)}` vs {b.sort.value} `{brief(b)}`",
        )
    if c.is_const:
        return a if c.value else b
    if a is b:
        return a
    return Expr("ite", a.sort, (c, a, b))


def max_of(*exprs: object) -> Expr:
    items = [lift(e) for e in exprs]
    best = items[0]
    for item in items[1:]:
        best = ite(item > best, item, best)
    return best


def min_of(*exprs: object) -> Expr:
    items = [lift(e) for e in exprs]
    best = items[0]
    for item in items[1:]:
        best = ite(item < best, item, best)
    return best


def saturating_sub(a: object, b: object) -> Expr:
    """``a - b``, or 0 when ``b > a``: unlike ``a - b`` (uint64, which wraps to
    ``2**64 - (b - a)``) it never wraps, so a query using it can still be solved over
    small bit-vectors (checker/symbolic/ranges.py) where ``a - b`` would need integers."""
    x, y = lift(a), lift(b)
    return max_of(x, y) - y


# -- traversal -----------------------------------------------------------------------


def walk(roots: Iterable[Expr], done: Container[int] = frozenset()) -> Iterator[Expr]:
    """Every node reachable from ``roots``, each once, children before parents.

    ``done``: ids of nodes already handled together with everything below them (a
    translator's memo): those are neither yielded nor descended into, and the other
    nodes come in the order they would without it.
    """
    seen: set[int] = set()
    # A node is pushed as itself (to expand) or inside a 1-tuple (expanded: to yield).
    # Hot (every translation, substitution and compilation walks), hence the plain loops.
    for root in roots:
        stack: list[Expr | tuple[Expr]] = [root]
        pop, push = stack.pop, stack.append
        while stack:
            item = pop()
            if isinstance(item, tuple):
                node = item[0]
                key = id(node)
                if key not in seen and key not in done:
                    seen.add(key)
                    yield node
                continue
            node = item
            key = id(node)
            if key in seen or key in done:
                continue
            args = node.args
            if not args:
                seen.add(key)
                yield node
                continue
            push((node,))
            for child in reversed(args):
                child_key = id(child)
                if child_key not in seen and child_key not in done:
                    push(child)


def variables(roots: Iterable[Expr]) -> dict[str, Sort]:
    return {n.var_name: n.sort for n in walk(roots) if n.op == "var"}


def rebuild(node: Expr, args: tuple[Expr, ...]) -> Expr:
    """``node`` with new children, through the folding constructors."""
    op = node.op
    if op in COMPARISONS:
        return _compare(op, *args)
    if op in ("add", "sub"):
        return _arith(op, *args)
    if op == "and":
        return all_of(*args)
    if op == "or":
        return any_of(*args)
    if op == "not":
        return not_(args[0])
    if op == "ite":
        return ite(*args)
    raise ValueError(f"rebuild of leaf {op}")


def transform(roots: Iterable[Expr], leaf: Callable[[Expr], Expr]) -> dict[int, Expr]:
    """Rebuild ``roots`` bottom-up, replacing each leaf by ``leaf(node)``; id -> new node."""
    done: dict[int, Expr] = {}
    for node in walk(roots):
        old = node.args
        if not old:
            done[id(node)] = leaf(node)
            continue
        args = tuple([done[id(a)] for a in old])
        for a, b in zip(args, old, strict=True):
            if a is not b:
                done[id(node)] = rebuild(node, args)
                break
        else:
            done[id(node)] = node
    return done


def substitute(roots: list[Expr], mapping: Mapping[str, Expr]) -> list[Expr]:
    """Replace variables by expressions (checked for sort)."""

    def leaf(node: Expr) -> Expr:
        if node.op == "var" and node.name in mapping:
            new = mapping[node.name]  # type: ignore[index]  # a var node has a name
            if new.sort is not node.sort:
                raise RuleLanguageError(
                    "", f"`{node.name}` is {node.sort.value} but was given {new.sort.value} `{new}`"
                )
            return new
        return node

    done = transform(roots, leaf)
    return [done[id(r)] for r in roots]


# -- the concrete interpretation -------------------------------------------------------


# Each two-operand operator's value, by name (``_apply`` and evaluate_many's hot loop).
_BINARY: dict[str, Callable[[Value, Value], Value]] = {
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "add": lambda a, b: (a + b) % MODULUS,
    "sub": lambda a, b: (a - b) % MODULUS,
}


def _apply(op: str, v: tuple[Value, ...]) -> Value:
    binary = _BINARY.get(op)
    if binary is not None:
        return binary(v[0], v[1])
    if op == "and":
        return all(v)
    if op == "or":
        return any(v)
    if op == "not":
        return not v[0]
    if op == "ite":
        return v[1] if v[0] else v[2]
    raise ValueError(f"unknown operator {op}")


def evaluate_many(roots: Iterable[Expr], env: Mapping[str, Value]) -> list[Value]:
    """Evaluate several expressions over plain values, sharing common subterms."""
    roots = list(roots)
    values: dict[int, Value] = {}
    binary = _BINARY
    for node in walk(roots):
        op = node.op
        if op in binary:
            left, right = node.args
            values[id(node)] = binary[op](values[id(left)], values[id(right)])
        elif op == "ite":
            cond, then, otherwise = node.args
            values[id(node)] = values[id(then)] if values[id(cond)] else values[id(otherwise)]
        elif op == "const":
            values[id(node)] = node.value  # type: ignore[assignment]  # a const has a value
        elif op == "var":
            try:
                values[id(node)] = env[node.name]  # type: ignore[index]  # a var has a name (hot loop)
            except KeyError:
                raise RuleLanguageError("", f"no value given for `{node.name}`") from None
        else:  # and, or, not
            values[id(node)] = _apply(op, tuple([values[id(a)] for a in node.args]))
    return [values[id(r)] for r in roots]


def evaluate(root: Expr, env: Mapping[str, Value]) -> Value:
    return evaluate_many([root], env)[0]


# -- printing ------------------------------------------------------------------------


def _key(node: Expr) -> object:
    return (node.op, node.value, node.name, tuple(_key(a) for a in node.args))


def _show(node: Expr, outer: int) -> str:
    op = node.op
    if op == "const":
        return str(node.value).lower() if node.sort is BOOL else str(node.value)
    if op == "var":
        return node.var_name
    if op == "ite":
        return "ite({}, {}, {})".format(*(_show(a, 0) for a in node.args))
    if op == "not":
        text = "~" + _show(node.args[0], _PRECEDENCE["not"] + 1)
        level = _PRECEDENCE["not"]
    elif op in ("and", "or"):
        level = _PRECEDENCE[op]
        text = f" {_SYMBOL[op]} ".join(_show(a, level + 1) for a in node.args)
    else:
        level = _PRECEDENCE["cmp" if op in COMPARISONS else op]
        left = _show(node.args[0], level + 1 if op in COMPARISONS else level)
        right = _show(node.args[1], level + 1)
        text = f"{left} {_SYMBOL[op]} {right}"
    return f"({text})" if level < outer else text


# -- the concrete interpretation, compiled -------------------------------------------------

_PY = {
    "lt": "({0} < {1})",
    "le": "({0} <= {1})",
    "gt": "({0} > {1})",
    "ge": "({0} >= {1})",
    "eq": "({0} == {1})",
    "ne": "({0} != {1})",
    "add": "(({0} + {1}) % 18446744073709551616)",
    "sub": "(({0} - {1}) % 18446744073709551616)",
    "not": "(not {0})",
    "ite": "({1} if {0} else {2})",
}


# Nodes written inside one another at most this deep (each level adds up to two pairs of
# parentheses; Python's parser refuses 200 nested ones).
_NESTING = 40


class Compiled:
    """``roots`` as one function of an environment: the same semantics as ``evaluate``.

    Use it where one expression is evaluated many times (``decide`` on every
    stdin line, vector replay, exhaustive enumeration); the tests check it
    against ``evaluate`` on random inputs.

    The first call is interpreted (``evaluate_many``); the second compiles the roots into
    one Python function (``_compile``), which every later call runs. Compiling costs
    about four interpretations (measured: a model's trace of 2,930 nodes, 34 ms to
    compile, 7.7 ms to interpret, 0.02 ms a compiled call), and many programs run once:
    the trace of a counterexample's model, replayed once to confirm it.
    """

    def __init__(self, roots: Iterable[Expr]) -> None:
        self.roots = list(roots)
        self._function: Callable[[Mapping[str, Value]], list[Value]] | None = None
        self._interpreted = False

    @cached_property
    def inputs(self) -> list[str]:
        """The variables the roots read, sorted."""
        return sorted({n.var_name for n in walk(self.roots) if n.op == "var"})

    def function(self) -> Callable[[Mapping[str, Value]], list[Value]]:
        """The compiled function (compiled now if it is not yet)."""
        if self._function is None:
            self._function = _compile(self.roots)
        return self._function

    def __call__(self, env: Mapping[str, Value]) -> list[Value]:
        function = self._function
        if function is None:
            if not self._interpreted:
                self._interpreted = True
                return evaluate_many(self.roots, env)
            function = self.function()
        try:
            return function(env)
        except KeyError as missing:
            raise RuleLanguageError("", f"no value given for `{missing.args[0]}`") from None


def _compile(roots: list[Expr]) -> Callable[[Mapping[str, Value]], list[Value]]:
    """``roots`` turned into one Python function.

    The function reads every variable first (a missing one is an error whatever
    the other values), then computes each node shared by several parents once,
    into a local; a node with one parent is written inside its parent's
    expression (up to ``_NESTING`` levels deep, below the parser's limit on
    nested parentheses). Python compiles a function in time that grows with its
    statements and locals, so a model's whole trace (thousands of nodes, most
    used once) compiles several times faster than with a local per node, and
    runs no slower: the branch ``ite`` and ``and``/``or`` do not take is not
    computed. Every operator is total on the values it is given (only reading a
    variable can fail), so computing less changes no result.
    """
    order = list(walk(roots))
    uses: dict[int, int] = {}
    for node in order:
        for arg in node.args:
            uses[id(arg)] = uses.get(id(arg), 0) + 1
    returned = {id(root) for root in roots}  # always a local
    code: dict[int, str] = {}
    depth: dict[int, int] = {}
    reads: list[str] = []  # every variable, first: a missing one fails every call
    lines: list[str] = []
    for node in order:
        key = id(node)
        if node.op == "const":
            code[key], depth[key] = repr(node.value), 0
            continue
        if node.op == "var":
            text, level = f"env[{node.name!r}]", 0
        else:
            args = [code[id(a)] for a in node.args]
            level = 1 + max(depth[id(a)] for a in node.args)
            if node.op in ("and", "or"):
                text = "(" + f" {node.op} ".join(args) + ")"
            else:
                text = _PY[node.op].format(*args)
        shared = uses.get(key, 0) > 1 or key in returned
        if node.op == "var" or shared or level >= _NESTING:
            local = f"_{len(reads) + len(lines)}"
            (reads if node.op == "var" else lines).append(f"    {local} = {text}")
            code[key], depth[key] = local, 0
        else:
            code[key], depth[key] = text, level
    result = "    return [" + ", ".join(code[id(r)] for r in roots) + "]"
    return _function_of("\n".join(["def _compiled(env):", *reads, *lines, result]))


@lru_cache(maxsize=256)
def _function_of(source: str) -> Callable[[Mapping[str, Value]], list[Value]]:
    """The function ``source`` defines, compiled once for each source: Deciders, models and
    properties made again from the same definitions write the same one (in the tests, 0.77
    of 2.09 CPU s of compiling was a source compiled before). The function keeps no state."""
    namespace: dict[str, object] = {}
    exec(compile(source, "<dcpcheck-expr>", "exec"), namespace)
    return namespace["_compiled"]  # type: ignore[return-value]  # exec made it
