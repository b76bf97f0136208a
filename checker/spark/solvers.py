"""What a Spark session offers the engines: the solvers they are bound to.

An engine that runs on Spark (``checker.engines.registry``: ``needs_spark``)
is bound with ``engine.on_spark(SparkSolvers(spark), names, update)``; it
asks this object for the solver it needs, so the registry never imports
Spark and the layers stay as ARCHITECTURE.md draws them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from checker.engines.cubes import SolveCubes
from checker.engines.registry import Names, SearchOnSpark
from checker.spark.cubes import cubes_on_spark
from checker.spark.exhaustive import exhaustive_on_spark

__all__ = ["SparkSolvers"]


class SparkSolvers:
    """The solvers of one Spark session, for the check of ``names`` (rules, consumer,
    property as the command line named them: executors resolve them again)."""

    def __init__(self, spark: Any) -> None:
        self.spark = spark

    def cubes(self, names: Names, update: Callable[[str], None] | None) -> SolveCubes:
        """The cubes of a split Z3 proof, solved on the executors."""
        return cubes_on_spark(self.spark, *names, update)

    def exhaustive(self, names: Names) -> SearchOnSpark:
        """Every scenario, enumerated on the executors."""
        return exhaustive_on_spark(self.spark, *names)
