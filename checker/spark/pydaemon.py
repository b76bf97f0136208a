"""Spark's Python daemon (``pyspark.daemon``), run with pyspark imported from its installed
package, byte-code cached, instead of from the source zips Spark puts first on the path.

Spark starts its Python workers' daemon with ``SPARK_HOME/python/lib/pyspark.zip`` and
py4j's source zip ahead of everything else on ``PYTHONPATH``. A module in a zip has no
byte-code cache, so the daemon, and every worker it forks (each imports
``pyspark.worker`` after the fork, by design), compiles pyspark's sources again:
measured on the 2-core machine, ``import pyspark.worker`` took 0.84-0.96 CPU s from the
zips and 0.15-0.24 from the installed package. A ``local[N]`` session
(``checker.spark.session``) names this module as ``spark.python.daemon.module``.

An entry is taken off the path only where the installed package is the one that
shipped it: ``pyspark.zip`` and Spark's core jar inside the installed ``pyspark``
package's own directory (a pip install, where ``SPARK_HOME`` is that directory), py4j's
zip where its name carries the installed py4j's version. Otherwise (a separate Spark
distribution as ``SPARK_HOME``) the path is left as Spark set it.
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
    """``path`` without what the installed pyspark and py4j make redundant: their source
    zips, and Spark's jars from the installed pyspark's ``jars/`` (Spark adds its core jar
    for a build that packs pyspark into it; a pip install's holds no Python)."""
    pyspark_zips = [p for p in path if Path(p).name == "pyspark.zip"]
    py4j_zips = [p for p in path if Path(p).name.startswith("py4j-") and p.endswith(".zip")]
    jars = [p for p in path if p.endswith(".jar")]
    shadowing = pyspark_zips + py4j_zips + jars
    pyspark_dir = _installed("pyspark", shadowing)
    py4j_dir = _installed("py4j", shadowing)
    version = _version(py4j_dir) if py4j_dir is not None else None
    drop = [
        *(p for p in pyspark_zips + jars if pyspark_dir and _inside(p, pyspark_dir)),
        *(p for p in py4j_zips if version and Path(p).name == f"py4j-{version}-src.zip"),
    ]
    return [p for p in path if p not in drop]


def _inside(entry: str, directory: Path) -> bool:
    return Path(entry).resolve().is_relative_to(directory)


def _version(py4j_dir: Path) -> str | None:
    """py4j's version as its installed ``version.py`` states it (not imported: that would
    import py4j from wherever the path finds it first). ``importlib.metadata.version``
    would say the same, but its search lists every archive on the path: 160 ms at the
    daemon's start against 3.5 ms for this module's import and ``unshadowed``, measured."""
    spec = importlib.util.spec_from_file_location("_py4j_version", py4j_dir / "version.py")
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except OSError:
        return None
    return getattr(module, "__version__", None)


def _drop_shadowing() -> None:
    """Take the redundant entries off ``sys.path`` and forget their importers: the import
    of this module already searched them, and an importer left in
    ``sys.path_importer_cache`` would still be asked to re-read its archive's whole
    directory whenever a worker's path changes (``importlib.invalidate_caches``, at a task
    whose shipped files are new to the worker): 11.6 ms for ``pyspark.zip``, 54 ms for
    Spark's core jar (two importers), measured."""
    kept = unshadowed(sys.path)
    dropped = tuple(set(sys.path) - set(kept))
    under = tuple(f"{d}/" for d in dropped)
    for key in list(sys.path_importer_cache):
        if isinstance(key, str) and (key in dropped or key.startswith(under)):
            del sys.path_importer_cache[key]
    sys.path[:] = kept


if __name__ == "__main__":
    _drop_shadowing()
    runpy.run_module("pyspark.daemon", run_name="__main__", alter_sys=True)
