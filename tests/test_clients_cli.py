"""`dcpcheck clients`: the catalogue's table, JSON and HTML, on the shared Spark session.

Small bounds keep these quick; make verify pins the catalogue at its own
bounds (spec/expected_clients.py), and the checked-in counterexamples of
counterexamples/clients/ are replayed by tests/test_counterexample_corpus.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import DATA

from checker.client_catalogue import client_tasks
from spec.bounds import Bounds
from spec.consumers import catalogue_names
from spec.expected_clients import CLIENT_EXPECTED

ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--seqnos", "3", "--keys", "2", "--entries", "3", "--failovers", "1"]


def test_the_catalogue_gets_its_pinned_verdicts_with_replayed_counterexamples(
    spark, tmp_path: Path, cli
) -> None:
    html = tmp_path / "clients.html"
    args = ["clients", "--rules", "kv-current", "--property", "no-missed-item", "--json"]
    args += ["--html", html, "--out", tmp_path / "cex", *SMALL]
    result = cli(*args)
    assert result.code == 0, result.out + result.err
    records = json.loads(result.out)["results"]
    assert [r["consumer"] for r in records] == catalogue_names()
    for r in records:
        pinned = CLIENT_EXPECTED[("kv-current", r["consumer"], "no-missed-item")][0]
        assert r["verdict"] == r["expected"] == pinned, r
        if r["verdict"] == "violated":
            assert r["replay"] == "confirmed" and Path(r["counterexample"]).exists()
    fixed = [r for r in records if "-fixed" in r["consumer"].partition(":")[0]]
    assert len(fixed) == len([n for n in catalogue_names() if "-fixed" in n.partition(":")[0]])
    assert len(fixed) >= 7 and all(r["verdict"] == "holds" for r in fixed)
    page = html.read_text()
    assert "kv-replica" in page and "<svg" in page


def test_the_table_says_whether_each_verdict_is_the_pinned_one(spark, tmp_path: Path, cli) -> None:
    args = ["clients", "--consumer", "kv-replica:midpoint=off", "--consumer", "kv-replica-fixed"]
    args += ["--rules", "rollback-doc", "--property", "no-missed-item", "--out", tmp_path]
    result = cli(*args, *SMALL)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    header = "rules consumer property kind verdict Z3 units seconds cpu s as expected"
    assert lines[0].split() == header.split()
    rows = [line.split() for line in lines[2:4]]
    assert [(r[1], r[4], r[-1]) for r in rows] == [
        ("kv-replica:midpoint=off", "violated", "ok"),
        ("kv-replica-fixed", "holds", "ok"),
    ]
    assert "docs/clients.md" in result.out


USER_CLIENT = (DATA / "claims_rollback_point.py").read_text()  # a user's client file


def test_a_users_client_without_a_pinned_verdict_is_exit_1_when_violated(
    tmp_path: Path, cli
) -> None:
    path = tmp_path / "mine.py"
    path.write_text(USER_CLIENT)
    args = ["clients", "--consumer", "go-dcp-fixed", "--consumer", path, "--rules", "kv-current"]
    args += ["--property", "no-missed-item", "--no-spark", "--json", "--out", tmp_path, *SMALL]
    result = cli(*args)
    fixed, record = json.loads(result.out)["results"]  # beside the client named
    assert (fixed["consumer"], fixed["verdict"]) == ("go-dcp-fixed", "holds")
    assert (record["consumer"], record["verdict"], record["expected"]) == (
        "my-client",
        "violated",
        None,
    )
    assert record["replay"] == "confirmed"
    assert result.code == 1


def test_a_users_file_is_judged_beside_the_clients_named_or_the_whole_catalogue() -> None:
    mine = str(ROOT / "docs" / "examples" / "my_client.py")
    bounds = Bounds(seqnos=3, keys=2, entries=3, failovers=1)

    def judged(consumers: list[str]) -> list[tuple[str, str]]:
        tasks = client_tasks(["kv-current", "rollback-doc"], consumers, None, bounds, None)
        return [(t.rules, t.consumer) for t in tasks]

    catalogue = catalogue_names()
    assert judged([mine]) == [
        (r, c) for r in ("kv-current", "rollback-doc") for c in (*catalogue, mine)
    ]
    assert judged(["go-dcp", mine]) == [
        (r, c) for r in ("kv-current", "rollback-doc") for c in ("go-dcp", mine)
    ]


def test_bad_clients_arguments_are_one_line_exit_2(cli) -> None:
    for args, expected in (
        (["--consumer", "no-such-client"], "unknown consumer 'no-such-client'"),
        (["--timeout", "0"], "argument --timeout: expected seconds above 0"),
        (["--property", "no-such"], "unknown property 'no-such'"),
        (["--consumer", "go-dcp:nagle=on"], "go-dcp has no setting 'nagle'; its settings:"),
        (["--consumer", "go-dcp:mitigation=maybe"], "setting 'mitigation' is on|off, not 'maybe'"),
        (["--consumer", "cbgt:mitigation=on"], "cbgt has no setting 'mitigation'"),
    ):
        result = cli("clients", "--no-spark", *args)
        assert result.code == 2, result.err
        assert result.err.count("\n") == 1 and expected in result.err


def test_a_client_is_judged_as_it_ships_and_under_each_setting(tmp_path: Path, cli) -> None:
    args = ["clients", "--consumer", "go-dcp", "--consumer", "go-dcp:mitigation=off"]
    args += ["--rules", "kv-current", "--property", "no-foreign-snapshot", "--no-spark"]
    result = cli(*args, "--out", tmp_path, *SMALL)
    assert result.code == 0, result.out + result.err
    rows = [line.split() for line in result.out.splitlines()[2:4]]
    # Mitigation (go-dcp's default) leaves no failover below a snapshot the client holds
    # whole, but one below a snapshot it holds in part (docs/clients.md): violated too.
    assert [(r[1], r[4], r[-1]) for r in rows] == [
        ("go-dcp", "violated", "ok"),
        ("go-dcp:mitigation=off", "violated", "ok"),
    ]
    assert "mitigation=on: default (as it ships)" in result.out
    assert "mitigation=off: not the default" in result.out


def test_a_users_client_checked_on_spark_reproduces_with_the_path_as_given(
    spark, tmp_path: Path, cli, monkeypatch
) -> None:
    (tmp_path / "mine.py").write_text(USER_CLIENT)
    monkeypatch.chdir(tmp_path)
    args = ["clients", "--consumer", "go-dcp-fixed", "--consumer", "mine.py"]
    args += ["--rules", "kv-current", "--property", "no-missed-item", "--json", *SMALL]
    result = cli(*args, "--out", "cex")
    record = json.loads(result.out)["results"][1]
    assert record["consumer"] == "my-client" and record["sources"] == {"consumer": "mine.py"}
    assert "--consumer mine.py " in record["command"]  # not the copy an executor loaded
    stored = json.loads(Path(record["counterexample"]).read_text())
    assert stored["command"] == record["command"] and stored["sources"] == record["sources"]
