"""Replay targets: who answers the vectors.

* ``rules:NAME|FILE`` — a rule set, in process (``Decider.decide``);
* ``reference:NAME`` — the hand-written reference producer, in process;
* ``humpty:CMD`` — any command speaking humpty_dumpty's interface
  (``CMD TABLE.json HIGH PURGE``, stdin lines, text answers); vectors it
  cannot express are skipped; an erange vector is compared with the rule
  set's answer alone, since humpty_dumpty does not apply the range check;
* ``jsonl:CMD`` — any command speaking the JSON-lines protocol of
  docs/targets.md: one request object per line in, one answer per line out.

A target answers each vector with a ``Reply``: an answer, a skip, or what
went wrong (crash, timeout, garbage). Nothing that went wrong is an answer.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from checker.loading import resolve
from checker.vectors.format import Answer, Vector
from checker.vectors.humpty_output import parse_answers
from checker.vectors.process import LineSession, NoAnswer, run_once
from spec.errors import InvalidInput
from spec.failover_table import UINT64_MAX
from spec.reference.producer import REFERENCE_DECISIONS, stream_request
from spec.rules import RULE_SETS, Decider, RuleSet
from spec.types import Outcome, ProducerState, StreamRequest

__all__ = ["TARGET_FORMS", "Reply", "Target", "humpty_limits", "parse_target"]

TARGET_FORMS = "rules:NAME|FILE, reference:NAME, humpty:CMD or jsonl:CMD"
STRIKES = 3  # consecutive timeouts after which the rest of the run is not attempted
PIPELINED = 1024  # JSON-lines requests sent before their answers are read


@dataclass(frozen=True)
class Reply:
    """``kind``: answer, skip, crash, timeout or garbage."""

    kind: str
    answer: Answer | None = None
    detail: str = ""


def _answer(a: Answer) -> Reply:
    return Reply("answer", a)


class Target:
    spec: str
    rules_name: str | None = None  # the rule set it implements, if it knows
    rules_only: bool = False  # answers needsRollback alone (no ERANGE check)

    def replies(self, vectors: Sequence[Vector]) -> list[Reply]:
        raise NotImplementedError


class RulesTarget(Target):
    def __init__(self, spec: str, rules: RuleSet) -> None:
        self.spec = spec
        self.rules_name = rules.name
        self.decider = Decider(rules)

    def replies(self, vectors: Sequence[Vector]) -> list[Reply]:
        return [_answer(Answer.of(self.decider.decide(v.request, v.producer))) for v in vectors]


class ReferenceTarget(Target):
    def __init__(self, spec: str, name: str) -> None:
        self.spec = spec
        self.rules_name = name
        self.decide = REFERENCE_DECISIONS[name]

    def replies(self, vectors: Sequence[Vector]) -> list[Reply]:
        return [
            _answer(Answer.of(stream_request(v.request, v.producer, self.decide))) for v in vectors
        ]


def humpty_limits(req: StreamRequest) -> str | None:
    """Why humpty_dumpty's four stdin fields cannot express ``req`` (None if they can)."""
    missing = []
    if req.strict:
        missing.append("strict flag")
    if req.ignore_purged:
        missing.append("ignore_purged flag")
    if req.remote_purge:
        missing.append("remote purge seqno")
    if req.collection_high is not None:
        missing.append("collection stream")
    if req.end != UINT64_MAX:
        missing.append("end seqno")
    return f"humpty cannot express: {', '.join(missing)}" if missing else None


class _Strikes:
    """Counts consecutive timeouts; after STRIKES the rest is not attempted."""

    def __init__(self) -> None:
        self.count = 0

    def note(self, reply: Reply) -> None:
        self.count = self.count + 1 if reply.kind == "timeout" else 0

    @property
    def out(self) -> bool:
        return self.count >= STRIKES

    def given_up(self) -> Reply:
        return Reply("timeout", detail=f"not run: the target timed out {STRIKES} times in a row")


class HumptyTarget(Target):
    rules_only = True

    def __init__(self, spec: str, argv: list[str], timeout: float) -> None:
        self.spec = spec
        self.argv = argv
        self.timeout = timeout

    def replies(self, vectors: Sequence[Vector]) -> list[Reply]:
        result: list[Reply | None] = [None] * len(vectors)
        groups: dict[ProducerState, list[int]] = {}
        for index, vector in enumerate(vectors):
            reason = humpty_limits(vector.request)
            if reason:
                result[index] = Reply("skip", detail=reason)
            else:
                groups.setdefault(vector.producer, []).append(index)
        strikes = _Strikes()
        for producer, members in groups.items():
            if strikes.out:
                for i in members:
                    result[i] = strikes.given_up()
                continue
            replies = self._invoke(producer, [vectors[i].request for i in members])
            if len(members) > 1 and replies[0].kind in ("crash", "garbage"):
                # Isolate: which request made it crash or print garbage?
                replies = [self._invoke(producer, [vectors[i].request])[0] for i in members]
            for i, reply in zip(members, replies, strict=True):
                result[i] = reply
            strikes.note(replies[0])
        return [r for r in result if r is not None]

    def _invoke(self, producer: ProducerState, requests: list[StreamRequest]) -> list[Reply]:
        """One invocation for a group; on any problem, every request gets the problem."""
        with tempfile.TemporaryDirectory(prefix="dcpcheck-humpty-") as tmp:
            table = Path(tmp) / "table.json"
            table.write_text(json.dumps(producer.table.to_json()))
            stdin = "".join(f"{r.uuid} {r.snap_start} {r.snap_end} {r.start}\n" for r in requests)
            argv = [*self.argv, str(table), str(producer.high_seqno), str(producer.purge_seqno)]
            try:
                finished = run_once(argv, stdin, self.timeout)
            except OSError as exc:
                return [Reply("crash", detail=f"cannot run: {exc}")] * len(requests)
        if finished.timed_out:
            detail = f"no complete answer within {self.timeout:g}s (killed)"
            return [Reply("timeout", detail=detail)] * len(requests)
        answers, problem = parse_answers(finished.stdout, requests)
        if finished.returncode != 0:
            tail = finished.stderr.strip().splitlines()[-1:] or [""]
            detail = f"exited with code {finished.returncode}" + (
                f"; stderr: {tail[0][:120]}" if tail[0] else ""
            )
            return [Reply("crash", detail=detail)] * len(requests)
        if problem is not None:
            return [Reply("garbage", detail=problem)] * len(requests)
        return [_answer(a) for a in answers]


class JsonlTarget(Target):
    def __init__(self, spec: str, argv: list[str], timeout: float) -> None:
        self.spec = spec
        self.argv = argv
        self.timeout = timeout

    def replies(self, vectors: Sequence[Vector]) -> list[Reply]:
        lines = [
            json.dumps(
                {
                    "id": vector.id,
                    "producer": vector.producer.to_json(),
                    "request": vector.request.to_json(),
                }
            )
            for vector in vectors
        ]
        return self.replies_to([v.id for v in vectors], lines)

    def replies_to(self, ids: Sequence[str], lines: Sequence[str]) -> list[Reply]:
        """The answers to request ``lines`` (JSON objects, ids ``ids``), from one process
        asked ``PIPELINED`` lines at a time; after a timeout, garbage or exit the process
        is restarted and asking resumes with the next line."""
        result: list[Reply] = []
        session: LineSession | None = None
        strikes = _Strikes()
        try:
            while len(result) < len(lines):
                if strikes.out:
                    result.append(strikes.given_up())
                    continue
                if session is None:
                    try:
                        session = LineSession(self.argv)
                    except OSError as exc:
                        result.append(Reply("crash", detail=f"cannot run: {exc}"))
                        continue
                at = len(result)
                replies = self._ask(session, ids[at : at + PIPELINED], lines[at : at + PIPELINED])
                bad = next((r for r in replies if r.kind in ("timeout", "garbage")), None)
                if bad is not None:  # the stream cannot be trusted past it: restart
                    replies = replies[: replies.index(bad) + 1]
                if bad is not None or session.proc.poll() is not None:
                    session.close()
                    session = None
                for reply in replies:
                    result.append(reply)
                    strikes.note(reply)
        finally:
            if session is not None:
                session.close()
        return result

    def _ask(self, session: LineSession, ids: Sequence[str], lines: Sequence[str]) -> list[Reply]:
        try:
            texts = session.ask_many(lines, self.timeout)
        except NoAnswer as missing:
            answered = [
                parse_jsonl_answer(t, i) for t, i in zip(missing.answered, ids, strict=False)
            ]
            return [*answered, Reply(missing.kind, detail=missing.detail)]
        return [parse_jsonl_answer(t, i) for t, i in zip(texts, ids, strict=True)]


_OK = Reply("answer", Answer(Outcome.ACCEPT))


def parse_jsonl_answer(text: str, vector_id: str) -> Reply:
    # The common shapes, as json.dumps writes them, read without a JSON parser (fast);
    # anything else is parsed and checked below.
    head = f'{{"id": "{vector_id}", "decision": "'
    if text.startswith(head):
        rest = text[len(head) :]
        if rest == 'ok", "rollback_seqno": null}':
            return _OK
        tail = 'rollback", "rollback_seqno": '
        digits = rest[len(tail) : -1]
        plain = digits.isascii() and digits.isdigit() and (digits == "0" or digits[0] != "0")
        if rest.startswith(tail) and rest.endswith("}") and plain and int(digits) <= UINT64_MAX:
            return _answer(Answer(Outcome.ROLLBACK, int(digits)))

    def garbage(why: str) -> Reply:
        shown = text if len(text) <= 80 else text[:77] + "..."
        return Reply("garbage", detail=f"{why}: {shown!r}")

    try:
        data = json.loads(text)
    except ValueError:
        return garbage("not JSON")
    if not isinstance(data, dict):
        return garbage("not a JSON object")
    if data.get("id") != vector_id:
        return garbage(f"answer for id {data.get('id')!r}, expected {vector_id!r}")
    if "error" in data:
        return Reply("crash", detail=f"the target reported an error: {data['error']}"[:200])
    try:
        outcome = Outcome(data.get("decision", ""))  # absent: refused as any wrong value
    except ValueError:
        return garbage('"decision" must be "ok", "rollback" or "erange"')
    seqno = data.get("rollback_seqno")
    if outcome is Outcome.ROLLBACK:
        if isinstance(seqno, bool) or not isinstance(seqno, int) or not 0 <= seqno <= UINT64_MAX:
            return garbage('"rollback_seqno" must be a uint64 for a rollback')
        return _answer(Answer(outcome, seqno))
    if seqno is not None:
        return garbage(f'"rollback_seqno" must be null for "{outcome.value}"')
    return _answer(Answer(outcome))


def _command(kind: str, text: str) -> list[str]:
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise InvalidInput("--target", f"{kind}:CMD: cannot split the command: {exc}") from None
    if not argv:
        raise InvalidInput("--target", f"{kind}:CMD needs a command, e.g. {kind}:./my_target")
    if shutil.which(argv[0]) is None:
        raise InvalidInput(
            "--target", f"cannot run {argv[0]!r}: not found or not executable (give a path)"
        )
    return argv


def parse_target(text: str, timeout: float) -> Target:
    kind, sep, rest = text.partition(":")
    makers: dict[str, Callable[[], Target]] = {
        "rules": lambda: RulesTarget(text, resolve(RULE_SETS, RuleSet, rest, "--target")),
        "reference": lambda: _reference(text, rest),
        "humpty": lambda: HumptyTarget(text, _command("humpty", rest), timeout),
        "jsonl": lambda: JsonlTarget(text, _command("jsonl", rest), timeout),
    }
    if not sep or kind not in makers or not rest:
        raise InvalidInput("--target", f"expected {TARGET_FORMS}, got {text!r}")
    return makers[kind]()


def _reference(text: str, name: str) -> Target:
    if name not in REFERENCE_DECISIONS:
        known = ", ".join(sorted(REFERENCE_DECISIONS))
        raise InvalidInput("--target", f"unknown reference implementation {name!r}; known: {known}")
    return ReferenceTarget(text, name)
