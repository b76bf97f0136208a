"""Answer stream requests as a producer would: humpty_dumpty's interface.

    dcpcheck decide TABLE.json HIGH PURGE [--rules NAME|FILE] [--json] < requests

Same arguments, same stdin lines (``UUID SNAP_START SNAP_END START``, spaces
or tabs), same output text as kv_engine's humpty_dumpty: the text mode prints
what ``needsRollback`` answers, as humpty does. A request the producer would
refuse with ERANGE (``snap_start <= start <= snap_end`` fails) gets a warning
on stderr, so stdout stays byte-identical. ``--json`` prints one object per
request instead: the producer's full answer (ok / rollback / erange), the
rollback seqno, the case (clause) that fired and kv_engine's reason text.

Where dcpcheck is stricter than humpty: all of stdin is read and checked
before anything is printed (a bad line is one error, nothing half-written),
and humpty's warning for a line without four fields ends its line; a field
that is not a plain decimal uint64 is an error (humpty's stoull would read
"12abc" as 12 and "-1" as 2^64-1); a high seqno below a table entry, or a purge seqno above the high
seqno, is an error; an emptied table gets a fixed uuid, not a random one.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from checker.humpty import FIELD_COUNT_WARNING, format_decision, format_header, split_fields
from checker.inputs import load_table_file, parse_uint64
from checker.loading import resolve
from spec.errors import EXIT_OK, InvalidInput
from spec.failover_table import UINT64_MAX, FailoverTable
from spec.rules import RULE_SETS, Decider, RuleSet
from spec.types import ProducerState, StreamRequest

UUID_IF_EMPTY = 0xDC9C  # kv_engine draws a random uuid here; dcpcheck stays reproducible


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", metavar="TABLE.json", help="failover table, newest entry first")
    parser.add_argument("high", metavar="HIGH", help="the producer's high seqno")
    parser.add_argument("purge", metavar="PURGE", help="the producer's purge seqno")
    parser.add_argument(
        "--rules", default="kv-current", metavar="NAME|FILE", help="rule set (default kv-current)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per request")
    extra = parser.add_argument_group(
        "request fields humpty_dumpty cannot express (applied to every request)"
    )
    extra.add_argument("--strict", action="store_true", help="set STRICT_VBUUID")
    extra.add_argument("--ignore-purged", action="store_true", help="set IgnorePurgedTombstones")
    extra.add_argument("--remote-purge", default="0", metavar="N", help="client's purge seqno")
    extra.add_argument(
        "--collection-high", default=None, metavar="N", help="collection stream: max high seqno"
    )
    extra.add_argument("--end", default=str(UINT64_MAX), metavar="N", help="end seqno")


def _producer(args: argparse.Namespace) -> tuple[ProducerState, list[Any] | None, int]:
    table_file = load_table_file(args.table)
    high = parse_uint64(args.high, "HIGH")
    purge = parse_uint64(args.purge, "PURGE")
    table, dropped = FailoverTable.sanitized(table_file.entries, high, UUID_IF_EMPTY)
    for index, entry in enumerate(table.entries):
        if entry.seqno > high:
            raise InvalidInput(
                "HIGH",
                f"high seqno {high} is below entry {index} of {args.table} (seq {entry.seqno}); "
                "a producer's high seqno is at least every branch point in its table",
            )
    if purge > high:
        raise InvalidInput(
            "PURGE",
            f"purge seqno {purge} is above the high seqno {high}; a producer purges "
            "only items it has",
        )
    raw = None if dropped else list(table_file.raw)
    return ProducerState(table, high, purge), raw, len(dropped)


def run(args: argparse.Namespace) -> int:
    rules: RuleSet = resolve(RULE_SETS, RuleSet, args.rules)
    producer, raw, dropped = _producer(args)
    flags = {
        "end": parse_uint64(args.end, "--end"),
        "strict": args.strict,
        "ignore_purged": args.ignore_purged,
        "remote_purge": parse_uint64(args.remote_purge, "--remote-purge"),
        "collection_high": (
            None
            if args.collection_high is None
            else parse_uint64(args.collection_high, "--collection-high")
        ),
    }
    decider = Decider(rules)
    lines = _read_requests(flags)
    out = sys.stdout
    if dropped:
        print(
            f"Warning: {args.table}: dropped {dropped} erroneous entries (uuid 0, or a seqno "
            "above the entry before it), as kv_engine does when it loads a table",
            file=sys.stderr,
        )
    if not args.json:
        out.write(format_header(producer.high_seqno, producer.purge_seqno, producer.table, raw))
    for number, req in lines:
        if req is None:
            out.flush()
            print(FIELD_COUNT_WARNING, file=sys.stderr, flush=True)
            continue
        if args.json:
            decision = decider.decide(req, producer)
            record = {
                "line": number,
                "rules": rules.name,
                **_request_json(req),
                **decision.to_json(),
            }
            out.write(json.dumps(record) + "\n")
        else:
            decision = decider.needs_rollback(req, producer)
            out.write(format_decision(req, decision))
            if not req.range_ok:
                out.flush()
                print(
                    f"Warning: stdin line {number}: a producer refuses this request with ERANGE "
                    "(snap_start <= start <= snap_end and start <= end are required); the "
                    "answer above is needsRollback's alone, as humpty_dumpty prints it",
                    file=sys.stderr,
                )
    out.flush()
    return EXIT_OK


def _stdin_lines() -> list[str]:
    """Every line of stdin as text; a line that is not UTF-8 is an error naming it."""
    binary = getattr(sys.stdin, "buffer", None)
    if binary is None:  # a text stream (tests)
        return sys.stdin.read().splitlines()
    lines = []
    for number, raw in enumerate(binary.read().splitlines(), start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise InvalidInput(
                f"stdin line {number}", f"is not text (byte {exc.start}: not UTF-8)"
            ) from None
    return lines


def _read_requests(flags: dict[str, Any]) -> list[tuple[int, StreamRequest | None]]:
    """All of stdin, checked before anything is printed: (line number, request), or None
    for a line without four fields (humpty_dumpty warns and skips it)."""
    out: list[tuple[int, StreamRequest | None]] = []
    for number, line in enumerate(_stdin_lines(), start=1):
        fields = split_fields(line)
        if len(fields) != 4:
            out.append((number, None))
            continue
        values = [
            parse_uint64(text, f"stdin line {number}: field {position} ({name})")
            for position, (name, text) in enumerate(
                zip(("UUID", "SNAP_START", "SNAP_END", "START"), fields, strict=True), start=1
            )
        ]
        uuid, snap_start, snap_end, start = values
        out.append((number, StreamRequest(uuid, start, snap_start, snap_end, **flags)))
    return out


def _request_json(req: StreamRequest) -> dict[str, object]:
    """The four fields a humpty_dumpty stdin line gives, in its order."""
    fields = req.to_json()
    return {name: fields[name] for name in ("uuid", "snap_start", "snap_end", "start")}
