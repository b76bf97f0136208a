"""Model vs code: where a client adapter and a consumer variant part ways.

Every scenario within the bounds is played to both (the adapter's process and
the variant through the reference consumer, ``VariantClient``); their
transcripts (every question with its answer, in order) are compared, and each
answer that differs is one of the scenario's *differences*: which resume,
which question after which event, which fields (a request's uuid, start,
snapshot or flags; the data of a key), and for a request what the producer
answered each. Behaviour, not spelling: two requests the producer cannot tell
apart within the bounds are the same (``checker.adapter.sameness``: the rule
set's decisions for every producer state); once the producer's events to the
two part, the rest of that resume is the consequence of a difference already
named. Differences are grouped by question and fields; each group's smallest
scenario is shrunk (``checker.adapter.shrink``) to the smallest one that still
differs that way, and reported with every difference it has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from checker.adapter.check import ClientTarget
from checker.adapter.client import Client, VariantClient
from checker.adapter.play import Played, play
from checker.adapter.protocol import AdapterFault
from checker.adapter.sameness import Sameness
from checker.adapter.search import size
from checker.adapter.shrink import shrink
from checker.engines.exhaustive import history_at, history_count, scenarios
from spec.bounds import Bounds
from spec.consumers.api import ConsumerVariant
from spec.reference.simulate import NotARun
from spec.rules import RuleSet
from spec.scenario import Scenario

__all__ = ["Conformance", "Difference", "conform", "differences", "first_difference"]


@dataclass(frozen=True)
class Difference:
    """An answer in which the client and the variant differ (with, for a stream request,
    what the producer answered each: side by side)."""

    resume: int  # the run of the resume asked about (0: the first)
    index: int  # the question's place among the run's messages
    question: str  # hello | stream_request | data | runs
    after: str  # the event before it, in words
    fields: tuple[str, ...]
    client: Any
    variant: Any
    answered: tuple[str, str] = ("", "")  # the producer's answer to the client's, the model's

    @property
    def kind(self) -> tuple[str, tuple[str, ...]]:
        return self.question, self.fields

    def describe(self) -> str:
        where = f"resume {self.resume + 1}, message {self.index + 1} ({self.question}"
        where += f" after {self.after})" if self.after else ")"
        parts = [
            f"{f}: client {_at(self.client, f)}, model {_at(self.variant, f)}" for f in self.fields
        ]
        text = f"{where}: " + "; ".join(parts)
        if any(self.answered):
            mine, theirs = (a or "nothing" for a in self.answered)
            text += f"; the producer answered the client {mine}, the model {theirs}"
        return text


def _at(answer: Any, name: str) -> Any:
    value = answer
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return "absent" if value is None else value


def _event_text(message: dict[str, Any]) -> str:
    text: str = message["type"]
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


Same = Callable[[Any, Any], bool]  # two stream requests the producer cannot tell apart


def _spelling(a: Any, b: Any) -> bool:
    return bool(a == b)


def differences(client: Played, model: Played, same: Same = _spelling) -> list[Difference]:
    """Every answer in which they differ, in order: each question they were asked after the
    same events (a stream request only when ``same`` says the producer can tell the two
    apart); once the producer's events to them part (its answers to different requests),
    the rest of that resume follows from the difference already named."""
    out: list[Difference] = []
    for resume, (mine, theirs) in enumerate(zip(client.transcript, model.transcript, strict=False)):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a == b:
                continue
            if "answer" not in a or "answer" not in b or a["type"] != b["type"]:
                break  # the producer told them different things: the cause is named above
            question = a["type"]
            if question == "stream_request" and same(a["answer"], b["answer"]):
                continue
            before = mine[index - 1] if index else None
            after = _event_text(before) if before and "answer" not in before else ""
            answered = ("", "")
            if question == "stream_request":
                answered = (_reply(mine, index), _reply(theirs, index))
            out.append(
                Difference(
                    resume,
                    index,
                    question,
                    after,
                    _fields(a.get("answer"), b.get("answer")),
                    a.get("answer"),
                    b.get("answer"),
                    answered,
                )
            )
    if len(client.transcript) != len(model.transcript):
        out.append(
            Difference(
                0, 0, "runs", "", ("resumes",), len(client.transcript), len(model.transcript)
            )
        )
    return out


def _reply(transcript: Sequence[dict[str, Any]], index: int) -> str:
    """The producer's answer to the request at ``index``: the event after it."""
    after = transcript[index + 1] if index + 1 < len(transcript) else None
    return _event_text(after) if after is not None else ""


def first_difference(client: Played, model: Played, same: Same = _spelling) -> Difference | None:
    found = differences(client, model, same)
    return found[0] if found else None


Outcome = Played | str  # a played scenario, or why it is no run ("not a run: ...")


def _play(
    client: Client, scenario: Scenario, rules: RuleSet, bounds: Bounds, mitigation: bool
) -> Outcome:
    try:
        return play(client, scenario, rules, bounds.rounds, mitigation, told=False)
    except NotARun as exc:
        return f"not a run: {exc}"


def _compare(a: Outcome, b: Outcome, same: Same = _spelling) -> list[Difference]:
    if isinstance(a, str) or isinstance(b, str):
        if isinstance(a, str) and isinstance(b, str):
            return []
        return [
            Difference(
                0,
                0,
                "hello",
                "",
                ("rollback_mitigation",),
                "not a run" if isinstance(a, str) else "a run",
                "not a run" if isinstance(b, str) else "a run",
            )
        ]
    return differences(a, b, same)


Kind = tuple[str, tuple[str, ...]]  # the question and the fields that differ


@dataclass
class Conformance:
    examined: int = 0
    differing: int = 0
    # kind -> (size, order, scenario, difference)
    smallest: dict[Kind, tuple[Any, ...]] = field(default_factory=dict)
    scenarios: dict[Kind, int] = field(default_factory=dict)  # kind -> scenarios with it
    fault: str = ""
    # per kind, smallest first: the shrunk scenario, its difference of that kind, and every
    # difference of that scenario
    shrunk: list[tuple[Scenario, Difference, list[Difference]]] = field(default_factory=list)


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
    same = Sameness(rules, bounds)
    client = target.start()
    try:
        hello = client.hello()
        for index in range(history_count(bounds)):
            for n, scenario in enumerate(scenarios(bounds, history_at(bounds, index))):
                mine = _play(client, scenario, rules, bounds, hello.rollback_mitigation)
                theirs = _play(model, scenario, rules, bounds, mitigation)
                report.examined += 1
                found = _compare(mine, theirs, same)
                if progress is not None and report.examined % 500 == 0:
                    progress(report.examined)
                if not found:
                    continue
                report.differing += 1
                measure = (size(scenario), (index, n))
                for difference in {d.kind: d for d in reversed(found)}.values():
                    report.scenarios[difference.kind] = report.scenarios.get(difference.kind, 0) + 1
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
                target,
                model,
                hello.rollback_mitigation,
                mitigation,
                rules,
                bounds,
                kind,
                scenario,
                same,
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
    kind: Kind,
    scenario: Scenario,
    same: Same,
) -> tuple[Scenario, Difference, list[Difference]]:
    client = target.start()
    try:

        def differs(s: Scenario) -> list[Difference]:
            try:
                return _compare(
                    _play(client, s, rules, bounds, mine),
                    _play(model, s, rules, bounds, theirs),
                    same,
                )
            except AdapterFault:
                return []

        def same_kind(s: Scenario) -> bool:
            return any(d.kind == kind for d in differs(s))

        smallest, _ = shrink(scenario, same_kind)
        found = differs(smallest)
        (first, *_) = [d for d in found if d.kind == kind]
        return smallest, first, found
    finally:
        client.close()
