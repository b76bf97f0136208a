"""Several resumes per trace (``--sessions K``): the model, the reference and the engines agree.

With K = 2 a scenario may cut the first resume's accepted stream after any
prefix, fail over and compact, and resume again (docs/model.md, "Several
sessions"). The symbolic model and the reference implementation must predict
the same trace fields for every resume, the exhaustive enumeration and Z3
must reach the same verdicts, and a second resume must be able to change a
verdict that one resume cannot.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import given as given_scenario
from strategies import scenarios

from checker.confirm import replay_scenario
from checker.corpus.scenario import (
    load_counterexample,
    scenario_from_json,
    scenario_to_json,
)
from checker.engines.exhaustive import scenarios as every_scenario
from checker.engines.options import Options
from checker.scenario_check import Verdict, check
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.expected import CHANGED_AT_TWO_SESSIONS, EXPECTED_AT, expected_verdict
from spec.expr import Compiled, all_of, evaluate
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.model.narrate import run_of
from spec.properties import PROPERTIES
from spec.reference.simulate import NotARun, simulate
from spec.rules import RULE_SETS
from spec.scenario import Cut, Failover, Mutation, Scenario
from spec.trace import trace_values

BOUNDS = Bounds(seqnos=4, keys=2, entries=3, failovers=2, sessions=2)
CHECKED = [
    ("kv-current", "correct"),
    ("rollback-doc", "collapse-snapshot"),
    ("kv-current", "java-dcp-client"),
    ("kv-current", "go-dcp"),
    ("kv-current", "kv-replica"),
    ("rollback-doc", "cbgt"),
]


@functools.cache
def model_of(rules: str, consumer: str) -> ScenarioModel:
    """The pair's model at BOUNDS, built once per test process when first asked for."""
    return ScenarioModel(BOUNDS, RULE_SETS.get(rules), CONSUMERS.get(consumer))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given_scenario(scenario=scenarios(BOUNDS))
def test_every_resume_of_the_model_equals_the_reference(scenario) -> None:
    """Each scenario against every pair of CHECKED: 60 scenarios each, as when each pair drew
    its own (drawing a scenario costs several times what checking a pair on it does)."""
    for rules, consumer in CHECKED:
        model = model_of(rules, consumer)
        try:
            trace = simulate(scenario, model.rules, model.variant, BOUNDS.rounds)
        except NotARun:  # ruled out for this consumer (rollback mitigation): by the model too
            assert not evaluate(model.constraints, model.vars.encode(scenario)), (rules, consumer)
            continue
        reference = trace_values(trace, BOUNDS)
        predicted = model.predicted(scenario)
        differ = {
            k: (predicted[k], reference[k]) for k in reference if predicted[k] != reference[k]
        }
        assert not differ, (rules, consumer, differ)


TINY = Bounds(seqnos=1, keys=1, entries=2, failovers=1, sessions=2)


@pytest.mark.parametrize(
    ("rules", "consumer"),
    [
        ("kv-current", "correct"),
        ("kv-current", "go-dcp"),
        ("rollback-doc", "kv-replica"),
        ("kv-current", "java-dcp-client"),
    ],
)
def test_enumeration_and_z3_agree_with_two_resumes(rules, consumer) -> None:
    model = ScenarioModel(TINY, RULE_SETS.get(rules), CONSUMERS.get(consumer))
    props = list(PROPERTIES)
    holds = model.holds_all(props)
    program = Compiled([all_of(model.constraints, ~holds[p.id]) for p in props])
    violated = [False] * len(props)
    for scenario in every_scenario(TINY):
        for i, bad in enumerate(program(model.vars.encode(scenario))):
            violated[i] = violated[i] or bool(bad)
    for prop, enumerated in zip(props, violated, strict=True):
        z3 = check(model.rules, model.variant, prop, TINY, Options(minimise=False)).verdict
        assert z3 == (Verdict.VIOLATED if enumerated else Verdict.HOLDS), prop.id


def test_enumeration_lists_scenarios_that_resume_twice() -> None:
    listed = list(every_scenario(TINY))
    assert any(s.later for s in listed) and any(not s.later for s in listed)
    assert all(len(s.later) <= 1 for s in listed)


def _purge_scenario() -> Scenario:
    """SET(A) DEL(A) SET(B), purged to 2 before the first resume; that resume's stream
    is cut after a memory snapshot [1,1] would have been sent, were memory allowed."""
    history = (Mutation(0), Mutation(0, deleted=True), Mutation(1))
    return Scenario(
        history=history,
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(),
        received=0,
        purge_seqno=2,
        later=(Cut(disk=False, snapshot_ends=(1, 3), received=3, purge_seqno=2),),
    )


def test_memory_cannot_serve_a_resumed_stream_below_the_purge_seqno() -> None:
    trace = simulate(_purge_scenario(), RULE_SETS.get("kv-current"), CONSUMERS.get("correct"), 6)
    second = trace.later[0]
    assert [str(i) for i in second.held] == ["3:SET(B)"]  # A@1 never sent: a backfill from 0
    assert second.boundaries == (3,)


def test_a_cut_scenario_round_trips_through_json_and_the_model_variables() -> None:
    scenario = _purge_scenario()
    assert scenario_from_json(scenario_to_json(scenario), "test") == scenario
    model = model_of("kv-current", "correct")
    assert model.decode(model.encode(scenario)) == scenario


def test_one_session_scenarios_are_written_as_before() -> None:
    scenario = _purge_scenario()
    one = Scenario(**{**scenario.__dict__, "later": ()})
    assert "later" not in scenario_to_json(one)
    assert "sessions" not in Bounds().to_json()
    assert Bounds(sessions=2).describe().endswith("sessions 2")


def _cut_mid_snapshot() -> Scenario:
    """A(1) B C A(4) in one snapshot; the consumer got B, resumed, got C, disconnected; the
    producer then failed over at 3 (A@4 is gone) and the consumer resumed again."""
    history = (Mutation(0), Mutation(1), Mutation(2), Mutation(0))
    return Scenario(
        history=history,
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(4,),
        received=2,
        later=(Cut(disk=False, snapshot_ends=(4,), received=3, failovers=(Failover(3, 2222),)),),
    )


def test_the_timeline_tells_every_resume_its_cut_and_the_failover_between() -> None:
    trace = simulate(_cut_mid_snapshot(), RULE_SETS.get("kv-current"), CONSUMERS.get("correct"), 8)
    run = run_of(trace)
    told = [step.narration for step in run.steps if step.narration]
    assert told[1] == "request 0: uuid 1111 snapshot {1,4} start 2 -> OK (lagging)"
    # kv_engine starts the resumed stream's first marker at the claimed snap_start
    assert told[2] == "resume 1: memory snapshot [1,4]: 3:SET(C) received of it"
    assert told[3].startswith("resume 1: consumer disconnected after seqno 3")
    assert told[4] == "failover 1: history kept up to seqno 3, new entry 2222@3"
    assert told[5].startswith("resume 2: request 0: uuid 1111 snapshot {1,4} start 3 -> ROLLBACK")
    both = "1:SET(A) 2:SET(B) 3:SET(C)"
    assert run.end_lines == (f"producer has:  {both}", f"consumer has:  {both}")
    lanes = [lane.label for lane in run.picture.lanes]
    assert "after resume 1's stream, cut at 3: consumer holds" in lanes
    assert [m.label for m in run.picture.marks] == ["branch 2222@3"]


def test_verdicts_are_pinned_for_one_and_two_sessions_only() -> None:
    assert set(EXPECTED_AT) == {1, 2}
    assert set(EXPECTED_AT[2]) == set(EXPECTED_AT[1])
    assert expected_verdict("kv-current", "correct", "no-missed-item", sessions=2) == "holds"
    assert expected_verdict("kv-current", "correct", "no-missed-item", sessions=3) is None
    for key, (verdict, _) in CHANGED_AT_TWO_SESSIONS.items():
        assert EXPECTED_AT[1][key][0] != verdict, key


SESSION_CORPUS = sorted(
    p
    for p in (Path(__file__).parent.parent / "counterexamples" / "sessions").glob("*.json")
    if not p.name.endswith(".itf.json")
)


def test_every_verdict_that_changes_at_two_sessions_has_its_counterexample() -> None:
    stored = set()
    for path in SESSION_CORPUS:
        record = load_counterexample(path)
        assert record["bounds"].sessions == 2
        stored.add((record["rules"], record["consumer"], record["property"]))
        model = ScenarioModel(
            record["bounds"], RULE_SETS.get(record["rules"]), CONSUMERS.get(record["consumer"])
        )
        replay = replay_scenario(record["scenario"], model, PROPERTIES.get(record["property"]))
        assert replay.confirmed, replay.detail
        assert replay.trace is not None and replay.trace.later  # it needs the second resume
    assert stored == set(CHANGED_AT_TWO_SESSIONS)


# 1:SET(A) 2:SET(B) 3:DEL(B), the tombstone purged: the consumer got 1:SET(A) of [1,1],
# is rolled back to 0 (purge), and the backfill from 0 sends [0,3] without 3:DEL(B).
PURGED_SNAPSHOT_END = Scenario(
    history=(Mutation(0), Mutation(1), Mutation(1, deleted=True)),
    table=FailoverTable.of((1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(1, 3),
    received=1,
    purge_seqno=3,
    later=(Cut(disk=True, snapshot_ends=(3,), received=3, purge_seqno=3),),
)


def test_seqno_advanced_moves_sg_dcp_clients_offset_to_the_snapshot_end() -> None:
    # Sync Gateway's client negotiates collections: SeqnoAdvanced(3) ends [0,3] and
    # updateSeq stores 3, so it resumes from 3 (accepted); from its last item, 1, the
    # purge rule would roll it back to 0 again. A reference or model that moves the offset
    # on items only (as for java-dcp-client) fails it.
    model = model_of("kv-current", "sg-dcp-client")
    trace = simulate(PURGED_SNAPSHOT_END, model.rules, model.variant, BOUNDS.rounds)
    (second,) = trace.later
    first = second.rounds[0]
    assert (first.request.start, first.request.snap_start, first.request.snap_end) == (3, 0, 3)
    assert second.accepted and len(second.rounds) == 1
    assert model.predicted(PURGED_SNAPSHOT_END) == trace_values(trace, BOUNDS)
