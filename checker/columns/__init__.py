"""The vectorised interpretation of ``spec.expr`` (NumPy), and rule-set decisions with it.

``checker.columns.expr.Vectorised`` evaluates expressions over columns of
inputs at once; ``checker.columns.decisions`` runs rule sets (and the
regions of their differences) through it. NumPy is imported only here and by
the sweep (``checker.sweep``), so other commands start without it.
"""
