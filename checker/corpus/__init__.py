"""Stored counterexamples of both models: each file format, its id, its record, its loader.

``scenario``: single-node files (``dcpcheck-counterexample/1``, docs/formats.md);
``cluster``: durability files (``dcpcheck-durability-counterexample/1``,
docs/durability.md). Checks make the id and the record; ``checker.report``
only writes them; ``checker.confirm.replay_stored`` reads one back and replays it.
"""

from __future__ import annotations

from pathlib import Path

from checker.inputs import load_json
from spec.errors import InvalidInput

__all__ = ["CLUSTER_FORMAT", "SCENARIO_FORMAT", "model_kind_of"]

# Each model's submodule is imported only by what reads or writes that model's files.
SCENARIO_FORMAT = "dcpcheck-counterexample/1"
CLUSTER_FORMAT = "dcpcheck-durability-counterexample/1"


def model_kind_of(path: str | Path) -> str:
    """Which model a counterexample file is of: ``"scenario"`` or ``"cluster"``."""
    record = load_json(path)
    kind = record.get("format") if isinstance(record, dict) else None
    if kind == SCENARIO_FORMAT:
        return "scenario"
    if kind == CLUSTER_FORMAT:
        return "cluster"
    raise InvalidInput(
        str(path),
        f"not a counterexample file (format {kind!r}; expected {SCENARIO_FORMAT} "
        f"or {CLUSTER_FORMAT})",
    )
