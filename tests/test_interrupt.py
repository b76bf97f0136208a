"""Ctrl-C: stop promptly, report what was decided, claim nothing else, write nothing half-done.

SIGINT during a Z3 call stops Z3 (the call runs in a helper thread while the
main thread waits, so the signal is not lost inside Z3); during a
minimisation the violation found stays, but no measure it did not finish is
claimed minimal and no counterexample file is written; the command reports
the checks decided before and ``unknown (interrupted)`` for the rest, and
exits 130.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from clihelp import DCPCHECK, ROOT

from checker.engines import z3 as z3_engine
from checker.report.files import write_counterexample
from checker.report.text import exit_code
from checker.result import Verdict
from checker.scenario_check import check
from checker.symbolic.session import Session
from spec.bounds import Bounds
from spec.consumers import CONSUMERS
from spec.errors import EXIT_INTERRUPTED
from spec.expr import INT, all_of, var
from spec.model.build import ScenarioModel
from spec.properties import PROPERTIES
from spec.rules import RULE_SETS


def _pigeonhole(holes: int) -> Session:
    """holes + 1 pigeons in ``holes`` holes: unsat, and hard for Z3's arithmetic."""
    pigeons = [var(f"p{i}", INT) for i in range(holes + 1)]
    session = Session()
    session.declare({f"p{i}": INT for i in range(holes + 1)})
    session.add(all_of(*(p < holes for p in pigeons)))
    session.add(all_of(*(a != b for i, a in enumerate(pigeons) for b in pigeons[:i])))
    return session


def _sigint_once_z3_runs() -> threading.Thread:
    def fire() -> None:
        while not any(t.name == "z3-check" for t in threading.enumerate()):
            time.sleep(0.01)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=fire, daemon=True)
    sender.start()
    return sender


def test_ctrl_c_stops_z3_in_the_middle_of_a_call() -> None:
    session = _pigeonhole(9)
    sender = _sigint_once_z3_runs()
    with pytest.raises(KeyboardInterrupt):
        session.check()
    sender.join()
    helpers = [t for t in threading.enumerate() if t.name == "z3-check"]
    for helper in helpers:  # Z3 was told to stop: it returns (the proof would take minutes)
        helper.join(timeout=30)
    assert not any(h.is_alive() for h in helpers)


def test_ctrl_c_in_minimisation_keeps_the_violation_but_claims_no_minimum(monkeypatch) -> None:
    bounds = Bounds(seqnos=4, keys=2, entries=3, failovers=1)
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot")
    prop = PROPERTIES.get("no-missed-item")
    real_check = Session.check
    calls = []

    def interrupted_on_the_fourth_call(self, *assumptions, want=()):  # type: ignore[no-untyped-def]
        calls.append(assumptions)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real_check(self, *assumptions, want=want)

    monkeypatch.setattr(Session, "check", interrupted_on_the_fourth_call)
    found = z3_engine.search(ScenarioModel(bounds, rules, variant), prop)
    assert found.verdict is Verdict.VIOLATED and found.interrupted
    assert "not minimal" in found.note
    assert len(found.size) < len(ScenarioModel(bounds, rules, variant).measures())

    calls.clear()
    result = check(rules, variant, prop, bounds)
    assert result.verdict is Verdict.VIOLATED and result.interrupted
    assert result.confirmed  # replayed on the reference all the same
    assert result.ident == "" and result.record is None
    assert write_counterexample(result, "unused-directory") is None
    assert exit_code([result]) == EXIT_INTERRUPTED


def _start(args: list[str]) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(
        [*DCPCHECK, *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _interrupt_after(proc: subprocess.Popen, marker: str) -> tuple[int, str, str]:
    """Send SIGINT once stderr shows ``marker``; the exit code and both outputs."""
    seen = []
    assert proc.stderr is not None
    for line in proc.stderr:
        seen.append(line)
        if marker in line:
            break
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)  # a hang guard, not a speed assertion
    return proc.returncode, out, "".join(seen) + err


# kv-current x correct's no-missed-item proof at these bounds takes about a CPU minute.
HARD = ["--seqnos", "16", "--keys", "4", "--entries", "8", "--failovers", "5"]


def test_ctrl_c_stops_check_reports_the_rest_interrupted_and_writes_nothing(
    tmp_path: Path,
) -> None:
    args = ["check", "--rules", "kv-current", "--consumer", "correct", *HARD]
    args += ["--property", "no-missed-item", "--property", "no-foreign-snapshot"]
    proc = _start([*args, "--out", str(tmp_path / "out"), "--html", str(tmp_path / "r.html")])
    code, out, err = _interrupt_after(proc, "kv-current/correct: no-missed-item ...")
    assert code == EXIT_INTERRUPTED, err
    assert "no-missed-item: unknown (interrupted after" in out
    assert "no-foreign-snapshot: unknown (interrupted before it ran" in out
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "r.html").exists()


def test_ctrl_c_stops_verify_on_spark_keeping_the_decided_checks(tmp_path: Path) -> None:
    args = ["verify", "--master", "local[2]", "--no-durability", "--rules", "kv-current"]
    args += ["--consumer", "collapse-snapshot", "--consumer", "correct", *HARD]
    args += ["--property", "no-missed-item", "--out", str(tmp_path / "out")]
    args += ["--junit", str(tmp_path / "j.xml")]
    proc = _start(args)
    code, out, err = _interrupt_after(proc, "collapse-snapshot: no-missed-item: violated")
    assert code == EXIT_INTERRUPTED, err
    rows = {line.split()[1]: line.split()[4] for line in out.splitlines()[2:4]}
    assert rows == {"collapse-snapshot": "violated", "correct": "unknown"}, out
    assert not (tmp_path / "j.xml").exists()
    assert "Traceback" not in err


def test_ctrl_c_stops_durability_worker_processes_and_keeps_the_decided_checks(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    args = ["durability", "--preset", "mb-34150-wide", "--ack-rule", "ack-on-prepare"]
    proc = _start([*args, "--workers", "2", "--out", str(out)])
    code, stdout, err = _interrupt_after(proc, "no-lost-syncwrite: violated")
    assert code == EXIT_INTERRUPTED, err
    assert "persisted-snapshot: no-lost-syncwrite: violated (confirmed)" in stdout
    assert "persisted-snapshot: prepare-ack-progress: unknown (interrupted" in stdout
    assert "Traceback" not in err
    assert len(list(out.glob("*.itf.json"))) == 1  # the decided violation's run, only
    # Forked workers carry the parent's command line: none may outlive it.
    assert not _processes_naming(str(out))


def _processes_naming(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text in (entry / "cmdline").read_bytes().decode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
