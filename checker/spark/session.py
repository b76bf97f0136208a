"""One Spark session: embedded (``local[*]``) by default, any master URL otherwise.

For a non-local master the ``spec`` and ``checker`` packages are zipped and
shipped to the executors with ``addPyFile``, so workers need only Python,
pyspark and dcpcheck's dependencies (z3-solver, tabulate, hypothesis).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from spec.errors import InvalidInput

__all__ = ["spark_session"]

_PACKAGES = ("spec", "checker")
LOG4J = (Path(__file__).resolve().parent / "log4j2.properties").as_uri()


def _zip_packages() -> str:
    root = Path(__file__).resolve().parent.parent.parent
    staging = Path(tempfile.mkdtemp(prefix="dcpcheck-pyfiles-"))
    for name in _PACKAGES:
        shutil.copytree(
            root / name, staging / "src" / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    return shutil.make_archive(str(staging / "dcpcheck"), "zip", staging / "src")


def spark_session(master: str = "local[*]", app: str = "dcpcheck"):  # type: ignore[no-untyped-def]
    """The active session if there is one (tests share one), else a new one.

    Returns ``(session, created)``; stop the session only if ``created``.
    """
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise InvalidInput(
            "java", "not found: Spark needs Java 17 or newer (install it or set JAVA_HOME)"
        )
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    builder = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.python.worker.reuse", "true")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG4J}")
        .config("spark.executor.extraJavaOptions", f"-Dlog4j2.configurationFile={LOG4J}")
    )
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    if not master.startswith("local"):
        session.sparkContext.addPyFile(_zip_packages())
    return session, True
