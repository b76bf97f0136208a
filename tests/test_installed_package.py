"""The installed package is whole: the wheel, installed outside the repository, gives the
checkout's results.

The wheel is built once from a copy of the files it is made of (pyproject.toml, README.md,
spec/, checker/ and the checked-in vectors checker/vectors/shipped links to), installed
``--no-deps`` into a fresh venv whose dependencies are the project's .venv's (a ``.pth``
line: none of that venv's own ``.pth`` hooks, so not its editable dcpcheck), and each
command runs from a directory outside the repository: ``verify`` at small bounds with its
stored-certificate check, ``check --sessions any``, ``replay`` of the shipped vectors and
``durability``; each result is compared with the same command's in the checkout (run in
process: only the installed side needs a process of its own).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest
from clihelp import Result

ROOT = Path(__file__).resolve().parent.parent
HUMPTY = ROOT / "tests" / "data" / "humpty_target.py"
# one property (the check below reads another certificate): one stored certificate checked
VERIFY = ["verify", "--no-spark", "--rules", "kv-current", "--consumer", "correct"]
VERIFY += ["--property", "no-foreign-snapshot"]
VERIFY += ["--no-durability", "--no-clients", "--no-decision", "--quiet", "--json"]
VERIFY += ["--seqnos", "3", "--keys", "2", "--entries", "2", "--failovers", "1"]
EVERY_SESSION = ["check", "--rules", "kv-current", "--consumer", "correct"]
EVERY_SESSION += ["--property", "bounded-rollback", "--sessions", "any", "--seqnos", "3"]
EVERY_SESSION += ["--keys", "2", "--entries", "3", "--failovers", "2", "--json"]
DURABILITY = ["durability", "--preset", "small", "--ack-rule", "ack-at-snapshot-end"]
DURABILITY += ["--branch-rule", "persisted-snapshot", "--property", "prepare-ack-progress"]
DURABILITY += ["--json", "--quiet"]
BUGGY = f"humpty:python3 {HUMPTY} --bug purge-off-by-one"
# one vector the bug fails (the answers of all six would be judged again on each side)
PURGED = ["--vector", "v-f2a35e95"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A venv with the wheel installed: its ``bin`` directory."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("spec", "checker"):
        shutil.copytree(ROOT / name, source / name, symlinks=True, ignore=ignore)
    (source / "counterexamples" / "vectors").mkdir(parents=True)
    shutil.copy(ROOT / "counterexamples/vectors/vectors.json", source / "counterexamples/vectors")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", work / "dist", source], check=True)
    (wheel,) = (work / "dist").glob("dcpcheck-*.whl")
    venv = work / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", python, "install", "--no-deps", wheel], check=True)
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "dcpcheck_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def _run(argv: list[object], cwd: Path, bin_dir: Path) -> subprocess.CompletedProcess:
    """The installed ``dcpcheck ARGV`` (in ``bin_dir``), run in ``cwd``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = os.pathsep.join([str(bin_dir), env["PATH"]])
    return subprocess.run(
        [str(bin_dir / "dcpcheck"), *map(str, argv)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture
def checkout(cli, monkeypatch) -> Callable[..., Result]:
    """``checkout(*argv)``: the checkout's ``dcpcheck ARGV``, in process, from its root."""
    monkeypatch.chdir(ROOT)
    return cli


def test_the_installed_modules_are_the_wheels_not_the_checkouts(installed, tmp_path) -> None:
    probe = "import checker, spec; print(checker.__file__); print(spec.__file__)"
    found = subprocess.run(
        [installed / "python", "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    for line in found.stdout.splitlines():
        assert Path(line).is_relative_to(installed.parent), line
    version = _run(["--version"], tmp_path, installed)
    assert version.returncode == 0
    assert version.stdout.startswith("dcpcheck 0.1.0 (z3-solver 5.4.0.0, Python ")


VOLATILE = ("seconds", "cpu_seconds", "counterexample")  # clocks; the --out directory


def _verdicts(out: str) -> dict[str, list[dict]]:
    """Every result of a ``--json`` report, section by section, without clocks or paths."""
    return {
        section: [{k: v for k, v in r.items() if k not in VOLATILE} for r in results]
        for section, results in json.loads(out).items()
        if isinstance(results, list)
    }


def _as_in_the_checkout(args: list[str], installed, checkout, tmp_path) -> dict:
    """The installed command's ``--json`` report, once it exits 0 with the verdicts the
    same command gives in the checkout."""
    here = checkout(*args, "--out", tmp_path / "checkout")
    there = _run([*args, "--out", "out"], tmp_path, installed)
    assert here.code == there.returncode == 0, there.stderr
    assert _verdicts(there.stdout) == _verdicts(here.out)
    return json.loads(there.stdout)


def test_verify_outside_the_repository_keeps_its_every_session_checks(
    installed, checkout, tmp_path
) -> None:
    report = _as_in_the_checkout(VERIFY, installed, checkout, tmp_path)
    # the certificates (checker/induction/certificates.json) were read: one check of one
    (every,) = report["every_session"]
    assert every["verdict"] == "holds" and every["property"] == "no-foreign-snapshot"


def test_check_every_session_outside_the_repository_uses_the_stored_certificate(
    installed, checkout, tmp_path
) -> None:
    (result,) = _as_in_the_checkout(EVERY_SESSION, installed, checkout, tmp_path)["results"]
    assert result["verdict"] == "holds"
    assert "a stored certificate, checked again" in result["note"]


def test_replay_outside_the_repository_runs_the_shipped_vectors(
    installed, checkout, tmp_path
) -> None:
    for target, code, only in (("rules:kv-current", 0, []), (BUGGY, 1, PURGED)):
        here = checkout("replay", "counterexamples/vectors", "--target", target, "--json", *only)
        there = _run(["replay", "--target", target, "--json", *only], tmp_path, installed)
        assert here.code == there.returncode == code, there.stderr
        mine, theirs = json.loads(here.out), json.loads(there.stdout)
        assert theirs["summary"] == mine["summary"]
        assert theirs["summary"]["pass"] > 60 if code == 0 else theirs["summary"]["fail"] == 1
        assert [r["vector"] for r in theirs["results"]] == [r["vector"] for r in mine["results"]]
        assert [r["judgement"] for r in theirs["results"]] == [
            r["judgement"] for r in mine["results"]
        ]
    moved = _run(["replay", "counterexamples/vectors", "--target", "rules:kv-current"], tmp_path,
                 installed)  # fmt: skip
    assert moved.returncode == 2
    assert moved.stderr.count("\n") == 1
    assert "leave VECTORS out" in moved.stderr


def test_durability_outside_the_repository_gives_the_checkouts_verdict(
    installed, checkout, tmp_path
) -> None:
    here = checkout(*DURABILITY, "--out", tmp_path / "checkout")
    there = _run([*DURABILITY, "--out", "out"], tmp_path, installed)
    assert here.code == there.returncode, there.stderr
    assert _verdicts(there.stdout) == _verdicts(here.out)
    assert [r["verdict"] for r in json.loads(there.stdout)["results"]] == ["violated"]
    assert list((tmp_path / "out").glob("*.json"))


def test_the_package_pins_the_z3_that_constraints_txt_records() -> None:
    """``pip install dcpcheck`` (or pipx) gets the Z3 the budgets were measured with."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (z3,) = [d for d in project["dependencies"] if d.startswith("z3-solver")]
    assert z3 in (ROOT / "constraints.txt").read_text().splitlines()
