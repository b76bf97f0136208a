"""Every printed reproduce line runs when pasted where the command ran.

Each command runs as a user runs it, from a scratch directory holding the user's files
(an adapter, a humpty_dumpty-speaking build) named by relative paths, with ``--out`` a
relative directory; each ``reproduce:`` line it prints is then pasted into bash in the
same directory and must run and reproduce the finding.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import DATA, ROOT

from spec.errors import EXIT_OK, EXIT_VIOLATION

ADAPTER = "jsonl:python3 offset_store_client.py --forget-snapshot"
BUILD = "humpty:python3 humpty_target.py --bug lagging-strict"
SMALL = ["--seqnos", "3", "--keys", "2", "--entries", "2", "--failovers", "1"]
COMMANDS = {
    "check": (
        ["check", "--consumer", "collapse-snapshot", "--property", "no-missed-item", *SMALL,
         "--out", "out/check"],
        EXIT_VIOLATION,
        "no-missed-item: violated (confirmed)",
    ),
    "clients --target": (
        ["clients", "--target", ADAPTER, "--like", "collapse-snapshot", "--quiet",
         "--property", "no-missed-item", *SMALL, "--out", "out/clients"],
        EXIT_VIOLATION,
        "VIOLATED out/clients/no-missed-item--",
    ),
    "review": (
        ["review", "--target", BUILD, "--no-spark", "--seqnos", "2", "--entries", "1",
         "--consumer", "correct", "--quiet", "--out", "out/review"],
        EXIT_VIOLATION,
        "VIOLATED out/review/bounded-rollback--",
    ),
    "durability": (
        ["durability", "--preset", "mb-51805", "--ack-rule", "ack-at-snapshot-end",
         "--branch-rule", "highest-snapshot", "--property", "prepare-ack-progress",
         "--out", "out/durability", "--quiet"],
        EXIT_OK,
        "prepare-ack-progress: violated (confirmed)",
    ),
}  # fmt: skip


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A user's directory: their adapter and their build, nothing of the repository's."""
    shutil.copy(ROOT / "examples" / "adapters" / "offset_store_client.py", tmp_path)
    for name in ("humpty_target.py", "producer_logic.py", "hand_written.py"):
        shutil.copy(DATA / name, tmp_path)
    return tmp_path


def _bash(line: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", line], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize("name", COMMANDS)
def test_each_reproduce_line_runs_pasted_where_the_command_ran(name: str, workdir: Path) -> None:
    argv, code, reproduced = COMMANDS[name]
    ran = subprocess.run(
        ["dcpcheck", *argv], cwd=workdir, capture_output=True, text=True, timeout=600
    )
    assert ran.returncode == code, ran.stderr
    lines = [
        line.strip().removeprefix("reproduce: ")
        for line in ran.stdout.splitlines()
        if line.strip().startswith("reproduce: ")
    ]
    assert lines, ran.stdout
    for line in lines:
        pasted = _bash(line, workdir)
        assert pasted.returncode == code, (line, pasted.stderr)
        assert reproduced in pasted.stdout, (line, pasted.stdout)
