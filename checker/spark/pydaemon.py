"""Spark's Python daemon (``pyspark.daemon``), run with pyspark imported from its installed
package, byte-code cached, instead of from the source zips Spark puts first on the path.

Spark starts its Python workers' daemon with ``SPARK_HOME/python/lib/pyspark.zip`` and
py4j's source zip ahead of everything else on ``PYTHONPATH``. A module in a zip has no
byte-code cache, so the daemon, and every worker it forks (each imports
``pyspark.worker`` after the fork, by design), compiles pyspark's sources again:
measured on the 2-core machine, ``import pyspark.worker`` took 0.84-0.96 CPU s from the
zips and 0.15-0.24 from the installed package. A ``local[N]`` session
(``checker.spark.session``) names this module as ``spark.python.daemon.module``.

A zip is taken off the path only where the installed package is the one that shipped
it: ``pyspark.zip`` inside the installed ``pyspark`` package's own directory (a pip
install, where ``SPARK_HOME`` is that directory), py4j's zip where its name carries the
installed py4j's version. Otherwise (a separate Spark distribution as ``SPARK_HOME``)
the path is left as Spark set it.
"""

from __future__ import annotations

import importlib.util
import runpy
import sys
from importlib.machinery import PathFinder
from pathlib import Path


def _installed(name: str, shadowing: list[str]) -> Path | None:
    """The directory of package ``name`` as found without the ``shadowing`` entries."""
    spec = PathFinder.find_spec(name, [p for p in sys.path if p not in shadowing])
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).resolve().parent


def unshadowed(path: list[str]) -> list[str]:
    """``path`` without the source zips the installed pyspark and py4j make redundant."""
    pyspark_zips = [p for p in path if Path(p).name == "pyspark.zip"]
    py4j_zips = [p for p in path if Path(p).name.startswith("py4j-") and p.endswith(".zip")]
    shadowing = pyspark_zips + py4j_zips
    pyspark_dir = _installed("pyspark", shadowing)
    py4j_dir = _installed("py4j", shadowing)
    version = _version(py4j_dir) if py4j_dir is not None else None
    drop = [
        *(p for p in pyspark_zips if pyspark_dir and Path(p).resolve().is_relative_to(pyspark_dir)),
        *(p for p in py4j_zips if version and Path(p).name == f"py4j-{version}-src.zip"),
    ]
    return [p for p in path if p not in drop]


def _version(py4j_dir: Path) -> str | None:
    """py4j's version as its installed ``version.py`` states it (not imported: that would
    import py4j from wherever the path finds it first)."""
    spec = importlib.util.spec_from_file_location("_py4j_version", py4j_dir / "version.py")
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except OSError:
        return None
    return getattr(module, "__version__", None)


if __name__ == "__main__":
    sys.path[:] = unshadowed(sys.path)
    runpy.run_module("pyspark.daemon", run_name="__main__", alter_sys=True)
