"""How a benchmark prints what it measured: one caption line, the table, a blank line."""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate


def print_table(caption: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    print(caption)
    print(tabulate(rows, headers=list(headers)))
    print()
