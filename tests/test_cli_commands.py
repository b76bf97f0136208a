"""The commands are the modules of checker/commands/: found there, summarised by their
docstrings, and imported only when run."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from checker.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_of_checker_commands_is_a_command_and_nothing_else_is() -> None:
    modules = {p.stem for p in (ROOT / "checker" / "commands").glob("*.py")}
    assert set(COMMANDS) == modules - {"__init__"}
    assert list(COMMANDS) == sorted(COMMANDS)  # dcpcheck --help lists them by name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_commands_summary_is_the_first_line_of_its_docstring(name: str) -> None:
    module = importlib.import_module(f"checker.commands.{name}")
    assert callable(module.add_arguments) and callable(module.run)
    assert COMMANDS[name] == module.__doc__.strip().splitlines()[0]
    assert 0 < len(COMMANDS[name]) <= 100 and COMMANDS[name][-1] in ".?"


def test_the_help_lists_every_command_with_its_summary(capsys) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    for name, summary in COMMANDS.items():
        assert f"{name} {summary}" in shown


def test_a_run_of_decide_imports_no_other_command_and_no_z3() -> None:
    probe = (
        "import sys\n"
        "from checker.cli import build_parser\n"
        "build_parser(['decide'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('checker.commands.')))\n"
        "print('z3' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["['checker.commands.decide']", "False"]
