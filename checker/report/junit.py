"""Results as JUnit XML, for CI systems: one testcase per (rules, consumer, property),
and per (preset, ack rule, branch rule, property) of the durability model.

A testcase passes when its verdict is the expected one (a deliberately
broken variant that is found violated passes); it fails on any other
verdict, and is an error when the solver answered unknown or a
counterexample was not confirmed by the reference implementation.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from checker.atomic import write_text_atomic
from checker.check import CheckResult, Verdict
from checker.durability import DurabilityResult
from checker.explore import Verdict as ClusterVerdict
from checker.report.durability import expected_of

__all__ = ["write_junit"]


def write_junit(
    results: list[CheckResult],
    expected: dict,
    path: str | Path,
    name: str = "dcpcheck",
    durability: Sequence[DurabilityResult] = (),
) -> Path:
    suite = ET.Element("testsuite", name=name, tests=str(len(results) + len(durability)))
    failures = errors = 0
    total = 0.0
    for r in results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"dcpcheck.{r.rules}.{r.consumer}",
            name=r.property,
            time=f"{r.seconds:.3f}",
        )
        total += r.seconds
        want = expected.get((r.rules, r.consumer, r.property))
        detail = f"{r.verdict.value} within {r.bounds.describe()}"
        if r.verdict is Verdict.UNKNOWN or (r.replay is not None and not r.replay.confirmed):
            errors += 1
            message = r.note if r.verdict is Verdict.UNKNOWN else f"harness bug: {r.replay.detail}"  # type: ignore[union-attr]
            ET.SubElement(case, "error", message=message).text = detail
        elif want is not None and want != r.verdict.value:
            failures += 1
            ET.SubElement(
                case, "failure", message=f"expected {want}, got {r.verdict.value}"
            ).text = detail
        ET.SubElement(case, "system-out").text = detail
    for d in durability:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"dcpcheck.durability.{d.preset}.{d.ack_rule}.{d.branch_rule}",
            name=d.property.id,
            time=f"{d.exploration.seconds:.3f}",
        )
        total += d.exploration.seconds
        want = expected_of(d) or "holds"
        detail = f"{d.verdict.value} within {d.bounds.describe()} ({d.exploration.states} states)"
        if d.verdict is ClusterVerdict.UNKNOWN:
            errors += 1
            ET.SubElement(case, "error", message=f"unknown: {d.exploration.stopped}").text = detail
        elif d.replay is not None and not d.confirmed:
            errors += 1
            message = f"harness bug: {d.replay.detail}"
            ET.SubElement(case, "error", message=message).text = detail
        elif want != d.verdict.value:
            failures += 1
            ET.SubElement(
                case, "failure", message=f"expected {want}, got {d.verdict.value}"
            ).text = detail
        ET.SubElement(case, "system-out").text = detail
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("time", f"{total:.3f}")
    text = ET.tostring(suite, encoding="unicode")
    return write_text_atomic(path, '<?xml version="1.0" encoding="UTF-8"?>\n' + text + "\n")
