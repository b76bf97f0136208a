"""Every error dcpcheck raises, and the exit code each one maps to.

One root class, ``DcpcheckError``. Messages are one line, name the file and
field (or argument) at fault, and say what to do next; the CLI prints
``dcpcheck: error: <message>`` and exits with ``exit_code``. No traceback
reaches a user for bad input.

Exit codes, fixed for every command:

====  =============================================================
0     ok / every property holds within its bounds
1     a violation was found (or a replay failed, or a diff regressed)
2     bad input or usage (a file, a field, an argument, a name)
3     unknown: the solver's budget ran out (or it answered unknown, or
      the outer timeout passed)
4     internal error: a harness bug (e.g. a counterexample the
      reference implementation does not confirm, or a crash: the
      traceback goes to a crash report file, never to the terminal)
130   interrupted (Ctrl-C): what was decided is printed, the rest is
      unknown (interrupted)
====  =============================================================
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
EXIT_INTERNAL = 4
EXIT_INTERRUPTED = 130

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_UNKNOWN",
    "EXIT_VIOLATION",
    "DcpcheckError",
    "HarnessBug",
    "InvalidInput",
    "RuleLanguageError",
    "SolverUnknown",
    "Unavailable",
    "UnknownName",
    "UsageError",
]


class DcpcheckError(Exception):
    """Root of every error dcpcheck raises on purpose."""

    exit_code = EXIT_INTERNAL


class InvalidInput(DcpcheckError):
    """Bad user input: a file, a field in it, or a command-line value.

    ``where`` names the file (and line, entry or field) at fault; the message
    says what is wrong and what is expected.
    """

    exit_code = EXIT_BAD_INPUT

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


class UsageError(InvalidInput):
    """A command line that cannot be run as given."""

    def __init__(self, message: str) -> None:
        super().__init__("", message)


class UnknownName(InvalidInput):
    """A rule set, consumer variant, property or target name nobody registered.

    ``where`` is the argument that named it: ``--KIND`` unless the caller
    says which argument the user really typed (``at``).
    """

    def __init__(self, kind: str, name: str, known: list[str], where: str = "") -> None:
        self.kind, self.name, self.known = kind, name, known
        super().__init__(
            where or f"--{kind}",
            f"unknown {kind} '{name}'; known: {', '.join(sorted(known))}"
            f" (or give the path of a .py file defining one)",
        )

    def at(self, where: str) -> UnknownName:
        """The same error, attributed to the argument ``where``."""
        return UnknownName(self.kind, self.name, self.known, where)


class RuleLanguageError(InvalidInput):
    """A rule set, consumer variant or property written wrongly in the rule language.

    Raised while a definition is built, so ``where`` is ``file:line`` of the
    user's code when that is known.
    """


class HarnessBug(DcpcheckError):
    """dcpcheck disagrees with itself (symbolic model vs reference implementation)."""

    exit_code = EXIT_INTERNAL


class Unavailable(DcpcheckError):
    """Nothing could be checked: what the check runs on never came up (no Spark executor).
    The verdict is unknown, as for a search that ran out of time."""

    exit_code = EXIT_UNKNOWN


class SolverUnknown(DcpcheckError):
    """Z3 answered unknown (or ran out of time); no vector set is written."""

    exit_code = EXIT_UNKNOWN
