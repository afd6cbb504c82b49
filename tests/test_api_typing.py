"""The API is typed: `mypy --strict` passes on a program that uses it
(tests/api_client/typed_client.py) and catches a misuse of its results, which it could not do
if they were Any. The program runs, too. (tests/test_packaging.py checks the same program
against the installed wheel, whose py.typed marker tells mypy to read its types.)"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.referee_helpers import ROOT

CLIENT = ROOT / "tests" / "api_client" / "typed_client.py"


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy comes with the dev extras: pip install -e '.[dev]'")
    # the program's errors only: the package itself is checked by `mypy referee`, with the
    # dev extras' stubs for its dependencies
    cmd = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent"]
    cmd += ["--no-error-summary", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_client_passes_mypy_strict() -> None:
    done = mypy(str(CLIENT))
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr


def test_mypy_catches_a_misuse_of_the_results(tmp_path: Path) -> None:
    bad = tmp_path / "misuse.py"
    bad.write_text(
        "import referee\n"
        "legal: str = referee.check('r.yaml').legal\n"
        "title: int = referee.load_game().clauses['7.3.5']\n"
        "referee.check('r.yaml', keep_going='yes')\n"
        "referee.show('r.yaml').violations\n"
    )
    done = mypy(str(bad))
    assert done.returncode == 1
    # the lines with an error (mypy may name the file by the path it had when it cached them)
    errors = re.findall(r"misuse\.py:(\d+): error: ", done.stdout)
    assert errors == ["2", "3", "4", "5"], done.stdout


def test_the_client_runs() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's referee, whatever is installed
    records = ["examples/weeks-1-2.yaml", "examples/illegal/movement-too-far.yaml"]
    done = subprocess.run(
        [sys.executable, str(CLIENT), *records, "examples/no-such-record.yaml"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (2, "")
    out = done.stdout.splitlines()
    assert out[0] == "examples/weeks-1-2.yaml: legal"
    assert "examples/illegal/movement-too-far.yaml: illegal" in out
    assert (
        "  event 2 (move, line 18) breaks 7.3.3/within-allowance: moved 3 locations;"
        " allowance 2 = base 1 + highway 1 + leadership 1 + force march 0 - size 1" in out
    )
    assert "  7.3.3 Movement distance: Movement distance" in out
    assert "  stands after 1 of 2 events, before 7.3.3/within-allowance" in out
    assert out[-1].startswith("examples/no-such-record.yaml:0: cannot judge: cannot read file")


def test_mypy_finds_the_package_after_the_readme_s_editable_install(tmp_path: Path) -> None:
    """`pip install -e .` (the README's install) writes a plain .pth file that mypy follows,
    not an import hook it cannot see (issue 30: "Cannot find implementation or library
    stub for module named referee")."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 and "setuptools" in done.stderr:
        pytest.skip("no setuptools to build with here (offline): " + done.stderr[-200:])
    assert done.returncode == 0, done.stderr
    pth = list((venv / "lib").glob("python3*/site-packages/__editable__*.pth"))
    assert [p.read_text().strip() for p in pth] == [str(ROOT)]
    client = tmp_path / "client.py"  # outside the checkout: found only through the install
    client.write_text(CLIENT.read_text())
    # run from elsewhere: mypy also searches the folder it runs in
    cmd = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent"]
    cmd += ["--no-error-summary", "--python-executable", str(python), str(client)]
    found = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert (found.returncode, found.stdout) == (0, ""), found.stdout + found.stderr
