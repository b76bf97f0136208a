"""A user's durability property, for the tests: no replica ever restarts.

Violated wherever the bounds allow a restart (mb-51805: one); it checks that
a property in a file is searched, shipped to executors and replayed.
"""

from spec.cluster import ClusterProperty

NO_RESTART = ClusterProperty(
    "no-replica-restart",
    "safety",
    "always",
    "no replica restarts (a test property)",
    lambda setup, state: state.restarts == 0,
    lambda setup, state: f"{state.restarts} replica restart(s) so far",
)
