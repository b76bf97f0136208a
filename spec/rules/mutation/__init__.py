"""Mutants of a rule set: small, named, deliberate bugs, and the neighbourhood they come from.

``operators``: the mutation operators (``mutants(rules)``) that ``dcpcheck vectors
score`` counts; ``holes``: the places where one change can be made, and their
alternatives; ``neighbourhood``: a rule set with holes, the class of one-change
mutants Z3 reasons about; ``neighbour_mutants``: named instances of it. The rule
language and the rule sets themselves are ``spec.rules``.
"""
