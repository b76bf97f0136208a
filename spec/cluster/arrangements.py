"""Sorting things by a rank, and every arrangement of those that tie.

A canonical form picks, of the renamings that sort a state's nodes
(``spec.cluster.symmetry``) or its client's keys (``spec.cluster.keys``) by a
rank that renaming does not change, the one whose result encodes least; the
candidates are the sorted order with each group of tied things in every
arrangement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import permutations, product
from typing import Any

__all__ = ["tied_orders", "where"]


def tied_orders(things: Iterable[int], rank: Sequence[Any]) -> list[list[int]]:
    """Every order of ``things`` (indices into ``rank``) sorted by their rank, those of
    equal rank in each of their arrangements; one order when no two tie, and the first
    is always the stable sort."""
    order = sorted(things, key=rank.__getitem__)
    groups: list[list[int]] = []
    for k, thing in enumerate(order):
        if k and rank[thing] == rank[order[k - 1]]:
            groups[-1].append(thing)
        else:
            groups.append([thing])
    if len(groups) == len(order):
        return [order]
    return [
        [thing for group in arrangement for thing in group]
        for arrangement in product(*(permutations(g) for g in groups))
    ]


def where(order: Sequence[int]) -> list[int]:
    """The renaming that gives ``order[k]`` the name ``k``."""
    out = [0] * len(order)
    for new, old in enumerate(order):
        out[old] = new
    return out
