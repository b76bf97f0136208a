"""The solver budget of the vector commands: Z3's deterministic resource limit.

Every query ``vectors generate`` and ``vectors score`` make is bounded by
``RLIMIT`` units of Z3's resource counter, as well as by the wall-clock
``--timeout``. The counter counts work, not time, so a query that gives up
gives up at the same point however loaded the machine is, and the same
arguments give the same vectors. The queries here use a small fraction of it;
running out is an unknown (exit 3), never an answer.
"""

RLIMIT = 100_000_000  # the largest query measured used about 1.5 million
