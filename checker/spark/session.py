"""One Spark session: embedded (``local[*]``) by default, any master URL otherwise.

``spark_session(master, app, conf, executor_wait)`` is a context manager.
Before anything starts it checks the master URL (its form, and for
``spark://`` that something listens there): a bad one is one line and exit
2 within seconds, not a minute of retries. It launches the JVM with its
stderr read through a filter, so Spark's and the JVM's start-up chatter
(``Setting default log level``, the incubator-module warning) never reaches
the user while real errors do. On a cluster it ships the ``spec`` and
``checker`` packages (zipped, ``addPyFile``) and waits up to
``executor_wait`` seconds for an executor (none: one line, exit 3). On exit
it stops the session it created, ends its JVM and removes the zips.

Ctrl-C (``checker.interrupt``): the JVM runs in a session of its own, so the
terminal's SIGINT reaches neither it nor the Python workers it forks (whose
KeyboardInterrupt tracebacks would flood stderr); pyspark's own SIGINT handler
is replaced by dcpcheck's again; from the interrupt on, the JVM's stderr and
py4j's log are muted. ``interruptible(spark, action)`` runs a blocking action
(``collect``) in a helper thread, so that Ctrl-C never lands inside a py4j call
(which leaves its connection unusable): the main thread cancels the jobs and
raises ``KeyboardInterrupt`` once the action has returned.

Executors need Python >= 3.11 with dcpcheck's dependencies: pyspark with
its ``sql`` extra (pyarrow, pandas, numpy), z3-solver, tabulate and
hypothesis (docs/spark.md).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, TypeVar

from checker import interrupt
from checker.spark.shipping import forget
from spec.errors import InvalidInput, Unavailable

if TYPE_CHECKING:
    from py4j.java_gateway import JavaGateway
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

__all__ = ["LOCAL", "check_master", "interruptible", "spark_session"]

T = TypeVar("T")

LOCAL = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?$")
_CLUSTER = re.compile(r"(spark://[^/\s]+|yarn|k8s://\S+)$")
_PACKAGES = ("spec", "checker")
LOG4J = (Path(__file__).resolve().parent / "log4j2.properties").as_uri()
# On local[N] the Python workers' daemon imports pyspark from its installed package, not
# from the source zips Spark puts first on their path (checker/spark/pydaemon.py): about
# 0.7 CPU s less for each Python worker a session starts.
_LOCAL_DAEMON = {"spark.python.daemon.module": "checker.spark.pydaemon"}
# What the JVM and Spark print at start-up whatever the log configuration says.
CHATTER = (
    b"WARNING: Using incubator modules",
    b"Setting default log level to",
    b"To adjust logging level use sc.setLogLevel",
)
PROBE_SECONDS = 5.0


def check_master(master: str) -> None:
    """A master URL Spark can use and, for ``spark://``, a master listening there."""
    if LOCAL.match(master):
        return
    if not _CLUSTER.match(master):
        raise InvalidInput(
            "--master",
            f"{master!r} is not a Spark master URL; use local[*], local[N], "
            f"spark://HOST:PORT, yarn or k8s://https://HOST:PORT",
        )
    if master.startswith("spark://"):
        reasons = []
        for address in master[len("spark://") :].split(","):
            host, _, port = address.rpartition(":")
            if not host or not port.isdigit():
                raise InvalidInput("--master", f"{master!r}: expected spark://HOST:PORT")
            try:
                with socket.create_connection((host, int(port)), timeout=PROBE_SECONDS):
                    return
            except OSError as exc:
                reasons.append(f"{address}: {exc.strerror or exc}")
        raise InvalidInput(
            "--master",
            f"no Spark master answers at {master} ({'; '.join(reasons)}); start one "
            f"(docs/spark.md) or give another --master",
        )


def _forward(stream: IO[bytes], target: int) -> None:
    """Copy the JVM's stderr to ours, line by line, without the start-up chatter (and
    nothing once Ctrl-C has stopped the command)."""
    for line in iter(stream.readline, b""):
        if not line.startswith(CHATTER) and not interrupt.stopping():
            os.write(target, line)


class _FromPy4j(logging.Filter):
    """Drops the records py4j's modules log on the root logger: ``GatewayClient`` calls
    ``logging.exception("Exception while sending command.")`` (which also gives the root
    logger a stderr handler) when a call meets a JVM that is ending, as after Ctrl-C or
    an error stopped the session; the exception itself reaches dcpcheck, which reports
    it, so the log is only a traceback on stderr."""

    def filter(self, record: logging.LogRecord) -> bool:
        return f"{os.sep}py4j{os.sep}" not in record.pathname


_PY4J_ON_ROOT = _FromPy4j()


def _quiet_py4j() -> None:
    """py4j's own logger and its records on the root logger stay off stderr, from the
    start (the connections a cancelled job breaks after Ctrl-C are logged there too)."""
    py4j = logging.getLogger("py4j")
    py4j.propagate = False
    if not py4j.handlers:
        py4j.addHandler(logging.NullHandler())
    if _PY4J_ON_ROOT not in logging.getLogger().filters:
        logging.getLogger().addFilter(_PY4J_ON_ROOT)


def _launch(conf: SparkConf) -> JavaGateway:
    """The JVM gateway, its stderr filtered (pyspark's ``popen_kwargs`` hook), in a
    process session of its own: the terminal's Ctrl-C is dcpcheck's to handle."""
    from pyspark.java_gateway import launch_gateway

    popen = {"stderr": subprocess.PIPE, "start_new_session": True}
    gateway: JavaGateway = launch_gateway(conf, popen_kwargs=popen)  # type: ignore[no-untyped-call]  # pyspark leaves it untyped
    if gateway.proc is not None:
        stderr = sys.__stderr__.fileno() if sys.__stderr__ is not None else 2
        forward = threading.Thread(target=_forward, args=(gateway.proc.stderr, stderr), daemon=True)
        forward.start()
    return gateway


def _zip_packages(staging: Path) -> str:
    root = Path(__file__).resolve().parent.parent.parent
    for name in _PACKAGES:
        shutil.copytree(
            root / name, staging / "src" / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    return shutil.make_archive(str(staging / "dcpcheck"), "zip", staging / "src")


def _executors(sc: SparkContext) -> int:
    """Executors registered now (the driver is not one)."""
    return max(0, len(sc._jsc.sc().statusTracker().getExecutorInfos()) - 1)


def wait_for_executors(sc: SparkContext, master: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while _executors(sc) == 0:
        if time.monotonic() >= deadline:
            raise Unavailable(
                f"no Spark executor registered with {master} within {seconds:g}s: are workers "
                f"running, with the cores and memory asked for? (--executor-wait S waits longer)"
            )
        time.sleep(0.2)


# A driver JVM that only schedules tasks while Python workers do the work (``dcpcheck
# review`` on local[N]): the client JIT compiler alone and the serial collector. Measured
# on the 2-core machine: a session's start-up took 9.9 JVM CPU s with these, 17.2 without.
# Then no verification of the bytecode of the jars on its class path (Spark's own, as
# installed; the JDK's classes are not verified either) and no hsperfdata file: 1.56 CPU s
# less a run (dcpcheck durability on local[2], 100,000 states, four pairs of runs
# alternating: 20.0-22.0 against 18.3-19.7 CPU s of the process tree, 2026-11-28). None of
# them changes a result.
SCHEDULER_JVM = (
    "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    " -XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote -XX:-UsePerfData"
)


def scheduler_jvm(conf: Mapping[str, str]) -> dict[str, str]:
    """``conf`` with ``SCHEDULER_JVM`` among the driver's JVM options, unless the user
    set those options (``--conf spark.driver.extraJavaOptions=...``)."""
    key = "spark.driver.extraJavaOptions"
    if key in conf:
        return dict(conf)
    return {**conf, key: f"-Dlog4j2.configurationFile={LOG4J} {SCHEDULER_JVM}"}


@contextmanager
def spark_session(
    master: str = "local[*]",
    app: str = "dcpcheck",
    conf: Mapping[str, str] | None = None,
    executor_wait: float = 60.0,
) -> Iterator[SparkSession]:
    """The active session if there is one (tests share one), else a new one, stopped
    (and its shipped files removed) when the block ends."""
    from pyspark.sql import SparkSession

    check_master(master)
    active = SparkSession.getActiveSession()
    if active is not None:
        yield active
        return
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise InvalidInput(
            "java", "not found: Spark needs Java 17 or newer (install it or set JAVA_HOME)"
        )
    if LOCAL.match(master):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark import SparkConf, SparkContext

    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.python.worker.reuse": "true",
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J}",
        "spark.executor.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J}",
        # not on a cluster: an executor there may not have dcpcheck installed
        **(_LOCAL_DAEMON if LOCAL.match(master) else {}),
        **(conf or {}),
    }
    spark_conf = SparkConf().setMaster(master).setAppName(app).setAll(list(settings.items()))
    staging = Path(tempfile.mkdtemp(prefix="dcpcheck-pyfiles-"))
    sc: SparkContext | None = None
    gateway: JavaGateway | None = None
    _quiet_py4j()
    try:
        # Ctrl-C waits until the JVM is up (half-launched it would outlive us); the block
        # ends with dcpcheck's SIGINT handler again, not the one SparkContext installs
        # (which calls the JVM from a signal handler).
        with interrupt.deferred():
            gateway = _launch(spark_conf)
            sc = SparkContext(conf=spark_conf, gateway=gateway)
        sc.setLogLevel("ERROR")
        session = SparkSession(sc)
        if not LOCAL.match(master):
            sc.addPyFile(_zip_packages(staging))
            wait_for_executors(sc, master, executor_wait)
        yield session
    finally:
        with interrupt.uninterruptible():
            _stop(sc, gateway)
            shutil.rmtree(staging, ignore_errors=True)
            forget()


def _stop(sc: SparkContext | None, gateway: JavaGateway | None) -> None:
    """Stop the context and end the JVM this session launched (it would otherwise live
    until this process exits, or longer when a cancelled job holds it)."""
    from pyspark import SparkContext

    try:
        if sc is not None:
            sc.stop()
    except Exception:
        if not interrupt.stopping():
            raise
    finally:
        proc = getattr(gateway, "proc", None)
        if proc is not None:
            SparkContext._gateway = SparkContext._jvm = None
            _end(proc)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """End the JVM's process group (``spark-submit``'s shell and the java it starts)."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, None)):
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def interruptible(spark: SparkSession, action: Callable[[], T]) -> T:
    """``action()`` (a blocking Spark action) in a helper thread; Ctrl-C in the main
    thread cancels every job and raises ``KeyboardInterrupt`` once the action is over."""
    return interrupt.in_helper_thread(
        action, spark.sparkContext.cancelAllJobs, 0.5, "dcpcheck-spark-action"
    )
