"""Every command README.md and docs/*.md show is run, and its output compared where shown.

In a code block of the docs, a line ``$ COMMAND`` is an example: it is run
with bash from a scratch copy of the repository (so examples that write, say
``--out counterexamples/vectors``, change the copy, not the checkout), with
the project's ``dcpcheck`` first on PATH. The lines under it, up to a blank
line or the next ``$``, are its output as the docs show it: each must appear
in the real output, in order (lines the docs leave out may be skipped),
where ``...`` in a line matches anything and a time (``0.13s``, ``15.8 s``)
matches any time. An example must exit 0 or 1 (1: it shows a violation); a
usage error (2), an unknown (3) or a harness bug (4) fails. The files
examples need live under ``docs/examples/``: they are copied to the top of
the scratch copy, where the examples run. Each doc file gets its own scratch
copy, and its examples run in the order the file shows them (a later example
may use what an earlier one wrote). A command ending in ``\\`` continues on
the next line.

An example that is a plain ``dcpcheck ARGS`` (no pipe, redirection or
other shell syntax) runs in this process: ``checker.cli.main(ARGS)`` from
the scratch copy, stdin empty, stdout and stderr captured (no Python, Z3 and
import start-up per example); one that runs on Spark (``verify``,
``clients``, ``sweep``, ``check --engine exhaustive``, ``durability
--engine bfs-spark``) uses the shared Spark session (``tests/conftest.py``), so
all of them share one JVM. The others (pipes, ``.venv/bin/dcpcheck``) run
with bash as a subprocess, as a reader would run them; tests/test_check_cli.py,
tests/test_decide_cli.py and tests/test_interrupt.py run the installed
entry point as a real process (exit codes, stdin, Ctrl-C).

A line in a code block that starts with ``dcpcheck`` but is neither an
example nor a synopsis (a synopsis has placeholders: ``[--flag]``, ``A|B``,
``NAME``, ``...``) fails the test: every command shown must be run. A
command naming a cluster (``--master spark://...``, ``yarn``, ``k8s://...``)
is a synopsis too: tests/test_spark_cluster.py runs a real one. The
``make`` commands (``make verify``, ``make test``) are the setup contract
that CI itself runs and are not run here.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLE_FILES = ROOT / "docs" / "examples"
COPIED = ("counterexamples", "docs", "examples", "tests/data", "spec", "checker")
PLACEHOLDER = re.compile(r"\[|\||\.\.\.|(?<![\w-])[A-Z][A-Z0-9_]*(\.[a-z]+)?(?![\w])")
CLUSTER = re.compile(r"--master[ =](spark://|yarn|k8s://)")
SHELL = re.compile(r"[|<>;&$`(]")
TIME = re.compile(r"\d+(\.\d+)?\s?s\b")


@dataclass(frozen=True)
class Example:
    doc: Path
    where: str  # file:line
    command: str
    shown: tuple[str, ...]  # the output lines the docs show

    @property
    def argv(self) -> list[str] | None:
        """The arguments of a plain ``dcpcheck ARGS`` (no shell syntax), else None."""
        if SHELL.search(self.command.split("#", 1)[0]):
            return None
        words = shlex.split(self.command, comments=True)
        return words[1:] if words and words[0] == "dcpcheck" else None

    @property
    def on_spark(self) -> bool:
        argv = self.argv or []
        pairs = set(itertools.pairwise(argv))
        command = argv[0] if argv else ""
        return (command in ("verify", "clients", "sweep") and "--no-spark" not in argv) or bool(
            pairs & {("--engine", e) for e in ("exhaustive", "cubes-spark", "bfs-spark", "spark")}
        )


def code_blocks(path: Path) -> list[tuple[int, list[str]]]:
    """(first line number, lines) of each fenced or indented code block."""
    blocks: list[tuple[int, list[str]]] = []
    lines = path.read_text().splitlines()
    fence = None
    current: list[str] = []
    start = 0
    previous_blank = True
    for n, line in enumerate(lines, start=1):
        if fence is not None:
            if line.strip().startswith(fence):
                blocks.append((start, current))
                fence, current = None, []
            else:
                current.append(line)
            continue
        if line.strip().startswith("```"):
            fence, current, start = "```", [], n + 1
            continue
        if line.startswith("    ") and (current or previous_blank):
            if not current:
                start = n
            current.append(line[4:])
        elif current and not line.strip():
            current.append("")
        elif current:
            blocks.append((start, current))
            current = []
        previous_blank = not line.strip()
    if current:
        blocks.append((start, current))
    return blocks


def _joined(block: list[str], n: int) -> tuple[str, int]:
    """The command starting at line n, its ``\\`` continuations joined; the next line."""
    text = block[n].strip()
    n += 1
    while text.endswith("\\") and n < len(block):
        text = text[:-1].rstrip() + " " + block[n].strip()
        n += 1
    return text, n


def examples(path: Path, root: Path = ROOT) -> tuple[list[Example], list[str]]:
    """The examples of a doc file, and the commands in it that are neither run nor synopses."""
    found: list[Example] = []
    unmarked: list[str] = []
    for start, block in code_blocks(path):
        n = 0
        while n < len(block):
            where = f"{path.relative_to(root)}:{start + n}"
            text, n = _joined(block, n)
            if text.startswith("$ "):
                shown = []
                while n < len(block) and block[n].strip() and not block[n].strip().startswith("$ "):
                    shown.append(block[n].rstrip())
                    n += 1
                found.append(Example(path, where, text[2:], tuple(shown)))
                continue
            command = text.split("|")[-1].strip().split("#", 1)[0]
            if command.startswith(("dcpcheck ", ".venv/bin/dcpcheck ")):
                words = command.split(" ", 1)[1]
                if not PLACEHOLDER.search(words) and not CLUSTER.search(words):
                    unmarked.append(f"{where}: {text}")
    return found, unmarked


ALL = [e for doc in DOCS for e in examples(doc)[0]]


def _pattern(line: str) -> re.Pattern[str]:
    parts = [re.escape(p) for p in TIME.sub("\0", line.strip()).split("...")]
    text = ".*".join(parts).replace(re.escape("\0"), r"\d+(\.\d+)?\s?s\b")
    return re.compile(text)


def missing(shown: tuple[str, ...], output: str) -> list[str]:
    """The shown lines not found, in order, in ``output``."""
    actual = [line.strip() for line in output.splitlines()]
    position, absent = 0, []
    for line in shown:
        if line.strip() == "...":
            continue
        pattern = _pattern(line)
        for k in range(position, len(actual)):
            if pattern.fullmatch(actual[k]):
                position = k + 1
                break
        else:
            absent.append(line)
    return absent


_SANDBOXES: dict[Path, Path] = {}


def sandbox_for(doc: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scratch copy of the repository the examples of ``doc`` run in (one per doc)."""
    if doc not in _SANDBOXES:
        root = tmp_path_factory.mktemp("docs")
        for name in COPIED:
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, root / name, ignore=ignore)
        for item in EXAMPLE_FILES.iterdir():
            shutil.copy2(item, root / item.name)
        (root / ".venv").symlink_to(ROOT / ".venv")  # for docs that say .venv/bin/dcpcheck
        _SANDBOXES[doc] = root
    return _SANDBOXES[doc]


def run_in_shell(command: str, cwd: Path) -> tuple[int, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_every_command_the_docs_show_is_an_example_or_a_synopsis() -> None:
    unmarked = [line for doc in DOCS for line in examples(doc)[1]]
    assert unmarked == [], "mark these '$ ' (run by this test) or show them as synopses"


def test_the_docs_have_examples_and_every_example_file_is_used() -> None:
    assert len(ALL) >= 10
    assert any(e.shown for e in ALL)
    unused = [f.name for f in EXAMPLE_FILES.iterdir() if not any(f.name in e.command for e in ALL)]
    assert unused == [], "docs/examples/ holds files no example runs"


@pytest.mark.parametrize("example", ALL, ids=lambda e: e.where)
def test_doc_example_runs_and_prints_what_the_docs_show(
    example: Example, tmp_path_factory, request, monkeypatch, capsys
) -> None:
    cwd = sandbox_for(example.doc, tmp_path_factory)
    if example.argv is not None:
        if example.on_spark:
            request.getfixturevalue("spark")  # one JVM for every Spark example
        monkeypatch.chdir(cwd)
        result = run_cli(example.argv, "", monkeypatch, capsys)
        code, output = result.code, result.out + result.err
    else:
        code, output = run_in_shell(example.command, cwd)
    assert code in (0, 1), f"{example.where}: {example.command}: exit {code}\n{output}"
    absent = missing(example.shown, output)
    assert absent == [], (
        f"{example.where}: {example.command}: not in the output:\n"
        + "\n".join(absent)
        + "\n--- output:\n"
        + output
    )


def test_a_command_is_read_whole_and_a_cluster_command_is_a_synopsis(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "    $ dcpcheck durability --ack-rule ack-on-prepare \\\n"
        "          --property no-lost-syncwrite\n"
        "    a line of output\n"
        "\n"
        "    dcpcheck verify --master spark://head:7077\n"
        "    dcpcheck clients --seqnos 8\n"
    )
    found, unmarked = examples(doc, tmp_path)
    assert [e.command for e in found] == [
        "dcpcheck durability --ack-rule ack-on-prepare --property no-lost-syncwrite"
    ]
    assert found[0].shown == ("a line of output",)
    assert [u.split(": ", 1)[1] for u in unmarked] == ["dcpcheck clients --seqnos 8"]


def test_a_spark_example_is_told_from_a_local_one() -> None:
    def example(command: str) -> Example:
        return Example(ROOT, "x:1", command, ())

    assert example("dcpcheck clients --seqnos 4").on_spark
    assert example("dcpcheck check --engine exhaustive").on_spark
    assert not example("dcpcheck clients --no-spark").on_spark
    assert not example("dcpcheck check --rules kv-current").on_spark
    assert example("echo 1 | dcpcheck decide t.json 1 0").argv is None


def test_the_matcher_skips_lines_and_times_but_not_text() -> None:
    output = "a 0.13s\nnoise\nkey B: 12.4 s left\nend"
    assert missing(("a 9.9s", "key ...: 1s left", "end"), output) == []
    assert missing(("end", "a 0.13s"), output) == ["a 0.13s"]
    assert missing(("key C: 1s left",), output) == ["key C: 1s left"]
