"""Results as JUnit XML, for CI systems: one testcase per check, of either model.

A testcase passes when its verdict is the expected one (a deliberately
broken variant that is found violated passes; without a recorded verdict,
``holds`` is expected); it fails on any other verdict, and is an error when
the verdict is unknown or a counterexample was not confirmed by the
reference implementation.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.result import Result, Verdict

__all__ = ["write_junit"]


def _classname(r: Result) -> str:
    parts = ["dcpcheck"] + (["durability", r.preset or "custom"] if r.model == "cluster" else [])
    return ".".join([*parts, *r.subject.values()])


def write_junit(results: Sequence[Result], path: str | Path, name: str = "dcpcheck") -> Path:
    suite = ET.Element("testsuite", name=name, tests=str(len(results)))
    failures = errors = 0
    total = 0.0
    for r in results:
        case = ET.SubElement(
            suite, "testcase", classname=_classname(r), name=r.property, time=f"{r.seconds:.3f}"
        )
        total += r.seconds
        want = r.expected or "holds"
        detail = f"{r.verdict.value} within {r.bounds.describe()}"
        if r.stats.states is not None:
            detail += f" ({r.stats.states} states)"
        if r.verdict is Verdict.UNKNOWN:
            errors += 1
            ET.SubElement(case, "error", message=f"unknown: {r.reason}").text = detail
        elif r.replay is not None and r.harness_bug:
            errors += 1
            message = f"harness bug: {r.replay.detail}"
            ET.SubElement(case, "error", message=message).text = detail
        elif want != r.verdict.value:
            failures += 1
            message = f"expected {want}, got {r.verdict.value}"
            ET.SubElement(case, "failure", message=message).text = detail
        ET.SubElement(case, "system-out").text = detail
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("time", f"{total:.3f}")
    text = ET.tostring(suite, encoding="unicode")
    return write_text_atomic(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n")
