"""A user's ``.py`` definition files, sent with a Spark job.

Executors resolve definitions by name (``checker.loading``): a built-in name
resolves anywhere, a file path only where the file is. ``ship(spark, text)``
turns ``FILE.py[:NAME]`` into a name every executor can resolve: on a local
master the absolute path (executors share the driver's file system); on a
cluster a copy named by its content is sent with ``addPyFile`` and the name
becomes ``@spark-file:COPY.py[:NAME]``, which ``on_executor`` turns back
into the copy's path there (``SparkFiles``). ``forget`` removes the copies
when the session ends.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["SHIPPED", "forget", "on_executor", "ship"]

SHIPPED = "@spark-file:"
_copies: dict[tuple[int, str], str] = {}  # (SparkContext id, copy name) -> shipped name
_staging: list[Path] = []


def _split(text: str) -> tuple[Path, str] | None:
    """(file, ":NAME" or "") for a file reference, None for a registered name."""
    if ".py:" in text:
        path, _, pick = text.partition(".py:")
        return Path(path + ".py"), f":{pick}"
    if text.endswith(".py"):
        return Path(text), ""
    return None


def ship(spark: SparkSession, text: str) -> str:
    """The name executors resolve for ``text`` (unchanged for a registered name)."""
    from checker.spark.session import LOCAL

    parts = _split(text)
    if parts is None or not parts[0].is_file():
        return text  # a name, or a missing file: resolving it reports the problem
    path, pick = parts
    sc = spark.sparkContext
    if LOCAL.match(sc.master or ""):
        return f"{path.resolve()}{pick}"
    data = path.read_bytes()
    name = f"dcpcheck_user_{hashlib.sha1(data).hexdigest()[:12]}_{path.stem}.py"
    key = (id(sc), name)
    if key not in _copies:
        staging = Path(tempfile.mkdtemp(prefix="dcpcheck-user-"))
        _staging.append(staging)
        (staging / name).write_bytes(data)
        sc.addPyFile(str(staging / name))
        _copies[key] = f"{SHIPPED}{name}"
    return f"{_copies[key]}{pick}"


def on_executor(text: str) -> str:
    """``ship``'s name as a path on this executor."""
    if not text.startswith(SHIPPED):
        return text
    from pyspark import SparkFiles

    name, sep, pick = text[len(SHIPPED) :].partition(":")
    return SparkFiles.get(name) + (f":{pick}" if sep else "")


def forget() -> None:
    """Remove the copies (the session that shipped them has ended)."""
    for staging in _staging:
        shutil.rmtree(staging, ignore_errors=True)
    _staging.clear()
    _copies.clear()
