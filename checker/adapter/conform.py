"""Model vs code: where a client adapter and a consumer variant part ways.

Every scenario within the bounds is played to both (the adapter's process and
the variant through the reference consumer, ``VariantClient``); their
transcripts (every question with its answer, in order) are compared, and the
first answer that differs is the scenario's *difference*: which resume, which
question after which event, which fields (a request's uuid, start, snapshot or
flags; the data of a key). Differences are grouped by question and fields;
each group's smallest scenario is shrunk (``checker.adapter.shrink``) to the
smallest one that still differs the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from checker.adapter.check import ClientTarget
from checker.adapter.client import Client, VariantClient
from checker.adapter.play import Played, play
from checker.adapter.protocol import AdapterFault
from checker.adapter.search import size
from checker.adapter.shrink import shrink
from checker.engines.exhaustive import history_at, history_count, scenarios
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.reference.simulate import NotARun
from spec.rules import RuleSet
from spec.scenario import Scenario

__all__ = ["Conformance", "Difference", "conform", "first_difference"]


@dataclass(frozen=True)
class Difference:
    """The first answer in which the client and the variant differ."""

    resume: int  # the run of the resume asked about (0: the first)
    index: int  # the question's place among the run's messages
    question: str  # hello | stream_request | data
    after: str  # the event before it, in words
    fields: tuple[str, ...]
    client: Any
    variant: Any

    @property
    def kind(self) -> tuple[str, tuple[str, ...]]:
        return self.question, self.fields

    def describe(self) -> str:
        where = f"resume {self.resume + 1}, message {self.index + 1} ({self.question}"
        where += f" after {self.after})" if self.after else ")"
        parts = [
            f"{f}: client {_at(self.client, f)}, model {_at(self.variant, f)}" for f in self.fields
        ]
        return f"{where}: " + "; ".join(parts)


def _at(answer: Any, name: str) -> Any:
    value = answer
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return "absent" if value is None else value


def _event_text(message: dict) -> str:
    text = message["type"]
    details = {k: v for k, v in message.items() if k not in ("type", "answer", "failover_log")}
    if details:
        text += " " + ",".join(f"{k}={v}" for k, v in details.items())
    return text


def _fields(a: Any, b: Any, prefix: str = "") -> tuple[str, ...]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
                    out.extend(_fields(a[key], b[key], f"{prefix}{key}."))
                else:
                    out.append(f"{prefix}{key}")
        return tuple(out)
    return (prefix.rstrip(".") or "answer",) if a != b else ()


def first_difference(client: Played, model: Played) -> Difference | None:
    for resume, (mine, theirs) in enumerate(zip(client.transcript, model.transcript, strict=False)):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a == b:
                continue
            before = mine[index - 1] if index else None
            after = _event_text(before) if before and "answer" not in before else ""
            question = a["type"]
            return Difference(
                resume,
                index,
                question,
                after,
                _fields(a.get("answer"), b.get("answer")),
                a.get("answer"),
                b.get("answer"),
            )
    if len(client.transcript) != len(model.transcript):
        return Difference(
            0, 0, "runs", "", ("resumes",), len(client.transcript), len(model.transcript)
        )
    return None


Outcome = Played | str  # a played scenario, or why it is no run ("not a run: ...")


def _play(
    client: Client, scenario: Scenario, rules: RuleSet, bounds: Bounds, mitigation: bool
) -> Outcome:
    try:
        return play(client, scenario, rules, bounds.rounds, mitigation, told=False)
    except NotARun as exc:
        return f"not a run: {exc}"


def _compare(a: Outcome, b: Outcome) -> Difference | None:
    if isinstance(a, str) or isinstance(b, str):
        if isinstance(a, str) and isinstance(b, str):
            return None
        return Difference(
            0,
            0,
            "hello",
            "",
            ("rollback_mitigation",),
            "not a run" if isinstance(a, str) else "a run",
            "not a run" if isinstance(b, str) else "a run",
        )
    return first_difference(a, b)


@dataclass
class Conformance:
    examined: int = 0
    differing: int = 0
    # (question, fields) -> (size, order, scenario, difference)
    smallest: dict[tuple[str, tuple[str, ...]], tuple[Any, ...]] = field(default_factory=dict)
    fault: str = ""
    shrunk: list[tuple[Scenario, Difference]] = field(default_factory=list)


def conform(
    target: ClientTarget,
    variant: ConsumerVariant,
    rules: RuleSet,
    bounds: Bounds,
    progress: Callable[[int], None] | None = None,
) -> Conformance:
    """Every scenario within ``bounds`` through the adapter and ``variant`` (see the
    module's docstring)."""
    report = Conformance()
    model = VariantClient(variant)
    mitigation = bool(variant.rollback_mitigation)
    client = target.start()
    try:
        hello = client.hello()
        for index in range(history_count(bounds)):
            for n, scenario in enumerate(scenarios(bounds, history_at(bounds, index))):
                mine = _play(client, scenario, rules, bounds, hello.rollback_mitigation)
                theirs = _play(model, scenario, rules, bounds, mitigation)
                report.examined += 1
                difference = _compare(mine, theirs)
                if progress is not None and report.examined % 500 == 0:
                    progress(report.examined)
                if difference is None:
                    continue
                report.differing += 1
                measure = (size(scenario), (index, n))
                known = report.smallest.get(difference.kind)
                if known is None or measure < known[:2]:
                    report.smallest[difference.kind] = (*measure, scenario, difference)
    except AdapterFault as fault:
        report.fault = f"adapter {fault.kind}: {fault.detail}"
        return report
    finally:
        client.close()
    for kind, (_, _, scenario, _) in sorted(report.smallest.items(), key=lambda kv: kv[1][:2]):
        report.shrunk.append(
            _shrunk(
                target, model, hello.rollback_mitigation, mitigation, rules, bounds, kind, scenario
            )
        )
    return report


def _shrunk(
    target: ClientTarget,
    model: VariantClient,
    mine: bool,
    theirs: bool,
    rules: RuleSet,
    bounds: Bounds,
    kind: tuple[str, tuple[str, ...]],
    scenario: Scenario,
) -> tuple[Scenario, Difference]:
    client = target.start()
    try:

        def differs(s: Scenario) -> Difference | None:
            try:
                return _compare(
                    _play(client, s, rules, bounds, mine), _play(model, s, rules, bounds, theirs)
                )
            except AdapterFault:
                return None

        def same_kind(s: Scenario) -> bool:
            found = differs(s)
            return found is not None and found.kind == kind

        smallest, _ = shrink(scenario, same_kind)
        found = differs(smallest)
        assert found is not None
        return smallest, found
    finally:
        client.close()
