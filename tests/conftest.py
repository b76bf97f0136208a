"""Shared test setup: hypothesis profiles and paths."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from clihelp import Result, run_cli
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def cli(monkeypatch, capsys) -> Callable[..., Result]:
    """``cli(*args, stdin="")``: dcpcheck run in process on ``args`` (see ``clihelp.run_cli``)."""

    def run(*args: object, stdin: str = "") -> Result:
        return run_cli([str(a) for a in args], stdin, monkeypatch, capsys)

    return run


@pytest.fixture(scope="session")
def spark():
    """One embedded Spark session for the whole test run."""
    from checker.spark.session import spark_session

    with spark_session("local[2]", "dcpcheck tests") as session:
        yield session


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory):
    """A Spark standalone master and worker on 127.0.0.1 (tests/sparkcluster.py), one per
    test run, stopped by pid at the end even when a test failed. A test runs dcpcheck
    against ``spark_cluster.url`` in a subprocess (a process has one Spark session) and
    compares with the same command on the shared local session (``spark``): verify,
    durability --engine spark and, when it lands, sweep."""
    import sparkcluster

    cluster = sparkcluster.start(tmp_path_factory.mktemp("spark-cluster"))
    try:
        yield cluster
    finally:
        sparkcluster.stop(cluster)
