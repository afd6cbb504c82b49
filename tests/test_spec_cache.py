"""The checked spec is cached on disk by the content of every file it is made from, and by
nothing else (not the working directory, not where the files are), in the platform's cache
folder, holding a bounded number of entries."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import main
from referee.compile import spec as spec_module
from referee.compile.spec import Spec, load_spec
from referee.data import cache as cache_module


def test_disk_cache_is_keyed_by_content(game_copy: Path, cache: Path) -> None:
    first = load_spec(game_copy)
    cached = list(cache.glob("spec-*.signed"))
    assert len(cached) == 1
    spec_module._CACHE.clear()
    again = load_spec(game_copy)  # from the disk cache
    assert (
        again.interpreter().call("overrun_ratio") == first.interpreter().call("overrun_ratio") == 4
    )
    rules = game_copy / "clauses" / "07-movement.rules"
    rules.write_text(
        rules.read_text().replace("const overrun_ratio: int = 4", "const overrun_ratio: int = 5")
    )
    spec_module._CACHE.clear()
    changed = load_spec(game_copy)
    assert changed.interpreter().call("overrun_ratio") == 5
    assert len(list(cache.glob("spec-*.signed"))) == 2


def test_a_broken_cache_file_is_rebuilt(game_copy: Path, cache: Path) -> None:
    load_spec(game_copy)
    (path,) = cache.glob("spec-*.signed")
    path.write_bytes(b"not a pickle")
    spec_module._CACHE.clear()
    assert load_spec(game_copy).interpreter().call("overrun_ratio") == 4


# ------------------------------------------------------------------ keyed by content only


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on a spec can only come from the disk cache."""

    def refuse(*_: object) -> Spec:
        raise AssertionError("parsed again: the disk cache was not used")

    monkeypatch.setattr(spec_module, "_load", refuse)


def test_working_directories_share_one_entry(
    game_copy: Path, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = (game_copy / "clauses" / "07-movement.rules").resolve()

    def movement(spec: Spec) -> str:
        (name,) = [m.file for m in spec.modules if m.file.endswith("07-movement.rules")]
        return name

    monkeypatch.chdir(tmp_path)
    assert movement(load_spec(game_copy)) == "spec/sekigahara/clauses/07-movement.rules"
    _no_parsing(monkeypatch)
    for cwd in (game_copy, game_copy / "clauses", Path(tmp_path.anchor)):
        monkeypatch.chdir(cwd)
        spec_module._CACHE.clear()
        again = load_spec(game_copy)
        # the names spans give files are those of this working directory
        try:
            want = str(rules.relative_to(Path.cwd()))
        except ValueError:
            want = str(rules)
        assert movement(again) == want and want in again.sources
        assert again.game_dir == game_copy.resolve()
    assert len(list(cache.glob("spec-*.signed"))) == 1


def test_copies_of_a_spec_share_one_entry_and_name_their_own_files(
    game_copy: Path, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "elsewhere" / "spec"
    shutil.copytree(game_copy.parent, other)
    monkeypatch.chdir(tmp_path)
    load_spec(game_copy)
    _no_parsing(monkeypatch)
    spec_module._CACHE.clear()
    copy = load_spec(other / "sekigahara")
    assert len(list(cache.glob("spec-*.signed"))) == 1
    assert copy.game_dir == (other / "sekigahara").resolve()
    files = {m.file for m in copy.modules} | {d.file for d in copy.components.documents.values()}
    assert files and all("elsewhere" in f for f in files)
    assert all("elsewhere" in f for f in copy.sources)
    assert copy.components.documents["map"].file == str(
        (other / "sekigahara" / "data" / "map.yaml").resolve()
    )


def test_a_changed_file_name_is_another_entry(game_copy: Path, cache: Path) -> None:
    load_spec(game_copy)
    rules = game_copy / "clauses" / "07-movement.rules"
    rules.rename(rules.with_name("07-moving.rules"))
    spec_module._CACHE.clear()
    moved = load_spec(game_copy)
    assert any(m.file.endswith("07-moving.rules") for m in moved.modules)
    assert len(list(cache.glob("spec-*.signed"))) == 2


# ------------------------------------------------------------------ bounded


MINI = 'game g "G"\nprinting p "P" base\nclause 1.1 "One"\n  const a: int = {}\nend\n'


def test_the_number_of_entries_stays_bounded(
    mini_game: Callable[[str], Path], cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_CACHE_ENTRIES", "3")
    for n in range(7):
        spec_module._CACHE.clear()
        assert load_spec(mini_game(MINI.format(n))).interpreter().call("a") == n
        assert len(list(cache.glob("spec-*.signed"))) == min(n + 1, 3)
    # the default bound, for the cache module itself
    monkeypatch.delenv("REFEREE_CACHE_ENTRIES")
    for n in range(40):
        cache_module.store(f"x-{n}.signed", b"payload")
    assert len(list(cache.glob("*.signed"))) == cache_module.DEFAULT_ENTRIES == 16
    assert (cache / "key").is_file()


def _aged(folder: Path, names: list[str]) -> None:
    """Entries used one after another, in this order, an hour apart (no clock is read)."""
    for age, name in enumerate(reversed(names), 1):
        os.utime(folder / name, ns=(0, (1_000_000 - age * 3600) * 10**9))


def test_eviction_removes_the_least_recently_used(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_CACHE_ENTRIES", "3")
    for name in ("a.signed", "b.signed", "c.signed"):
        cache_module.store(name, name.encode())
    _aged(cache, ["a.signed", "b.signed", "c.signed"])  # a the oldest
    cache_module.store("d.signed", b"d")
    assert sorted(p.name for p in cache.glob("*.signed")) == ["b.signed", "c.signed", "d.signed"]
    _aged(cache, ["b.signed", "c.signed", "d.signed"])
    assert cache_module.load("b.signed") == b"b.signed"  # read: used now, no longer the oldest
    cache_module.store("e.signed", b"e")
    assert sorted(p.name for p in cache.glob("*.signed")) == ["b.signed", "d.signed", "e.signed"]


def test_temporary_files_of_a_dead_process_are_removed(cache: Path) -> None:
    cache_module.store("a.signed", b"a")
    (cache / ".tmp-old").write_bytes(b"half an entry")
    (cache / ".tmp-new").write_bytes(b"being written")
    os.utime(cache / ".tmp-old", (0, 0))
    cache_module.store("b.signed", b"b")
    assert not (cache / ".tmp-old").exists() and (cache / ".tmp-new").exists()


def test_cache_entries_from_the_environment(
    game_copy: Path,
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("REFEREE_CACHE_ENTRIES", "0")  # no disk cache at all
    load_spec(game_copy)
    assert not cache.exists() or list(cache.glob("*.signed")) == []
    for bad in ("many", "-1", "1e3", "100001", "9" * 400):
        monkeypatch.setenv("REFEREE_CACHE_ENTRIES", bad)
        spec_module._CACHE.clear()
        assert main(["spec", "check", "--spec", str(game_copy)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("<environment>:0:0: REFEREE_CACHE_ENTRIES=")
        assert "must be a whole number from 0 (no disk cache) to 100,000" in err
        assert len(err) < 300


# ------------------------------------------------------------------ where


@pytest.mark.parametrize(
    ("platform", "env", "expected"),
    [
        ("linux", {}, "HOME/.cache/rules-referee"),
        ("linux", {"XDG_CACHE_HOME": "ABS/xdg"}, "ABS/xdg/rules-referee"),
        ("linux", {"XDG_CACHE_HOME": "relative/xdg"}, "HOME/.cache/rules-referee"),
        ("darwin", {}, "HOME/Library/Caches/rules-referee"),
        ("darwin", {"XDG_CACHE_HOME": "ABS/xdg"}, "ABS/xdg/rules-referee"),
        ("win32", {"LOCALAPPDATA": "ABS/local"}, "ABS/local/rules-referee"),
        ("win32", {}, "HOME/AppData/Local/rules-referee"),
    ],
)
def test_the_cache_is_in_the_platforms_cache_folder(
    platform: str,
    env: dict[str, str],
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home, absolute = tmp_path / "home", tmp_path / "abs"
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    for name in ("XDG_CACHE_HOME", "LOCALAPPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value.replace("ABS", str(absolute)))
    want = expected.replace("HOME", str(home)).replace("ABS", str(absolute))
    assert cache_module.cache_dir() == Path(want)


def test_eviction_removes_a_planted_link_not_what_it_points_to(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_CACHE_ENTRIES", "1")
    cache_module.store("a.signed", b"a")
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    (cache / "planted.signed").symlink_to(precious)
    os.utime(cache / "planted.signed", ns=(0, 0), follow_symlinks=False)
    cache_module.store("b.signed", b"b")
    assert sorted(p.name for p in cache.iterdir()) == ["b.signed", "key"]
    assert precious.read_text() == "keep me"


# ------------------------------------------------------------------ the parser's tables


def test_the_parsers_tables_come_from_the_disk_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Building the rules language's LALR tables costs more than judging a short record: they
    are kept in the signed cache, and a fresh process loads them (no Lark parser is built),
    parsing every .rules file and every expression to the same trees."""
    from lark import Lark

    from referee.compile.spec import rules_files
    from referee.parse import grammar as parser

    parser.lark_parser.cache_clear()
    built = parser.lark_parser()
    (entry,) = cache.glob("grammar-*.signed")
    parser.lark_parser.cache_clear()

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a Lark parser was built: the cached tables were not used")

    monkeypatch.setattr(Lark, "__init__", refuse)
    loaded = parser.lark_parser()
    files = rules_files(spec_module.default_game_dir())
    assert files
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert loaded.parse(text, start="start") == built.parse(text, start="start")
    for text in ("units_at(Kyoto, tokugawa)", "week > 2 and not x", "a + b * 2 - f(c, 3)"):
        assert loaded.parse(text, start="expr") == built.parse(text, start="expr")
    # and an entry that is not ours is not believed: the tables are built again
    entry.write_bytes(b"planted")
    parser.lark_parser.cache_clear()
    monkeypatch.undo()
    assert parser.lark_parser().parse("1 + 2", start="expr") == built.parse("1 + 2", start="expr")
    parser.lark_parser.cache_clear()
