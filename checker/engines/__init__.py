"""The engines: each takes a model and a property and never looks inside the model.

* ``z3``: symbolic search of the single-node scenario model (a proof within
  bounds, or a minimised counterexample);
* ``exhaustive``: every scenario of the single-node model, evaluated
  concretely (a proof when it completes);
* ``random``: hypothesis-drawn scenarios (finds violations, proves nothing);
* ``spark``: the ``z3`` proof cut into cubes (``cubes``), the cubes solved on
  Spark executors (``checker.spark.cubes``): the same verdicts and
  counterexamples as ``z3``;
* ``explore``: breadth-first / depth-first search of any explicit-state model
  (the cluster model).

The Spark adapters (``checker.spark``) run the same engines on executors.
``checker.engines.registry`` names them (``SCENARIO_ENGINES``,
``CLUSTER_ENGINES``): each engine is one object, and every search takes one
``checker.engines.options.Options``.
"""

STRATEGIES = ("bfs", "dfs")

__all__ = ["STRATEGIES"]
