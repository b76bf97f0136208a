"""How many scenarios an adapter run plays: counted, not listed.

``scenario_count(bounds)`` is ``len(list(scenarios(bounds)))``
(``checker.engines.exhaustive``) without making one scenario: the loops of
the enumeration, summed. What a first history's scenarios depend on splits in
two: its keys decide what a snapshot sends (one item per distinct key of the
snapshot, so how many ``received`` values there are), its deletions decide the
purge seqnos (0 or a tombstone's). Keys and deletions vary independently, so
the sum over histories of length n is (sum over key sequences) x (sum over
deletion flags). The failovers' own mutations, the purges and the cuts
depend on the deletions alone (a mutation's key is a factor of ``keys``), and
are summed over deletion-flag tuples, each sum computed once (memoised): at
``--seqnos 6`` 127 tuples, not the 2.8 million scenarios of the first
history alone. tests/test_adapter_size.py checks it against the enumeration.
"""

from __future__ import annotations

from functools import cache
from math import comb

from spec.bounds import Bounds

__all__ = ["COUNTED_SEQNOS", "scenario_count"]

# Above this many seqnos the count is not made (2^(seqnos+1) deletion tuples): so many
# scenarios no adapter run plays them; ``scenario_count`` returns None.
COUNTED_SEQNOS = 14

Flags = tuple[bool, ...]  # a history's deletions, by seqno


def scenario_count(bounds: Bounds) -> int | None:
    """Scenarios within ``bounds`` (None above ``COUNTED_SEQNOS`` seqnos)."""
    if bounds.seqnos > COUNTED_SEQNOS:
        return None
    return _count(
        bounds.seqnos, bounds.keys, bounds.first_table_entries, bounds.failovers, bounds.sessions
    )


@cache
def _count(seqnos: int, keys: int, entries: int, failovers: int, sessions: int) -> int:
    after = _Failovers(seqnos, keys, sessions)
    total = 0
    for n in range(seqnos + 1):
        tables = sum(comb(n + length, length) for length in range(1, entries + 1))
        flags = sum(after.first(f, failovers) for f in _all_flags(n))
        total += tables * 2 * _sent_choices(n, keys) * flags  # 2: disk or memory snapshot
    return total


def _all_flags(n: int) -> list[Flags]:
    return [tuple(bool(bits >> i & 1) for i in range(n)) for bits in range(2**n)]


def _sent_choices(n: int, keys: int) -> int:
    """Over every key sequence of length n: the snapshot ends times the ``received``
    values each allows (0, or a seqno the snapshots send). A snapshot [a, b] sends one
    item per distinct key in it; summed over the k^L sequences of its L seqnos that is
    k (k^L - (k-1)^L). It is a snapshot of 2^(a-2) 2^(n-b) sets of ends (a-1 an end, or
    a = 1; none of a..b-1; b an end; the rest free)."""
    total: int = keys**n * 2**n  # received 0, for every set of ends
    for a in range(1, n + 1):
        for b in range(a, n + 1):
            length = b - a + 1
            distinct = keys * (keys**length - (keys - 1) ** length)
            total += keys ** (n - length) * distinct * 2 ** (max(a - 2, 0) + n - b)
    return total


def _purges(flags: Flags, lowest: int = 0) -> list[int]:
    return [p for p in (0, *(x for x, d in enumerate(flags, start=1) if d)) if p >= lowest]


class _Failovers:
    """The sums over failover chains, purges and cuts (``exhaustive._with_failovers``
    and ``_cuts``), by the deletion flags of the history they start from."""

    def __init__(self, seqnos: int, keys: int, sessions: int) -> None:
        self.seqnos, self.keys, self.sessions = seqnos, keys, sessions
        self.reached = cache(self._reached)
        self.extended = cache(self._extended)
        self.cuts = cache(self._cuts)

    def first(self, flags: Flags, failovers: int) -> int:
        """A first history's failovers, purge and later cuts (for each table, set of
        snapshot ends, ``received`` and kind of first snapshot)."""
        later = self.sessions - 1
        return sum(
            self.reached(flags, before, count - before, later)
            for count in range(failovers + 1)
            for before in (range(count + 1) if later else (count,))
        )

    def _reached(self, flags: Flags, failovers: int, rest: int, cuts: int) -> int:
        """Over the histories ``failovers`` failovers make of ``flags`` (each new
        mutation ``keys`` times) and their purge seqnos: the cuts that can follow with
        ``rest`` more failovers to come between them."""
        if failovers == 0:
            return sum(self.cuts(flags, rest, purge, cuts) for purge in _purges(flags))
        return sum(
            self.extended(flags[:branch], failovers - 1, rest, cuts)
            for branch in range(len(flags) + 1)
        )

    def _extended(self, prefix: Flags, failovers: int, rest: int, cuts: int) -> int:
        """``reached`` over every history that extends ``prefix`` (a failover's new
        mutations after its branch point), up to ``seqnos``."""
        total = self.reached(prefix, failovers, rest, cuts)
        if len(prefix) < self.seqnos:
            for deleted in (False, True):
                total += self.keys * self.extended((*prefix, deleted), failovers, rest, cuts)
        return total

    def _cuts(self, flags: Flags, rest: int, purge: int, cuts: int) -> int:
        """``exhaustive._cuts``: the sequences of at most ``cuts`` cuts after a resume
        whose producer has history ``flags`` and purge seqno ``purge``, the ``rest``
        failovers all coming between later resumes."""
        total = 1 if rest == 0 else 0
        if cuts == 0:
            return total
        n = len(flags)
        per_cut = 2 * 2**n * (n + 1)  # kind of snapshot, its ends, what was received
        for taken in range(rest + 1):
            if taken == 0:  # no failover between: the purge seqno does not go down
                inner = sum(
                    self.cuts(flags, rest, p, cuts - 1) for p in _purges(flags, lowest=purge)
                )
            else:
                inner = self.reached(flags, taken, rest - taken, cuts - 1)
            total += per_cut * inner
        return total
