"""dcpcheck's model of the DCP rollback protocol.

* ``spec.types``, ``spec.failover_table``: the domain values.
* ``spec.expr``: the expression language every definition is written in.
* ``spec.rules``: producer rule sets (``kv-current``, ``rollback-doc``).
* ``spec.reference``: the executable reference implementation.
"""
