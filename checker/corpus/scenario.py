"""Single-node counterexample files: ``counterexamples/<id>.json``, read by tests and tools.

Format ``dcpcheck-counterexample/1``: the rule set, consumer variant and
property (stable ids), the bounds searched, the minimised size, the scenario
(inputs), the reference trace (requests and answers, what the consumer held
and ends with), the producer decisions taken (as regression-vector seeds),
a one-line explanation and the command that reproduces it. docs/formats.md
describes every field.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from checker.corpus import SCENARIO_FORMAT
from checker.inputs import load_json, uint64_field
from checker.result import Result
from spec.bounds import Bounds
from spec.errors import InvalidInput
from spec.failover_table import FailoverEntry, FailoverTable
from spec.scenario import Cut, Failover, Item, Mutation, Scenario, key_name
from spec.trace import Trace

FORMAT = SCENARIO_FORMAT

__all__ = [
    "FORMAT",
    "counterexample_id",
    "load_counterexample",
    "scenario_from_json",
    "scenario_record",
    "scenario_to_json",
    "trace_to_json",
]


def key_index(name: str, where: str) -> int:
    if len(name) == 1 and "A" <= name <= "Z":
        return ord(name) - ord("A")
    if name.startswith("K") and name[1:].isdigit():
        return int(name[1:])
    raise InvalidInput(where, f"key {name!r} is not a key name (A..Z, or K26, K27, ...)")


def mutation_json(seqno: int, m: Mutation) -> dict[str, Any]:
    return {"seqno": seqno, "op": "del" if m.deleted else "set", "key": key_name(m.key)}


def item_json(item: Item) -> dict[str, Any]:
    return item.to_json()


def _failovers_json(failovers: tuple[Failover, ...]) -> list[dict[str, Any]]:
    return [
        {
            "branch": f.branch,
            "uuid": f.uuid,
            "mutations": [
                mutation_json(x, m) for x, m in enumerate(f.mutations, start=f.branch + 1)
            ],
        }
        for f in failovers
    ]


def scenario_to_json(s: Scenario) -> dict[str, Any]:
    out = {
        "history": [mutation_json(x, m) for x, m in enumerate(s.history, start=1)],
        "table": s.table.to_json(),
        "first_snapshot_start": s.first_snapshot_start,
        "snapshot_ends": list(s.snapshot_ends),
        "received": s.received,
        "failovers": _failovers_json(s.failovers),
        "purge_seqno": s.purge_seqno,
        "max_entries": s.max_entries,
    }
    if s.later:  # absent for one session, so earlier files and ids stay as they were
        out["later"] = [
            {
                "disk": cut.disk,
                "snapshot_ends": list(cut.snapshot_ends),
                "received": cut.received,
                "failovers": _failovers_json(cut.failovers),
                "purge_seqno": cut.purge_seqno,
            }
            for cut in s.later
        ]
    return out


def trace_to_json(t: Trace) -> dict[str, Any]:
    return {
        "held": [item_json(i) for i in t.held],
        "boundaries": list(t.boundaries),
        "rounds": [
            {
                "request": r.request.to_json(),
                "decision": r.decision.to_json(),
                "keep": r.keep,
                "filter": r.filter,
            }
            for r in t.rounds
        ],
        "accepted": t.accepted,
        "final_consumer": {key_name(k): item_json(i) for k, i in sorted(t.final.items())},
        "producer": {
            "high_seqno": t.high_seqno,
            "purge_seqno": t.purge_seqno,
            "table": t.producer_table.to_json(),
            "items": [item_json(i) for i in t.producer_items],
        },
    }


def decisions_json(t: Trace, rules: str, prop: str) -> list[dict[str, Any]]:
    """The producer decisions of the trace, in the form regression vectors are seeded from."""
    producer = {
        "table": t.producer_table.to_json(),
        "high_seqno": t.high_seqno,
        "purge_seqno": t.purge_seqno,
    }
    return [
        {
            "rules": rules,
            "request": r.request.to_json(),
            "producer": producer,
            "decision": r.decision.to_json(),
            "property": prop,
        }
        for r in t.rounds
    ]


def scenario_record(r: Result, ident: str, trace: Trace, explanation: str) -> dict[str, Any]:
    """The counterexample file of a single-node check (format ``dcpcheck-counterexample/1``)."""
    return {
        "format": FORMAT,
        "id": ident,
        "rules": r.subject["rules"],
        "consumer": r.subject["consumer"],
        "property": r.property,
        "kind": r.kind,
        "verdict": r.verdict.value,
        "replay": r.replay.status if r.replay else None,
        "explanation": explanation,
        "bounds": r.bounds.to_json(),
        "size": dict(r.size),
        "scenario": scenario_to_json(trace.scenario),
        "trace": trace_to_json(trace),
        "decisions": decisions_json(trace, r.subject["rules"], r.property),
        "command": r.command,
    } | ({"sources": dict(r.sources)} if r.sources else {})


def counterexample_id(rules: str, consumer: str, prop: str, scenario: Scenario) -> str:
    canonical = json.dumps(scenario_to_json(scenario), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:10]
    # A consumer's settings (``go-dcp:mitigation=off``) as file-name characters.
    consumer = consumer.replace(":", "+").replace("=", "-").replace(",", "+")
    return f"{prop}--{rules}--{consumer}--{digest}"


# -- reading ------------------------------------------------------------------------------


def _field(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict):
        raise InvalidInput(where, "expected a JSON object")
    if key not in obj:
        raise InvalidInput(where, f'missing field "{key}"')
    value = obj[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InvalidInput(where, f'field "{key}" has the wrong type ({type(value).__name__})')
    return value


def _mutations(items: Any, first_seqno: int, where: str) -> tuple[Mutation, ...]:
    if not isinstance(items, list):
        raise InvalidInput(where, "expected a list of mutations")
    out = []
    for n, item in enumerate(items):
        at = f"{where}[{n}]"
        seqno = uint64_field(item, "seqno", at) if isinstance(item, dict) else None
        if seqno != first_seqno + n:
            raise InvalidInput(at, f"seqno must be {first_seqno + n} (mutations are contiguous)")
        op = _field(item, "op", str, at)
        if op not in ("set", "del"):
            raise InvalidInput(at, f'op must be "set" or "del", got {op!r}')
        out.append(Mutation(key_index(_field(item, "key", str, at), at), op == "del"))
    return tuple(out)


def _failovers_from_json(raw: list[Any], where: str) -> tuple[Failover, ...]:
    failovers = []
    for i, f in enumerate(raw):
        at = f"{where}[{i}]"
        branch = uint64_field(f, "branch", at)
        mutations = _mutations(_field(f, "mutations", list, at), branch + 1, f"{at}: mutations")
        failovers.append(Failover(branch, uint64_field(f, "uuid", at), mutations))
    return tuple(failovers)


def scenario_from_json(data: Any, where: str) -> Scenario:
    history = _mutations(_field(data, "history", list, where), 1, f"{where}: history")
    table_raw = _field(data, "table", list, where)
    if not table_raw:
        raise InvalidInput(f"{where}: table", "the failover table is empty")
    entries = tuple(
        FailoverEntry(
            uint64_field(e, "id", f"{where}: table[{i}]"),
            uint64_field(e, "seq", f"{where}: table[{i}]"),
        )
        for i, e in enumerate(table_raw)
    )
    max_entries = uint64_field(data, "max_entries", where) if "max_entries" in data else 25
    failovers = _failovers_from_json(_field(data, "failovers", list, where), f"{where}: failovers")
    ends = _field(data, "snapshot_ends", list, where)
    later = []
    for j, cut in enumerate(data.get("later", [])):
        at = f"{where}: later[{j}]"
        later.append(
            Cut(
                disk=_field(cut, "disk", bool, at),
                snapshot_ends=tuple(
                    uint64_field({"end": e}, "end", f"{at}: snapshot_ends")
                    for e in _field(cut, "snapshot_ends", list, at)
                ),
                received=uint64_field(cut, "received", at),
                failovers=_failovers_from_json(
                    _field(cut, "failovers", list, at), f"{at}: failovers"
                ),
                purge_seqno=uint64_field(cut, "purge_seqno", at),
            )
        )
    scenario = Scenario(
        history=history,
        table=FailoverTable(entries, max_entries),
        first_snapshot_start=uint64_field(data, "first_snapshot_start", where),
        snapshot_ends=tuple(
            uint64_field({"end": e}, "end", f"{where}: snapshot_ends") for e in ends
        ),
        received=uint64_field(data, "received", where),
        failovers=tuple(failovers),
        purge_seqno=uint64_field(data, "purge_seqno", where),
        max_entries=max_entries,
        later=tuple(later),
    )
    problems = scenario.problems()
    if problems:
        raise InvalidInput(where, f"impossible scenario: {problems[0]}")
    return scenario


def load_counterexample(path: str | Path) -> dict[str, Any]:
    """Load and validate a counterexample file; ``scenario`` becomes a ``Scenario``."""
    where = str(path)
    data = load_json(path)
    if _field(data, "format", str, where) != FORMAT:
        raise InvalidInput(where, f'field "format" must be "{FORMAT}"')
    for key in ("id", "rules", "consumer", "property"):
        _field(data, key, str, where)
    bounds_raw = _field(data, "bounds", dict, where)
    try:
        bounds = Bounds(**{k: uint64_field(bounds_raw, k, f"{where}: bounds") for k in bounds_raw})
    except TypeError as exc:
        raise InvalidInput(f"{where}: bounds", str(exc)) from None
    except ValueError as exc:
        raise InvalidInput(f"{where}: bounds", str(exc)) from None
    return data | {
        "scenario": scenario_from_json(_field(data, "scenario", dict, where), f"{where}: scenario"),
        "bounds": bounds,
    }
