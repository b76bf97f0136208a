"""How make test spreads the suite over its workers (tests/conftest.py): the work units."""

from __future__ import annotations

import pytest
from conftest import _LONGEST_UNITS, DESELECTED, ROOT, SPARK_UNITS, uses_spark, work_unit

DOC_TEST = "tests/test_docs_examples.py::test_doc_example_runs_and_prints_what_the_docs_show"


def test_a_modules_tests_are_one_unit_and_a_docs_examples_are_one_unit() -> None:
    assert work_unit("tests/test_x.py::test_a[1]") == "tests/test_x.py"
    assert work_unit("tests/test_x.py::test_b") == "tests/test_x.py"
    vectors_doc = work_unit(f"{DOC_TEST}[docs/vectors.md:253]")
    assert vectors_doc == "tests/test_docs_examples.py[docs/vectors.md]"
    assert work_unit(f"{DOC_TEST}[docs/vectors.md:9]") == vectors_doc
    assert work_unit(f"{DOC_TEST}[README.md:89]") != vectors_doc


def test_every_unit_handed_out_first_still_exists() -> None:
    """A renamed module or doc would silently lose its place at the front of the queue."""
    for unit in _LONGEST_UNITS:
        path, _, doc = unit.partition("[")
        assert (ROOT / path).is_file(), unit
        assert not doc or (ROOT / doc.removesuffix("]")).is_file(), unit


def test_the_spark_units_are_the_units_whose_tests_use_the_shared_session(
    request: pytest.FixtureRequest,
) -> None:
    """A unit missing from SPARK_UNITS would start a JVM on every worker; a unit listed
    without need would crowd the workers that take Spark units."""
    if request.config.stash.get(DESELECTED, False):  # -k, -m: a unit's Spark tests may be out
        pytest.skip("tests were deselected: nothing to compare")
    using = {work_unit(item.nodeid) for item in request.session.items if uses_spark(item)}
    collected = {work_unit(item.nodeid) for item in request.session.items}
    if not collected >= SPARK_UNITS | using:  # a run of some tests only: nothing to compare
        pytest.skip("only part of the suite was collected")
    assert sorted(using - SPARK_UNITS) == [], "add these to SPARK_UNITS (tests/conftest.py)"
    assert sorted(SPARK_UNITS - using) == [], "take these out of SPARK_UNITS (tests/conftest.py)"
