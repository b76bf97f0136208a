"""One cell, one ``Result``: every door into a single-node check gives the same answer.

The doors: ``dcpcheck check``, ``dcpcheck verify`` and ``dcpcheck clients`` (in process,
``--no-spark``), and the task objects they send to Spark executors (``ScenarioTask``,
``ScenarioGroupTask``). Each goes through ``checker.cell``, so the verdict, the reason,
the counterexample's id, the explanation, the recorded verdict and whether ``correct``
violates it too are the same whichever door a cell came in by. ``dcpcheck diff`` judges
pairs of cells: its safety regressions are the cells check finds violated by B alone
(tests/test_diff_consumers.py, beside the other tests of that diff).
"""

from __future__ import annotations

import json

import pytest

from checker.engines.options import Options
from checker.result import Result
from checker.tasks import ScenarioGroupTask, ScenarioTask
from spec.bounds import Bounds

# Bounds at which each of CELLS is still what it stands for below (at 4 seqnos and 3 table
# entries too, for 1.5 times the CPU).
SMALL = Bounds(seqnos=3, keys=2, entries=2, failovers=1)
BOUNDS_FLAGS = ["--seqnos", "3", "--keys", "2", "--entries", "2", "--failovers", "1"]

# (rules, consumer, property): a violation correct shares (kv-current's purge rollback), a
# consumer's own violation, a proof, a catalogued client's violation
CELLS = [
    ("kv-current", "collapse-snapshot", "no-needless-rollback"),
    ("kv-current", "collapse-snapshot", "no-missed-item"),
    ("rollback-doc", "correct", "no-missed-item"),
    ("kv-current", "go-dcp", "no-missed-item"),
]


def _from_result(r: Result) -> dict[str, object]:
    return {
        "verdict": r.verdict.value,
        "reason": r.reason or None,
        "id": r.ident or None,
        "explanation": r.explanation or None,
        "expected": r.expected,
        "also_by": r.also_by or None,
    }


def _from_json(row: dict[str, object]) -> dict[str, object]:
    path = row["counterexample"]
    ident = path.rsplit("/", 1)[-1].removesuffix(".json") if isinstance(path, str) else None
    return {
        "verdict": row["verdict"],
        "reason": row["reason"] or None,
        "id": ident,
        "explanation": row["explanation"] or None,
        "expected": row["expected"],
        "also_by": row["also_violated_by"],
    }


def _cell_flags(rules: str, consumer: str, prop: str) -> list[str]:
    return ["--rules", rules, "--consumer", consumer, "--property", prop, *BOUNDS_FLAGS]


@pytest.mark.parametrize(("rules", "consumer", "prop"), CELLS)
def test_every_door_gives_a_cell_the_same_result(cli, tmp_path, rules, consumer, prop) -> None:
    alone = _from_result(ScenarioTask(rules, consumer, prop, SMALL).run())
    (grouped,) = ScenarioGroupTask(rules, consumer, (prop,), SMALL).run()
    doors = {"ScenarioTask": alone, "ScenarioGroupTask": _from_result(grouped)}
    flags = _cell_flags(rules, consumer, prop)
    check = cli("check", *flags, "--json", "--out", tmp_path / "check")
    doors["check"] = _from_json(json.loads(check.out)["results"][0])
    verify = cli(
        "verify", *flags, "--no-spark", "--no-durability", "--no-clients", "--no-every-session",
        "--no-decision", "--json", "--out", tmp_path / "verify",
    )  # fmt: skip
    doors["verify"] = _from_json(json.loads(verify.out)["results"][0])
    if prop != "no-needless-rollback":  # clients judges the safety properties only
        clients = cli("clients", *flags, "--no-spark", "--json", "--out", tmp_path / "clients")
        doors["clients"] = _from_json(json.loads(clients.out)["results"][0])
    assert all(door == alone for door in doors.values()), doors


def test_a_group_of_cells_gives_each_the_result_it_gets_alone(monkeypatch) -> None:
    """verify and clients prove a consumer's properties together and ask correct about
    the violated ones together (``checker.cell.check_cells``): each cell's ``Result`` is
    still the one it gets alone."""
    from checker import cell

    props = ("no-missed-item", "no-needless-rollback", "valid-request")
    monkeypatch.setattr(cell, "_SEEN", {})  # nothing known of correct's verdicts yet
    together = ScenarioGroupTask("kv-current", "collapse-snapshot", props, SMALL).run()
    monkeypatch.setattr(cell, "_SEEN", {})
    alone = [ScenarioTask("kv-current", "collapse-snapshot", p, SMALL).run() for p in props]
    assert [_from_result(r) for r in together] == [_from_result(r) for r in alone]
    assert [r.also_by for r in together] == ["", "correct", ""]


@pytest.mark.parametrize(
    ("consumer", "prop"), [("correct", "valid-request"), ("collapse-snapshot", "no-missed-item")]
)
def test_every_number_of_sessions_is_one_result_by_check_and_by_a_task(
    cli, tmp_path, consumer, prop
) -> None:
    """``--sessions any`` is an option of the cell (``Options.every_session``), decided
    below the command: the abstract-view proof, or the induction and its bounded search."""
    task = ScenarioTask("kv-current", consumer, prop, SMALL, Options(every_session=True))
    alone = task.run()
    flags = _cell_flags("kv-current", consumer, prop)
    check = cli("check", *flags, "--sessions", "any", "--json", "--out", tmp_path)
    (row,) = json.loads(check.out)["results"]
    assert _from_json(row) == _from_result(alone)
    assert row["bounds"] == alone.bounds.to_json()
    assert alone.verdict.value == ("holds" if consumer == "correct" else "violated")
    assert alone.verdict.value == "violated" or row["reason"] is None  # not "not run"


@pytest.mark.parametrize(
    ("command", "engine"), [("check", "cubes-spark"), ("durability", "bfs-spark")]
)
def test_the_old_engine_name_spark_runs_its_engine_with_a_one_line_note(
    command: str, engine: str, capsys
) -> None:
    """``--engine spark`` meant the cube solver in check and the breadth-first search in
    durability; each now has a name of its own, and the old one still runs it."""
    from checker.engines import registry

    name = registry.scenario_engine_name if command == "check" else registry.cluster_engine_name
    registry._NOTED.clear()
    assert name("spark") == engine and name("spark") == engine and name(engine) == engine
    note = capsys.readouterr().err
    assert note.count("\n") == 1 and f"--engine spark is now --engine {engine}" in note


def test_every_safety_property_of_the_catalogue_has_a_verdict_for_every_built_in_cell() -> None:
    """spec/expected.py's safety properties are the catalogue's (each property's kind): a
    safety property added to the catalogue gets the matrix's recorded verdicts too."""
    from spec.expected import CONSUMERS, EXPECTED, RULE_SETS, SAFETY
    from spec.properties import PROPERTIES

    assert set(SAFETY) == {p.id for p in PROPERTIES if p.kind == "safety"}
    for prop in PROPERTIES:
        recorded = {EXPECTED.get((r, c, prop.id)) for r in RULE_SETS for c in CONSUMERS}
        assert None not in recorded, prop.id
