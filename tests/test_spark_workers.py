"""The Python workers of a local session import pyspark from its installed package, where
its byte-code is cached, not from the source zips Spark puts first on their path
(checker/spark/pydaemon.py); a zip that another Spark installation shipped stays."""

from __future__ import annotations

import os
from pathlib import Path

import py4j
import pyspark
import pytest
import sparkjvm

from checker.spark.pydaemon import unshadowed

PYSPARK = Path(pyspark.__file__).resolve().parent
ZIPS = PYSPARK / "python" / "lib"
PY4J_ZIP = str(ZIPS / f"py4j-{py4j.__version__}-src.zip")


def test_a_local_sessions_python_workers_import_the_installed_pyspark(spark) -> None:
    def imported_from(_: object) -> list[tuple[str, str, list[str], list[str]]]:
        import sys
        import zipimport

        import py4j
        import pyspark.worker

        archives = [p for p in sys.path if p.endswith((".zip", ".jar")) and "pyspark" in p]
        importers = [  # each would re-read its archive at every importlib.invalidate_caches
            str(k)
            for k, v in sys.path_importer_cache.items()
            if isinstance(v, zipimport.zipimporter) and "pyspark" in str(k)
        ]
        return [(pyspark.worker.__file__, py4j.__file__, archives, importers)]

    rows = spark.sparkContext.parallelize(range(2), 2).mapPartitions(imported_from).collect()
    assert len(rows) == 2
    worker, bridge, archives, importers = rows[0]
    assert Path(worker).resolve().parent == PYSPARK and worker.endswith(".py"), worker
    assert Path(bridge).resolve().parent == Path(py4j.__file__).resolve().parent, bridge
    assert archives == [] and importers == []


def test_the_archives_of_the_installed_pyspark_are_dropped_and_nothing_else() -> None:
    core = str(PYSPARK / "jars" / "spark-core_2.13-4.3.0.jar")
    path = [str(ZIPS / "pyspark.zip"), PY4J_ZIP, core, "/somewhere/else", "/opt/x.zip", "/a.jar"]
    assert unshadowed(path) == ["/somewhere/else", "/opt/x.zip", "/a.jar"]


def test_a_zip_of_another_spark_installation_stays(tmp_path: Path) -> None:
    other = tmp_path / "spark-4.0.0" / "python" / "lib"
    jar = str(tmp_path / "spark-4.0.0" / "jars" / "spark-core_2.13-4.0.0.jar")
    path = [str(other / "pyspark.zip"), str(other / "py4j-0.10.9.7-src.zip"), jar]
    assert unshadowed(path) == path


def test_the_shared_sessions_jvm_maps_the_class_archive_make_test_wrote(spark) -> None:
    """make test names a class-data archive (tests/sparkjvm.py) that every Spark JVM of the
    run maps; the shared session's JVM is checked here."""
    variable = sparkjvm.ARCHIVE_VARIABLE
    if variable not in os.environ:
        pytest.skip(f"{variable} not set: make test writes the archive and sets it")
    shared = sparkjvm.archive()
    assert shared is not None, f"{variable}: no file {os.environ[variable]}"
    jvm = spark.sparkContext._gateway.proc.pid
    assert str(shared) in Path(f"/proc/{jvm}/maps").read_text()
