"""java-dcp-client (and cbgt) across resumes: each resumes from its own offset
(java-dcp-client's PartitionState, Sync Gateway's DCPCommon.seqs under cbgt), which a
rollback sets to R and only a data event moves, not from the data it holds."""

from __future__ import annotations

from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.consumers.api import ConsumerVariant, ConsumerView, ResumeRequest
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Cut, Failover, Mutation, Scenario
from spec.trace import trace_values

BOUNDS = Bounds(seqnos=2, keys=2, entries=2, failovers=1, sessions=2)
RULES = RULE_SETS.get("kv-current")


def _rolled_back_then_cut_before_any_item() -> Scenario:
    """A@1 B@2 in snapshots [1,1] [2,2], all received; the producer fails over at 1 (B is
    gone, 2222@1); resume 1 is rolled back to 1 and accepted there, and its stream is
    cut before any item (there is none to send); then the consumer resumes again."""
    return Scenario(
        history=(Mutation(0), Mutation(1)),
        table=FailoverTable.of((1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(1, 2),
        received=2,
        failovers=(Failover(1, 2222),),
        later=(Cut(disk=False, snapshot_ends=(), received=1),),
    )


def _requests(variant: ConsumerVariant) -> list[list[tuple[int, int, int, int]]]:
    trace = simulate(_rolled_back_then_cut_before_any_item(), RULES, variant, BOUNDS.rounds)
    return [
        [
            (r.request.uuid, r.request.start, r.request.snap_start, r.request.snap_end)
            for r in t.rounds
        ]
        for t in (trace, *trace.later)
    ]


class _FromItsData(type(CONSUMERS.get("java-dcp-client"))):
    """java-dcp-client remembering its last held item instead (the interface's default)."""

    name = "java-dcp-client-from-data"

    def remembered(self, view: ConsumerView) -> ResumeRequest:
        return ConsumerVariant.remembered(self, view)


def test_after_a_rollback_and_no_item_it_resumes_from_r_not_from_the_item_it_kept() -> None:
    first, second = _requests(CONSUMERS.get("java-dcp-client"))
    assert first == [(1111, 2, 2, 2), (1111, 1, 1, 1)]  # ROLLBACK(1), then OK at (1, {1,1})
    # it still holds B@2, but its offset is (1, {1, 1}): the real client's request
    assert second == [(2222, 1, 1, 1)]
    # remembering its data instead, it would claim B@2 and be rolled back again
    assert _requests(_FromItsData())[1][0] == (2222, 2, 2, 2)


def test_cbgt_resumes_from_the_last_seqno_sync_gateway_recorded_not_from_its_data() -> None:
    first, second = _requests(CONSUMERS.get("cbgt"))
    assert first == [(1111, 2, 2, 2), (1111, 1, 1, 1)]
    assert second == [(2222, 1, 1, 1)]  # rollbackEx set its last seqno to 1; B@2 is kept


def test_the_model_predicts_the_offset_the_reference_keeps() -> None:
    scenario = _rolled_back_then_cut_before_any_item()
    for name in ("java-dcp-client", "java-dcp-client-fixed", "cbgt"):
        variant = CONSUMERS.get(name)
        model = ScenarioModel(BOUNDS, RULES, variant)
        reference = trace_values(simulate(scenario, RULES, variant, BOUNDS.rounds), BOUNDS)
        predicted = model.predicted(scenario)
        assert {k: v for k, v in predicted.items() if k in reference} == reference, name
