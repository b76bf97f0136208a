"""The regression-vector corpus: its JSON schema, loading with one-line errors, writing.

A corpus is one JSON file (``vectors.json``, see docs/vectors.md)::

    {"format": "dcpcheck-vectors", "version": 2,
     "rules": ["kv-current", ...], "table_entries": 3, "distinct_uuids": false,
     "command": "...", "unreachable": [...],
     "equivalent_mutants": {"kv-current": [...]},
     "repeated_uuid_mutants": {"kv-current": [...]},
     "guarantee": {"kv-current": {"humpty": "proved", "all": "proved"}},
     "vectors": [VECTOR, ...]}

    VECTOR = {"id": "v-1a2b3c4d", "origin": GOAL, "covers": [GOAL, ...],
              "producer": {"table": [{"id": U, "seq": S}, ...],
                           "high_seqno": N, "purge_seqno": N},
              "request": {"uuid", "start", "snap_start", "snap_end", "end",
                          "strict", "ignore_purged", "remote_purge",
                          "collection_high"},
              "expected": {RULES: {"decision": "ok"|"rollback"|"erange",
                                   "rollback_seqno": N|null, "case": CLAUSE,
                                   "property": PROPERTY,
                                   "needs_rollback": {...}   # only for erange
                                   }}}

Version 1 files (without ``distinct_uuids``, ``repeated_uuid_mutants`` and
``guarantee``) still load. Integers are uint64 JSON numbers. Loading checks
every field and names the first one at fault (``FILE: field
vectors[3].request.start: ...``); unknown fields are errors, so a misspelt
one cannot be silently ignored.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from checker.inputs import load_json
from spec.errors import InvalidInput
from spec.failover_table import UINT64_MAX, FailoverEntry, FailoverTable
from spec.rules.breaks import PROPERTY_IDS
from spec.types import Decision, Outcome, ProducerState, StreamRequest

__all__ = [
    "CORPUS_FILE",
    "FORMAT",
    "SHIPPED",
    "VERSION",
    "Answer",
    "Corpus",
    "ExpectedAnswer",
    "Vector",
    "corpus_path",
    "dump_corpus",
    "load_corpus",
    "parse_producer",
    "parse_request",
    "vector_id",
]

FORMAT = "dcpcheck-vectors"
VERSION = 2
VERSIONS = (1, 2)
GUARANTEE_INPUTS = ("humpty", "all")
GUARANTEE_VERDICTS = ("proved", "survived", "unknown")
CORPUS_FILE = "vectors.json"
# The checked-in corpus (counterexamples/vectors/vectors.json) as installed with the package:
# a link to it in a checkout, its content in the wheel (pyproject.toml's package-data).
SHIPPED = Path(__file__).with_name("shipped") / CORPUS_FILE

REQUEST_KEYS = (
    "uuid",
    "start",
    "snap_start",
    "snap_end",
    "end",
    "strict",
    "ignore_purged",
    "remote_purge",
    "collection_high",
)
PRODUCER_KEYS = ("table", "high_seqno", "purge_seqno")


@dataclass(frozen=True)
class Answer:
    """What an implementation answers: the decision and, for a rollback, the seqno."""

    outcome: Outcome
    rollback_seqno: int | None = None

    @classmethod
    def of(cls, decision: Decision) -> Answer:
        return cls(decision.outcome, decision.rollback_seqno)

    def __str__(self) -> str:
        if self.outcome is Outcome.ROLLBACK:
            return f"rollback to {self.rollback_seqno}"
        return self.outcome.value

    def to_json(self) -> dict[str, Any]:
        return {"decision": self.outcome.value, "rollback_seqno": self.rollback_seqno}


@dataclass(frozen=True)
class ExpectedAnswer:
    """A rule set's answer to a vector, the clause that gives it and the property at stake.

    ``needs_rollback`` is the rule set's answer without the producer's range
    check (what humpty_dumpty prints); recorded only when ``answer`` is erange.
    """

    answer: Answer
    case: str
    property: str
    needs_rollback: Answer | None = None
    needs_rollback_case: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            **self.answer.to_json(),
            "case": self.case,
            "property": self.property,
        }
        if self.needs_rollback is not None:
            data["needs_rollback"] = {
                **self.needs_rollback.to_json(),
                "case": self.needs_rollback_case,
            }
        return data


@dataclass(frozen=True)
class Vector:
    id: str
    origin: str
    request: StreamRequest
    producer: ProducerState
    expected: dict[str, ExpectedAnswer]
    covers: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "origin": self.origin,
            "covers": list(self.covers),
            "producer": self.producer.to_json(),
            "request": self.request.to_json(),
            "expected": {name: e.to_json() for name, e in self.expected.items()},
        }


@dataclass(frozen=True)
class Corpus:
    rules: tuple[str, ...]
    table_entries: int
    command: str
    vectors: tuple[Vector, ...]
    unreachable: tuple[str, ...] = ()
    equivalent_mutants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    path: str = ""
    distinct_uuids: bool = False  # the input space: may a table repeat a uuid?
    # Mutants that answer differently only when a table repeats a uuid.
    repeated_uuid_mutants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # rule set -> inputs (humpty / all) -> the neighbourhood guarantee's verdict
    guarantee: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": list(self.rules),
            "table_entries": self.table_entries,
            "distinct_uuids": self.distinct_uuids,
            "command": self.command,
            "unreachable": list(self.unreachable),
            "equivalent_mutants": {k: list(v) for k, v in self.equivalent_mutants.items()},
            "repeated_uuid_mutants": {k: list(v) for k, v in self.repeated_uuid_mutants.items()},
            "guarantee": self.guarantee,
            "vectors": [v.to_json() for v in self.vectors],
        }


def vector_id(req: StreamRequest, producer: ProducerState) -> str:
    """A stable id from the inputs alone: the same inputs always get the same id."""
    text = json.dumps([req.to_json(), producer.to_json()], sort_keys=True)
    return "v-" + hashlib.sha256(text.encode()).hexdigest()[:8]


def dump_corpus(corpus: Corpus) -> str:
    return json.dumps(corpus.to_json(), indent=1) + "\n"


# -- loading ------------------------------------------------------------------------------


class _Fields:
    """Reads one JSON object, naming ``path.key`` in every error."""

    def __init__(self, file: str, path: str, data: Any, keys: tuple[str, ...]) -> None:
        self.file = file
        self.path = path
        if not isinstance(data, dict):
            self.fail(path, f"expected an object, got {_kind(data)}")
        for key in data:
            if key not in keys:
                self.fail(self.at(key), f"unknown field; expected one of {', '.join(keys)}")
        self.data = data

    def at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, path: str, message: str) -> NoReturn:
        raise InvalidInput(self.file, f"field {path}: {message}")

    def get(self, key: str) -> Any:
        if key not in self.data:
            self.fail(self.at(key), "missing")
        return self.data[key]

    def uint64(self, key: str) -> int:
        return _uint64(self.file, self.at(key), self.get(key))

    def boolean(self, key: str) -> bool:
        value = self.get(key)
        if not isinstance(value, bool):
            self.fail(self.at(key), f"expected true or false, got {_kind(value)}")
        return value

    def string(self, key: str) -> str:
        value = self.get(key)
        if not isinstance(value, str) or not value:
            self.fail(self.at(key), f"expected a non-empty string, got {_kind(value)}")
        return value

    def array(self, key: str) -> list[Any]:
        value = self.get(key)
        if not isinstance(value, list):
            self.fail(self.at(key), f"expected an array, got {_kind(value)}")
        return value


def _uint64(file: str, path: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= UINT64_MAX:
        raise InvalidInput(
            file, f"field {path}: expected an integer in [0, 2^64-1], got {_kind(value)}"
        )
    return value


def _kind(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_request(file: str, path: str, data: Any) -> StreamRequest:
    f = _Fields(file, path, data, REQUEST_KEYS)
    collection = f.get("collection_high")
    return StreamRequest(
        uuid=f.uint64("uuid"),
        start=f.uint64("start"),
        snap_start=f.uint64("snap_start"),
        snap_end=f.uint64("snap_end"),
        end=f.uint64("end"),
        strict=f.boolean("strict"),
        ignore_purged=f.boolean("ignore_purged"),
        remote_purge=f.uint64("remote_purge"),
        collection_high=None
        if collection is None
        else _uint64(file, f.at("collection_high"), collection),
    )


def parse_producer(file: str, path: str, data: Any) -> ProducerState:
    """A producer state kv_engine can be in: the same rules as ``dcpcheck decide``."""
    f = _Fields(file, path, data, PRODUCER_KEYS)
    rows = f.array("table")
    if not rows:
        f.fail(f.at("table"), "empty; a failover table has at least one entry")
    entries: list[FailoverEntry] = []
    for index, row in enumerate(rows):
        entry = _Fields(file, f"{f.at('table')}[{index}]", row, ("id", "seq"))
        uuid, seqno = entry.uint64("id"), entry.uint64("seq")
        if uuid == 0:
            entry.fail(entry.at("id"), "uuid 0 is not a failover table entry")
        if entries and seqno > entries[-1].seqno:
            entry.fail(entry.at("seq"), f"{seqno} is above the entry before it (newest first)")
        entries.append(FailoverEntry(uuid, seqno))
    high, purge = f.uint64("high_seqno"), f.uint64("purge_seqno")
    if high < entries[0].seqno:
        f.fail(f.at("high_seqno"), f"{high} is below the newest entry's seq {entries[0].seqno}")
    if purge > high:
        f.fail(f.at("purge_seqno"), f"{purge} is above the high seqno {high}")
    return ProducerState(FailoverTable(tuple(entries)), high, purge)


def _parse_answer(f: _Fields) -> Answer:
    decision = f.string("decision")
    try:
        outcome = Outcome(decision)
    except ValueError:
        f.fail(f.at("decision"), f"expected ok, rollback or erange, got {_kind(decision)}")
    seqno = f.get("rollback_seqno")
    if outcome is Outcome.ROLLBACK:
        return Answer(outcome, _uint64(f.file, f.at("rollback_seqno"), seqno))
    if seqno is not None:
        f.fail(f.at("rollback_seqno"), f"must be null for decision {decision}")
    return Answer(outcome)


def _parse_expectation(file: str, path: str, data: Any) -> ExpectedAnswer:
    keys = ("decision", "rollback_seqno", "case", "property", "needs_rollback")
    f = _Fields(file, path, data, keys)
    answer = _parse_answer(f)
    prop = f.string("property")
    if prop not in PROPERTY_IDS:
        f.fail(f.at("property"), f"unknown property {prop!r}; known: {', '.join(PROPERTY_IDS)}")
    inner, inner_case = None, None
    if answer.outcome is Outcome.ERANGE:
        g = _Fields(
            file,
            f.at("needs_rollback"),
            f.get("needs_rollback"),
            ("decision", "rollback_seqno", "case"),
        )
        inner, inner_case = _parse_answer(g), g.string("case")
        if inner.outcome is Outcome.ERANGE:
            g.fail(g.at("decision"), "needsRollback alone answers ok or rollback, never erange")
    elif "needs_rollback" in f.data:
        f.fail(f.at("needs_rollback"), "only an erange expectation records needs_rollback")
    return ExpectedAnswer(answer, f.string("case"), prop, inner, inner_case)


def _parse_vector(file: str, path: str, data: Any) -> Vector:
    keys = ("id", "origin", "covers", "producer", "request", "expected")
    f = _Fields(file, path, data, keys)
    covers = f.array("covers")
    for index, goal in enumerate(covers):
        if not isinstance(goal, str):
            f.fail(f"{f.at('covers')}[{index}]", f"expected a goal name, got {_kind(goal)}")
    expected = f.get("expected")
    if not isinstance(expected, dict) or not expected:
        f.fail(f.at("expected"), "expected an object mapping rule-set names to expectations")
    return Vector(
        id=f.string("id"),
        origin=f.string("origin"),
        request=parse_request(file, f.at("request"), f.get("request")),
        producer=parse_producer(file, f.at("producer"), f.get("producer")),
        expected={
            name: _parse_expectation(file, f"{f.at('expected')}.{name}", value)
            for name, value in expected.items()
        },
        covers=tuple(covers),
    )


def corpus_path(path: str | Path) -> Path:
    """A corpus file, or a directory holding ``vectors.json``."""
    p = Path(path)
    return p / CORPUS_FILE if p.is_dir() else p


def load_corpus(path: str | Path) -> Corpus:
    file_path = corpus_path(path)
    file = str(file_path)
    data = load_json(file_path)
    keys = (
        "format",
        "version",
        "rules",
        "table_entries",
        "distinct_uuids",
        "command",
        "unreachable",
        "equivalent_mutants",
        "repeated_uuid_mutants",
        "guarantee",
        "vectors",
    )
    f = _Fields(file, "", data, keys)
    if f.get("format") != FORMAT:
        f.fail("format", f'expected "{FORMAT}", got {_kind(f.get("format"))}')
    version = f.get("version")
    if version not in VERSIONS:
        f.fail("version", f"expected {VERSION} (or 1), got {_kind(version)}")
    rules = f.array("rules")
    if not rules or not all(isinstance(r, str) and r for r in rules):
        f.fail("rules", "expected a non-empty array of rule-set names")
    table_entries = f.uint64("table_entries")
    unreachable = f.array("unreachable")
    mutants = _mutant_lists(f, "equivalent_mutants")
    repeated = _mutant_lists(f, "repeated_uuid_mutants") if version >= 2 else {}
    distinct = f.boolean("distinct_uuids") if version >= 2 else False
    guarantee = _guarantee(f) if version >= 2 else {}
    vectors = []
    seen: set[str] = set()
    for index, item in enumerate(f.array("vectors")):
        vector = _parse_vector(file, f"vectors[{index}]", item)
        if vector.id in seen:
            f.fail(f"vectors[{index}].id", f"{vector.id} appears twice")
        missing = [r for r in rules if r not in vector.expected]
        if missing:
            f.fail(f"vectors[{index}].expected", f"no expectation for {', '.join(missing)}")
        seen.add(vector.id)
        vectors.append(vector)
    return Corpus(
        rules=tuple(rules),
        table_entries=table_entries,
        command=f.string("command"),
        vectors=tuple(vectors),
        unreachable=tuple(str(u) for u in unreachable),
        equivalent_mutants=mutants,
        path=file,
        distinct_uuids=distinct,
        repeated_uuid_mutants=repeated,
        guarantee=guarantee,
    )


def _mutant_lists(f: _Fields, key: str) -> dict[str, tuple[str, ...]]:
    value = f.get(key)
    if not isinstance(value, dict) or not all(
        isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in value.values()
    ):
        f.fail(key, "expected an object of rule-set name -> [mutant id]")
    return {name: tuple(ids) for name, ids in value.items()}


def _guarantee(f: _Fields) -> dict[str, dict[str, str]]:
    value = f.get("guarantee")
    if not isinstance(value, dict):
        f.fail("guarantee", "expected an object of rule-set name -> {humpty, all} -> verdict")
    for name, verdicts in value.items():
        path = f"guarantee.{name}"
        if not isinstance(verdicts, dict) or not set(verdicts) <= set(GUARANTEE_INPUTS):
            f.fail(path, f"expected an object with keys among {', '.join(GUARANTEE_INPUTS)}")
        for inputs, verdict in verdicts.items():
            if verdict not in GUARANTEE_VERDICTS:
                f.fail(f"{path}.{inputs}", f"expected one of {', '.join(GUARANTEE_VERDICTS)}")
    return value
