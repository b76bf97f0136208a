"""`dcpcheck check`: the issue's acceptance commands, user variant files, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import check_args, run_subprocess


def test_collapse_snapshot_exits_1_with_a_confirmed_counterexample(tmp_path: Path) -> None:
    result = run_subprocess(
        [*check_args("kv-current", "collapse-snapshot", "no-missed-item", out=tmp_path), "--json"]
    )
    assert result.code == 1, result.err
    (record,) = json.loads(result.out)["results"]
    assert record["verdict"] == "violated" and record["replay"] == "confirmed"
    path = Path(record["counterexample"])
    assert path.exists() and path.with_name(path.name.replace(".json", ".itf.json")).exists()
    stored = json.loads(path.read_text())
    assert stored["property"] == "no-missed-item" and stored["scenario"]["failovers"]
    itf = json.loads(path.with_name(path.name.replace(".json", ".itf.json")).read_text())
    assert itf["vars"] == ["action", "producer", "consumer"]
    assert itf["states"][0]["action"]["name"] == "Init"


def test_correct_consumer_exits_0(tmp_path: Path, cli) -> None:
    result = cli(*check_args("kv-current", "correct", "no-missed-item", out=tmp_path), "--json")
    assert result.code == 0
    (record,) = json.loads(result.out)["results"]
    assert record["verdict"] == "holds" and record["counterexample"] is None
    assert record["bounds"]["seqnos"] == 4
    assert not list(tmp_path.iterdir())


def test_text_output_shows_a_timeline_and_the_reproducing_command(tmp_path, cli) -> None:
    result = cli(*check_args("kv-current", "collapse-snapshot", "no-missed-item", out=tmp_path))
    assert "violated (confirmed): key A" in result.out
    assert "deduplicated away" in result.out
    assert "reproduce: dcpcheck check --rules kv-current --consumer collapse-snapshot" in result.out


USER_VARIANT = '''
from spec.consumers import ConsumerVariant, ResumeRequest, Truncation


class Forgetful(ConsumerVariant):
    """Always claims to have nothing: resumes from 0 and keeps its data (wrong)."""

    name = "forgetful"
    summary = "reports start 0 but keeps what it holds"

    def request(self, view):
        return ResumeRequest(0, 0, 0, 0)

    def on_rollback(self, view, rollback_seqno, producer_log):
        return Truncation(view.keep, producer_log)


VARIANT = Forgetful()
'''


def test_a_user_variant_file_is_checked_without_package_edits(tmp_path: Path, cli) -> None:
    variant = tmp_path / "forgetful.py"
    variant.write_text(USER_VARIANT)
    out = tmp_path / "out"
    result = cli(*check_args("kv-current", variant, "no-foreign-snapshot", out=out), "--json")
    (record,) = json.loads(result.out)["results"]
    assert record["consumer"] == "forgetful"
    assert record["verdict"] == "violated" and record["replay"] == "confirmed"
    assert result.code == 1


BAD_FILES = {
    "syntax": ("def broken(:\n", "syntax error"),
    "raises": ("import nonexistent_module_xyz\n", "ModuleNotFoundError"),
    "nothing": ("x = 1\n", "defines no ConsumerVariant"),
    "no-interface": (
        "from spec.consumers import ConsumerVariant\n"
        "class Half(ConsumerVariant):\n    name = 'half'\n"
        "VARIANT = Half()\n",
        "does not define on_rollback()",
    ),
    "builtin-name": (
        "from spec.consumers.correct import Correct\n"
        "class Mine(Correct):\n    pass\n"
        "VARIANT = Mine()\n",
        "'correct' is a built-in name",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_variant_file_is_one_line_exit_2(case, tmp_path: Path, cli) -> None:
    text, expected = BAD_FILES[case]
    path = tmp_path / f"{case}.py"
    path.write_text(text)
    result = cli("check", "--consumer", path, "--out", tmp_path)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    assert str(path) in result.err and expected in result.err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--rules", "kv-futur"], "unknown rules 'kv-futur'; known: kv-current, rollback-doc"),
        (["--consumer", "nope"], "unknown consumer 'nope'; known: cbgt, cbgt-fixed, collapse-"),
        (["--property", "no-such"], "unknown property 'no-such'; known:"),
        (["--rules", "missing.py"], "missing.py: no such file"),
        (["--seqnos", "0"], "bad bounds: bound seqnos must be at least 1"),
        (["--entries", "2", "--failovers", "2"], "bad bounds: bound entries must exceed failovers"),
        (["--timeout", "0"], "argument --timeout: expected seconds above 0"),
        (["--seqnos", "x"], "argument --seqnos: invalid int value"),
    ],
)
def test_bad_check_arguments_are_one_line_exit_2(args, expected, cli) -> None:
    result = cli("check", *args)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    assert expected in result.err


USER_PROPERTY = """
from spec.expr import all_of, implies
from spec.properties import Property
from spec.properties.derive import rolled_back


def at_most_one_rollback(t):
    rounds = list(t.rounds)
    return all_of(*(implies(rolled_back(t, i), ~rolled_back(t, i + 1)) for i in rounds[:-1]))


PROPERTY = Property("at-most-one-rollback", "cost", "never rolled back twice", at_most_one_rollback)
"""


def test_a_user_property_file_is_searched_and_replayed(tmp_path: Path, cli) -> None:
    prop = tmp_path / "once.py"
    prop.write_text(USER_PROPERTY)
    result = cli(*check_args("kv-current", "correct", prop, out=tmp_path / "out"), "--json")
    (record,) = json.loads(result.out)["results"]
    assert record["property"] == "at-most-one-rollback"
    # kv-current can roll a correct consumer back twice (ahead of upper, then purge).
    assert record["verdict"] == "violated" and record["replay"] == "confirmed"
