"""The decision space on the command line: ``--table-entries T`` and ``--distinct-uuids``.

Every command that searches the producer's decisions over all stream requests
and producer states (``vectors generate``, ``vectors score``, ``sweep``)
takes ``--distinct-uuids`` from here, so the same switch means the same thing
everywhere: by default a failover table may repeat a uuid (a table kv_engine
loads, humpty_dumpty's among them, can); ``--distinct-uuids`` assumes it does
not (the tables kv_engine creates). ``diff`` always searches tables that may
repeat one. The vector commands also bound the table with ``--table-entries``
here; ``sweep`` bounds it with its own ``--entries``.
"""

from __future__ import annotations

import argparse

from spec.errors import InvalidInput
from spec.rules import DecisionSpace

__all__ = ["MAX_TABLE_ENTRIES", "add_distinct_uuids", "add_space_arguments", "space_from"]

MAX_TABLE_ENTRIES = 8


def add_space_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """``--table-entries`` (default 3) and ``--distinct-uuids``; ``what`` says what they bound."""
    parser.add_argument(
        "--table-entries",
        default="3",
        metavar="T",
        help=f"{what}: failover tables of at most T entries (default 3, at most "
        f"{MAX_TABLE_ENTRIES})",
    )
    add_distinct_uuids(parser, what)


def add_distinct_uuids(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup, what: str
) -> None:
    """``--distinct-uuids`` (off by default: tables may repeat a uuid)."""
    parser.add_argument(
        "--distinct-uuids",
        action="store_true",
        help=f"{what}: assume no failover table repeats a uuid (default: tables may, as a "
        "table kv_engine loads can)",
    )


def space_from(args: argparse.Namespace, at_least: int = 1) -> DecisionSpace:
    """The space the options name, with room for tables of ``at_least`` entries."""
    text = args.table_entries
    try:
        entries = int(text)
    except ValueError:
        raise InvalidInput("--table-entries", f"expected a positive number, got {text!r}") from None
    if not 1 <= entries <= MAX_TABLE_ENTRIES:
        raise InvalidInput(
            "--table-entries", f"must be positive and at most {MAX_TABLE_ENTRIES}, got {text}"
        )
    return DecisionSpace(max(entries, at_least), distinct_uuids=args.distinct_uuids)
