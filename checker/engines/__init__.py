"""The engines: each takes a model and a property and never looks inside the model.

* ``z3``: symbolic search of the single-node scenario model (a proof within
  bounds, or a minimised counterexample);
* ``exhaustive``: every scenario of the single-node model, evaluated
  concretely (a proof when it completes);
* ``random``: hypothesis-drawn scenarios (finds violations, proves nothing);
* ``explore``: breadth-first / depth-first search of any explicit-state model
  (the cluster model).

The Spark adapters (``checker.spark``) run the same engines on executors.
"""

ENGINES = ("z3", "exhaustive", "random")
STRATEGIES = ("bfs", "dfs")

__all__ = ["ENGINES", "STRATEGIES"]
