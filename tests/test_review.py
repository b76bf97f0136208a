"""`dcpcheck review` of targets that implement rule sets behind humpty_dumpty's interface and
JSON lines (tests/data/humpty_target.py, jsonl_target.py): it finds exactly the inputs the
sweep finds between BASE and the rule set the target implements, judges each region as
`dcpcheck diff` does, confirms witnesses on the target, and says which bounds an
equivalence holds for. Smallest bounds: one table entry, seqnos 1 or 2."""

from __future__ import annotations

import json
import shlex
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from conftest import DATA

from checker.columns.decisions import NO_REGION
from checker.sweep.job import SweepJob
from checker.sweep.space import SweepSpace
from spec.failover_table import UINT64_MAX

HUMPTY = f"humpty:{sys.executable} {DATA / 'humpty_target.py'}"
JSONL = f"jsonl:{sys.executable} {DATA / 'jsonl_target.py'}"
PURGE_ON_SNAP_START = str(DATA / "rules" / "purge_on_snap_start.py")


def swept(entries: int, seqnos: int, candidate: str, humpty: bool) -> tuple[Counter, set[int]]:
    """What the sweep finds between kv-current and ``candidate``: inputs per (kv-current's
    clause, change), and the differing inputs' indices (only humpty-expressible ones)."""
    space = SweepSpace(entries, seqnos, duplicate_uuids=True)
    job = SweepJob(space, ("kv-current", candidate))
    regions = job.decisions().regions(0)
    counts: Counter = Counter()
    ids: set[int] = set()
    for start, columns, _, (codes,) in job.decide(0, space.size):
        keep = np.ones(len(codes), dtype=bool)
        if humpty:
            keep = (
                ~columns["strict"]
                & ~columns["ignore_purged"]
                & (columns["remote_purge"] == 0)
                & ~columns["has_collection_high"]
                & (columns["end"] == np.uint64(UINT64_MAX))
            )
        for offset in np.flatnonzero(keep & (codes != NO_REGION)).tolist():
            region = regions[codes[offset]]
            counts[(region.case_a, region.change.name)] += 1
            ids.add(start + offset)
    return counts, ids


def diffs_classification(region: dict) -> str:
    """What ``dcpcheck diff kv-current purge_on_snap_start.py`` says of the region with
    ``region``'s clause and change, in the scenarios review judged in (1 entry, seqnos 1)."""
    from checker.diff.engine import diff_rules
    from checker.loading import resolve
    from spec.bounds import Bounds
    from spec.consumers import CONSUMERS, TEXTBOOK
    from spec.rules import RULE_SETS, RuleSet

    bounds = Bounds(seqnos=1, keys=2, entries=1, failovers=0)
    candidate = resolve(RULE_SETS, RuleSet, PURGE_ON_SNAP_START)
    consumers = [CONSUMERS.get(name) for name in TEXTBOOK]
    diff = diff_rules(RULE_SETS.get("kv-current"), candidate, consumers, bounds, 1)
    (shown,) = {
        r.shown
        for r in diff.regions
        if (r.region.case_a, r.region.change.name, r.region.via)
        == (region["clause"], region["change"], "")
    }
    return shown


def reviewed(out: Path) -> tuple[Counter, set[int], dict]:
    summary = json.loads((out / "summary.json").read_text())
    counts = Counter({(r["clause"], r["change"]): r["inputs"] for r in summary["regions"]})
    table = pq.read_table(out / "answers").to_pylist()
    ids = {row["id"] for row in table if row["kv-current vs target"] is not None}
    return counts, ids, summary


def review_here(cli, target: str, out: Path):
    """``dcpcheck review`` of ``target`` over the smallest space (1 entry, seqnos 0..1),
    in this process."""
    return cli("review", "--target", target, "--entries", "1", "--seqnos", "1", "--no-spark",
               "--out", out, "--quiet")  # fmt: skip


def test_review_of_a_humpty_build_finds_the_inputs_the_sweep_finds_judged_as_diff_judges(
    cli, tmp_path: Path
) -> None:
    out = tmp_path / "review"
    result = review_here(cli, f"{HUMPTY} --variant purge-on-snap-start", out)
    assert result.code == 0, result.out + result.err  # a cost change only
    counts, ids, summary = reviewed(out)
    assert (counts, ids) == swept(1, 1, PURGE_ON_SNAP_START, humpty=True)
    assert counts  # the variant differs within these bounds
    assert summary["humpty_only"] and summary["asked"] == SweepSpace(1, 1, True).size // 48
    (region,) = summary["regions"]
    assert region["classification"] == diffs_classification(region) == "cost regression"
    assert region["confirmed_on_target"] is True
    assert "confirmed on TARGET" in result.out
    assert not list(tmp_path.glob(".review.*"))  # nothing partial left


def test_a_safety_regression_is_confirmed_on_the_build(cli, tmp_path: Path) -> None:
    target = f"{HUMPTY} --bug lagging-strict"
    result = cli("review", "--target", target, "--entries", "1", "--seqnos", "1", "--no-spark",
                 "--out", tmp_path / "r", "--json", "--junit", tmp_path / "r.xml",
                 "--html", tmp_path / "r.html")  # fmt: skip
    assert result.code == 1, result.err
    assert "bounded-rollback" in (tmp_path / "r.html").read_text()
    (violated,) = [r for r in json.loads(result.out)["results"] if r["verdict"] == "violated"]
    assert violated["replay"] == "confirmed" and violated["property"] == "bounded-rollback"
    assert "confirmed on humpty:" in violated["replay_detail"]
    assert 'failures="1"' in (tmp_path / "r.xml").read_text()
    # Its counterexample file, as every command writes one; it replays with the build answering.
    path = Path(violated["counterexample"])
    stored = json.loads(path.read_text())
    assert (stored["rules"], stored["consumer"], stored["producer_target"]) == (
        "kv-current", "correct", target
    )  # fmt: skip
    assert path.with_name(path.name.replace(".json", ".itf.json")).exists()
    assert stored["command"] == shlex.join(["dcpcheck", "replay", "--target", target, str(path)])
    again = cli("replay", "--target", target, path)
    assert again.code == 1 and "VIOLATED" in again.out and "bounded-rollback" in again.out
    fixed = cli("replay", "--target", HUMPTY, path)
    assert fixed.code == 0 and "no longer violated" in fixed.out, fixed.out + fixed.err
    crashed = cli("replay", "--target", f"{HUMPTY} --crash-on-start 1", path)
    assert crashed.code == 3 and "UNKNOWN" in crashed.out  # the build's fault, not a verdict
    promoted = cli("promote", path, "--to", tmp_path / "corpus")  # no rule set gives its run
    assert promoted.code == 2 and "replay --target" in promoted.err
    assert cli("replay", "--target", target, path, "--vector", "v1").code == 2


def test_review_of_a_jsonl_build_on_spark_learns_every_flag(spark, cli, tmp_path: Path) -> None:
    out = tmp_path / "review"
    target = f"{JSONL} --variant purge-on-snap-start"
    result = cli("review", "--target", target, "--entries", "1", "--seqnos", "1",
                 "--master", "local[2]", "--parts", "3", "--out", out, "--json",
                 "--consumer", "correct")  # fmt: skip
    assert result.code == 0, result.err
    counts, ids, summary = reviewed(out)
    assert (counts, ids) == swept(1, 1, PURGE_ON_SNAP_START, humpty=False)
    assert summary["asked"] == SweepSpace(1, 1, True).size and summary["parts"] == 3
    assert "parts done" in result.err or "done learn" in result.err
    assert [r["classification"] for r in summary["regions"]] == ["cost regression"]


def test_a_build_equal_to_base_is_equivalent_within_the_stated_bounds(cli, tmp_path: Path) -> None:
    result = cli("review", "--target", HUMPTY, "--entries", "1", "--seqnos", "1", "--no-spark",
                 "--out", tmp_path / "r", "--quiet")  # fmt: skip
    assert result.code == 0, result.err
    assert "equivalent within the bounds" in result.out
    assert "tables of <= 1 entries (repeated uuids allowed), seqnos <= 1" in result.out


def test_a_build_that_lies_only_beyond_the_bounds_is_equivalent_within_them(
    cli, tmp_path: Path
) -> None:
    liar = f"{HUMPTY} --lie-above 1"
    inside = cli("review", "--target", liar, "--entries", "1", "--seqnos", "1", "--no-spark",
                 "--out", tmp_path / "a", "--quiet")  # fmt: skip
    assert inside.code == 0, inside.err
    assert "equivalent within the bounds" in inside.out and "seqnos <= 1" in inside.out
    # One seqno more and the lie is inside: the learning finds it.
    from checker.review.learn import REGION, LearnJob

    space = SweepSpace(1, 2, duplicate_uuids=True)
    job = LearnJob(space, "kv-current", liar, 10.0)
    tally = job.write_part(tmp_path, 0, 0, space.size).to_pylist()
    assert any(row["kind"] == REGION for row in tally)


def test_a_build_that_crashes_is_reported_per_input_and_the_review_goes_on(
    cli, tmp_path: Path
) -> None:
    out = tmp_path / "r"
    result = review_here(cli, f"{HUMPTY} --crash-on-start 1", out)
    assert result.code == 3, result.err  # nothing claimed about the inputs not answered
    summary = json.loads((out / "summary.json").read_text())
    (problem,) = summary["problems"]
    assert problem["kind"] == "crash" and problem["inputs"] > 0
    assert "NO ANSWER (crash)" in result.out


@pytest.mark.parametrize(
    "target, message",
    [
        ("python3 x.py", "expected humpty:CMD or jsonl:CMD"),
        ("humpty:/no/such/build", "cannot run"),
    ],
)
def test_a_bad_target_is_one_line_and_exit_2(cli, tmp_path: Path, target, message) -> None:
    result = cli("review", "--target", target, "--no-spark", "--out", tmp_path / "r")
    assert result.code == 2 and message in result.err
    assert not (tmp_path / "r").exists()


def test_the_benchmarks_compiled_build_is_equivalent_to_kv_current(cli, tmp_path: Path) -> None:
    """benchmarks/kv_current_target.c, both interfaces, at the smallest bounds."""
    import shutil
    import subprocess

    from conftest import ROOT

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    build = tmp_path / "kv_current_target"
    subprocess.run(
        [cc, "-O2", "-o", build, ROOT / "benchmarks" / "kv_current_target.c"], check=True
    )
    for target in (f"humpty:{build}", f"jsonl:{build} --jsonl"):
        result = cli("review", "--target", target, "--entries", "2", "--seqnos", "1",
                     "--no-spark", "--out", tmp_path / "r", "--quiet")  # fmt: skip
        assert result.code == 0, result.out + result.err
        assert "equivalent within the bounds" in result.out


def test_a_build_that_reads_what_no_rule_set_reads_is_not_judged(cli, tmp_path: Path) -> None:
    """Its answers depend on the oldest table entry, which no decision field reads: two learnt
    inputs look the same to a rule set and get different answers, so no rule set is its
    table, and the review says so (unknown) rather than judge another one."""
    target = f"{JSONL} --oldest-decides"
    result = cli("review", "--target", target, "--entries", "2", "--seqnos", "1",
                 "--distinct-uuids", "--no-spark", "--out", tmp_path / "r", "--quiet")  # fmt: skip
    assert result.code == 3, result.out + result.err
    assert "NOT A RULE SET" in result.out
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["regions"] and {r["classification"] for r in summary["regions"]} == {"unknown"}


def test_a_target_that_answers_nothing_claims_no_comparison(cli, tmp_path: Path) -> None:
    """Issue 47, item 8: a build that cannot start got "NO ANSWER (crash) on 60 inputs",
    then "no input answered differently from kv-current"; nothing was compared."""
    result = cli("review", "--target", "humpty:false", "--entries", "1", "--seqnos", "1",
                 "--no-spark", "--out", tmp_path / "r", "--quiet")  # fmt: skip
    assert result.code == 3, result.out + result.err
    assert "answered differently" not in result.out
    assert "asked 60 inputs in 4 parts, 0 answered" in result.out
    assert "nothing was compared with kv-current: the target answered none" in result.out
    last = result.out.splitlines()[-1]
    assert last.startswith("summary: nothing compared, 60 of 60 inputs not answered (")


def test_a_cost_regression_is_shown_as_one_in_text_html_and_summary(cli, tmp_path: Path) -> None:
    """Issue 47, items 6 and 11: the HTML showed a cost regression as "holds" in green while
    the text said "cost regression"; review ended without the ``summary:`` line of diff."""
    target = f"{HUMPTY} --variant purge-on-snap-start"
    page = tmp_path / "r.html"
    result = cli("review", "--target", target, "--entries", "1", "--seqnos", "1", "--no-spark",
                 "--out", tmp_path / "r", "--html", page, "--quiet")  # fmt: skip
    assert result.code == 0, result.out + result.err
    assert "cost regression" in result.out
    assert "\n1 region, " in result.out  # one region, not "1 regions" (issue 47, item 11)
    assert result.out.splitlines()[-1].startswith(
        "summary: safety regressions 0, safety fixes 0, cost regressions 1, cost improvements 0, "
        "neutral 0 ("
    )
    html = page.read_text()
    assert "<td class='cost'>cost regression (no safety property broken)</td>" in html
    assert "<td class='holds'>holds</td>" not in html
