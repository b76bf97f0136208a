"""Where a client model's behaviour was read: machine-readable citations.

Every module of ``spec.consumers.clients`` lists a ``CITATIONS`` tuple next
to its docstring: for each behaviour the model encodes, the repository, the
file, the function and the commit it was read at. The docstring tells the
reading in words; ``tests/test_client_citations.py`` checks that the two
agree and that every client story in docs/clients.md names one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Citation"]

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True)
class Citation:
    """``function`` in ``path`` of ``repo`` at ``commit`` does ``behaviour``."""

    repo: str
    path: str
    function: str
    commit: str
    behaviour: str

    def problems(self) -> list[str]:
        out = []
        if not _REPO.match(self.repo):
            out.append(f"repo {self.repo!r} is not owner/name")
        if "." not in self.path.rsplit("/", 1)[-1]:
            out.append(f"path {self.path!r} names no file")
        if not self.function:
            out.append("no function")
        if not _COMMIT.match(self.commit):
            out.append(f"commit {self.commit!r} is not a hex commit id")
        if not self.behaviour:
            out.append("no behaviour")
        return out

    def __str__(self) -> str:
        return f"{self.repo} {self.path}: {self.function} @ {self.commit}"
