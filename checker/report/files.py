"""Counterexample files, written atomically: ``<id>.json`` (the model's record) and
``<id>.itf.json`` (the run as an ITF trace), for either model."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.report.itf import to_itf
from checker.result import Result, Verdict

__all__ = ["counterexample_path", "located", "write_counterexample"]


def counterexample_path(r: Result, out_dir: str | Path) -> Path | None:
    """Where ``write_counterexample`` puts a violation's JSON file (None: it writes none)."""
    if r.verdict is not Verdict.VIOLATED or r.record is None or r.run is None:
        return None
    return Path(out_dir) / f"{r.ident}.json"


def located(r: Result, path: Path | None) -> Result:
    """``r`` with its command naming its own counterexample file (``<id>.json``, as an
    adapter's ``dcpcheck replay --client CMD <id>.json``) by the path it is written to, as
    the user wrote ``--out``: the reproduce line (text, HTML, JSON, the files' own) runs
    when pasted where the command ran."""
    bare = f"{r.ident}.json"
    if path is None or not r.command or bare not in r.command:
        return r
    try:
        words = shlex.split(r.command)
    except ValueError:
        return r
    if bare not in words:
        return r
    command = shlex.join(str(path) if w == bare else w for w in words)
    record = r.record
    if record is not None and record.get("command") == r.command:
        record = {**record, "command": command}
    return r.but(command=command, record=record)


def write_counterexample(r: Result, out_dir: str | Path) -> Path | None:
    """Write a violation's files into ``out_dir``; return the JSON path (None if nothing)."""
    target = counterexample_path(r, out_dir)
    if target is None or r.run is None:
        return None
    out = Path(out_dir)
    path = write_text_atomic(target, json.dumps(r.record, indent=2) + "\n")
    meta = {"source": f"{r.ident}.json", "description": r.explanation, "command": r.command}
    write_text_atomic(out / f"{r.ident}.itf.json", json.dumps(to_itf(r.run, meta), indent=1) + "\n")
    return path
