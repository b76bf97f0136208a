"""A baseline vector set: the cases kv_engine's own failover-table unit tests assert.

The facts are those of kv_engine's engines/ep/tests/module_tests/
failover_table_test.cc (the same ones tests/test_reference_producer.py
re-encodes); the encoding is dcpcheck's. Those tests call ``needsRollback``
directly and may use producer states no producer is in (a high seqno below
the newest entry) or requests the producer would refuse with ERANGE; here
each case is re-encoded as a well-formed producer and a valid request that
asserts the same thing (the same clause and rollback seqno under
kv-current). ``dcpcheck vectors score`` then compares this baseline with the
generated set (docs/vectors.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from checker.vectors.format import Corpus, Vector, vector_id
from checker.vectors.generate import expectations
from spec.errors import HarnessBug
from spec.failover_table import UINT64_MAX, FailoverTable
from spec.rules import RuleSet
from spec.types import ProducerState, StreamRequest

__all__ = ["CASES", "BaselineCase", "baseline_corpus"]

BASELINE_COMMAND = "dcpcheck vectors baseline"


@dataclass(frozen=True)
class BaselineCase:
    name: str
    producer: ProducerState
    request: StreamRequest
    case: str  # what kv_engine's test asserts for kv-current
    rollback_seqno: int | None = None


def _five(high: int = 700) -> ProducerState:
    return ProducerState(FailoverTable.of((5, 600), (4, 450), (3, 300), (2, 150), (1, 0)), high)


def _near_max() -> tuple[ProducerState, int, int]:
    """Five entries spread up to ~2^64 (kv_engine's large-seqno test)."""
    step = UINT64_MAX // (5 * 150)
    seqs = [i * 150 * step for i in range(4, -1, -1)]
    table = FailoverTable.of(*((10 + i, s) for i, s in enumerate(seqs)))
    return ProducerState(table, seqs[0] + 100), seqs[0], seqs[0] + 100


def _cases() -> list[BaselineCase]:
    R = StreamRequest
    two = ProducerState(FailoverTable.of((2, 150), (1, 0)), 150)
    purged = ProducerState(FailoverTable.of((5, 50), (1, 0)), 60, 20)
    big, newest, high = _near_max()
    cases = [
        BaselineCase("start-zero, uuid 0", _five(), R(0, 0, 0, 0), "start-zero"),
        BaselineCase("start-zero, unknown uuid", _five(), R(0xABCD, 0, 0, 0), "start-zero"),
        BaselineCase("strict, uuid 0", two, R(0, 0, 0, 0, strict=True), "start-zero"),
        BaselineCase("strict, known uuid", two, R(2, 0, 0, 0, strict=True), "lagging"),
        BaselineCase(
            "strict, unknown uuid", two, R(0xABCD, 0, 0, 0, strict=True), "uuid-not-found", 0
        ),
        BaselineCase("five entries, lagging", _five(), R(5, 10, 0, 20), "lagging"),
        BaselineCase("five entries, unknown uuid", _five(), R(0, 10, 0, 10), "uuid-not-found", 0),
        BaselineCase("five entries, past high", _five(), R(5, 620, 0, 720), "snapshot-mismatch", 0),
    ]
    # At upper (300): the consumer is on uuid 2, whose successor entry is at 300.
    at_upper = [
        (200, 200, 200, "lagging", None),
        (200, 200, 301, "lagging", None),
        (300, 300, 301, "lagging", None),
        (400, 400, 400, "ahead-of-upper", 300),
        (220, 210, 301, "snapshot-mismatch", 210),
        (310, 210, 320, "snapshot-mismatch", 210),
    ]
    for start, snap_start, snap_end, case, seqno in at_upper:
        cases.append(
            BaselineCase(
                f"upper 300, start {start} snapshot {{{snap_start},{snap_end}}}",
                _five(),
                R(2, start, snap_start, snap_end),
                case,
                seqno,
            )
        )
    cases += [
        BaselineCase("near 2^64, lagging", big, R(10, 10, 0, 20), "lagging"),
        BaselineCase("near 2^64, unknown uuid", big, R(0, 10, 0, 20), "uuid-not-found", 0),
        BaselineCase(
            "near 2^64, partial snapshot past high",
            big,
            R(10, high - 10, high - 20, high + 20),
            "snapshot-mismatch",
            high - 20,
        ),
        BaselineCase(
            "near 2^64, ahead of high (collection stream)",
            big,
            R(10, high + 20, high + 10, high + 40, collection_high=0),
            "ahead-of-upper",
            high,
        ),
        BaselineCase(
            "near 2^64, straddles the next entry",
            big,
            R(11, newest - 5, newest - 10, newest + 40),
            "snapshot-mismatch",
            newest - 10,
        ),
        BaselineCase(
            "near 2^64, above the next entry",
            big,
            R(11, newest + 20, newest + 10, newest + 40),
            "ahead-of-upper",
            newest,
        ),
        BaselineCase("purge above start", purged, R(5, 10, 10, 10), "purge", 0),
        BaselineCase(
            "purge waived: client saw it", purged, R(5, 10, 10, 10, remote_purge=20), "lagging"
        ),
        BaselineCase(
            "purge waived: collections done", purged, R(5, 10, 10, 10, collection_high=8), "lagging"
        ),
        BaselineCase(
            "purge: collection not done", purged, R(5, 10, 10, 10, collection_high=12), "purge", 0
        ),
    ]
    return cases


CASES = _cases()


def baseline_corpus(rule_sets: Sequence[RuleSet]) -> Corpus:
    """The baseline with expectations under ``rule_sets`` (kv-current checked against kv_engine)."""
    expect = expectations(rule_sets)
    vectors = []
    for case in CASES:
        expected = expect(case.request, case.producer)
        kv = expected.get("kv-current")
        if kv is not None and (kv.case, kv.answer.rollback_seqno) != (
            case.case,
            case.rollback_seqno,
        ):
            raise HarnessBug(
                f"baseline case '{case.name}': kv-current answers {kv.case} "
                f"{kv.answer.rollback_seqno}, kv_engine's test asserts {case.case} "
                f"{case.rollback_seqno}"
            )
        vectors.append(
            Vector(
                id=vector_id(case.request, case.producer),
                origin=f"kv_engine failover_table_test: {case.name}",
                request=case.request,
                producer=case.producer,
                expected=expected,
            )
        )
    return Corpus(
        rules=tuple(r.name for r in rule_sets),
        table_entries=5,
        command=BASELINE_COMMAND,
        vectors=tuple(vectors),
    )
