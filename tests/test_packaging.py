"""The package works however it is installed: a wheel built from the checkout carries the
grammar, the bundled game and its schemas, and, installed without -e into a fresh virtual
environment, gives a `referee` that judges records from any other folder exactly as the
checkout does.

Nothing here needs the network when the test extras are installed (they bring a setuptools
that builds wheels): the wheel is built with the build backend already installed and without
an index, and installed with no index and no dependencies, the dependencies being read from
where this interpreter has them."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from referee.cli import main
from tests.referee_helpers import EXAMPLES, ROOT

LEGAL = "weeks-1-2.yaml"
ILLEGAL = "illegal/movement-too-far.yaml"


def _backend_here() -> bool:
    """Whether this interpreter has a setuptools that builds a wheel on its own."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    from importlib.metadata import version

    major, minor = (int(p) for p in version("setuptools").split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


def _run(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the checkout (a build writes build/ and *.egg-info where
    it runs; the checkout stays as it is)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "referee", src / "referee", ignore=shutil.ignore_patterns("__pycache__"))
    cmd = [sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q", "-w", str(tmp / "dist")]
    cmd += ["--disable-pip-version-check"]
    offline = _backend_here()
    if offline:
        cmd += ["--no-build-isolation", "--no-index"]
    built = _run(cmd, src)
    if built.returncode != 0 and not offline:
        pytest.skip(  # the test extras bring the backend; without them, pip needs an index
            "no setuptools >= 70.1 here (pip install -e '.[test]' brings one) and pip could "
            f"not fetch one: {built.stderr.strip()[-300:]}"
        )
    assert built.returncode == 0, built.stderr
    (found,) = (tmp / "dist").glob("*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed (not editable); its bin folder.
    The dependencies (Lark, PyYAML, jsonschema, z3) are found where this interpreter finds
    them: a .pth file names those folders, whose own .pth files (this checkout's editable
    install among them) are not read."""
    venv = tmp_path_factory.mktemp("venv")
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], venv)
    assert made.returncode == 0, made.stderr
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / ("python.exe" if os.name == "nt" else "python")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q"]
    pip += ["--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)]
    done = _run(pip, venv)
    assert done.returncode == 0, done.stderr
    deps = set()
    for module in ("lark", "yaml", "jsonschema", "z3"):
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None, module
        deps.add(str(Path(spec.origin).resolve().parents[1]))
    site = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], venv
    )
    Path(site.stdout.strip(), "_referee_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    return bin_dir


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder far from the checkout, with a copy of the examples."""
    folder = tmp_path_factory.mktemp("elsewhere")
    shutil.copytree(EXAMPLES, folder / "examples")
    return folder


def _referee(installed: Path, elsewhere: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # the disk cache on, in a folder of its own: the spec is checked once, then read from it
    drop = ("PYTHONPATH", "PYTHONHOME", "REFEREE_NO_CACHE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["XDG_CACHE_HOME"] = str(elsewhere / "cache")
    return _run([str(installed / "referee"), *args], elsewhere, env)


def _here(
    elsewhere: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> tuple[int, str]:
    """The same command run by the checkout's referee, in the same folder."""
    monkeypatch.chdir(elsewhere)
    code = main(list(args))
    return code, capsys.readouterr().out


def test_the_wheel_carries_the_grammar_the_games_and_the_marker(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    carried = {
        p.relative_to(ROOT).as_posix()
        for folder in ("referee/games", "referee/grammar", "referee/schema")
        for p in (ROOT / folder).rglob("*")
        if p.is_file()
    }
    assert "referee/grammar/rules.lark" in carried
    assert "referee/games/schema/record.schema.json" in carried
    assert "referee/schema/output.schema.json" in carried
    assert carried - names == set()
    assert "referee/py.typed" in names
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "referee").rglob("*.py")}
    assert modules - names == set()


def test_the_installed_referee_is_the_wheel(installed: Path, elsewhere: Path) -> None:
    python = installed / ("python.exe" if os.name == "nt" else "python")
    where = _run([str(python), "-c", "import referee; print(referee.__file__)"], elsewhere)
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(installed.parent)


@pytest.mark.parametrize(("record", "code"), [(LEGAL, 0), (ILLEGAL, 1)])
def test_check_from_another_folder(
    installed: Path,
    elsewhere: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    record: str,
    code: int,
) -> None:
    path = f"examples/{record}"
    run = _referee(installed, elsewhere, "check", path)
    assert (run.returncode, run.stderr) == (code, "")
    assert run.stdout.startswith(f"{path}:")
    assert "Traceback" not in run.stdout
    assert _here(elsewhere, capsys, monkeypatch, "check", path) == (code, run.stdout)


def test_clauses_and_spec_check_from_another_folder(
    installed: Path,
    elsewhere: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = _referee(installed, elsewhere, "clauses")
    assert (run.returncode, run.stderr) == (0, "")
    assert "7.3.5" in run.stdout and "Movement and force sizes" in run.stdout
    assert _here(elsewhere, capsys, monkeypatch, "clauses") == (0, run.stdout)
    checked = _referee(installed, elsewhere, "spec", "check")
    assert (checked.returncode, checked.stderr) == (0, "")
    assert checked.stdout.startswith("spec OK:")


def test_the_installed_json_validates_against_the_installed_schema(
    installed: Path, elsewhere: Path
) -> None:
    """The schema ships in the wheel, and the installed referee's JSON keeps to it."""
    python = installed / ("python.exe" if os.name == "nt" else "python")
    script = (
        "import json, subprocess, sys, jsonschema\n"
        "from referee.output import schema\n"
        "out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout\n"
        "data = json.loads(out)\n"
        "jsonschema.validate(data, schema(), cls=jsonschema.Draft202012Validator)\n"
        "print(data['command'], data['exit_code'], data['result']['summary']['illegal'])\n"
    )
    referee_ = str(installed / "referee")
    run = _run(
        [str(python), "-c", script, referee_, "check", f"examples/{ILLEGAL}", "--format", "json"],
        elsewhere,
    )
    assert (run.returncode, run.stderr, run.stdout) == (0, "", "check 1 1\n")


def test_a_bad_record_is_a_located_error_from_the_installed_referee(
    installed: Path, elsewhere: Path
) -> None:
    (elsewhere / "bad.yaml").write_text("game: [\n")
    run = _referee(installed, elsewhere, "check", "bad.yaml")
    assert run.returncode == 2
    assert run.stderr.startswith("bad.yaml:2:1: malformed YAML or JSON")


def test_the_installed_api_works(installed: Path, elsewhere: Path) -> None:
    shutil.copy(ROOT / "tests" / "api_client" / "typed_client.py", elsewhere)
    python = installed / ("python.exe" if os.name == "nt" else "python")
    run = _run(
        [str(python), "typed_client.py", f"examples/{LEGAL}", f"examples/{ILLEGAL}"], elsewhere
    )
    assert (run.returncode, run.stderr) == (1, "")
    assert f"examples/{LEGAL}: legal" in run.stdout.splitlines()
    assert "breaks 7.3.3/within-allowance" in run.stdout


def test_the_installed_package_is_typed(installed: Path, elsewhere: Path) -> None:
    """mypy reads the installed package's types only if it carries py.typed."""
    pytest.importorskip("mypy", reason="mypy comes with the dev extras: pip install -e '.[dev]'")
    shutil.copy(ROOT / "tests" / "api_client" / "typed_client.py", elsewhere)
    python = installed / ("python.exe" if os.name == "nt" else "python")
    cmd = [sys.executable, "-m", "mypy", "--strict", "--python-executable", str(python)]
    cmd += ["--cache-dir", str(elsewhere / ".mypy_cache"), "typed_client.py"]
    run = _run(cmd, elsewhere)
    assert run.returncode == 0, run.stdout + run.stderr
