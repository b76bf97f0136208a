"""Command-line arguments several commands take, and what they read back.

``selection``: what to check, each by name or file (``--rules``, ``--consumer``,
``--property``: check, verify, clients); ``decision_space``: the producer's
decision space (``--table-entries``, ``--distinct-uuids``: vectors, sweep,
review); ``task_run``: every flag a run of tasks takes (clients, verify); ``common``:
the single flags several commands take (names or files, bounds, outputs, budgets, Spark).
"""
