"""Running dcpcheck from tests: in process (fast) or as a real subprocess."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from checker.cli import main

ROOT = Path(__file__).resolve().parent.parent
DCPCHECK = [sys.executable, "-m", "checker.cli"]

# MB-51805 found again: snapshot-end acks without the restart fix stall (a violation, fast).
MB51805_STALL = [
    "durability",
    "--preset",
    "mb-51805",
    "--ack-rule",
    "ack-at-snapshot-end",
    "--branch-rule",
    "highest-snapshot",
    "--property",
    "prepare-ack-progress",
]
# Small single-node bounds that decide in seconds.
SMALL = ["--seqnos", "4", "--keys", "2", "--entries", "3", "--failovers", "1"]


def check_args(rules: object, consumer: object, *props: object, out: object) -> list[object]:
    """``dcpcheck check`` of one rule set and consumer (names or files) on ``props``, within
    SMALL bounds, counterexamples to ``out``; append ``--json``, ``--html`` as needed."""
    chosen = [arg for prop in props for arg in ("--property", prop)]
    return ["check", "--rules", rules, "--consumer", consumer, *chosen, "--out", out, *SMALL]


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_cli(args: list[str], stdin: str = "", monkeypatch=None, capsys=None) -> Result:
    """In process: ``monkeypatch`` and ``capsys`` are the pytest fixtures."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def run_subprocess(
    args: list[str], stdin: str | bytes = "", timeout: float = 600, cwd: Path | None = None
) -> Result:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [*DCPCHECK, *[str(a) for a in args]],
        input=stdin if isinstance(stdin, bytes) else stdin.encode(),
        capture_output=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        env=env,
        check=False,
    )
    return Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())
