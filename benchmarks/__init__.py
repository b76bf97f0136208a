"""Benchmarks: ``python -m benchmarks [NAME ...]`` (``make bench`` runs them all).

Each benchmark module defines ``run(quick: bool) -> None`` and prints a
tabulate table whose ratios were measured side by side in the same run: an
absolute time on a shared machine means little, a ratio taken in one run
means more.
"""
