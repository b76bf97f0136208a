"""A property, the one docs/authoring-consumers.md writes: a consumer is never rolled back
twice."""

from spec.expr import all_of, implies
from spec.properties import Property
from spec.properties.derive import rolled_back


def at_most_one_rollback(t):
    rounds = list(t.rounds)
    return all_of(*(implies(rolled_back(t, i), ~rolled_back(t, i + 1)) for i in rounds[:-1]))


PROPERTY = Property(
    "at-most-one-rollback", "cost", "no consumer is rolled back twice", at_most_one_rollback
)
