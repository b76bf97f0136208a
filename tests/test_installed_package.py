"""The installed package is whole: the wheel, installed outside the repository, gives the
checkout's results.

The wheel is built once from a copy of the files it is made of (pyproject.toml, README.md,
spec/, checker/ and the checked-in vectors checker/vectors/shipped links to), installed
``--no-deps`` into a fresh venv whose dependencies are the project's .venv's (a ``.pth``
line: none of that venv's own ``.pth`` hooks, so not its editable dcpcheck), and each
command runs from a directory outside the repository: ``verify`` at small bounds with its
stored-certificate checks, ``check --sessions any``, ``replay`` of the shipped vectors and
``durability``; each result is compared with the same command's in the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUMPTY = ROOT / "tests" / "data" / "humpty_target.py"
VERIFY = ["verify", "--no-spark", "--rules", "kv-current", "--consumer", "correct"]
VERIFY += ["--no-durability", "--no-clients", "--no-decision", "--quiet", "--json"]
VERIFY += ["--seqnos", "3", "--keys", "2", "--entries", "2", "--failovers", "1"]
EVERY_SESSION = ["check", "--rules", "kv-current", "--consumer", "correct"]
EVERY_SESSION += ["--property", "bounded-rollback", "--sessions", "any", "--seqnos", "3"]
EVERY_SESSION += ["--keys", "2", "--entries", "3", "--failovers", "2", "--json"]
DURABILITY = ["durability", "--preset", "small", "--ack-rule", "ack-at-snapshot-end"]
DURABILITY += ["--branch-rule", "persisted-snapshot", "--property", "prepare-ack-progress"]
DURABILITY += ["--json", "--quiet"]
BUGGY = f"humpty:python3 {HUMPTY} --bug purge-off-by-one"


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


def _run(argv: list[str], cwd: Path, bin_dir: Path | None = None) -> subprocess.CompletedProcess:
    """``dcpcheck ARGV`` in ``cwd``: the installed one (``bin_dir``) or the checkout's."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if bin_dir is not None:
        env["PATH"] = os.pathsep.join([str(bin_dir), env["PATH"]])
        command = [str(bin_dir / "dcpcheck")]
    else:
        command = [sys.executable, "-m", "checker.cli"]
    return subprocess.run(
        [*command, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


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


def test_verify_outside_the_repository_keeps_its_every_session_checks(installed, tmp_path) -> None:
    here = _run([*VERIFY, "--out", tmp_path / "checkout"], ROOT)
    there = _run([*VERIFY, "--out", "out"], tmp_path, installed)
    assert here.returncode == there.returncode == 0, there.stderr
    assert _verdicts(there.stdout) == _verdicts(here.stdout)
    # the certificates (checker/induction/certificates.json) were read: 3 checks of them
    every = json.loads(there.stdout)["every_session"]
    assert len(every) == 4 and all(r["verdict"] == "holds" for r in every)


def test_check_every_session_outside_the_repository_uses_the_stored_certificate(
    installed, tmp_path
) -> None:
    here = _run([*EVERY_SESSION, "--out", tmp_path / "checkout"], ROOT)
    there = _run([*EVERY_SESSION, "--out", "out"], tmp_path, installed)
    assert here.returncode == there.returncode == 0, there.stderr
    assert _verdicts(there.stdout) == _verdicts(here.stdout)
    (result,) = json.loads(there.stdout)["results"]
    assert result["verdict"] == "holds"
    assert "a stored certificate, checked again" in result["note"]


def test_replay_outside_the_repository_runs_the_shipped_vectors(installed, tmp_path) -> None:
    for target, code in (("rules:kv-current", 0), (BUGGY, 1)):
        here = _run(["replay", "counterexamples/vectors", "--target", target, "--json"], ROOT)
        there = _run(["replay", "--target", target, "--json"], tmp_path, installed)
        assert here.returncode == there.returncode == code, there.stderr
        mine, theirs = json.loads(here.stdout), json.loads(there.stdout)
        assert theirs["summary"] == mine["summary"]
        assert theirs["summary"]["pass"] > 60
        assert [r["vector"] for r in theirs["results"]] == [r["vector"] for r in mine["results"]]
    moved = _run(["replay", "counterexamples/vectors", "--target", "rules:kv-current"], tmp_path,
                 installed)  # fmt: skip
    assert moved.returncode == 2
    assert moved.stderr.count("\n") == 1
    assert "leave VECTORS out" in moved.stderr


def test_durability_outside_the_repository_gives_the_checkouts_verdict(installed, tmp_path) -> None:
    here = _run([*DURABILITY, "--out", tmp_path / "checkout"], ROOT)
    there = _run([*DURABILITY, "--out", "out"], tmp_path, installed)
    assert here.returncode == there.returncode, there.stderr
    assert _verdicts(there.stdout) == _verdicts(here.stdout)
    assert [r["verdict"] for r in json.loads(there.stdout)["results"]] == ["violated"]
    assert list((tmp_path / "out").glob("*.json"))


def test_the_package_pins_the_z3_that_constraints_txt_records() -> None:
    """``pip install dcpcheck`` (or pipx) gets the Z3 the budgets were measured with."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (z3,) = [d for d in project["dependencies"] if d.startswith("z3-solver")]
    assert z3 in (ROOT / "constraints.txt").read_text().splitlines()
