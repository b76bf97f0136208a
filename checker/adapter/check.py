"""``dcpcheck clients --target jsonl:CMD``: a client's own code judged on every scenario.

``check_client`` asks the adapter who it is (``hello``), plays every scenario
within the bounds to it (``checker.adapter.search``; the parts on Spark
executors when ``run_parts`` is given, each with its own adapter process),
judges the properties on each trace, shrinks each violation's smallest
scenario (``checker.adapter.shrink``), and replays it on a fresh adapter
process: *confirmed* when the new process violates the property along the
same trace. Each property gets one ``Result``, written and reported as every
other single-node result is (counterexample JSON + ITF, HTML timeline);
``dcpcheck replay --client jsonl:CMD FILE`` replays its file. An adapter that
crashes, hangs or answers garbage makes the properties it left undecided
``unknown`` (the reason names the fault and the scenario): never a violation.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from checker.adapter.client import AdapterProcess, target_command
from checker.adapter.play import Played, play
from checker.adapter.protocol import AdapterFault, Hello
from checker.adapter.search import Judge, PartSummary, judge_part, size
from checker.adapter.shrink import shrink
from checker.adapter.size import Tally
from checker.corpus.scenario import counterexample_id, scenario_record
from checker.engines.exhaustive import history_count
from checker.result import Replayed, Result, Stats, Verdict, not_run
from checker.timing import Stopwatch
from spec.bounds import Bounds
from spec.model.narrate import run_of
from spec.properties import Property
from spec.reference.simulate import NotARun
from spec.rules import RuleSet
from spec.scenario import Scenario

__all__ = ["ClientTarget", "RunParts", "check_client", "planned_client", "replay_command"]

# Spark (or anything else) judging every part: (first scenarios, the client's rollback
# mitigation, as its hello said) -> the merged PartSummary
RunParts = Callable[[tuple[Scenario, ...], bool], PartSummary]


@dataclass(frozen=True)
class ClientTarget:
    """``jsonl:CMD``: the command, and how long an answer may take."""

    spec: str
    timeout: float = 10.0

    @property
    def argv(self) -> list[str]:
        return target_command(self.spec)

    def start(self) -> AdapterProcess:
        return AdapterProcess(self.argv, self.timeout)


def replay_command(target: str, path: str = "FILE") -> str:
    return f"dcpcheck replay --client {shlex.quote(target)} {path}"


def planned_client(
    target: ClientTarget, name: str, rules: RuleSet, prop: Property, bounds: Bounds
) -> Result:
    subject = {"rules": rules.name, "consumer": name}
    return not_run("scenario", subject, prop, bounds, "adapter", replay_command(target.spec))


def _hello(target: ClientTarget) -> Hello:
    client = target.start()
    try:
        return client.hello()
    finally:
        client.close()


def check_client(
    target: ClientTarget,
    rules: RuleSet,
    props: Sequence[Property],
    bounds: Bounds,
    *,
    first: Sequence[Scenario] = (),
    run_parts: RunParts | None = None,
    stop_when_violated: bool = False,
    update: Callable[[str], None] | None = None,
    total: int | None = None,
    before_search: Callable[[Hello, RuleSet, Sequence[Property]], None] | None = None,
    on_hello: Callable[[Hello], None] | None = None,
) -> list[Result]:
    """One result per property (see the module's docstring). ``first``: scenarios tried
    before the rest (``--like``); ``stop_when_violated``: stop once every property is
    violated (no ``holds`` can follow); ``total``: the scenarios within ``bounds``, for
    progress; ``before_search``: called before every scenario is searched (after
    ``first``, when they did not decide everything): the size check; ``on_hello``: told
    who the client is (what an interrupted run's results are named)."""
    clock = Stopwatch()
    try:
        hello = _hello(target)
    except AdapterFault as fault:
        name = "client"
        return [
            planned_client(target, name, rules, p, bounds).but(
                reason=f"adapter {fault.kind}: {fault.detail}", stats=Stats(*clock.read())
            )
            for p in props
        ]
    name = hello.client or "client"
    if on_hello is not None:
        on_hello(hello)
    every = (lambda p: len(p.smallest) == len(props)) if stop_when_violated else None

    def judged(histories: int, **more: Any) -> PartSummary:
        """The first ``histories`` first histories (after ``first``) on one adapter process."""
        client = target.start()
        try:
            return judge_part(
                client,
                rules,
                props,
                bounds,
                0,
                histories,
                mitigation=hello.rollback_mitigation,
                first=first,
                **more,
            )
        finally:
            client.close()

    part = PartSummary()
    if first and every is not None:  # the likely scenarios alone may decide everything
        part = judged(0)
    if (every is not None and every(part)) or part.fault is not None:
        pass
    else:
        if before_search is not None:
            before_search(hello, rules, props)
        if run_parts is not None:
            part = run_parts(tuple(first), hello.rollback_mitigation)
        else:
            tally = Tally(total)
            progress = (lambda n: update(tally.text(n))) if update else None
            part = judged(history_count(bounds), stop=every, progress=progress)
    results = []
    for prop in props:
        result = planned_client(target, name, rules, prop, bounds)
        if prop.id in part.smallest:
            result = _violation(
                target, hello, rules, prop, bounds, part.smallest[prop.id][2], result
            )
        elif part.fault is not None:
            kind, detail, scenario = part.fault
            where = f" (on scenario {_brief(scenario)})" if scenario else ""
            result = result.but(reason=f"adapter {kind}: {detail}{where}")
        elif stop_when_violated and len(part.smallest) == len(props):
            result = result.but(reason="not searched")
        else:
            result = result.but(
                verdict=Verdict.HOLDS,
                reason="",
                note=f"all {part.examined} scenarios played"
                + (
                    f" ({part.not_runs} ruled out by its rollback mitigation)"
                    if part.not_runs
                    else ""
                ),
            )
        wall, cpu = clock.read()
        stats = Stats(wall, cpu + part.cpu_elsewhere, examined=part.examined)
        results.append(result.but(stats=stats))
    return results


def _brief(s: Scenario) -> str:
    return f"history of {len(s.history)}, {len(s.all_failovers)} failover(s), received {s.received}"


def _violates(
    client: AdapterProcess, hello: Hello, rules: RuleSet, judge: Judge, pid: str, bounds: Bounds
) -> Callable[[Scenario], bool]:
    def fails(scenario: Scenario) -> bool:
        try:
            return pid in judge(
                play(
                    client, scenario, rules, bounds.rounds, hello.rollback_mitigation, told=False
                ).trace
            )
        except (NotARun, AdapterFault):
            return False

    return fails


def _violation(
    target: ClientTarget,
    hello: Hello,
    rules: RuleSet,
    prop: Property,
    bounds: Bounds,
    found: Scenario,
    result: Result,
) -> Result:
    judge = Judge([prop], bounds)
    shrinking = target.start()
    try:
        smallest, moves = shrink(found, _violates(shrinking, hello, rules, judge, prop.id, bounds))
    finally:
        shrinking.close()
    client = target.start()  # a fresh process replays it: the confirmation
    try:
        played: Played | None = play(
            client, smallest, rules, bounds.rounds, hello.rollback_mitigation
        )
    except (NotARun, AdapterFault) as exc:
        played, detail = None, f"a fresh adapter process did not replay it: {exc}"
    finally:
        client.close()
    result = result.but(
        verdict=Verdict.VIOLATED,
        reason="",
        witness=smallest,
        note=f"shrunk by {moves} move(s)" if moves else "",
    )
    if played is None:
        return result.but(replay=Replayed(False, detail))
    confirmed = prop.id in judge(played.trace)
    replayed = Replayed(
        confirmed, "" if confirmed else f"a fresh adapter process does not violate {prop.id} on it"
    )
    explanation = prop.explain(played.trace, bounds)
    ident = counterexample_id(rules.name, f"client-{hello.client or 'client'}", prop.id, smallest)
    result = result.but(
        replay=replayed,
        run=run_of(played.trace),
        explanation=explanation,
        ident=ident,
        size=dict(
            zip(
                ("seqnos", "failovers", "resumes", "entries", "snapshots", "received", "purge"),
                size(smallest),
                strict=False,
            )
        ),
        command=replay_command(target.spec, f"{ident}.json"),
    )
    record = scenario_record(result, ident, played.trace, explanation)
    record["target"] = target.spec
    record["transcript"] = [list(run) for run in played.transcript]
    return result.but(record=record)


@dataclass(frozen=True)
class ClientReplay:
    """A counterexample file replayed on a client: ``violated`` (the property, along
    this trace), or the adapter's fault."""

    property: str
    violated: bool
    explanation: str = ""
    fault: str = ""


def replay_client(target: ClientTarget, path: str) -> ClientReplay:
    """Replay a single-node counterexample file (``path``) on the client of ``target``:
    its scenario, rule set, property and bounds; the client in the consumer's place."""
    from checker.corpus.scenario import load_counterexample
    from checker.loading import resolve
    from spec.properties import PROPERTIES
    from spec.rules import RULE_SETS

    stored = load_counterexample(path)
    rules = resolve(RULE_SETS, RuleSet, stored["rules"])
    prop = PROPERTIES.get(stored["property"])
    bounds = stored["bounds"]
    try:
        hello = _hello(target)
        client = target.start()
        try:
            played = play(
                client, stored["scenario"], rules, bounds.rounds, hello.rollback_mitigation
            )
        finally:
            client.close()
    except AdapterFault as fault:
        return ClientReplay(prop.id, False, fault=f"adapter {fault.kind}: {fault.detail}")
    except NotARun as exc:
        return ClientReplay(prop.id, False, explanation=f"not a run of this client: {exc}")
    violated = prop.id in Judge([prop], bounds)(played.trace)
    return ClientReplay(prop.id, violated, prop.explain(played.trace, bounds) if violated else "")
