"""`dcpcheck decide`: humpty_dumpty's interface, byte for byte, and its bad inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli, run_subprocess
from conftest import DATA

TABLE = DATA / "humpty_sanity_table.json"
SANITY_IN = (DATA / "humpty_sanity_test.in").read_text()
SANITY_EXPECTED = (DATA / "humpty_sanity_test.expected").read_text()


def test_sanity_case_is_byte_identical_to_humpty_dumpty() -> None:
    result = run_subprocess(["decide", TABLE, "100", "0"], SANITY_IN)
    assert result.code == 0
    assert result.out == SANITY_EXPECTED
    assert result.err == ""


def test_tabs_and_repeated_spaces_separate_fields(monkeypatch, capsys) -> None:
    messy = SANITY_IN.replace(" ", " \t  ")
    result = run_cli(["decide", TABLE, 100, 0], messy, monkeypatch, capsys)
    assert result.out == SANITY_EXPECTED


def test_wrong_field_count_warns_on_a_line_of_its_own_and_skips(monkeypatch, capsys) -> None:
    result = run_cli(
        ["decide", TABLE, 100, 0], "1 2 3\n\n2222 20 30 25 \n" + SANITY_IN, monkeypatch, capsys
    )
    assert result.code == 0
    assert result.out == SANITY_EXPECTED
    warning = (
        "Warning: expected 4 fields for testing failover table: "
        "<UUID> <snapStart> <snapEnd> <start> - skipping input."
    )
    assert result.err == (warning + "\n") * 3


def test_a_bad_line_anywhere_is_one_error_before_anything_is_printed(monkeypatch, capsys) -> None:
    result = run_cli(["decide", TABLE, 100, 0], SANITY_IN + "2222 x 30 25\n", monkeypatch, capsys)
    assert result.code == 2 and result.out == ""
    assert result.err.count("\n") == 1 and "field 2 (SNAP_START)" in result.err


def test_extra_json_fields_are_printed_as_nlohmann_prints_them(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    table = tmp_path / "t.json"
    table.write_text('[{"seq": 80, "id": 3333, "comment": "latest entry"}, {"id": 1111, "seq": 0}]')
    result = run_cli(["decide", table, 100, 0], "", monkeypatch, capsys)
    assert result.out.splitlines()[2] == '    {"comment":"latest entry","id":3333,"seq":80}'


def test_sanitised_table_is_printed_as_rebuilt_and_warned_about(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    table = tmp_path / "t.json"
    table.write_text(
        '[{"id": 0, "seq": 5, "comment": "x"}, {"id": 2, "seq": 4}, {"id": 1, "seq": 9}]'
    )
    result = run_cli(["decide", table, 10, 0], "", monkeypatch, capsys)
    assert result.out.splitlines()[1:4] == ["[", '    {"id":2,"seq":4}', "]"]
    assert "dropped 2 erroneous entries" in result.err


def test_json_mode_reports_the_full_producer_answer(monkeypatch, capsys) -> None:
    result = run_cli(
        ["decide", TABLE, 100, 0, "--json"], SANITY_IN + "2222 26 20 30\n", monkeypatch, capsys
    )
    records = [json.loads(line) for line in result.out.splitlines()]
    assert [r["decision"] for r in records] == ["ok", "rollback", "rollback", "erange"]
    assert [r["case"] for r in records] == ["lagging", "ahead-of-upper", "uuid-not-found", "erange"]
    assert records[1]["rollback_seqno"] == 30
    assert records[0]["rollback_seqno"] is None


def test_text_mode_warns_on_stderr_about_an_erange_request(monkeypatch, capsys) -> None:
    result = run_cli(["decide", TABLE, 100, 0], "2222 26 20 30\n", monkeypatch, capsys)
    assert "Testing UUID:2222 snapshot:{26,20} start:30" in result.out
    assert "ERANGE" in result.err


def test_rules_option_selects_the_document_rules(monkeypatch, capsys) -> None:
    req = "5555 0 0 0\n"
    code = run_cli(["decide", TABLE, 100, 0, "--json"], req, monkeypatch, capsys)
    doc = run_cli(
        ["decide", TABLE, 100, 0, "--json", "--rules", "rollback-doc"], req, monkeypatch, capsys
    )
    assert json.loads(code.out)["decision"] == "ok"
    assert json.loads(doc.out)["case"] == "uuid-not-found"


def test_flags_humpty_cannot_express_reach_the_decision(monkeypatch, capsys) -> None:
    req = "5555 0 0 0\n"
    result = run_cli(["decide", TABLE, 100, 0, "--json", "--strict"], req, monkeypatch, capsys)
    assert json.loads(result.out)["case"] == "uuid-not-found"
    purged = run_cli(
        ["decide", TABLE, 100, 50, "--json", "--ignore-purged"],
        "3333 40 40 40\n",
        monkeypatch,
        capsys,
    )
    assert json.loads(purged.out)["case"] == "lagging"


def test_a_high_seqno_above_2_63_prints_as_humpty_prints_it(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    result = run_cli(["decide", TABLE, 2**64 - 1, 0], "", monkeypatch, capsys)
    assert result.out.startswith(
        "Simulating behaviour of VBucket with highSeqno: -1, purgeSeqno:0,"
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.json"
    path.write_text(text)
    return path


BAD_TABLES = {
    "malformed": ('[{"id": 1, "seq": 0}', "malformed JSON"),
    "not-array": ('{"id": 1, "seq": 0}', "got a JSON object"),
    "empty": ("[]", "the failover table is empty"),
    "entry-not-object": ("[1]", "entry 0: expected an object"),
    "missing-id": ('[{"seq": 0}]', 'entry 0: missing field "id"'),
    "missing-seq": ('[{"id": 1, "seq": 5}, {"id": 2}]', 'entry 1: missing field "seq"'),
    "float": ('[{"id": 1.5, "seq": 0}]', 'field "id" must be a non-negative integer, got 1.5'),
    "string": ('[{"id": "1", "seq": 0}]', 'field "id" must be a non-negative integer, got "1"'),
    "bool": ('[{"id": true, "seq": 0}]', 'field "id" must be a non-negative integer'),
    "negative": ('[{"id": 1, "seq": -1}]', 'field "seq" must be a non-negative integer, got -1'),
    "too-big": ('[{"id": 18446744073709551616, "seq": 0}]', "above 2^64-1"),
    "nan": ('[{"id": NaN, "seq": 0}]', "malformed JSON"),
}


@pytest.mark.parametrize("case", sorted(BAD_TABLES))
def test_bad_table_is_one_line_exit_2(case, tmp_path: Path, monkeypatch, capsys) -> None:
    text, expected = BAD_TABLES[case]
    path = write(tmp_path, text)
    result = run_cli(["decide", path, 10, 0], SANITY_IN, monkeypatch, capsys)
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1 and result.err.startswith("dcpcheck: error: ")
    assert str(path) in result.err and expected in result.err


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([TABLE, "ten", 0], "HIGH: expected a non-negative integer, got 'ten'"),
        ([TABLE, -5, 0], "HIGH: expected a non-negative integer"),
        ([TABLE, 100, 2**64], "PURGE: 18446744073709551616 is above 2^64-1"),
        ([TABLE, 10, 0], "HIGH: high seqno 10 is below entry 0"),
        ([TABLE, 100, 101], "PURGE: purge seqno 101 is above the high seqno 100"),
        ([TABLE, 100], "the following arguments are required: PURGE"),
        ([TABLE, 100, 0, 7], "unrecognized arguments: 7"),
        ([Path("/nonexistent/t.json"), 100, 0], "/nonexistent/t.json: no such file"),
        (
            [TABLE, 100, 0, "--rules", "nope"],
            "unknown rules 'nope'; known: kv-current, rollback-doc",
        ),
        ([TABLE, 100, 0, "--remote-purge", "x"], "--remote-purge: expected a non-negative integer"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(args, expected, monkeypatch, capsys) -> None:
    result = run_cli(["decide", *args], SANITY_IN, monkeypatch, capsys)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    assert expected in result.err


@pytest.mark.parametrize(
    "line", ["2222 20 30 2x5", "2222 -1 30 25", "2222 20 30 99999999999999999999"]
)
def test_bad_request_field_names_the_line_and_field(line, monkeypatch, capsys) -> None:
    result = run_cli(["decide", TABLE, 100, 0], f"2222 20 30 25\n{line}\n", monkeypatch, capsys)
    assert result.code == 2
    assert "stdin line 2: field" in result.err
    assert result.err.count("\n") == 1


def test_bad_input_through_the_real_entry_point_has_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "[{]")
    result = run_subprocess(["decide", path, 10, 0])
    assert result.code == 2
    assert "Traceback" not in result.err
    assert result.err.strip().count("\n") == 0
