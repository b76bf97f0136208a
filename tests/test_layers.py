"""The import fences: every module's imports against the layer box in ARCHITECTURE.md.

The box is read from ARCHITECTURE.md itself (its "## Layers" block), so the
drawing and this test cannot drift apart: each row is a layer, top first;
a module may import its own layer and the layers below it. Imports are read
with ``ast`` from every file of ``spec/`` and ``checker/``, including imports
inside functions and under ``TYPE_CHECKING`` (a lazy import is still an arrow).
Besides the rows: Z3 only under ``checker/symbolic/``, PySpark only under
``checker/spark/``, and ``spec/`` never imports ``checker/``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGES = ("spec", "checker")
# Third-party packages allowed in one place only: top-level name -> the module prefix.
FENCED = {"z3": "checker.symbolic", "pyspark": "checker.spark", "py4j": "checker.spark"}


@dataclass(frozen=True)
class Arrow:
    importer: str
    line: int
    imported: str

    def __str__(self) -> str:
        return f"{self.importer}:{self.line} imports {self.imported}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones too (imports are statements: no need to walk expressions)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            yield from statements(getattr(node, field, []))


def arrows(name: str, source: str, is_package: bool, known: set[str]) -> Iterator[Arrow]:
    """Every import in ``source`` (module ``name``), resolved to the module it names."""
    for node in statements(ast.parse(source).body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Arrow(name, node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield Arrow(name, node.lineno, sub if sub in known else base)


def all_arrows() -> list[Arrow]:
    modules = project_modules()
    known = set(modules)
    return [
        arrow
        for name, path in modules.items()
        for arrow in arrows(name, path.read_text(), path.name == "__init__.py", known)
    ]


def layer_box(text: str) -> list[list[str]]:
    """The rows of the "## Layers" box, top first; each a list of module prefixes
    (``checker/commands/`` -> ``checker.commands``, ``checker/cli.py`` -> ``checker.cli``)."""
    block = re.search(r"## Layers\n+```\n(.*?)```", text, re.S)
    assert block, 'ARCHITECTURE.md has no "## Layers" box'
    rows = []
    for line in block.group(1).splitlines():
        if not line or line[0].isspace() or line.startswith("---"):
            continue
        head = re.match(r"((?:spec|checker)/[\w/.]*(?:, (?:spec|checker)/[\w/.]*)*)", line)
        assert head, f"layer box row does not start with paths: {line!r}"
        rows.append(
            [p.removesuffix("/").removesuffix(".py").replace("/", ".") for p in head[1].split(", ")]
        )
    return rows


def layer_of(module: str, rows: list[list[str]]) -> int | None:
    """The row ``module`` is in (0 = top), or None if the box does not place it; the
    longest path that names it decides (``checker/arguments/common.py`` is on a row below
    ``checker/commands/``)."""
    named = [
        (len(p), n)
        for n, row in enumerate(rows)
        for p in row
        if module == p or module.startswith(p + ".")
    ]
    return max(named)[1] if named else None


def against_the_box(found: list[Arrow], rows: list[list[str]]) -> list[str]:
    """Each arrow that goes up the box, or from/to a module the box does not place."""
    problems = []
    for arrow in found:
        if arrow.imported.split(".")[0] not in PACKAGES or arrow.imported in PACKAGES:
            continue
        mine, theirs = layer_of(arrow.importer, rows), layer_of(arrow.imported, rows)
        if mine is None or theirs is None:
            problems.append(f"{arrow}: not placed in the layer box")
        elif theirs < mine:
            problems.append(
                f"{arrow}: an upward arrow ({rows[mine][0]} is below {rows[theirs][0]})"
            )
    return problems


COMMANDS = "checker.commands"
# Arrows from one command module to another that are allowed: none. What two commands
# share lives below them (checker/arguments/common.py, checker/arguments/, ...).
BETWEEN_COMMANDS_ALLOWED: set[tuple[str, str]] = set()


def is_command(module: str, rows: list[list[str]]) -> bool:
    """A module under checker/commands/ on the commands' row."""
    return module.startswith(COMMANDS + ".") and layer_of(module, rows) == layer_of(COMMANDS, rows)


def between_commands(found: list[Arrow], rows: list[list[str]]) -> list[str]:
    """Each arrow from one command to another, but the ones allowed by name."""
    return [
        f"{arrow}: a command imports another command (move what they share below them)"
        for arrow in found
        if is_command(arrow.importer, rows)
        and is_command(arrow.imported, rows)
        and arrow.importer != arrow.imported
        and (arrow.importer, arrow.imported) not in BETWEEN_COMMANDS_ALLOWED
    ]


def outside_fences(found: list[Arrow]) -> list[str]:
    problems = []
    for arrow in found:
        top = arrow.imported.split(".")[0]
        if top == "checker" and arrow.importer.startswith("spec"):
            problems.append(f"{arrow}: spec/ never imports checker/")
        home = FENCED.get(top)
        if home and not (arrow.importer == home or arrow.importer.startswith(home + ".")):
            problems.append(f"{arrow}: {top} is imported only under {home}")
    return problems


@pytest.fixture(scope="module")
def rows() -> list[list[str]]:
    return layer_box((ROOT / "ARCHITECTURE.md").read_text())


@pytest.fixture(scope="module")
def found() -> list[Arrow]:
    return all_arrows()


def test_no_import_goes_up_the_layer_box(rows: list[list[str]], found: list[Arrow]) -> None:
    problems = against_the_box(found, rows)
    assert not problems, "\n".join(problems)


def test_z3_pyspark_and_checker_stay_behind_their_fences(found: list[Arrow]) -> None:
    problems = outside_fences(found)
    assert not problems, "\n".join(problems)


def test_no_command_imports_another_command(rows: list[list[str]], found: list[Arrow]) -> None:
    problems = between_commands(found, rows)
    assert not problems, "\n".join(problems)


def test_a_command_importing_another_is_caught(rows: list[list[str]]) -> None:
    known = set(project_modules())
    source = (
        "from checker.commands.check import selection\nfrom checker.commands import durability\n"
    )
    source += (
        "from checker.arguments.common import chosen\nfrom checker.arguments import selection\n"
    )
    planted = list(arrows("checker.commands.verify", source, False, known))
    assert between_commands(planted, rows) == [
        "checker.commands.verify:1 imports checker.commands.check: a command imports another "
        "command (move what they share below them)",
        "checker.commands.verify:2 imports checker.commands.durability: a command imports "
        "another command (move what they share below them)",
    ]
    assert against_the_box(planted, rows) == []  # within one row: only this test sees it
    source = "from checker import client_target\n"
    below = list(arrows("checker.commands.clients", source, False, known))
    assert [a.imported for a in below] == ["checker.client_target"]
    assert between_commands(below, rows) == []  # a module below the commands, not a command


def test_every_module_is_placed_in_the_box(rows: list[list[str]]) -> None:
    unplaced = [m for m in project_modules() if m not in PACKAGES and layer_of(m, rows) is None]
    assert unplaced == []


def test_the_box_names_only_modules_that_exist(rows: list[list[str]]) -> None:
    modules = project_modules()
    missing = [p for row in rows for p in row if not any(layer_of(m, [[p]]) == 0 for m in modules)]
    assert missing == []


def test_an_upward_or_fenced_import_is_caught(rows: list[list[str]]) -> None:
    known = set(project_modules())
    lazy = "def f():\n    from checker.arguments.common import chosen\n    import z3\n"
    planted = list(arrows("checker.result", lazy, False, known))
    assert against_the_box(planted, rows) == [
        "checker.result:2 imports checker.arguments.common: an upward arrow "
        "(checker.result is below checker.arguments)"
    ]
    assert outside_fences(planted) == [
        "checker.result:3 imports z3: z3 is imported only under checker.symbolic"
    ]
    from_spec = list(arrows("spec.rules.inputs", "from ..model import build\n", False, known))
    assert [a.imported for a in from_spec] == ["spec.model.build"]
    assert against_the_box(from_spec, rows)[0].endswith("(spec.rules is below spec.model)")
