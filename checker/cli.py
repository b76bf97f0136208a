"""``dcpcheck``: the command line.

Each subcommand is a module ``checker.commands.<name>`` with ``add_arguments``
and ``run(args) -> exit code``, found there (``COMMANDS``: its docstring's first
line is its summary). Errors raised on purpose (``spec.errors``)
print one line and exit with their code. Anything else is a harness bug: one
line naming the exception and a crash report (the full traceback, the
command line, the versions) written to a file, and exit 4 — never exit 1,
which means "violation found" to every CI gate. Ctrl-C, in every command, is
one line (``checker.interrupt.LINE``) and exit 130, whether the command stopped
by itself on it (``checker.runner``) or it reached this entry; an error raised
while winding down after Ctrl-C (a cancelled Spark job) is the same interruption.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import platform
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NoReturn

from checker import interrupt
from spec.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    DcpcheckError,
    UsageError,
)

__all__ = ["main"]


def _commands() -> dict[str, str]:
    """Every module of ``checker.commands`` is a command, named after its module: name -> its
    summary in ``dcpcheck --help``, the first line of its docstring. Read from the source,
    not imported, so that a run imports its own command only."""
    from checker import commands

    found = {}
    for module in pkgutil.iter_modules(commands.__path__):
        source = Path(commands.__path__[0], f"{module.name}.py").read_text(encoding="utf-8")
        found[module.name] = source.split('"""', 2)[1].strip().splitlines()[0]
    return dict(sorted(found.items()))


COMMANDS = _commands()

EPILOG = """exit codes: 0 ok/holds, 1 violation found, 2 bad input or usage,
3 unknown (solver budget or timeout), 4 internal error (harness bug), 130 interrupted"""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2 via UsageError."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line. ``commands``: the subcommands whose module is imported and
    whose arguments are added (default: every one); the others are listed with their
    summaries only. A run needs only its own: ``main`` passes the one named first, so
    ``dcpcheck decide`` imports no Z3, Spark or report code (measured on the 2-core
    machine: 0.06 CPU s to a first decision, against 0.28 with every command's module)."""
    wanted = set(COMMANDS if commands is None else commands)
    parser = _Parser(
        prog="dcpcheck",
        description="Model checker for the Couchbase DCP rollback protocol.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=version(), help="dcpcheck's version, Z3's, Python's"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, summary in COMMANDS.items():
        if name not in wanted:
            sub.add_parser(name, help=summary)
            continue
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


def version() -> str:
    """``dcpcheck X (z3-solver Y, Python Z)``: the installed distributions' versions, read
    from their metadata (no Z3 import). Budgets are Z3 resource units, counted differently by
    another Z3: pyproject.toml pins the one the recorded verdicts were measured with."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    def of(name: str) -> str:
        try:
            return installed(name)
        except PackageNotFoundError:
            return "not installed"

    python = platform.python_version()
    return f"dcpcheck {of('dcpcheck')} (z3-solver {of('z3-solver')}, Python {python})"


def crash_report(exc: BaseException, argv: Sequence[str]) -> Path | None:
    """Write the traceback of an unexpected exception to a file; its path (None if
    even that failed)."""
    where = Path(os.environ.get("DCPCHECK_CRASH_DIR") or tempfile.gettempdir())
    text = "".join(
        [
            f"dcpcheck crash report, {time.strftime('%Y-%m-%d %H:%M:%S %z')}\n",
            f"command: dcpcheck {' '.join(argv)}\n",
            f"python {platform.python_version()} on {platform.platform()}\n\n",
            *traceback.format_exception(exc),
        ]
    )
    try:
        where.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix="dcpcheck-crash-", suffix=".txt", dir=where)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        return Path(name)
    except OSError:
        return None


def _first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message; a placeholder when reading it fails (Py4J's
    error asks the JVM for its text, and after a Spark worker's crash the JVM may be gone)."""
    try:
        text = str(exc)
    except Exception:
        return "<its message could not be read>"
    return text.splitlines()[0] if text else ""


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    previous = signal.getsignal(signal.SIGINT)
    interrupt.install()
    try:
        code = _main(argv)
        if code == EXIT_INTERRUPTED or interrupt.stopping():
            print(interrupt.LINE, file=sys.stderr, flush=True)
            return EXIT_INTERRUPTED
        return code
    finally:
        if previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, previous)
        interrupt.reset()


def _main(argv: list[str]) -> int:
    try:
        args, unknown = build_parser(argv[:1]).parse_known_args(argv)
        if unknown:
            raise UsageError(
                f"dcpcheck {args.command}: unrecognized arguments: {' '.join(unknown)} "
                f"(see dcpcheck {args.command} --help)"
            )
        return int(args.run(args))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except DcpcheckError as exc:
        if interrupt.stopping():
            return EXIT_INTERRUPTED
        print(f"dcpcheck: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # stdout closed early (e.g. piped into head); nothing more to say.
        sys.stderr.close()
        return EXIT_BAD_INPUT
    except Exception as exc:  # a harness bug: one line here, the traceback in a file
        if interrupt.stopping():  # a job Ctrl-C cancelled failing as it stops
            return EXIT_INTERRUPTED
        report = crash_report(exc, argv)
        saved = f"the traceback is in {report}" if report else "no crash report could be written"
        message = _first_line(exc)
        print(
            f"dcpcheck: internal error (a dcpcheck bug): {type(exc).__name__}: {message[:200]}; "
            f"{saved}; please report it",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
