"""The clause form of a producer rule set.

A rule set is kv_engine's ``needsRollback`` written as data: an ordered list of
*steps* over the fields of a stream request, the producer's state and a few
derived quantities (``upper``, ``uuid_found``). Two kinds of step:

* ``Clause(name, when, then, reason)``: if ``when`` holds, the decision is
  ``then`` (``accept()`` or ``rollback(seqno)``) and ``name`` is the case that
  fired. The first clause whose guard holds decides; the last clause must be
  ``otherwise``.
* ``Adjust(name, when, field, to)``: if ``when`` holds, ``field`` reads as
  ``to`` in every later step (kv_engine's snapshot-range adjustments).

Fields are read through ``F``: ``F.start``, ``F.snap_end``, ``F.upper``...
(``FIELDS`` lists them all). A misspelt field is an error naming the file and
line. The same definition is evaluated concretely (``checker.decide``,
vectors, replay) and compiled to Z3 (``checker.symbolic``).
"""

from __future__ import annotations

import dataclasses
import string
import sys
from dataclasses import dataclass, field
from pathlib import Path

from spec.errors import RuleLanguageError
from spec.expr import BOOL, INT, TRUE, Expr, Sort, const, ite, lift, var
from spec.rules.lookup import OLDEST_FIRST, SCANNED_FIELDS, TABLE_SCANS
from spec.types import Outcome

__all__ = [
    "FIELDS",
    "Adjust",
    "Clause",
    "ClauseOutcome",
    "F",
    "RuleSet",
    "RuleStep",
    "accept",
    "caller_location",
    "otherwise",
    "rollback",
]

# name -> (sort, meaning). Request fields first, then the producer, then derived.
FIELDS: dict[str, tuple[Sort, str]] = {
    "uuid": (INT, "the vbucket uuid the consumer sends (latest in its failover log)"),
    "start": (INT, "start seqno: the last seqno the consumer received"),
    "snap_start": (INT, "start of the consumer's current snapshot"),
    "snap_end": (INT, "end of the consumer's current snapshot"),
    "end": (INT, "end seqno requested (2^64-1: stream forever)"),
    "strict": (BOOL, "STRICT_VBUUID flag: a uuid mismatch at start 0 needs a rollback"),
    "ignore_purged": (BOOL, "IgnorePurgedTombstones flag: the producer uses purge seqno 0"),
    "remote_purge": (INT, "purge seqno the consumer reports (collections filter value)"),
    "has_collection_high": (BOOL, "the stream has a collection filter"),
    "collection_high": (INT, "max high seqno of the filtered collections"),
    "high_seqno": (INT, "the producer's high seqno"),
    "producer_purge_seqno": (INT, "the producer's purge seqno"),
    "purge_seqno": (
        INT,
        "purge seqno the decision uses: 0 when ignore_purged, else the producer's",
    ),
    "table_len": (INT, "number of entries in the producer's failover table"),
    "latest_uuid": (INT, "uuid of the newest entry of the producer's failover table"),
    "uuid_found": (BOOL, "the consumer's uuid is in the producer's failover table"),
    "upper": (
        INT,
        "seqno up to which producer and consumer share history: the seqno of the entry "
        "one newer than the matching entry, or high_seqno when that is the newest (or none "
        "matches); if the table repeats the uuid, the rule set's table_scan picks the match",
    ),
    "entry_seqno": (
        INT,
        "seqno of the matching failover-table entry itself (its branch point); 0 if none",
    ),
}

_INTERNAL_FILES = {Path(__file__).resolve(), (Path(__file__).parent.parent / "expr.py").resolve()}

ACCEPT_CODE = 0
ROLLBACK_CODE = 1
ERANGE_CODE = 2


def caller_location() -> str:
    """``file:line`` of the innermost frame outside the rule language itself."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        # "<string>": code Python generates, such as a dataclass's __init__.
        if not filename.startswith("<") and Path(filename).resolve() not in _INTERNAL_FILES:
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back  # type: ignore[assignment]  # None ends the loop
    return ""


class _Fields:
    """``F.start`` is the field ``start``; an unknown name is an error."""

    def __getattr__(self, name: str) -> Expr:
        if name.startswith("__"):
            raise AttributeError(name)
        if name not in FIELDS:
            raise RuleLanguageError(
                caller_location(),
                f"unknown field '{name}'; fields are: {', '.join(FIELDS)}",
            )
        return var(name, FIELDS[name][0])

    def __dir__(self) -> list[str]:
        return list(FIELDS)


F = _Fields()
otherwise = TRUE


@dataclass(frozen=True)
class ClauseOutcome:
    outcome: Outcome
    seqno: Expr | None = None

    def __str__(self) -> str:
        return "accept()" if self.seqno is None else f"rollback({self.seqno})"


def accept() -> ClauseOutcome:
    return ClauseOutcome(Outcome.ACCEPT)


def rollback(seqno: object) -> ClauseOutcome:
    expr = lift(seqno)
    if expr.sort is not INT:
        raise RuleLanguageError(caller_location(), f"rollback({expr}) needs a seqno, not a boolean")
    return ClauseOutcome(Outcome.ROLLBACK, expr)


def _settle(step: Clause | Adjust, kind: str, *exprs: str) -> None:
    """Record where ``step`` was written, lift its ``exprs`` fields, check its guard is boolean."""
    if not step.where:
        object.__setattr__(step, "where", caller_location())
    for name in exprs:
        if not isinstance(getattr(step, name), Expr):
            object.__setattr__(step, name, lift(getattr(step, name)))
    if step.when.sort is not BOOL:
        message = f"{kind} '{step.name}': guard `{step.when}` is not boolean"
        raise RuleLanguageError(step.where, message)


@dataclass(frozen=True)
class Clause:
    name: str
    when: Expr
    then: ClauseOutcome
    reason: str = ""
    where: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        _settle(self, "clause", "when")
        if not isinstance(self.then, ClauseOutcome):
            raise RuleLanguageError(
                self.where, f"clause '{self.name}': then= must be accept() or rollback(seqno)"
            )
        for placeholder in _placeholders(self.reason):
            if placeholder not in FIELDS:
                raise RuleLanguageError(
                    self.where,
                    f"clause '{self.name}': reason refers to unknown field '{{{placeholder}}}'",
                )


@dataclass(frozen=True)
class Adjust:
    name: str
    when: Expr
    field: str
    to: Expr
    where: str = dataclasses.field(default="", compare=False)  # the field named field hides it

    def __post_init__(self) -> None:
        _settle(self, "adjustment", "when", "to")
        if self.field not in FIELDS:
            raise RuleLanguageError(
                self.where, f"adjustment '{self.name}': unknown field '{self.field}'"
            )
        if FIELDS[self.field][0] is not self.to.sort:
            raise RuleLanguageError(
                self.where,
                f"adjustment '{self.name}': {self.field} is {FIELDS[self.field][0].value} "
                f"but `{self.to}` is {self.to.sort.value}",
            )


RuleStep = Clause | Adjust


@dataclass(frozen=True)
class RuleSet:
    """A named producer rule set: ordered steps, the last an ``otherwise`` clause."""

    name: str
    summary: str
    steps: tuple[RuleStep, ...]
    source: str = ""
    where: str = field(default="", compare=False)
    # Which matching entry decides when the table repeats the consumer's uuid
    # (spec.rules.lookup): kv_engine walks from the oldest entry.
    table_scan: str = OLDEST_FIRST

    def __post_init__(self) -> None:
        if not self.where:
            object.__setattr__(self, "where", caller_location())
        object.__setattr__(self, "steps", tuple(self.steps))
        if self.table_scan not in TABLE_SCANS:
            raise RuleLanguageError(
                self.where,
                f"rule set '{self.name}': table_scan={self.table_scan!r}; "
                f"it is one of {', '.join(TABLE_SCANS)}",
            )
        if not self.name or not all(c.isalnum() or c in "-_." for c in self.name):
            raise RuleLanguageError(
                self.where, f"rule set name {self.name!r} must be letters, digits, '-', '_' or '.'"
            )
        seen: set[str] = set()
        for step in self.steps:
            if not isinstance(step, Clause | Adjust):
                raise RuleLanguageError(
                    self.where, f"rule set '{self.name}': {step!r} is not a Clause or an Adjust"
                )
            if step.name in seen:
                raise RuleLanguageError(
                    step.where, f"rule set '{self.name}': two steps are named '{step.name}'"
                )
            if step.name == "erange":
                raise RuleLanguageError(
                    step.where, "the case name 'erange' is the producer's range check; rename it"
                )
            seen.add(step.name)
        clauses = self.clauses
        if not clauses or not (clauses[-1].when.is_const and clauses[-1].when.value is True):
            raise RuleLanguageError(
                self.where,
                f"rule set '{self.name}': the last clause must have when=otherwise "
                "so that every request gets a decision",
            )
        if not isinstance(self.steps[-1], Clause):
            raise RuleLanguageError(
                self.steps[-1].where,
                f"rule set '{self.name}': an adjustment after the last clause has no effect",
            )

    @property
    def clauses(self) -> tuple[Clause, ...]:
        return tuple(s for s in self.steps if isinstance(s, Clause))

    @property
    def adjustments(self) -> tuple[Adjust, ...]:
        return tuple(s for s in self.steps if isinstance(s, Adjust))

    @property
    def case_names(self) -> tuple[str, ...]:
        """Clause names by case code; the producer's range check is the last code."""
        return (*(c.name for c in self.clauses), "erange")

    def describe(self) -> str:
        """The rule set as readable text, one step a line."""
        lines = [f"{self.name}: {self.summary}"]
        if self.table_scan != OLDEST_FIRST:
            lines.append(f"  (failover table scanned {self.table_scan})")
        for step in self.steps:
            if isinstance(step, Clause):
                lines.append(f"  {step.name:<20} when {step.when}  ->  {step.then}")
            else:
                lines.append(f"  {step.name:<20} when {step.when}  ->  {step.field} := {step.to}")
        return "\n".join(lines)


def _placeholders(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


@dataclass(frozen=True)
class RulesExprs:
    """A rule set compiled over given field expressions (concrete or symbolic inputs)."""

    outcome: Expr  # ACCEPT_CODE or ROLLBACK_CODE
    seqno: Expr  # the rollback seqno (0 on accept)
    case: Expr  # index into rules.case_names
    fired: dict[str, Expr]  # adjustment name -> reached and its guard held
    guards: dict[str, Expr]  # clause name -> reached and its guard held (= it decided)
    reason_values: dict[str, dict[str, Expr]]  # clause -> placeholder -> value at that step


def scanned(fields: dict[str, Expr], table_scan: str) -> dict[str, Expr]:
    """``fields`` as a rule set scanning its table in ``table_scan`` order reads them.

    ``fields`` (``spec.rules.inputs.decision_fields``) holds the oldest-first
    lookup under the plain names and every other scan's under ``NAME@SCAN``.
    """
    env = dict(fields)
    if table_scan != OLDEST_FIRST:
        for name in SCANNED_FIELDS:
            env[name] = fields[f"{name}@{table_scan}"]
    return env


def compile_rules(rules: RuleSet, fields: dict[str, Expr]) -> RulesExprs:
    """Fold the steps into decision expressions over ``fields`` (one per FIELDS name)."""
    from spec.expr import all_of, not_, substitute

    env = scanned(fields, rules.table_scan)
    reached: Expr = TRUE
    arms: list[tuple[Expr, ClauseOutcome, int]] = []
    fired: dict[str, Expr] = {}
    guards: dict[str, Expr] = {}
    reasons: dict[str, dict[str, Expr]] = {}
    index = 0
    for step in rules.steps:
        (when,) = substitute([step.when], env)
        if isinstance(step, Adjust):
            (to,) = substitute([step.to], env)
            fired[step.name] = all_of(reached, when)
            env[step.field] = ite(when, to, env[step.field])
            continue
        seqno = None
        if step.then.seqno is not None:
            (seqno,) = substitute([step.then.seqno], env)
        arms.append((when, ClauseOutcome(step.then.outcome, seqno), index))
        guards[step.name] = all_of(reached, when)
        reasons[step.name] = {p: env[p] for p in _placeholders(step.reason)}
        reached = all_of(reached, not_(when))
        index += 1

    outcome: Expr = const(0)
    seqno_expr: Expr = const(0)
    case: Expr = const(0)
    for when, then, code in reversed(arms):
        is_rollback = then.outcome is Outcome.ROLLBACK
        outcome = ite(when, const(ROLLBACK_CODE if is_rollback else ACCEPT_CODE), outcome)
        seqno_expr = ite(when, then.seqno if then.seqno is not None else const(0), seqno_expr)
        case = ite(when, const(code), case)
    return RulesExprs(outcome, seqno_expr, case, fired, guards, reasons)
