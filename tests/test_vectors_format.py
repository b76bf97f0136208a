"""Bad vector files name the file and field, exit 2; failures never leave half a set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vectorhelp import CORPUS, FIXTURE_COUNTEREXAMPLES

from checker.vectors.format import dump_corpus, load_corpus


def corrupt(tmp_path: Path, change) -> Path:
    data = json.loads((CORPUS / "vectors.json").read_text())
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return path


def set_in(path: list, value):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def drop(path: list):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return change


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (set_in(["vectors", 0, "request", "start"], "12"), "vectors[0].request.start"),
        (set_in(["vectors", 1, "request", "start"], -1), "vectors[1].request.start"),
        (set_in(["vectors", 0, "request", "strict"], 0), "vectors[0].request.strict"),
        (set_in(["vectors", 0, "request", "uuid"], 2**64), "vectors[0].request.uuid"),
        (drop(["vectors", 2, "producer", "high_seqno"]), "vectors[2].producer.high_seqno"),
        (set_in(["vectors", 0, "producer", "table"], []), "vectors[0].producer.table"),
        (
            set_in(["vectors", 0, "producer", "table"], [{"id": 1, "seq": 1}, {"id": 2, "seq": 5}]),
            "vectors[0].producer.table[1].seq",
        ),
        (
            set_in(["vectors", 0, "producer", "purge_seqno"], 2**63),
            "vectors[0].producer.purge_seqno",
        ),
        (set_in(["vectors", 0, "request", "strct"], True), "vectors[0].request.strct"),
        (
            set_in(["vectors", 0, "expected", "kv-current", "decision"], "maybe"),
            "vectors[0].expected.kv-current.decision",
        ),
        (
            set_in(["vectors", 0, "expected", "kv-current", "property"], "fast"),
            "vectors[0].expected.kv-current.property",
        ),
        (drop(["vectors", 0, "expected", "rollback-doc"]), "vectors[0].expected"),
        (set_in(["version"], 99), "version"),
        (set_in(["distinct_uuids"], "no"), "distinct_uuids"),
        (set_in(["repeated_uuid_mutants", "kv-current"], "scan"), "repeated_uuid_mutants"),
        (set_in(["guarantee", "kv-current", "humpty"], "maybe"), "guarantee.kv-current.humpty"),
        (set_in(["guarantee", "kv-current", "sometimes"], "proved"), "guarantee.kv-current"),
        (set_in(["vectors"], {}), "vectors"),
    ],
)
def test_schema_errors_name_file_and_field(tmp_path, change, field, cli) -> None:
    path = corrupt(tmp_path, change)
    for args in (
        ["replay", path, "--target", "rules:kv-current"],
        ["vectors", "score", path, "--rules", "kv-current"],
    ):
        result = cli(*args)
        assert result.code == 2
        assert result.err.startswith(f"dcpcheck: error: {path}: field {field}: ")
        assert result.err.count("\n") == 1
        assert result.out == ""


def test_duplicate_vector_ids_are_rejected(tmp_path) -> None:
    def twice(data):
        data["vectors"].append(data["vectors"][0])

    path = corrupt(tmp_path, twice)
    with pytest.raises(Exception, match=r"field vectors\[\d+\]\.id: v-\w+ appears twice"):
        load_corpus(path)


def test_malformed_json_names_file_line_and_column(tmp_path, cli) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "dcpcheck-vectors",\n "vectors": [,]}')
    result = cli("replay", path, "--target", "rules:kv-current")
    assert result.code == 2
    assert result.err.startswith(f"dcpcheck: error: {path}:2:")
    assert "malformed JSON" in result.err


def test_a_missing_vector_file_is_exit_2(tmp_path, cli) -> None:
    result = cli("replay", tmp_path / "none", "--target", "rules:kv-current")
    assert (result.code, result.err.strip()) == (
        2,
        f"dcpcheck: error: {tmp_path / 'none'}: no such file or directory (the vectors of "
        "the repository's counterexamples/vectors ship with dcpcheck: leave VECTORS out to "
        "replay them)",
    )


def test_a_version_1_corpus_still_loads(tmp_path) -> None:
    """Before the guarantee: no distinct_uuids, repeated_uuid_mutants, guarantee."""
    data = json.loads((CORPUS / "vectors.json").read_text())
    data["version"] = 1
    for key in ("distinct_uuids", "repeated_uuid_mutants", "guarantee"):
        del data[key]
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(data))
    corpus = load_corpus(path)
    assert (corpus.distinct_uuids, corpus.repeated_uuid_mutants, corpus.guarantee) == (
        False,
        {},
        {},
    )
    assert len(corpus.vectors) == len(load_corpus(CORPUS).vectors)


def test_the_corpus_round_trips_unchanged() -> None:
    text = (CORPUS / "vectors.json").read_text()
    corpus = load_corpus(CORPUS)
    assert dump_corpus(corpus) == text


def test_generate_refuses_to_replace_a_directory_it_did_not_write(tmp_path, cli) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    result = cli("vectors", "generate", "--out", mine)
    assert result.code == 2
    assert "non-empty directory" in result.err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_a_solver_timeout_is_exit_3_and_writes_nothing(tmp_path, cli) -> None:
    out = tmp_path / "v"
    result = cli("vectors", "generate", "--out", out, "--timeout", "0.000001")
    assert result.code == 3
    assert "unknown" in result.err
    assert list(tmp_path.iterdir()) == []


def test_a_failure_while_writing_keeps_the_previous_set(tmp_path, monkeypatch, cli) -> None:
    out = tmp_path / "v"
    assert cli("vectors", "baseline", "--out", out).code == 0
    before = (out / "vectors.json").read_text()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_text", broken)
    result = cli("vectors", "baseline", "--out", out)
    monkeypatch.undo()
    assert result.code == 2 and "disk full; nothing was changed" in result.err
    assert (out / "vectors.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v"]


def test_a_stale_counterexample_is_named_exit_2(tmp_path, cli) -> None:
    data = json.loads((FIXTURE_COUNTEREXAMPLES / "seed001-decisions.json").read_text())
    data["decisions"][0]["decision"]["rollback_seqno"] = 20
    (tmp_path / "cx.json").write_text(json.dumps(data))
    result = cli(
        "vectors", "generate", "--counterexamples", tmp_path / "cx.json", "--out", tmp_path / "v"
    )
    assert result.code == 2
    assert "cx.json: field decisions[0].decision.rollback_seqno: recorded 20" in result.err
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--table-entries", "0"], "--table-entries"),
        (["--table-entries", "x"], "--table-entries"),
        (["--timeout", "-1"], "--timeout"),
        (["--rules", "kv-current", "--rules", "kv-current"], "given twice"),
        (["--rules", "nope"], "unknown rules 'nope'"),
        (["--counterexamples", "cx"], "is a directory; --counterexamples takes files"),
        (["--counterexamples", "cx/none.json"], "cx/none.json: no such file"),
    ],
)
def test_bad_generate_arguments_are_exit_2(tmp_path, args, message, monkeypatch, cli) -> None:
    (tmp_path / "cx").mkdir()
    monkeypatch.chdir(tmp_path)
    result = cli("vectors", "generate", "--out", tmp_path / "v", *args)
    assert result.code == 2
    assert message in result.err
    assert not (tmp_path / "v").exists()
