"""Counterexample files, written atomically: ``<id>.json`` (the model's record) and
``<id>.itf.json`` (the run as an ITF trace), for either model."""

from __future__ import annotations

import json
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.report.itf import to_itf
from checker.result import Result, Verdict

__all__ = ["counterexample_path", "write_counterexample"]


def counterexample_path(r: Result, out_dir: str | Path) -> Path | None:
    """Where ``write_counterexample`` puts a violation's JSON (None: it has no files)."""
    if r.verdict is not Verdict.VIOLATED or r.record is None or r.run is None:
        return None
    return Path(out_dir) / f"{r.ident}.json"


def write_counterexample(r: Result, out_dir: str | Path) -> Path | None:
    """Write a violation's files into ``out_dir``; return the JSON path (None if nothing)."""
    if counterexample_path(r, out_dir) is None:
        return None
    out = Path(out_dir)
    path = write_text_atomic(out / f"{r.ident}.json", json.dumps(r.record, indent=2) + "\n")
    meta = {"source": f"{r.ident}.json", "description": r.explanation}
    write_text_atomic(out / f"{r.ident}.itf.json", json.dumps(to_itf(r.run, meta), indent=1) + "\n")
    return path
