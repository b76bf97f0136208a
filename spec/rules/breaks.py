"""Which property a wrong answer breaks: one fixed mapping from the case that decides.

A regression vector expects one decision; an implementation that answers
otherwise breaks the property at stake in the case (clause) that should have
decided:

=====================  ======================  =====================================
case                   property                why
=====================  ======================  =====================================
purge                  no-missed-item          accepting skips purged deletions
uuid-not-found         no-foreign-snapshot     accepting keeps another branch's items
ahead-of-upper         no-foreign-snapshot     keeping items above upper keeps them
snapshot-mismatch      no-foreign-snapshot     a partial snapshot straddles upper
start-zero             no-needless-rollback    rolling back a consumer with nothing
lagging                no-needless-rollback    rolling back a consistent prefix
erange                 valid-request           accepting a request that breaks the
                                               snap_start <= start <= snap_end rule
=====================  ======================  =====================================

A clause of a user rule set whose name is not listed is mapped by its
outcome: an accepting clause to ``no-needless-rollback``, a rolling-back one
to ``no-foreign-snapshot``. Independently of the case, an answer that rolls
back above the request's start breaks ``bounded-rollback`` as well.
"""

from __future__ import annotations

from spec.types import Outcome

__all__ = ["PROPERTY_BY_CASE", "PROPERTY_IDS", "also_broken", "property_at_stake"]

PROPERTY_IDS = (
    "no-missed-item",
    "no-foreign-snapshot",
    "bounded-rollback",
    "valid-request",
    "no-needless-rollback",
)

PROPERTY_BY_CASE: dict[str, str] = {
    "purge": "no-missed-item",
    "uuid-not-found": "no-foreign-snapshot",
    "ahead-of-upper": "no-foreign-snapshot",
    "snapshot-mismatch": "no-foreign-snapshot",
    "start-zero": "no-needless-rollback",
    "lagging": "no-needless-rollback",
    "erange": "valid-request",
}


def property_at_stake(case: str, outcome: Outcome) -> str:
    """The property an answer other than the expected one breaks."""
    if case in PROPERTY_BY_CASE:
        return PROPERTY_BY_CASE[case]
    if outcome is Outcome.ROLLBACK:
        return "no-foreign-snapshot"
    return "no-needless-rollback"


def also_broken(start: int, outcome: Outcome, rollback_seqno: int | None) -> list[str]:
    """Properties an actual answer breaks whatever was expected (a rollback above start)."""
    if outcome is Outcome.ROLLBACK and rollback_seqno is not None and rollback_seqno > start:
        return ["bounded-rollback"]
    return []
