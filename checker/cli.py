"""``dcpcheck``: the command line.

Each subcommand lives in ``checker.commands.<name>`` with ``add_arguments``
and ``run(args) -> exit code``. Errors raised on purpose (``spec.errors``)
print one line and exit with their code; anything else is a harness bug: its
traceback is printed and the exit code is 4 (never 1, which means a
violation was found).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence

from spec.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, DcpcheckError, UsageError

__all__ = ["main"]

COMMANDS = {
    "decide": "humpty_dumpty-compatible producer decisions for stdin requests",
    "check": "search for resumes that violate a property (Z3), replay them on the reference",
    "verify": "the main job: every rule set x consumer x property on Spark, vs expected verdicts",
    "clients": "real DCP clients (java-dcp-client, go-dcp, cbgt, kv-replica) and their fixes",
    "vectors": "regression vectors: generate (full decision coverage), score (mutants), baseline",
    "replay": "replay regression vectors against rules, humpty_dumpty or a JSON-lines target",
    "diff": "where two rule sets (or consumers) differ, and whether each difference is safe",
    "durability": "SyncWrite durability across failovers, restarts, rollbacks (multi-node model)",
}

EPILOG = """exit codes: 0 ok/holds, 1 violation found, 2 bad input or usage,
3 unknown (solver unknown or timeout), 4 internal error (harness bug)"""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2 via UsageError."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dcpcheck",
        description="Model checker for the Couchbase DCP rollback protocol.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, summary in COMMANDS.items():
        module = importlib.import_module(f"checker.commands.{name}")
        command = sub.add_parser(
            name,
            help=summary,
            description=module.__doc__,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except DcpcheckError as exc:
        print(f"dcpcheck: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("dcpcheck: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # stdout closed early (e.g. piped into head); nothing more to say.
        sys.stderr.close()
        return EXIT_BAD_INPUT
    except Exception:
        traceback.print_exc()
        print("dcpcheck: internal error (a harness bug, please report it)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
