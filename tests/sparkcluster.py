"""A Spark standalone cluster on 127.0.0.1 for the tests: one master, one worker.

Both come from the installed pyspark (``spark-class ...deploy.master.Master`` and
``...deploy.worker.Worker``), bind port 0 (the OS picks free ports: no race
with other runs) and say in their logs where they are. ``stop`` ends them by
pid, the worker's executors first; it runs even when a test failed.

``python tests/sparkcluster.py URL CONF COMMANDS OUT`` (``commands``) runs several
dcpcheck commands in one process and one Spark application on the cluster: the
session is dcpcheck's own (``spark_session``: the packages shipped, an executor
waited for, the start-up chatter filtered), opened once; each command finds it
active, as a command run in process finds the tests' shared local session. A fresh
application costs a driver JVM and an executor JVM (about 12 CPU s); the commands
share one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pyspark
import sparkjvm

SPARK_HOME = Path(pyspark.__file__).resolve().parent
MASTER_URL = re.compile(r"Starting Spark master at (spark://[\d.]+:\d+)")
REGISTERED = re.compile(r"Successfully registered with master")


@dataclass
class Cluster:
    url: str
    master: subprocess.Popen
    worker: subprocess.Popen | None
    logs: Path

    def python_workers(self) -> list[int]:
        """Pids of the executors' Python workers (children of a ``pyspark.daemon``)."""
        daemons = [p for p in _descendants(self.worker.pid) if b"pyspark.daemon" in _cmdline(p)]
        return [c for d in daemons for c in _children(d)]


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def _descendants(pid: int) -> list[int]:
    todo, out = [pid], []
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def cpu_ticks(pid: int) -> int:
    """User + system clock ticks a process has used (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def _wait_for(log: Path, pattern: re.Pattern[str], proc: subprocess.Popen, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        found = pattern.search(text)
        if found:
            return found.group(found.lastindex or 0)
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    raise RuntimeError(f"{log.name}: no {pattern.pattern!r} within {seconds}s:\n{text[-2000:]}")


def _start(role: str, args: list[str], logs: Path) -> subprocess.Popen:
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "PYSPARK_PYTHON": sys.executable}
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    # the master and worker daemons only schedule: the drivers' short-lived JVM options
    env.setdefault("SPARK_DAEMON_JAVA_OPTS", sparkjvm.java_options())
    log = (logs / f"{role}.log").open("wb")
    return subprocess.Popen(
        [str(SPARK_HOME / "bin" / "spark-class"), *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def _daemon(main: str, *more: str) -> list[str]:
    """A Spark daemon's arguments: on 127.0.0.1, ports chosen by the OS."""
    return [f"org.apache.spark.deploy.{main}", "--host", "127.0.0.1", "--port", "0",
            "--webui-port", "0", *more]  # fmt: skip


def start(logs: Path, cores: int = 2, memory: str = "2g", seconds: float = 120) -> Cluster:
    logs.mkdir(parents=True, exist_ok=True)
    master = _start("master", _daemon("master.Master"), logs)
    cluster = Cluster("", master, None, logs)
    try:
        cluster.url = _wait_for(logs / "master.log", MASTER_URL, master, seconds)
        worker = _daemon("worker.Worker", "--cores", str(cores), "--memory", memory)
        worker += ["--work-dir", str(logs / "work"), cluster.url]
        cluster.worker = _start("worker", worker, logs)
        _wait_for(logs / "worker.log", REGISTERED, cluster.worker, seconds)
    except BaseException:
        stop(cluster)
        raise
    return cluster


def _end(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def stop(cluster: Cluster) -> None:
    """End the worker (and any executor it left), then the master: by pid."""
    leftovers = _descendants(cluster.worker.pid) if cluster.worker is not None else []
    _end(cluster.worker)
    for pid in leftovers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _end(cluster.master)


BEGIN, END = "=== dcpcheck command", "=== dcpcheck exit"


def commands(url: str, conf: dict[str, str], argvs: list[list[str]], out: Path) -> None:
    """Each of ``argvs`` through ``checker.cli.main`` in one Spark session on ``url`` (with
    ``conf``), in order: command N's stdout to ``out/N.out``; its stderr between the lines
    ``BEGIN N`` and ``END N CODE`` on this process's stderr, as it is written."""
    from contextlib import redirect_stdout

    from checker.cli import main
    from checker.spark.session import spark_session

    with spark_session(url, "dcpcheck tests on the cluster", conf):
        for n, argv in enumerate(argvs):
            print(f"{BEGIN} {n}", file=sys.stderr, flush=True)
            with (out / f"{n}.out").open("w") as stdout, redirect_stdout(stdout):
                code = main(argv)
            print(f"{END} {n} {code}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    url, conf, argvs, out = sys.argv[1:]
    commands(url, json.loads(conf), json.loads(argvs), Path(out))
