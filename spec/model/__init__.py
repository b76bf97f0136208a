"""The symbolic scenario model: a scenario's variables and what follows from them.

``spec.model.build.ScenarioModel`` is the entry point; its parts are
``variables`` (the scenario's free choices), ``history``, ``table``,
``view`` (the consumer as a variant sees it) and ``resume`` (the rounds).
Everything is an expression of ``spec.expr``; Z3 searches it through
``checker.symbolic``, and concrete evaluation of the same expressions is
cross-checked against ``spec.reference``.
"""
