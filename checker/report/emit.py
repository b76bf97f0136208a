"""One report sequence for every command: files, text, table, JSON, JUnit, HTML, exit code.

``Outputs`` says what a command reports and where; ``emit(results,
outputs)`` reports results already decided and returns the exit code. A
command that shows each result as it is decided (``check``, ``durability``)
hands ``Emit(outputs).one`` to the runner (``checker.runner.run_jobs``) and
calls ``finish(results)`` at the end: the same output either way. For each
result, when ``streamed``, its one-line and long forms (naming where its
counterexample goes); at the end its counterexample files
(``files.write_counterexample``), JUnit and HTML, none of them after Ctrl-C
(an interrupted run writes nothing: ``checker.interrupt``), then the JSON of
every result or the command's text (default: a summary table when there is
more than one result), then the exit code
(``text.exit_code`` or, ``against_expected``, ``text.exit_code_against_expected``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checker.interrupt import stopping, uninterruptible
from checker.report.files import counterexample_path, located, write_counterexample
from checker.report.html import write_html
from checker.report.junit import write_junit
from checker.report.text import (
    exit_code,
    exit_code_against_expected,
    long_form,
    one_line,
    result_json,
    shows_run,
    summary_table,
)
from checker.result import Result

__all__ = ["Emit", "Outputs", "Section", "emit"]

Sections = Sequence[Sequence[Result]]


@dataclass(frozen=True)
class Section:
    """The next ``size`` results: their JSON key and where their counterexamples go."""

    key: str
    size: int
    out: str | Path


@dataclass(frozen=True)
class Outputs:
    title: str  # "dcpcheck check": names the HTML and JUnit reports
    out: str | Path  # where counterexamples go (a ``Section`` may say otherwise)
    as_json: bool = False
    html: str | None = None
    junit: str | None = None
    streamed: bool = False  # the one-line (and long) form of each result as it is decided
    expected: bool = False  # the default table shows the expected verdicts
    against_expected: bool = False  # exit code: verdicts against the expected ones
    fail_on_cost: bool = False  # exit code: a cost violation fails too
    sections: tuple[Section, ...] = ()  # (): one section, "results", every result, to ``out``
    text: Callable[[Sections], None] | None = None  # the text after the results, per section


class Emit:
    """``one(result)`` as each result is decided, ``finish(results)`` at the end."""

    def __init__(self, outputs: Outputs) -> None:
        self.outputs = outputs
        self.paths: list[Path | None] = []
        self.outs: list[str | Path] = []

    def _out(self, n: int) -> str | Path:
        start = 0
        for section in self.outputs.sections:
            if n < start + section.size:
                return section.out
            start += section.size
        return self.outputs.out

    def one(self, result: Result) -> None:
        o = self.outputs
        out = self._out(len(self.paths))
        path = None if result.interrupted else counterexample_path(result, out)
        self.paths.append(path)
        self.outs.append(out)
        result = located(result, path)
        if o.streamed and not o.as_json:
            print(one_line(result, path), flush=True)
            if shows_run(result) or result.harness_bug or result.long_text:
                print("\n".join(long_form(result)), flush=True)

    def finish(self, results: Sequence[Result]) -> int:
        o = self.outputs
        results = [located(r, p) for r, p in zip(results, self.paths, strict=True)]
        stopped = stopping() or any(r.interrupted for r in results)
        if not stopped:
            with uninterruptible():  # every file or, on an earlier Ctrl-C, none
                self._write(results)
        sections = o.sections or (Section("results", len(results), o.out),)
        split = _split(results, [p.size for p in sections])
        if o.as_json:
            written = [None if stopped else p for p in self.paths]  # nothing after Ctrl-C
            paths = _split(written, [p.size for p in sections])
            records = {
                section.key: [result_json(r, p) for r, p in zip(rs, ps, strict=True)]
                for section, rs, ps in zip(sections, split, paths, strict=True)
            }
            print(json.dumps(records, indent=2))
        elif o.text is not None:
            o.text(split)
        elif len(results) > 1:
            print()
            print(summary_table(list(results), expected=o.expected))
        if o.against_expected:
            return exit_code_against_expected(list(results))
        return exit_code(list(results), fail_on_cost=o.fail_on_cost)

    def _write(self, results: Sequence[Result]) -> None:
        o = self.outputs
        for result, out, path in zip(results, self.outs, self.paths, strict=True):
            if path is not None:
                write_counterexample(result, out)
        if o.junit:
            write_junit(list(results), o.junit, name=o.title)
        if o.html:
            write_html(list(results), o.html, o.title)


def emit(results: Sequence[Result], outputs: Outputs) -> int:
    """Report ``results`` (already decided) as ``outputs`` says; the exit code."""
    report = Emit(outputs)
    for result in results:
        report.one(result)
    return report.finish(results)


def _split(items: Sequence[Any], sizes: list[int]) -> list[list[Any]]:
    parts, start = [], 0
    for size in sizes:
        parts.append(list(items[start : start + size]))
        start += size
    return parts
