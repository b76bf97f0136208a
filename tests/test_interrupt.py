"""Ctrl-C: stop promptly, one line, exit 130, nothing written, no process left behind.

SIGINT during a Z3 call stops Z3 (the call runs in a helper thread while the
main thread waits, so the signal is not lost inside Z3); during a
minimisation the violation found stays, but no measure it did not finish is
claimed minimal and no counterexample file is written. Every command, run as
a terminal runs it (its own process group, SIGINT to the whole group, the
Spark JVM included), prints ``dcpcheck: interrupted; nothing was written`` on
stderr and nothing else after the signal, exits 130, writes no file (no
counterexample, JUnit, HTML, dataset) and leaves no process running; the
commands that print results print the decided ones and label the rest
``unknown (interrupted)``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from clihelp import DCPCHECK, ROOT

from checker import interrupt
from checker.cli import main
from checker.engines import z3 as z3_engine
from checker.interrupt import LINE
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
    # Python's own handler, whatever an earlier test in this worker left: with SIGINT
    # ignored Z3 would run in this thread and the proof would take minutes.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sender = _sigint_once_z3_runs()
        with pytest.raises(KeyboardInterrupt):
            session.check()
        sender.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    helpers = [t for t in threading.enumerate() if t.name == "z3-check"]
    for helper in helpers:  # Z3 was told to stop: it returns (the proof would take minutes)
        helper.join(timeout=30)
    assert not any(h.is_alive() for h in helpers)


def test_ctrl_c_while_the_helper_thread_starts_still_waits_for_its_work(monkeypatch) -> None:
    """A SIGINT arriving inside ``Thread.start`` (it waits for the new thread): the work is
    cancelled and waited for before KeyboardInterrupt leaves, as for one arriving later.
    Raised from the start itself, the work ran on unwatched, and a ``vectors generate``
    stopped so ended by SIGSEGV, its Z3 call still running as the interpreter exited."""
    real_start = threading.Thread.start

    def start_then_sigint(self: threading.Thread) -> None:
        real_start(self)
        if self.name == "slow-work":
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(threading.Thread, "start", start_then_sigint)
    cancelled, done = threading.Event(), threading.Event()

    def work() -> None:
        cancelled.wait(10)
        done.set()

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            interrupt.in_helper_thread(work, cancelled.set, 0.01, "slow-work")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert cancelled.is_set() and done.is_set()


def test_the_helper_threads_value_or_error_reaches_the_caller_as_its_own() -> None:
    """A Z3 call or a Spark job in the helper thread: its value is returned, and what it
    raises is raised in the waiting thread, the same object, so that callers tell a
    Z3 error or a failed job apart as if the work had run in their own thread."""
    assert interrupt.in_helper_thread(lambda: 42, lambda: None, 0.01, "value") == 42
    failure = RuntimeError("Spark job aborted")

    def fails() -> None:
        raise failure

    with pytest.raises(RuntimeError) as raised:
        interrupt.in_helper_thread(fails, lambda: None, 0.01, "error")
    assert raised.value is failure


def test_ctrl_c_in_minimisation_keeps_the_violation_but_claims_no_minimum(monkeypatch) -> None:
    bounds = Bounds(seqnos=4, keys=2, entries=3, failovers=1)
    rules, variant = RULE_SETS.get("kv-current"), CONSUMERS.get("collapse-snapshot")
    prop = PROPERTIES.get("no-missed-item")
    real_check = Session.check
    calls = []

    def interrupted_on_the_fourth_call(self, *assumptions, want=()):
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


@dataclass
class Stopped:
    code: int
    out: str
    after: list[str]  # stderr lines that arrived after the SIGINT
    before: list[str]  # ... and before it
    left: list[int]  # processes still running that belong to the command


def _interrupted(
    args: list[object],
    marker: str | None,
    tmp: Path,
    wait: float = 0.5,
    stdin: bool = False,
    ready: Callable[[], bool] | None = None,
) -> Stopped:
    """Run ``dcpcheck args`` in a process group of its own (as a shell does), send SIGINT to
    the group once stderr shows ``marker`` (None: a command with no progress to show), or
    once ``ready()``, and ``wait`` seconds more, and collect."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [*DCPCHECK, *map(str, args)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,  # PIPE: open, never written
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines: list[tuple[float, str]] = []
    seen = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.monotonic(), line.rstrip("\n")))
            if marker is not None and marker in line:
                seen.set()
        seen.set()  # stderr closed: the test fails on the exit code below

    out: list[str] = []
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert proc.stdout is not None
    stdout = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    stdout.start()
    if marker is not None:
        assert seen.wait(300), f"the command never showed {marker}"  # a hang guard only
    deadline = time.monotonic() + 300  # a hang guard only
    while ready is not None and not ready():
        assert proc.poll() is None and time.monotonic() < deadline, "never ready"
        time.sleep(0.1)
    time.sleep(wait)
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=300)  # a hang guard, not a speed assertion
    reader.join(timeout=30)
    stdout.join(timeout=30)
    left = _lingering(proc.pid, str(tmp))
    after = [text for at, text in lines if at >= sent]
    return Stopped(proc.returncode, "".join(out), after, [t for at, t in lines if at < sent], left)


def _lingering(group: int, name: str, patience: float = 15.0) -> list[int]:
    """Processes of the command's group, or naming ``name`` (forked workers, the Spark JVM
    whose command line carries the test's --conf), still there after ``patience`` s."""
    deadline = time.monotonic() + patience
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                named = name in (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if stat[0] != "Z" and (int(stat[2]) == group or named):
                found.append(int(entry.name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _stopped_cleanly(stopped: Stopped, tmp: Path) -> None:
    assert stopped.code == EXIT_INTERRUPTED, stopped
    assert stopped.after == [LINE], stopped.after
    assert not [p for p in tmp.rglob("*") if p.is_file()], "an interrupted run wrote files"
    assert stopped.left == [], "processes outlived the command"


# kv-current x correct's no-missed-item proof at these bounds takes about a CPU minute.
HARD = ["--seqnos", "16", "--keys", "4", "--entries", "8", "--failovers", "5"]
# Here collapse-snapshot's violation is found in about 0.4 CPU s and correct's proof then
# takes about 2.5 CPU s, 4-5 s (at HARD the violation alone took 80 CPU s: its model is that
# large; at 6 entries and 4 failovers the models' building alone took 5 CPU s more).
DECIDED_THEN_STOPPED = ["--seqnos", "12", "--keys", "4", "--entries", "5", "--failovers", "3"]
SPARK = ["--master", "local[2]"]


def _spark_named(tmp: Path) -> list[str]:
    """A --conf that puts the test's directory on the JVM's command line (to find it)."""
    return ["--conf", f"spark.dcpcheck.test={tmp}"]


def test_ctrl_c_stops_check_reports_the_rest_interrupted_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """The second check is a proof of about 2.5 CPU s, stopped 0.5 s after it starts. On a
    machine busy enough that the proof ends before the signal lands, that attempt shows
    nothing about Ctrl-C (the proof's `holds` is in its output): it is run again, at most
    three times, so a Ctrl-C that never stops the check still fails the test."""
    for attempt in range(3):
        tmp = tmp_path / str(attempt)
        tmp.mkdir()
        args = ["check", "--rules", "kv-current", "--consumer", "collapse-snapshot"]
        args += ["--consumer", "correct", *DECIDED_THEN_STOPPED, "--property", "no-missed-item"]
        args += ["--no-minimise"]
        args += ["--out", tmp / "out", "--html", tmp / "r.html"]
        stopped = _interrupted(args, "kv-current/correct: no-missed-item ...", tmp)
        if "correct: no-missed-item: holds" not in stopped.out:
            break
    _stopped_cleanly(stopped, tmp)
    # the decided violation is shown (its file is not written), the stopped check is unknown
    assert "collapse-snapshot: no-missed-item: violated (confirmed)" in stopped.out
    assert "correct: no-missed-item: unknown (interrupted after" in stopped.out


def test_ctrl_c_stops_verify_on_spark_labelling_what_it_did_not_decide(tmp_path: Path) -> None:
    args = ["verify", *SPARK, *_spark_named(tmp_path), "--no-durability", "--no-clients"]
    args += ["--no-every-session"]
    args += ["--rules", "kv-current", "--consumer", "correct", *HARD]
    args += ["--property", "no-missed-item", "--out", tmp_path / "out"]
    args += ["--junit", tmp_path / "j.xml"]
    stopped = _interrupted(args, "kv-current/correct: no-missed-item ...", tmp_path, wait=1)
    _stopped_cleanly(stopped, tmp_path)
    (row,) = [line.split() for line in stopped.out.splitlines()[2:3]]
    assert row[1] == "correct" and row[4:6] == ["unknown", "(interrupted)"], stopped.out
    assert row[-1] == "-"  # nothing decided, so nothing to compare with the expected
    assert "interrupted after" in stopped.out and "0 of 1 checks decided" in stopped.out
    assert "EXPECTED" not in stopped.out


def test_ctrl_c_while_spark_starts_still_says_how_far_verify_got(tmp_path: Path) -> None:
    """Issue 47, item 7: Ctrl-C in the JVM's start-up (10-12 s into verify) exited 130
    without the ``interrupted after Ns: K of M checks decided`` line docs/cli.md promises."""
    args = ["verify", *SPARK, *_spark_named(tmp_path), "--no-durability", "--no-clients"]
    args += ["--no-every-session", "--rules", "kv-current", "--consumer", "correct", *HARD]
    args += ["--property", "no-missed-item", "--out", tmp_path / "out"]
    stopped = _interrupted(args, "dcpcheck verify: 1 checks", tmp_path, wait=1)
    _stopped_cleanly(stopped, tmp_path)
    assert not any("no-missed-item ..." in line for line in stopped.before)  # not started
    assert "interrupted after" in stopped.out and "0 of 1 checks decided" in stopped.out


def test_ctrl_c_while_spark_starts_for_review_says_how_far_learning_got(tmp_path: Path) -> None:
    """Issue 47, item 7: ``review`` while learning, Ctrl-C in Spark's start-up."""
    target = f"humpty:{sys.executable} {ROOT / 'tests' / 'data' / 'humpty_target.py'}"
    args = ["review", "--target", target, *SPARK, *_spark_named(tmp_path)]
    args += ["--entries", "1", "--seqnos", "1", "--out", tmp_path / "out"]
    stopped = _interrupted(args, "dcpcheck review:", tmp_path, wait=1)
    _stopped_cleanly(stopped, tmp_path)
    assert "interrupted after" in stopped.out and ": 0 of " in stopped.out, stopped.out
    assert "inputs learnt; nothing was published" in stopped.out


def test_ctrl_c_stops_a_sweep_on_spark_publishing_nothing(tmp_path: Path) -> None:
    args = ["sweep", *SPARK, *_spark_named(tmp_path), "--seqnos", "5", "--entries", "3"]
    stopped = _interrupted([*args, "--out", tmp_path / "sweep"], "sweep ...", tmp_path, wait=2)
    _stopped_cleanly(stopped, tmp_path)
    assert stopped.out == ""


def test_ctrl_c_stops_clients_run_here(tmp_path: Path) -> None:
    args = ["clients", "--no-spark", "--rules", "kv-current", "--consumer", "go-dcp-fixed"]
    args += ["--consumer", "go-dcp", *HARD, "--out", tmp_path / "out"]
    stopped = _interrupted(
        [*args, "--html", tmp_path / "c.html"], "kv-current/go-dcp-fixed:", tmp_path
    )
    _stopped_cleanly(stopped, tmp_path)
    assert "unknown (interrupted)" in stopped.out


def test_ctrl_c_stops_a_client_adapter_search_on_spark_and_every_adapter_process(
    tmp_path: Path,
) -> None:
    # 21 first histories: on Spark; each adapter sleeps 2 ms per answer, so the search runs
    # for minutes. The adapters append their pids to run.pids, beside the run's directory
    # (nothing may be written in it) and naming it, so _lingering finds any survivor.
    run, pids = tmp_path / "run", tmp_path / "run.pids"
    run.mkdir()
    faulty = ROOT / "tests" / "data" / "faulty_client_adapter.py"
    args = ["clients", "--target", f"jsonl:{sys.executable} {faulty} slow {pids}"]
    args += [*SPARK, *_spark_named(run), "--seqnos", "2", "--keys", "2", "--entries", "2"]
    args += ["--failovers", "1", "--out", run / "out", "--html", run / "c.html"]

    def searching() -> bool:  # hello's process, the rate's sample's, then an executor's
        return pids.exists() and len(pids.read_text().split()) >= 3

    stopped = _interrupted(args, None, run, wait=1, ready=searching)
    _stopped_cleanly(stopped, run)
    assert "unknown (interrupted)" in stopped.out
    started = pids.read_text().split()
    assert len(started) >= 3  # _lingering found none of them (each names the run) running


def test_ctrl_c_stops_diff_leaving_unclassified_regions_unknown(tmp_path: Path) -> None:
    args = ["diff", "kv-current", "rollback-doc", *HARD]
    stopped = _interrupted(args, "dcpcheck diff:", tmp_path, wait=3)
    _stopped_cleanly(stopped, tmp_path)
    assert "interrupted (Ctrl-C); interrupted (Ctrl-C)" not in stopped.out
    assert "not reached by these consumers" not in stopped.out


def test_ctrl_c_stops_durability_worker_processes_and_keeps_the_decided_checks(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    # the first check's violation is found in about half a CPU second, while the second
    # check (a proof of the whole state space) needs about ten
    args = ["durability", "--preset", "mb-34150", "--ack-rule", "ack-on-prepare"]
    stopped = _interrupted(
        [*args, "--workers", "2", "--out", out], "no-lost-syncwrite: violated", tmp_path
    )
    _stopped_cleanly(stopped, tmp_path)  # the forked workers carry --out: none outlives it
    assert "persisted-snapshot: no-lost-syncwrite: violated (confirmed)" in stopped.out
    assert "persisted-snapshot: prepare-ack-progress: unknown (interrupted" in stopped.out


def test_ctrl_c_stops_a_replay_and_its_target_process(tmp_path: Path) -> None:
    target = f"jsonl:sh -c 'sleep 60; :' {tmp_path}"  # never answers; sh stays, named
    args = ["replay", "counterexamples/baseline", "--target", target, "--timeout", "120"]
    stopped = _interrupted(args, None, tmp_path, wait=3)
    _stopped_cleanly(stopped, tmp_path)


def test_ctrl_c_stops_vectors_generate_writing_no_vector_set(tmp_path: Path) -> None:
    args = ["vectors", "generate", "--out", tmp_path / "vectors", "--table-entries", "8"]
    stopped = _interrupted(args, None, tmp_path, wait=4)
    _stopped_cleanly(stopped, tmp_path)


def test_ctrl_c_while_promote_replays_promotes_nothing(tmp_path: Path, monkeypatch, capsys) -> None:
    import checker.commands.promote as promote

    real, calls = promote.replay_stored, []

    def second_one_interrupted(path):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(path)

    monkeypatch.setattr(promote, "replay_stored", second_one_interrupted)
    files = sorted(Path(ROOT, "counterexamples").glob("no-*.json"))
    stored = [f for f in files if not f.name.endswith(".itf.json")][:2]
    code = main(["promote", *map(str, stored), "--to", str(tmp_path / "to")])
    err = capsys.readouterr().err
    assert code == EXIT_INTERRUPTED and err.splitlines() == [LINE]
    assert not (tmp_path / "to").exists() or not any((tmp_path / "to").iterdir())


def test_ctrl_c_stops_decide_waiting_for_requests(tmp_path: Path) -> None:
    table = ROOT / "tests/data/humpty_sanity_table.json"
    stopped = _interrupted(["decide", table, "100", "0"], None, tmp_path, wait=3, stdin=True)
    _stopped_cleanly(stopped, tmp_path)


def _sigint() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # the handler runs at the next bytecode; give it one


def test_the_first_ctrl_c_stops_the_command_and_a_second_one_is_ignored() -> None:
    previous = signal.getsignal(signal.SIGINT)
    muted: list[str] = []
    try:
        interrupt.install()
        interrupt.on_interrupt(lambda: muted.append("spark"))
        with interrupt.uninterruptible():  # writing files: the Ctrl-C is too late, dropped
            _sigint()
        assert not interrupt.stopping()
        # launching a JVM: the Ctrl-C waits for the end of the block
        with pytest.raises(KeyboardInterrupt), interrupt.deferred():
            _sigint()
            launched = True
        assert launched and interrupt.stopping() and muted == ["spark"]
        _sigint()  # winding down: ignored, no second KeyboardInterrupt
        assert muted == ["spark"]
    finally:
        signal.signal(signal.SIGINT, previous)
        interrupt.reset()


def test_what_ctrl_c_leaves_in_finalisers_is_not_printed(monkeypatch) -> None:
    """A SIGINT can land inside a library's finaliser (z3's, freeing a term) or half
    through building an object whose finaliser then fails on what was never set (a z3
    Context): Python can only print those ("Exception ignored in ..."), around the
    command's one line. After Ctrl-C they are dropped; before it, or from another
    module's finaliser, they reach the hook that was there before."""
    seen: list[str] = []

    def record(unraisable) -> None:
        seen.append(unraisable.exc_type.__name__)

    monkeypatch.setattr(sys, "unraisablehook", record)

    class Term:
        def __del__(self) -> None:
            raise KeyboardInterrupt

    class HalfBuilt:
        def __del__(self) -> None:
            raise AttributeError("'Context' object has no attribute 'owner'")

    class Buggy:
        def __del__(self) -> None:
            raise ValueError("a harness bug")

    HalfBuilt.__del__.__module__ = "z3.z3"
    interrupt.quiet_finalisers("z3")
    previous = signal.getsignal(signal.SIGINT)
    try:
        interrupt.install()
        Term()
        HalfBuilt()
        assert seen == ["KeyboardInterrupt", "AttributeError"]  # no Ctrl-C yet
        with pytest.raises(KeyboardInterrupt):
            _sigint()
        seen.clear()
        Term()
        HalfBuilt()
        Buggy()
        assert seen == ["ValueError"]
    finally:
        signal.signal(signal.SIGINT, previous)
        interrupt.reset()
    assert sys.unraisablehook is record  # reset puts back the hook it found


def test_install_twice_then_reset_puts_back_the_first_hook_and_leaves_anothers(
    monkeypatch,
) -> None:
    """A process running several commands (the tests, a notebook) installs once per
    command: a second install stacks no second hook, reset puts back the hook found
    first, and a hook someone set after install stays. From a thread other than the
    main one (a command run in a worker thread) install sets the hook but no signal
    handler: Python allows those only in the main thread."""

    def first(unraisable) -> None:
        pass

    def later(unraisable) -> None:
        pass

    monkeypatch.setattr(sys, "unraisablehook", first)
    previous = signal.getsignal(signal.SIGINT)
    try:
        interrupt.install()
        interrupt.install()
        interrupt.reset()
        assert sys.unraisablehook is first
        interrupt.install()
        sys.unraisablehook = later
        interrupt.reset()
        assert sys.unraisablehook is later
        signal.signal(signal.SIGINT, signal.default_int_handler)
        elsewhere = threading.Thread(target=interrupt.install)
        elsewhere.start()
        elsewhere.join()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert sys.unraisablehook is not later  # the hook is per process
        interrupt.reset()
        assert sys.unraisablehook is later
    finally:
        signal.signal(signal.SIGINT, previous)
        interrupt.reset()


def test_what_py4j_logs_as_a_stopping_jvm_drops_its_calls_stays_off_stderr(caplog) -> None:
    """py4j's GatewayClient logs a call that meets an ending JVM (after Ctrl-C, or an
    error that stops the session) with ``logging.exception`` on the root logger: a
    traceback on stderr after the one line, seen on a loaded machine in the Spark sweep
    test above. The session keeps those records off stderr, and only those."""
    import logging

    import py4j.java_gateway

    from checker.spark import session

    session._quiet_py4j()
    py4j_file = py4j.java_gateway.__file__
    for pathname, message in ((py4j_file, "from py4j"), (__file__, "from elsewhere")):
        record = logging.LogRecord("root", logging.ERROR, pathname, 1, message, None, None)
        logging.getLogger().handle(record)
    logged = [r.getMessage() for r in caplog.records]  # what reaches the root's handlers
    assert logged == ["from elsewhere"]
    py4j_logger = logging.getLogger("py4j")  # py4j's own logger: kept off the root's handlers
    assert not py4j_logger.propagate and py4j_logger.handlers
