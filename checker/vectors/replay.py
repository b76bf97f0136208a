"""Replaying vectors against a target: compare, classify, report.

Each vector ends as one ``VectorResult``: ``pass``, ``fail`` (a wrong answer),
``skip`` (the target cannot express it), or ``crash`` / ``timeout`` /
``garbage`` (the target did not answer properly). Only ``pass`` and ``skip``
are not failures. A failure names the clause that should have decided and
the property at stake in it (``spec.rules.breaks``); ``dcpcheck replay`` then
judges each wrong answer as ``dcpcheck review`` and ``diff`` would
(``checker.review.judge``): a ``Judgement``.
"""

from __future__ import annotations

import builtins
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from checker.vectors.format import Answer, Corpus, ExpectedAnswer, Vector
from checker.vectors.targets import Reply, Target
from spec.errors import InvalidInput
from spec.rules.breaks import also_broken, property_at_stake
from spec.types import Outcome

__all__ = [
    "JUDGEMENTS",
    "STATUSES",
    "Judgement",
    "VectorResult",
    "choose_expectations",
    "compare",
    "replay",
]

STATUSES = ("pass", "fail", "skip", "crash", "timeout", "garbage")
NOT_FAILURES = ("pass", "skip")
# What a wrong answer does, worst first: breaks a safety property; costs only (rolls back
# more or deeper than needed); differs and breaks no property; could not be judged.
JUDGEMENTS = ("safety", "cost", "none", "unjudged")


@dataclass(frozen=True)
class Judgement:
    """A wrong answer judged in resume scenarios within ``within``: its ``kind``
    (``JUDGEMENTS``), the words for it, the property it breaks (safety) or costs (cost),
    and the region (expected clause -> the target's answer, how it changed)."""

    kind: str
    text: str
    property: str = ""
    region: str = ""
    within: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "property": self.property or None,
            "region": self.region or None,
            "within": self.within or None,
        }


@dataclass(frozen=True)
class VectorResult:
    file: str
    vector: Vector
    status: str
    expected: Answer
    clause: str
    property: str
    actual: Answer | None = None
    also_broken: tuple[str, ...] = ()
    detail: str = ""
    judgement: Judgement | None = None

    @builtins.property  # the field named property shadows the builtin here
    def failed(self) -> bool:
        return self.status not in NOT_FAILURES

    def fails(self, fail_on: str) -> bool:
        """Whether this result fails a replay: a target that did not answer, or a wrong
        answer that breaks a safety property or could not be judged; with ``fail_on``
        ``cost``, one that costs too; with ``any``, every wrong answer."""
        if self.status != "fail" or self.judgement is None:
            return self.failed
        kind = self.judgement.kind
        return (
            kind in ("safety", "unjudged")
            or (kind == "cost" and fail_on in ("cost", "any"))
            or fail_on == "any"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "vector": self.vector.id,
            "origin": self.vector.origin,
            "status": self.status,
            "clause": self.clause,
            "property": self.property,
            "also_broken": list(self.also_broken),
            "expected": self.expected.to_json(),
            "actual": None if self.actual is None else self.actual.to_json(),
            "detail": self.detail,
            "judgement": None if self.judgement is None else self.judgement.to_json(),
        }


@dataclass
class Report:
    target: str
    expect: str
    results: list[VectorResult] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        counted = Counter(r.status for r in self.results)
        return {status: counted.get(status, 0) for status in STATUSES}

    @property
    def failed(self) -> bool:
        return any(r.failed for r in self.results)


def choose_expectations(corpora: Sequence[Corpus], target: Target, wanted: str | None) -> str:
    """The rule set whose expectations the target must meet.

    ``--expect`` if given; else the rule set the target implements, if the
    corpora have it; else kv-current; else the first rule set of the first corpus.
    """
    if wanted is None:
        common = [r for r in corpora[0].rules if all(r in c.rules for c in corpora)]
        if target.rules_name in common:
            wanted = target.rules_name
        elif "kv-current" in common:
            wanted = "kv-current"
        elif common:
            wanted = common[0]
        else:
            raise InvalidInput("--expect", "the vector files share no rule set; pick one")
    for corpus in corpora:
        if wanted not in corpus.rules:
            raise InvalidInput(
                corpus.path,
                f"field rules: no expectations for {wanted!r} (it has {', '.join(corpus.rules)}); "
                "choose --expect",
            )
    return wanted


def compare(
    file: str, vector: Vector, expectation: ExpectedAnswer, reply: Reply, rules_only: bool
) -> VectorResult:
    """One vector's verdict. ``rules_only``: an erange vector expects the rule set alone."""
    expected, clause, prop = expectation.answer, expectation.case, expectation.property
    if rules_only and expected.outcome is Outcome.ERANGE:
        assert expectation.needs_rollback is not None and expectation.needs_rollback_case
        expected = expectation.needs_rollback
        clause = expectation.needs_rollback_case
        prop = property_at_stake(clause, expected.outcome)
    if reply.kind != "answer":
        return VectorResult(file, vector, reply.kind, expected, clause, prop, detail=reply.detail)
    actual = reply.answer
    assert actual is not None
    if actual == expected:
        return VectorResult(file, vector, "pass", expected, clause, prop, actual)
    extra = also_broken(vector.request.start, actual.outcome, actual.rollback_seqno)
    return VectorResult(
        file,
        vector,
        "fail",
        expected,
        clause,
        prop,
        actual,
        also_broken=tuple(p for p in extra if p != prop),
        detail=f"expected {expected}, got {actual}",
    )


def replay(
    corpora: Sequence[Corpus], target: Target, expect: str, only: Sequence[str] = ()
) -> Report:
    report = Report(target.spec, expect)
    for corpus in corpora:
        vectors = [v for v in corpus.vectors if not only or v.id in only]
        replies = target.replies(vectors)
        for vector, reply in zip(vectors, replies, strict=True):
            expectation = vector.expected[expect]
            report.results.append(
                compare(corpus.path, vector, expectation, reply, target.rules_only)
            )
    return report
