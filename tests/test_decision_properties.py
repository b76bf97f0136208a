"""Properties every built-in rule set's decision has, on random requests."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given, settings
from strategies import decision_inputs

from spec.rules import RULE_SETS, Decider
from spec.types import Outcome

NAMES = ["kv-current", "rollback-doc"]
DECIDERS = {name: Decider(RULE_SETS.get(name)) for name in NAMES}


def on_random_requests(test: Callable[..., None]) -> Callable[..., None]:
    """``test(name, inputs)`` for each built-in rule set, on 300 random (request,
    producer) inputs; each input is asked of every rule set (drawing an input costs far
    more than deciding it)."""

    def each_rule_set(inputs: tuple) -> None:
        for name in NAMES:
            test(name, inputs)

    each_rule_set.__name__ = test.__name__
    each_rule_set.__doc__ = test.__doc__
    return settings(max_examples=300)(given(inputs=decision_inputs())(each_rule_set))


@on_random_requests
def test_rollback_seqno_is_never_above_start(name, inputs) -> None:
    req, producer = inputs
    decision = DECIDERS[name].decide(req, producer)
    if decision.outcome is Outcome.ROLLBACK:
        assert decision.rollback_seqno is not None, name
        assert decision.rollback_seqno <= req.start, name


@on_random_requests
def test_no_rollback_when_the_snapshot_ends_at_or_below_upper(name, inputs) -> None:
    req, producer = inputs
    upper = producer.table.upper(req.uuid, producer.high_seqno)
    purge_applies = producer.purge_seqno > 0 and not req.ignore_purged
    if upper is None or purge_applies or not req.range_ok or req.snap_end > upper:
        return
    decision = DECIDERS[name].decide(req, producer)
    assert decision.outcome is Outcome.ACCEPT, (name, decision)


@on_random_requests
def test_erange_exactly_when_the_request_invariant_fails(name, inputs) -> None:
    req, producer = inputs
    decision = DECIDERS[name].decide(req, producer)
    invariant = req.snap_start <= req.start <= req.snap_end and req.start <= req.end
    assert (decision.outcome is Outcome.ERANGE) == (not invariant), name
