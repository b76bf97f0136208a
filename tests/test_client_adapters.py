"""A client's own code through its adapter (docs/client-targets.md): the black box agrees
with the symbolic model on the built-in variants, a wrong client is caught and minimised,
conform names the first difference, misbehaving adapters are reported (never violations),
Ctrl-C stops every adapter process, and the Java adapter's verdicts are pinned."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clihelp import DCPCHECK, ROOT

from checker.adapter.check import ClientTarget, check_client
from checker.adapter.client import VariantClient
from checker.adapter.conform import conform
from checker.adapter.search import judge_part, merge, size
from checker.engines.exhaustive import history_count
from checker.result import Verdict
from checker.scenario_check import check
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.errors import EXIT_INTERRUPTED, EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION
from spec.failover_table import FailoverTable
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS
from spec.scenario import Failover, Mutation, Scenario

PY = sys.executable
SAFETY = [p for p in PROPERTIES if p.kind == "safety"]
ONE = Bounds(seqnos=1, keys=1, entries=2, failovers=1)  # 178 scenarios
TWO = Bounds(seqnos=2, keys=1, entries=2, failovers=1)  # 4,610 scenarios
OFFSET_CLIENT = ROOT / "examples" / "adapters" / "offset_store_client.py"
FAULTY = ROOT / "tests" / "data" / "faulty_client_adapter.py"
JAVA = ROOT / "examples" / "adapters" / "java" / "JavaLikeClient.java"
VARIANT_ADAPTER = f"{PY} -m checker.adapter.variant"

# The symbolic model's verdicts (the exhaustive engine over ScenarioModel, both rule sets
# alike) at ONE: the violated safety properties of each built-in variant; every other one
# holds. test_the_pinned_symbolic_verdicts_are_the_models recomputes one row with Z3.
VIOLATED_AT_ONE = {
    "java-dcp-client": {"no-missed-item", "no-foreign-snapshot"},
    "java-dcp-client:mitigation=on": set(),
    "cbgt": {"no-missed-item", "no-foreign-snapshot"},
    "sg-dcp-client": {"no-missed-item", "no-foreign-snapshot"},
    "xdcr": {"no-missed-item", "no-foreign-snapshot"},
}
# ... and at TWO, for go-dcp without its rollback mitigation (measured the same way).
VIOLATED_AT_TWO = {
    "go-dcp:mitigation=off": {"no-missed-item", "no-foreign-snapshot", "bounded-rollback"},
}


def _violated(variant: str, bounds: Bounds, rules: str = "kv-current") -> set[str]:
    v = CONSUMERS.get(variant)
    part = judge_part(
        VariantClient(v),
        RULE_SETS.get(rules),
        SAFETY,
        bounds,
        0,
        history_count(bounds),
        mitigation=bool(v.rollback_mitigation),
    )
    assert part.fault is None
    return set(part.smallest)


@pytest.mark.parametrize("rules", ["kv-current", "rollback-doc"])
def test_every_built_in_variant_as_a_client_gets_the_symbolic_verdicts(rules: str) -> None:
    for variant in CONSUMERS:
        expected = VIOLATED_AT_ONE.get(variant.name, set())
        assert _violated(variant.name, ONE, rules) == expected, variant.name


@pytest.mark.parametrize("variant", sorted(VIOLATED_AT_TWO))
def test_mitigation_and_its_absence_get_the_symbolic_verdicts_at_two_seqnos(variant: str) -> None:
    assert _violated(variant, TWO) == VIOLATED_AT_TWO[variant]


def test_the_pinned_symbolic_verdicts_are_the_models() -> None:
    variant, rules = CONSUMERS.get("java-dcp-client"), RULE_SETS.get("kv-current")
    symbolic = {p.id for p in SAFETY if check(rules, variant, p, ONE).verdict is Verdict.VIOLATED}
    assert symbolic == VIOLATED_AT_ONE["java-dcp-client"]


def test_a_variant_through_its_adapter_process_gets_the_same_verdicts() -> None:
    target = ClientTarget(f"jsonl:{VARIANT_ADAPTER} cbgt")
    results = check_client(target, RULE_SETS.get("kv-current"), SAFETY, ONE)
    violated = {r.property for r in results if r.verdict is Verdict.VIOLATED}
    assert violated == VIOLATED_AT_ONE["cbgt"]
    assert all(r.verdict is Verdict.HOLDS for r in results if r.property not in violated)
    assert all(r.confirmed for r in results if r.property in violated)


# -- a wrong client ----------------------------------------------------------------------

FORGETFUL = f"jsonl:{PY} {OFFSET_CLIENT} --forget-snapshot"
# Seed 001 as a scenario, bloated: an extra table entry, an extra snapshot boundary, a
# failover mutation. The smallest violation (the Z3 counterexample) has none of them.
BLOATED = Scenario(
    history=(Mutation(0), Mutation(1), Mutation(0)),
    table=FailoverTable.of((2222, 1), (1111, 0)),
    first_snapshot_start=1,
    snapshot_ends=(3,),
    received=2,
    failovers=(Failover(2, 3333, (Mutation(1),)),),
)


def test_a_client_that_forgets_the_snapshot_marker_is_caught_minimised_and_confirmed() -> None:
    bounds = Bounds(seqnos=4, keys=2, entries=3, failovers=1)
    nmi = PROPERTIES.get("no-missed-item")
    (result,) = check_client(
        ClientTarget(FORGETFUL),
        RULE_SETS.get("kv-current"),
        [nmi],
        bounds,
        first=[BLOATED],
        stop_when_violated=True,
    )
    assert result.verdict is Verdict.VIOLATED and result.confirmed
    witness = result.witness
    assert size(witness) < size(BLOATED)
    assert (len(witness.history), len(witness.table), witness.failovers[0].mutations) == (3, 1, ())
    assert "the consumer ends with nothing" in result.explanation
    # the same client without the bug holds on both scenarios
    (fine,) = check_client(
        ClientTarget(f"jsonl:{PY} {OFFSET_CLIENT}"),
        RULE_SETS.get("kv-current"),
        [nmi],
        bounds,
        first=[BLOATED, witness],
        stop_when_violated=True,
        run_parts=lambda first, mitigation: _only(first),
    )
    assert fine.verdict is Verdict.HOLDS


def _only(first):
    """A search of the given scenarios alone (the rest is not the point here)."""
    from checker.adapter.search import PartSummary

    return PartSummary()


def test_clients_target_writes_a_counterexample_that_replay_client_reproduces(tmp_path) -> None:
    out = tmp_path / "out"
    run = subprocess.run(
        [
            *DCPCHECK,
            "clients",
            "--target",
            FORGETFUL,
            "--like",
            "collapse-snapshot",
            "--property",
            "no-missed-item",
            "--seqnos",
            "3",
            "--keys",
            "2",
            "--entries",
            "2",
            "--failovers",
            "1",
            "--out",
            out,
            "--html",
            tmp_path / "r.html",
            "--quiet",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == EXIT_VIOLATION, run.stderr
    assert "violated (confirmed)" in run.stdout
    (found,) = out.glob("no-missed-item--*client-offset-store-client*[!f].json")
    assert (tmp_path / "r.html").exists()
    assert found.with_suffix("").with_suffix(".itf.json").exists()
    again = subprocess.run(
        [*DCPCHECK, "replay", "--client", FORGETFUL, found],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert again.returncode == EXIT_VIOLATION and again.stdout.startswith("VIOLATED")
    fixed = subprocess.run(
        [*DCPCHECK, "replay", "--client", f"jsonl:{PY} {OFFSET_CLIENT}", found],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert fixed.returncode == EXIT_OK and fixed.stdout.startswith("HOLDS")


# -- conform --------------------------------------------------------------------------------


def test_conform_names_the_difference_in_behaviour_not_in_spelling() -> None:
    """Issue 47, item 10: java-dcp-client's request after a rollback to 0 says uuid 0 where
    correct says the log's uuid; at start 0 the producer cannot tell them apart, and that
    difference hid the real one: java-dcp-client keeps its documents across the rollback."""
    target = ClientTarget(f"jsonl:{VARIANT_ADAPTER} java-dcp-client")
    report = conform(target, CONSUMERS.get("correct"), RULE_SETS.get("kv-current"), ONE)
    assert report.differing > 0 and report.fault == ""
    assert all(d.fields != ("uuid",) for _, d, _ in report.shrunk)
    (scenario, difference, every), *_ = report.shrunk
    assert difference.question == "data" and "model absent" in difference.describe()
    assert difference in every and len(scenario.history) == 1


def test_conform_finds_no_difference_between_a_variant_and_its_own_adapter() -> None:
    target = ClientTarget(f"jsonl:{VARIANT_ADAPTER} go-dcp-fixed")
    report = conform(target, CONSUMERS.get("go-dcp-fixed"), RULE_SETS.get("kv-current"), ONE)
    assert (report.examined, report.differing, report.fault) == (178, 0, "")


# -- adapters that misbehave ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("crash", "crash"), ("hang", "timeout"), ("garbage", "garbage"), ("overflow", "garbage")],
)
def test_a_misbehaving_adapter_is_reported_never_a_violation(mode: str, kind: str) -> None:
    target = ClientTarget(f"jsonl:{PY} {FAULTY} {mode}", timeout=1.0)
    results = check_client(target, RULE_SETS.get("kv-current"), SAFETY, ONE)
    assert all(r.verdict is Verdict.UNKNOWN for r in results)
    assert all(r.reason.startswith(f"adapter {kind}:") for r in results), results[0].reason


@pytest.mark.parametrize(
    ("mode", "kind"),
    [
        ("data-crash", "crash"),
        ("data-hang", "timeout"),
        ("data-garbage", "garbage"),
        ("data-garbage-crash", "garbage"),
    ],
)
def test_a_fault_in_either_data_answer_of_an_accepted_resume_is_reported(
    mode: str, kind: str
) -> None:
    # the two questions go out in one write; a garbage first answer is the fault even
    # when the adapter then dies before the second
    target = ClientTarget(f"jsonl:{PY} {FAULTY} {mode}", timeout=1.0)
    results = check_client(target, RULE_SETS.get("kv-current"), SAFETY, ONE)
    assert all(r.verdict is Verdict.UNKNOWN for r in results)
    assert all(r.reason.startswith(f"adapter {kind}: data:") for r in results), results[0].reason


def test_a_slow_adapter_within_the_timeout_is_judged_as_a_prompt_one() -> None:
    slow = ClientTarget(f"jsonl:{PY} {FAULTY} slow", timeout=5.0)
    results = check_client(
        slow,
        RULE_SETS.get("kv-current"),
        SAFETY,
        Bounds(seqnos=1, keys=1, entries=2, failovers=1, max_entries=1),
    )
    assert [r.verdict for r in results] == [Verdict.HOLDS] * len(SAFETY)


def _faulty_target(behaviour: str, seqnos: int, out: Path, *more: str) -> list[object]:
    """``dcpcheck clients --target`` on the faulty adapter behaving as ``behaviour``."""
    target = ["clients", "--target", f"jsonl:{PY} {FAULTY} {behaviour}", *more]
    bounds = ["--seqnos", str(seqnos), "--keys", "1", "--entries", "2", "--failovers", "1"]
    return [*DCPCHECK, *target, *bounds, "--out", out, "--quiet"]


def test_a_crashing_adapter_exits_3_not_1(tmp_path) -> None:
    run = subprocess.run(
        _faulty_target("crash", 1, tmp_path),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == EXIT_UNKNOWN, run.stdout + run.stderr
    assert "adapter crash" in run.stdout


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not status.exists() or "zombie" not in status.read_text()


def test_ctrl_c_exits_130_and_stops_every_adapter_process(tmp_path) -> None:
    pidfile = tmp_path / "adapter.pid"
    proc = subprocess.Popen(
        _faulty_target(f"slow {pidfile}", 3, tmp_path, "--no-spark"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    pids: set[int] = set()
    # hello's process, the rate's sample's (88,250 scenarios), then the search's
    while time.monotonic() < deadline and len(pids) < 3:
        if pidfile.exists():
            pids = {int(line) for line in pidfile.read_text().split()}
        time.sleep(0.05)
    assert len(pids) == 3
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert "interrupted" in out
    # issue 47, item 11: the table names the client as its hello did, not "client"
    rows = [line.split() for line in out.splitlines() if line.startswith("kv-current ")]
    assert rows and {row[1] for row in rows} == {"faulty-slow"}, out
    time.sleep(0.5)
    assert not any(_alive(pid) for pid in pids)


# -- the Java adapter ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def java_client(tmp_path_factory) -> str:
    if shutil.which("javac") is None:
        pytest.skip("javac is not installed")
    classes = tmp_path_factory.mktemp("java")
    subprocess.run(["javac", "-d", classes, JAVA], check=True, timeout=120)
    return f"jsonl:java -cp {classes} JavaLikeClient"


def test_the_java_adapters_verdicts_are_pinned(java_client: str) -> None:
    results = check_client(ClientTarget(java_client), RULE_SETS.get("kv-current"), SAFETY, ONE)
    assert {r.property: r.verdict.value for r in results} == {
        "no-missed-item": "violated",
        "no-foreign-snapshot": "violated",
        "bounded-rollback": "holds",
        "valid-request": "holds",
    }
    assert all(r.confirmed for r in results if r.verdict is Verdict.VIOLATED)
    assert {r.consumer for r in results} == {"java-like-client"}


def test_the_java_adapter_conforms_to_the_catalogues_java_dcp_client(java_client: str) -> None:
    target = ClientTarget(java_client)
    report = conform(target, CONSUMERS.get("java-dcp-client"), RULE_SETS.get("kv-current"), ONE)
    assert (report.differing, report.fault) == (0, "")


def test_two_sessions_each_resume_judged_in_a_run_of_its_own_gets_the_symbolic_verdicts() -> None:
    # java-dcp-client at ONE with --sessions 2: 3,482 scenarios, as the model (Z3) says
    assert (
        _violated("java-dcp-client", Bounds(seqnos=1, keys=1, entries=2, failovers=1, sessions=2))
        == VIOLATED_AT_ONE["java-dcp-client"]
    )


def test_histories_dealt_into_parts_merge_into_what_one_search_finds() -> None:
    # Spark's parts take every P-th history (checker.spark.clients); at ONE the three
    # first histories go 0,2 / 1, and the merged smallest violations are the same
    v, rules, total = CONSUMERS.get("cbgt"), RULE_SETS.get("kv-current"), history_count(ONE)
    whole = judge_part(VariantClient(v), rules, SAFETY, ONE, 0, total)
    dealt = merge(
        judge_part(VariantClient(v), rules, SAFETY, ONE, part, total, step=2) for part in range(2)
    )
    assert dealt.examined == whole.examined == 178
    assert dealt.smallest == whole.smallest and set(whole.smallest)


def test_spark_is_started_for_many_scenarios_whatever_the_number_of_first_histories() -> None:
    from checker.client_target import few_scenarios

    assert few_scenarios(TWO)  # 7 first histories, 4,610 scenarios: judged here
    # 15 first histories but 88,250 scenarios: on Spark (it was judged here, by history count)
    assert not few_scenarios(Bounds(seqnos=3, keys=1, entries=2, failovers=1))


def test_parts_on_spark_executors_give_what_one_process_gives(spark) -> None:
    from checker.spark.clients import judge_on_spark

    spec = f"jsonl:{VARIANT_ADAPTER} cbgt"
    ids = [p.id for p in SAFETY]
    told: list[str] = []
    on_spark = judge_on_spark(
        spark, spec, 10.0, "kv-current", ids, ONE, False, (), told.append, total=178
    )
    client = ClientTarget(spec).start()
    try:
        here = judge_part(client, RULE_SETS.get("kv-current"), SAFETY, ONE, 0, history_count(ONE))
    finally:
        client.close()
    assert on_spark.examined == here.examined == 178
    assert on_spark.smallest == here.smallest and on_spark.fault is None
    # the tasks' and their adapter processes' CPU, which the driver's clock cannot see
    assert on_spark.cpu_elsewhere > 0 and here.cpu_elsewhere == 0
    # every part's, as they finished, against the total (issue 47, item 3: it had none)
    assert told[-1].endswith("parts, 178 of 178 scenarios")
    assert all(" of 178 scenarios" in line for line in told)


ONE_ARGS = ["--seqnos", "1", "--keys", "1", "--entries", "2", "--failovers", "1"]


def test_conform_exits_1_naming_the_difference_and_0_when_they_agree(cli) -> None:
    target = f"jsonl:{VARIANT_ADAPTER} java-dcp-client"
    differ = cli("conform", "--target", target, "--consumer", "correct", *ONE_ARGS)
    assert differ.code == EXIT_VIOLATION
    assert "difference 1: resume 1" in differ.out and "uuid: client 0" not in differ.out
    agree = cli("conform", "--target", target, "--consumer", "java-dcp-client", *ONE_ARGS)
    assert agree.code == EXIT_OK and "178 scenarios played; 0 differ" in agree.out


@pytest.mark.parametrize(
    "args",
    [
        ["clients", "--target", "python3 x.py"],
        ["clients", "--target", "jsonl:"],
        ["conform", "--target", "jsonl:'unclosed", "--consumer", "correct"],
        ["clients", "--like", "go-dcp"],
        ["clients", "--force"],
    ],
)
def test_a_bad_target_is_bad_input_in_one_line(cli, args: list[str]) -> None:
    result = cli(*args, *ONE_ARGS)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1, result.err


def test_the_python_adapters_verdicts_are_pinned_and_it_conforms_to_correct() -> None:
    target = ClientTarget(f"jsonl:{PY} {OFFSET_CLIENT}")
    results = check_client(target, RULE_SETS.get("kv-current"), SAFETY, ONE)
    assert {r.property: r.verdict.value for r in results} == {p.id: "holds" for p in SAFETY}
    assert {r.consumer for r in results} == {"offset-store-client"}
    report = conform(target, CONSUMERS.get("correct"), RULE_SETS.get("kv-current"), ONE)
    assert (report.examined, report.differing, report.fault) == (178, 0, "")
