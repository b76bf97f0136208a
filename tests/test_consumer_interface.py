"""Consumer interface v2: the documented policies, reactions, and bad variants.

The four oracle-style policies of docs/authoring-consumers.md are run from the
document itself (its code blocks), so the guide cannot drift from the
interface: each is checked on a concrete scenario (the requests it sends), on
random scenarios (the symbolic model predicts the reference's trace), and
for the verdict the guide states.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import ROOT
from hypothesis import given, settings
from strategies import scenarios

from checker.loading import resolve
from checker.scenario_check import check
from spec.bounds import Bounds
from spec.consumers import CONSUMERS, ConsumerVariant, Reaction
from spec.failover_table import FailoverTable
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.reference.simulate import simulate
from spec.rules import RULE_SETS
from spec.scenario import Failover, Item, Mutation, Scenario
from spec.trace import trace_values
from spec.types import Outcome, StreamRequest

GUIDE = ROOT / "docs" / "authoring-consumers.md"
KV_CURRENT = RULE_SETS.get("kv-current")
A, B = 0, 1
SMALL = Bounds(seqnos=3, keys=2, entries=3, failovers=1)


def guide_policies(tmp: Path) -> dict[str, ConsumerVariant]:
    """Every code block of the guide's "Policies" section, loaded as a user file."""
    text = GUIDE.read_text()
    section = text.split("## Policies, a few lines each", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    policies = {}
    for n, block in enumerate(blocks):
        path = tmp / f"policy_{n}.py"
        path.write_text(block)
        variant = resolve(CONSUMERS, ConsumerVariant, str(path))
        policies[variant.name] = variant
    return policies


@pytest.fixture(scope="module")
def policies(tmp_path_factory) -> dict[str, ConsumerVariant]:
    return guide_policies(tmp_path_factory.mktemp("guide"))


def rolled_back_mid_snapshot() -> Scenario:
    """A:1 B:2 A:3 in one snapshot; the consumer holds 2:B and 3:A (1:A deduplicated away);
    the producer fails over at 2, then writes 3':B. kv-current answers the consumer's
    {3, [1,3]} with ROLLBACK to 2 (ahead of upper)."""
    return Scenario(
        history=(Mutation(A), Mutation(B), Mutation(A)),
        table=FailoverTable.of((2222, 1), (1111, 0)),
        first_snapshot_start=1,
        snapshot_ends=(3,),
        received=3,
        failovers=(Failover(branch=2, uuid=3333, mutations=(Mutation(B),)),),
    )


def second_request(variant: ConsumerVariant) -> tuple[StreamRequest, int]:
    trace = simulate(rolled_back_mid_snapshot(), KV_CURRENT, variant, SMALL.rounds)
    first, second = trace.rounds[:2]
    assert (first.decision.outcome, first.decision.rollback_seqno) == (Outcome.ROLLBACK, 2)
    return second.request, second.keep


def test_the_guide_has_the_four_policies(policies) -> None:
    assert set(policies) == {
        "claims-rollback-point",
        "resumes-from-held-item",
        "zero-uuid-after-rollback",
        "oldest-uuid-after-rollback",
    }


def test_claiming_the_rollback_point_sends_r_r_r_with_the_covering_uuid(policies) -> None:
    request, keep = second_request(policies["claims-rollback-point"])
    assert (request.uuid, request.start, request.snap_start, request.snap_end) == (2222, 2, 2, 2)
    assert keep == 2


def test_resuming_from_the_held_item_goes_to_the_highest_held_seqno(policies) -> None:
    request, keep = second_request(policies["resumes-from-held-item"])
    assert (request.start, request.snap_start, request.snap_end, keep) == (2, 2, 2, 2)


def test_zero_uuid_after_a_rollback_only_after_one(policies) -> None:
    trace = simulate(
        rolled_back_mid_snapshot(), KV_CURRENT, policies["zero-uuid-after-rollback"], 7
    )
    assert trace.rounds[0].request.uuid == 2222
    assert [r.request.uuid for r in trace.rounds[1:]] == [0] * (len(trace.rounds) - 1)


def test_the_oldest_uuid_after_a_rollback(policies) -> None:
    request, _ = second_request(policies["oldest-uuid-after-rollback"])
    assert (request.uuid, request.start) == (1111, 2)


RANDOM = Bounds(seqnos=4, keys=2, entries=3, failovers=2)


@pytest.fixture(scope="module")
def policy_models(policies) -> dict[str, ScenarioModel]:
    """Each policy's model at RANDOM, built once (not once per random scenario)."""
    return {name: ScenarioModel(RANDOM, KV_CURRENT, variant) for name, variant in policies.items()}


@pytest.mark.parametrize(
    "name",
    [
        "claims-rollback-point",
        "resumes-from-held-item",
        "zero-uuid-after-rollback",
        "oldest-uuid-after-rollback",
    ],
)
@settings(max_examples=60)
@given(scenario=scenarios(RANDOM))
def test_the_model_predicts_the_reference_trace_for_each_policy(
    name, policies, policy_models, scenario
) -> None:
    reference = trace_values(simulate(scenario, KV_CURRENT, policies[name], RANDOM.rounds), RANDOM)
    predicted = policy_models[name].predicted(scenario)
    assert {k: v for k, v in predicted.items() if reference[k] != v} == {}


GUIDE_VERDICTS = {
    "claims-rollback-point": "violated",
    "resumes-from-held-item": "violated",
    "zero-uuid-after-rollback": "holds",
    "oldest-uuid-after-rollback": "violated",
}


@pytest.mark.parametrize("name", sorted(GUIDE_VERDICTS))
def test_each_policy_gets_the_no_missed_item_verdict_the_guide_states(name, policies) -> None:
    result = check(KV_CURRENT, policies[name], PROPERTIES.get("no-missed-item"), SMALL)
    assert result.verdict.value == GUIDE_VERDICTS[name]
    assert result.verdict.value == "holds" or result.confirmed


# -- reactions -------------------------------------------------------------------------


class KeepsDataAndFilters(ConsumerVariant):
    """Keeps everything, claims (R,R,R), drops re-streamed items up to its old start."""

    name = "keeps-data-and-filters"

    def on_rollback(self, view, rollback_seqno, producer_log):
        return Reaction(claim=view.claim.at(rollback_seqno), filter=view.claim.start)


def test_a_catch_up_filter_keeps_the_consumers_version_of_re_streamed_keys() -> None:
    trace = simulate(rolled_back_mid_snapshot(), KV_CURRENT, KeepsDataAndFilters(), SMALL.rounds)
    _, accepted = trace.rounds
    assert (accepted.request.start, accepted.keep, accepted.filter) == (2, 3, 3)
    assert accepted.decision.outcome is Outcome.ACCEPT
    # 3':SET(B) is streamed again but dropped (3 <= filter); the consumer keeps 3:SET(A),
    # which the producer never had on its new branch.
    assert trace.final == {A: Item(3, 0, A, False), B: Item(2, 0, B, False)}


def test_the_claim_is_independent_of_the_data_kept() -> None:
    trace = simulate(rolled_back_mid_snapshot(), KV_CURRENT, KeepsDataAndFilters(), SMALL.rounds)
    assert trace.rounds[1].keep == 3 and trace.rounds[1].request.start == 2


# -- bad variants: one line, file:line, exit 2 -------------------------------------------

HEADER = "from spec.consumers import ConsumerVariant, Reaction, ResumeRequest, Truncation\n"
BAD_VARIANTS = {
    "python-if": (
        "class V(ConsumerVariant):\n"
        "    name = 'uses-if'\n"
        "    def request(self, view):\n"
        "        if view.last > 0:\n"
        "            return view.claim\n"
        "        return view.claim\n"
        "    def on_rollback(self, view, r, log):\n"
        "        return Reaction(keep=r)\n",
        5,
        "a Python `if` cannot branch on an expression; choose with ite(condition, a, b)",
    ),
    "raises": (
        "class V(ConsumerVariant):\n"
        "    name = 'raises'\n"
        "    def on_rollback(self, view, r, log):\n"
        "        raise ValueError('not handled')\n",
        5,
        "on_rollback(): raised ValueError: not handled",
    ),
    "wrong-return": (
        "class V(ConsumerVariant):\n"
        "    name = 'returns-tuple'\n"
        "    def request(self, view):\n"
        "        return (0, 0, 0, 0)\n"
        "    def on_rollback(self, view, r, log):\n"
        "        return Reaction(keep=r)\n",
        4,
        "request() returned tuple; it must return a ResumeRequest",
    ),
    "wrong-sort": (
        "class V(ConsumerVariant):\n"
        "    name = 'flag-as-seqno'\n"
        "    def request(self, view):\n"
        "        return view.claim.but(start=view.rolled_back)\n"
        "    def on_rollback(self, view, r, log):\n"
        "        return Reaction(keep=r)\n",
        5,
        "ResumeRequest.start must be an integer",
    ),
    "foreign-log": (
        "class V(ConsumerVariant):\n"
        "    name = 'foreign-log'\n"
        "    def on_rollback(self, view, r, log):\n"
        "        return Truncation(r, [(1111, 0)])\n",
        4,
        "use a log from the view",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_VARIANTS))
@pytest.mark.parametrize("command", ["check", "clients"])
def test_a_variant_that_cannot_be_evaluated_is_one_line_with_its_line_and_exit_2(
    case, command, tmp_path: Path, monkeypatch, capsys
) -> None:
    body, line, expected = BAD_VARIANTS[case]
    path = tmp_path / f"{case}.py"
    path.write_text(HEADER + body + "VARIANT = V()\n")
    args = [command, "--consumer", path, "--rules", "kv-current", "--out", tmp_path]
    args += ["--property", "no-missed-item", "--seqnos", "2", "--keys", "1"]
    args += ["--entries", "2", "--failovers", "1"]
    if command == "clients":
        args.append("--no-spark")
    result = run_cli(args, "", monkeypatch, capsys)
    assert result.code == 2, result.out + result.err
    assert result.err.count("\n") == 1, result.err
    assert f"{path}:{line}:" in result.err and expected in result.err, result.err
