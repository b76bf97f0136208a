"""Shared test setup: hypothesis profiles, paths, fixtures, and how ``make test`` spreads the
tests over parallel workers (pytest-xdist, ``-n``; each worker is a process with its own
session fixtures, so its own Spark JVM)."""

from __future__ import annotations

import gc
import os
import re
import signal
import sys
import warnings
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import cputime
import pytest
import sparkjvm
from clihelp import Result, run_cli
from hypothesis import HealthCheck, settings

import checker.spark.session as sessions

ROOT = Path(__file__).resolve().parent.parent
_LAUNCH = sessions._launch  # the real JVM launch (one_jvm_per_worker refuses the others)
DATA = Path(__file__).resolve().parent / "data"

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# ``python3`` in a command the tests run (a humpty or jsonl target, an adapter, a doc's
# shell example) is the project's interpreter, as in a shell with the venv activated: the
# machine's own python3 may load site hooks at every start (0.14 CPU s against 0.02 here,
# a replay of the vectors through a Python target 7.1 -> 2.8 CPU s).
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])

# Every Spark driver the tests start, subprocesses included, takes the settings of
# tests/spark-conf/spark-defaults.conf (short-lived JVMs: the client JIT and the serial
# collector; see that file) and the class-data archive make test writes (tests/sparkjvm.py).
os.environ.setdefault("PYSPARK_SUBMIT_ARGS", sparkjvm.submit_args())


# Python's cyclic collector in a pytest worker: the worker lives the whole run and holds
# every module, the collected tests and what the tests cache, so a full collection scans a
# large heap. Collections counted (gc.callbacks) over test_engines_agree, test_induction,
# test_diff_rules, test_rules_vs_reference and test_vectors_generate in one process:
# 5.6-6.9 CPU s in 7,300 young, 660 middle and 45 full collections with the default
# thresholds; 1.5-2.0 s with these, the heap as collected frozen out of later full
# collections. Garbage in a cycle waits longer for its collection; nothing else changes.
gc.set_threshold(50_000, 20, 10)


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()


def pytest_configure(config: pytest.Config) -> None:
    """``DCPCHECK_TEST_CPU=FILE``: each test's CPU seconds (whole process tree) to FILE."""
    cputime.register(config)


DESELECTED = pytest.StashKey[bool]()  # -k or -m left some collected tests out of the run


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        items[0].config.stash[DESELECTED] = True


@pytest.fixture(autouse=True)
def sigint_handler_restored(request):
    """Each test ends with the SIGINT handler it started with. A test (or in-process
    command) that leaves another one behind would change what later tests in this worker
    see (a Z3 call runs in a helper thread only while SIGINT reaches Python): it is put
    back and the test named in a warning."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before and before is not None:
        signal.signal(signal.SIGINT, before)
        warnings.warn(f"{request.node.nodeid} left SIGINT handled by {after!r}", stacklevel=1)


@pytest.fixture
def cli(monkeypatch, capsys) -> Callable[..., Result]:
    """``cli(*args, stdin="")``: dcpcheck run in process on ``args`` (see ``clihelp.run_cli``)."""

    def run(*args: object, stdin: str = "") -> Result:
        return run_cli([str(a) for a in args], stdin, monkeypatch, capsys)

    return run


@pytest.fixture(scope="session")
def spark():
    """One embedded Spark session for the whole test run."""
    with real_launch(), sessions.spark_session("local[2]", "dcpcheck tests") as session:
        yield session


@pytest.fixture(autouse=True)
def one_jvm_per_worker(request, monkeypatch):
    """A test that runs a Spark command in process takes the shared ``spark`` fixture:
    without it the command would start (and stop) a JVM of its own, 10-20 CPU s each
    time. Such a launch fails the test, naming the fixture to take."""
    if "spark" in request.fixturenames:
        return

    def refuse(conf):
        pytest.fail(
            f"{request.node.nodeid} starts a Spark JVM of its own: take the session-scoped "
            f"'spark' fixture (tests/conftest.py), or --no-spark where Spark is not the point"
        )

    monkeypatch.setattr(sessions, "_launch", refuse)


@contextmanager
def real_launch():
    """The shared session starts with the real launch, also from inside a test that asks
    for the fixture late (``request.getfixturevalue``, the doc examples)."""
    patched = sessions._launch
    sessions._launch = _LAUNCH
    try:
        yield
    finally:
        sessions._launch = patched


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory):
    """A Spark standalone master and worker on 127.0.0.1 (tests/sparkcluster.py), one per
    test run, stopped by pid at the end even when a test failed. A test runs dcpcheck
    against ``spark_cluster.url`` in a subprocess (a process has one Spark session) and
    compares with the same command on the shared local session (``spark``): verify,
    durability --engine bfs-spark and, when it lands, sweep."""
    import sparkcluster

    cluster = sparkcluster.start(tmp_path_factory.mktemp("spark-cluster"))
    try:
        yield cluster
    finally:
        sparkcluster.stop(cluster)


# How make test spreads the tests over its workers. A work unit runs in one worker, in
# collection order: a doc's examples (a later one may use what an earlier one wrote in the
# doc's scratch copy, tests/test_docs_examples.py) and a test module (its module-scoped
# fixtures and the results its helpers cache are then computed once per run, not once per
# worker). The units that take longest start first, so the run does not end with one
# worker busy and the other idle.
_DOC_EXAMPLE = re.compile(
    r"^(tests/test_docs_examples\.py)::test_doc_example_runs\w*\[(.+?):\d+\]$"
)
# CPU seconds (the whole process tree: DCPCHECK_TEST_CPU) of the longest units in one make
# test run (2026-11-28, benchmarks/RESULTS.md), subprocess-bound units (the installed wheel,
# pasted reproduce lines) raised to their wall time alone: only their order depends on these
# figures, so a stale one costs balance, never a result. Units not named here follow, the ones
# with more tests first; a long unit left out starts last and ends the run alone.
_LONGEST_UNITS = {
    "tests/test_installed_package.py": 60,
    "tests/test_spark_cluster.py": 55,
    "tests/test_vectors_corpus.py": 50,
    "tests/test_docs_examples.py[docs/vectors.md]": 46,
    "tests/test_docs_examples.py[README.md]": 44,
    "tests/test_reproduce_lines.py": 40,
    "tests/test_interrupt.py": 39,
    "tests/test_replay_judges_answers.py": 30,
    "tests/test_induction.py": 29,
    "tests/test_diff_rules.py": 27,
    "tests/test_docs_examples.py[docs/clients.md]": 24,
    "tests/test_verify_spark.py": 22,
    "tests/test_client_adapters.py": 20,
    "tests/test_durability_reference.py": 20,
    "tests/test_vectors_guarantee.py": 20,
    "tests/test_rules_vs_reference.py": 19,
    "tests/test_durability_verdicts.py": 18,
    "tests/test_docs_examples.py[docs/authoring-consumers.md]": 18,
    "tests/test_engines_agree.py": 16,
    "tests/test_one_check.py": 16,
    "tests/test_durability_spark.py": 15,
    "tests/test_cluster_symmetry.py": 14,
    "tests/test_review.py": 13,
    "tests/test_vectors_generate.py": 12,
}


# The units whose tests use the shared Spark session (the ``spark`` fixture, or a doc's
# Spark example): handed to at most ``spark_workers(n)`` of the workers, so the others
# never start a JVM (a session's start and first jobs cost about 11 CPU s, measured).
# test_work_units.py fails when this list and the tests disagree.
SPARK_UNITS = frozenset(
    {
        "tests/test_client_adapters.py",
        "tests/test_clients_cli.py",
        "tests/test_docs_examples.py[README.md]",
        "tests/test_docs_examples.py[docs/authoring-consumers.md]",
        "tests/test_docs_examples.py[docs/clients.md]",
        "tests/test_docs_examples.py[docs/client-targets.md]",
        "tests/test_docs_examples.py[docs/durability.md]",
        "tests/test_durability_spark.py",
        "tests/test_exhaustive_spark.py",
        "tests/test_review.py",
        "tests/test_spark_cluster.py",
        "tests/test_spark_workers.py",
        "tests/test_split_proofs.py",
        "tests/test_sweep_cli.py",
        "tests/test_verify_spark.py",
    }
)


def spark_workers(workers: int) -> int:
    """How many of ``workers`` take Spark units: two at most (the Spark units are about a
    quarter of the suite's time, too much for one worker)."""
    return min(workers, 2)


def uses_spark(item: pytest.Item) -> bool:
    """Whether a collected test uses the shared Spark session."""
    example = getattr(getattr(item, "callspec", None), "params", {}).get("example")
    return "spark" in getattr(item, "fixturenames", ()) or bool(getattr(example, "on_spark", False))


def work_unit(nodeid: str) -> str:
    """The work unit a test belongs to: tests of one unit run in one worker, in order."""
    doc = _DOC_EXAMPLE.match(nodeid)
    if doc:
        return f"{doc.group(1)}[{doc.group(2)}]"
    return nodeid.split("::", 1)[0]


def pytest_xdist_make_scheduler(config, log):
    """xdist's load-by-scope scheduler with ``work_unit`` as the scope (its own grouping,
    ``--dist loadgroup``, does not group under pytest 9.2: it rewrites ``item._nodeid``,
    which pytest 9.2 no longer reads), handing out the longest units first."""
    if config.getvalue("dist") not in ("load", "loadscope", "loadfile", "loadgroup"):
        return None
    from collections import OrderedDict

    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _assign_work_unit(self, node):
            if not self.ordered:  # the first assignment: every unit is in the queue
                units = sorted(
                    self.workqueue.items(),
                    key=lambda unit: (-_LONGEST_UNITS.get(unit[0], 0), -len(unit[1])),
                )
                self.workqueue = OrderedDict(units)
                self.ordered = True
            spark_nodes = self.nodes[: spark_workers(len(self.nodes))]
            if node not in spark_nodes:  # the first unit without Spark, if one is left
                other = next((u for u in self.workqueue if u not in SPARK_UNITS), None)
                if other is not None:
                    self.workqueue.move_to_end(other, last=False)
            super()._assign_work_unit(node)

    return ByWorkUnit(config, log)
