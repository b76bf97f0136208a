"""Regression vectors: generation (Z3), the corpus format, replay targets, mutation score.

``generate`` turns coverage goals into a small vector set; ``format`` reads
and writes the corpus; ``outputs`` writes it as JSON, humpty_dumpty files and
ITF; ``targets`` and ``replay`` run vectors against an implementation;
``score`` measures a vector set by the mutants it kills. See docs/vectors.md
and docs/targets.md.
"""
