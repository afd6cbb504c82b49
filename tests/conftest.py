from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.compile import spec as spec_module
from referee.compile.execute import Interpreter
from referee.compile.spec import SPEC_ROOT, Spec, default_game_dir, load_spec

# the bundled game, or the spec REFEREE_SPEC names (tools/mutate.py judges a mutant so)
GAME = default_game_dir()

# Tests load many temporary specs: keep them out of the user's disk cache
# (test_spec_cache.py tests the cache in a directory of its own).
os.environ["REFEREE_NO_CACHE"] = "1"


@pytest.fixture(scope="session")
def spec() -> Spec:
    return load_spec(GAME)


@pytest.fixture(scope="session")
def rules(spec: Spec) -> Interpreter:
    return spec.interpreter()


@pytest.fixture(scope="session")
def face(spec: Spec) -> Callable[[str], dict[str, Any]]:
    faces = {f["id"]: f for f in spec.components.collections["faces"]}
    return lambda fid: faces[fid]


@pytest.fixture(scope="session")
def card(spec: Spec) -> Callable[[str], dict[str, Any]]:
    cards = {c["id"]: c for c in spec.components.collections["cards"]}
    return lambda cid: cards[cid]


@pytest.fixture
def game_copy(tmp_path: Path) -> Path:
    """A writable copy of the whole spec tree (schemas beside the game directory)."""
    root = tmp_path / "spec"
    shutil.copytree(SPEC_ROOT, root)
    return root / "sekigahara"


@pytest.fixture
def mini_game(tmp_path: Path) -> Callable[[str], Path]:
    """A game directory holding one .rules file with the given text, and no data."""

    def make(text: str, name: str = "rules.rules") -> Path:
        game = tmp_path / "spec" / "mini"
        game.mkdir(parents=True, exist_ok=True)
        (game / name).write_text(text, encoding="utf-8")
        return game

    return make


@pytest.fixture
def schema_game(mini_game: Callable[[str], Path]) -> Callable[[str], Path]:
    """A mini game (as ``mini_game``) beside the bundled record schema, so that its records
    are read as the bundled games' are."""

    def make(text: str) -> Path:
        folder = mini_game(text)
        schema = folder.parent / "schema"
        if not schema.exists():
            shutil.copytree(SPEC_ROOT / "schema", schema)
        return folder

    return make


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A disk cache of its own, on, and an empty process cache; the folder of the signed entries."""
    monkeypatch.delenv("REFEREE_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec_module._CACHE.clear()
    return tmp_path / "cache" / "rules-referee"


@pytest.fixture(scope="session")
def proof_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An XDG_CACHE_HOME made for this test session, shared by its workers (pytest-xdist's
    are folders of one session folder): the tests that prove the bundled spec as it is, in
    this process or in a command they run, prove it once between them (the proof cache of
    `referee prove`, keyed by the spec's content and the options: docs/commands/prove.md)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    home = base / "proof-cache-home"
    home.mkdir(exist_ok=True)
    return home


@pytest.fixture
def shared_disk_cache(proof_cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The session's disk cache on, for the test and the commands it runs in processes of
    their own (a module's ``pytestmark = pytest.mark.usefixtures("shared_disk_cache")``):
    each process reads the checked spec from it rather than checking it again (1.5 s of CPU
    each, 0.4 with the cache warm)."""
    monkeypatch.delenv("REFEREE_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(proof_cache_home))
    monkeypatch.setenv("REFEREE_CACHE_ENTRIES", "1000")
    return proof_cache_home


@pytest.fixture
def shared_proofs(proof_cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The disk cache on, in the session's shared folder, for a test that proves."""
    monkeypatch.delenv("REFEREE_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(proof_cache_home))
    monkeypatch.setenv("REFEREE_CACHE_ENTRIES", "1000")
    return proof_cache_home


# The few tests that take minutes (each proves the rules many times over) start first, so that
# with `-n auto` the workers share them out at the start rather than one worker finishing the
# run alone with them at its end; the other tests keep their order.
LONG_FIRST = (
    "test_prove.py::test_every_printing_and_overlay_keeps_the_properties",
    "test_mutate.py::test_the_stages_kill_what_they_should",
    "test_mutate.py::test_prove_reads_declarations_and_leaves_out_statements",
    "test_mutate.py::test_the_new_properties_notice_their_mutants",
    "test_cli_habits.py::test_verbose_adds_detail_to_every_command",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        found = [i for i, name in enumerate(LONG_FIRST) if item.nodeid.endswith(name)]
        return found[0] if found else len(LONG_FIRST)

    items.sort(key=rank)
