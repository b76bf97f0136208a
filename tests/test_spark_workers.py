"""The Python workers of a local session import pyspark from its installed package, where
its byte-code is cached, not from the source zips Spark puts first on their path
(checker/spark/pydaemon.py); a zip that another Spark installation shipped stays."""

from __future__ import annotations

from pathlib import Path

import py4j
import pyspark

from checker.spark.pydaemon import unshadowed

PYSPARK = Path(pyspark.__file__).resolve().parent
ZIPS = PYSPARK / "python" / "lib"
PY4J_ZIP = str(ZIPS / f"py4j-{py4j.__version__}-src.zip")


def test_a_local_sessions_python_workers_import_the_installed_pyspark(spark) -> None:
    def _imported_from(_: object) -> list[tuple[str, str, list[str]]]:
        import sys

        import py4j
        import pyspark.worker

        zips = [p for p in sys.path if p.endswith(("pyspark.zip", "-src.zip"))]
        return [(pyspark.worker.__file__, py4j.__file__, zips)]

    rows = spark.sparkContext.parallelize(range(2), 2).mapPartitions(_imported_from).collect()
    assert len(rows) == 2
    worker, bridge, zips = rows[0]
    assert Path(worker).resolve().parent == PYSPARK and worker.endswith(".py"), worker
    assert Path(bridge).resolve().parent == Path(py4j.__file__).resolve().parent, bridge
    assert zips == []


def test_the_zips_of_the_installed_pyspark_are_dropped_and_nothing_else() -> None:
    path = [str(ZIPS / "pyspark.zip"), PY4J_ZIP, "/somewhere/else", "/opt/x.zip"]
    assert unshadowed(path) == ["/somewhere/else", "/opt/x.zip"]


def test_a_zip_of_another_spark_installation_stays(tmp_path: Path) -> None:
    other = tmp_path / "spark-4.0.0" / "python" / "lib"
    path = [str(other / "pyspark.zip"), str(other / "py4j-0.10.9.7-src.zip")]
    assert unshadowed(path) == path
