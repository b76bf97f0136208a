"""The vectorised interpretation of ``spec.expr``: one expression over many inputs at once.

A third interpretation of the same nodes, beside ``spec.expr.evaluate`` /
``spec.expr.Compiled`` (plain ints and bools) and
``checker.symbolic.z3expr`` (Z3 terms). An integer is a NumPy ``uint64``
array, a boolean a ``bool`` array, one element per input: ``+`` and ``-``
wrap modulo 2**64 (NumPy's unsigned arithmetic, as ``spec.expr`` defines
them), comparisons are unsigned, ``ite`` is ``numpy.where``. Each node is
evaluated once per call, over the whole column, so the cost per input is a
few machine instructions per node rather than a Python call. The tests check
it against ``spec.expr.evaluate`` on random expressions and inputs, values
near 2**64 included.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import reduce

import numpy as np

from spec.errors import RuleLanguageError
from spec.expr import BOOL, INT, Expr, Sort, walk

__all__ = ["Vectorised"]

_COMPARE = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}
_DTYPE = {INT: np.uint64, BOOL: np.bool_}


class Vectorised:
    """``roots`` evaluated over columns: ``Vectorised(roots)(columns, size)``.

    ``columns`` maps each variable name (``inputs``) to an array of ``size``
    values; the result is one array of ``size`` values per root, in order.
    Intermediate columns are freed as soon as no later node needs them.
    """

    def __init__(self, roots: Iterable[Expr]) -> None:
        self.roots = list(roots)
        self._order = list(walk(self.roots))
        self.inputs: dict[str, Sort] = {n.var_name: n.sort for n in self._order if n.op == "var"}
        last_use = {id(node): k for k, node in enumerate(self._order)}
        for k, node in enumerate(self._order):
            for arg in node.args:
                last_use[id(arg)] = k
        for root in self.roots:
            last_use[id(root)] = len(self._order)
        # After node k: the nodes no later node reads.
        self._free: list[list[int]] = [[] for _ in self._order]
        for node in self._order:
            done = last_use[id(node)]
            if done < len(self._order):
                self._free[done].append(id(node))

    def __call__(self, columns: Mapping[str, np.ndarray], size: int) -> list[np.ndarray]:
        values: dict[int, np.ndarray | np.generic] = {}
        with np.errstate(over="ignore"):
            for k, node in enumerate(self._order):
                values[id(node)] = self._node(node, values, columns, size)
                for gone in self._free[k]:
                    del values[gone]
        return [self._full(values[id(root)], root.sort, size) for root in self.roots]

    @staticmethod
    def _full(value: np.ndarray | np.generic, sort: Sort, size: int) -> np.ndarray:
        array: np.ndarray = np.asarray(value, dtype=_DTYPE[sort])
        if array.shape == (size,):
            return array
        return np.broadcast_to(array, (size,)).copy()

    def _node(
        self,
        node: Expr,
        values: Mapping[int, np.ndarray | np.generic],
        columns: Mapping[str, np.ndarray],
        size: int,
    ) -> np.ndarray | np.generic:
        op = node.op
        if op == "const":
            return _DTYPE[node.sort](node.value)
        if op == "var":
            try:
                data = columns[node.var_name]
            except KeyError:
                raise RuleLanguageError("", f"no column given for `{node.name}`") from None
            if data.dtype != _DTYPE[node.sort] or data.shape != (size,):
                raise ValueError(
                    f"column `{node.name}` must be {size} values of {np.dtype(_DTYPE[node.sort])}, "
                    f"got {data.shape} {data.dtype}"
                )
            return data
        a = [values[id(arg)] for arg in node.args]
        if op in _COMPARE:
            return _COMPARE[op](a[0], a[1])
        if op == "add":
            return np.add(a[0], a[1], dtype=np.uint64)
        if op == "sub":
            return np.subtract(a[0], a[1], dtype=np.uint64)
        if op == "and":
            return reduce(np.logical_and, a)
        if op == "or":
            return reduce(np.logical_or, a)
        if op == "not":
            return np.logical_not(a[0])
        if op == "ite":
            return np.where(a[0], a[1], a[2])
        raise ValueError(f"unknown operator {op}")
