"""Writing outputs atomically: a temp file in the same directory, then rename.

A reader never sees a half-written file, and a failure leaves nothing
behind. Files get the usual permissions (0644 under the usual umask), not
the temp file's 0600. A directory of outputs (a dataset) is built under a
temporary name beside its target (``partial_dir``) and put in place whole
(``publish_dir``). ``writable_file`` and ``writable_dir`` check an
output path before any work starts, so a long search never ends in
"cannot write".
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

from spec.errors import InvalidInput

__all__ = ["partial_dir", "publish_dir", "writable_dir", "writable_file", "write_text_atomic"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


MODE = 0o666 & ~_umask()


def write_text_atomic(path: str | Path, text: str) -> Path:
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InvalidInput(str(target), f"cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            os.fchmod(handle.fileno(), MODE)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _creatable(path: Path, flag: str) -> None:
    """The nearest existing ancestor of ``path`` is a directory we may write in."""
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InvalidInput(flag, f"{path}: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InvalidInput(flag, f"{path}: cannot write in {ancestor} (permission denied)")


def writable_file(path: str | Path | None, flag: str) -> None:
    """``path`` can be written as a file: it is not a directory, and its directory exists
    (a report file is never the reason a directory is made: a typo in it is an error)."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise InvalidInput(flag, f"{target} is a directory; give a file name")
    if target.exists() and not os.access(target, os.W_OK):
        raise InvalidInput(flag, f"{target}: cannot overwrite (permission denied)")
    if not target.parent.is_dir():
        raise InvalidInput(flag, f"{target}: no directory {target.parent} (make it first)")
    _creatable(target, flag)


def writable_dir(path: str | Path | None, flag: str) -> None:
    """``path`` is a directory we can write in, or can be made one."""
    if path is None:
        return
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InvalidInput(flag, f"{target} exists and is not a directory; give a directory")
    if target.is_dir():
        if not os.access(target, os.W_OK | os.X_OK):
            raise InvalidInput(flag, f"cannot write in {target} (permission denied)")
        return
    _creatable(target / "x", flag)


def partial_dir(target: str | Path) -> Path:
    """A new, empty directory beside ``target`` (same filesystem, hidden name) to build
    ``target``'s contents in before ``publish_dir``."""
    final = Path(target)
    partial = final.parent / f".{final.name}.partial-{uuid.uuid4().hex[:12]}"
    try:
        partial.mkdir(parents=True)
    except OSError as exc:
        raise InvalidInput(str(final), f"cannot write: {exc.strerror}") from None
    return partial


def publish_dir(partial: Path, target: str | Path) -> Path:
    """Put the complete directory ``partial`` in place of ``target`` (replacing an older
    one): each step is a rename, so ``target`` is never a half-written directory."""
    final = Path(target)
    old = final.parent / f".{final.name}.old-{uuid.uuid4().hex[:12]}"
    if final.exists():
        os.rename(final, old)
    os.rename(partial, final)
    shutil.rmtree(old, ignore_errors=True)
    return final
