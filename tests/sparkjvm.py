"""The Spark JVMs the tests start: their options, and the class-data archive they share.

Every JVM of a test run (the shared sessions, each dcpcheck subprocess's driver, the
standalone cluster's master, worker and executors) takes the options of
tests/spark-conf/spark-defaults.conf: short-lived JVMs that schedule while Python works.
Drivers get them through ``PYSPARK_SUBMIT_ARGS`` (``submit_args``, set by conftest.py for
the run and inherited by subprocesses), the cluster's daemons through
``SPARK_DAEMON_JAVA_OPTS``.

A JVM spends much of its start loading and linking Spark's classes. ``make test`` first
writes a class-data archive of them (``python tests/sparkjvm.py ARCHIVE``: a small Spark
run whose JVM dumps the classes it loaded when it exits, JDK 17's dynamic CDS) and
names it in ``DCPCHECK_TEST_SPARK_CLASSES``; every JVM then maps the classes from it.
Measured on the 2-core machine, a local[2] session started, one RDD job and one
Parquet write: 11.6-12.0 CPU s of the process tree without it, 7.9-8.0 with an archive that
held the DataFrame and Parquet classes too (today's leaves them out: ``_exercise``).
An archive a JVM cannot use (another JDK, other jars, another class path) is ignored
silently (``-Xlog:cds=off``): that JVM starts as it would without one. Spark keeps its
configuration directory first on a JVM's class path, and an archive is only written for
a class path without non-empty directories: so the tests do not point
``SPARK_CONF_DIR`` at tests/spark-conf/, they hand its settings over as above.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

SPARK_DEFAULTS = Path(__file__).resolve().parent / "spark-conf" / "spark-defaults.conf"
ARCHIVE_VARIABLE = "DCPCHECK_TEST_SPARK_CLASSES"  # names the archive


def _defaults() -> dict[str, str]:
    settings = {}
    for line in SPARK_DEFAULTS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition(" ")
            settings[key] = value.strip()
    return settings


def archive() -> Path | None:
    """The class-data archive this run's JVMs map, if ``make test`` wrote one."""
    named = os.environ.get(ARCHIVE_VARIABLE)
    return Path(named) if named and Path(named).is_file() else None


def _with_archive(options: str) -> str:
    shared = archive()
    if shared is None:
        return options
    return f"{options} -XX:SharedArchiveFile={shared} -Xlog:cds=off,cds+dynamic=off"


def java_options(key: str = "spark.driver.defaultJavaOptions") -> str:
    """The JVM options ``key`` has in spark-defaults.conf, with the archive's if any."""
    return _with_archive(_defaults()[key])


def submit_args() -> str:
    """``PYSPARK_SUBMIT_ARGS`` giving a driver the tests' settings (pyspark appends it to
    the ``--conf`` pairs of the session's own settings)."""
    args: list[str] = []
    for key, value in _defaults().items():
        value = _with_archive(value) if key.endswith("JavaOptions") else value
        args += ["--conf", f"{key}={value}"]
    return shlex.join([*args, "pyspark-shell"])


def _exercise() -> None:
    """What the archive's JVM runs: a session's start, an RDD job through Python workers,
    and its stop, the part of every Spark JVM's start-up the tests' JVMs share. Classes only
    DataFrames and Parquet load are left out: with them the archive took half as long again
    to write (76.7 s against 50.3 at load 4; 189 MB against 124) for 0.4-1.1 CPU s more off
    a JVM that uses them (a bfs-spark search: 4.8-4.9 CPU s of its JVM with the whole
    archive, 5.3-5.9 with this one, 8.2-9.2 with none; benchmarks/RESULTS.md, 2026-11-29)."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.master("local[2]").getOrCreate()
    session.sparkContext.parallelize(range(1000), 2).map(lambda n: (n % 7, n)).reduceByKey(
        max
    ).collect()
    session.stop()


def write(target: Path) -> None:
    """Run ``_exercise`` in a JVM that writes its classes to ``target`` when it exits."""
    import pyspark

    partial = target.with_name(target.name + ".part")
    partial.unlink(missing_ok=True)
    options = f"{_defaults()['spark.driver.defaultJavaOptions']} -XX:ArchiveClassesAtExit={partial}"
    env = {k: v for k, v in os.environ.items() if k not in ("SPARK_CONF_DIR", ARCHIVE_VARIABLE)}
    env |= {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    submit = Path(pyspark.__file__).resolve().parent / "bin" / "spark-submit"
    ran = subprocess.run(
        [str(submit), "--driver-java-options", options, __file__, "--exercise"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if ran.returncode != 0:  # Spark's log is long: its end says what failed
        tail = "\n".join(ran.stderr.splitlines()[-20:])
        sys.exit(f"tests/sparkjvm.py: spark-submit exited {ran.returncode}:\n{tail}")
    partial.replace(target)


if __name__ == "__main__":
    if sys.argv[1:] == ["--exercise"]:
        _exercise()
    elif len(sys.argv) == 2:
        write(Path(sys.argv[1]).resolve())
    else:
        sys.exit("usage: python tests/sparkjvm.py ARCHIVE")
