"""Hostile input, round three (issue 33): files that change under the referee, files it
writes, caches that could be made to lie, and budgets that must hold however the work is
divided. Each test builds the hostile input and asserts the promised ending: exit 2 with a
located, bounded, escaped message, or the right verdict; never an internal error, a hang, a
write outside where asked, or a wrong verdict."""

from __future__ import annotations

import difflib
import errno
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import referee
from referee.cli import main
from referee.compile import spec as spec_module
from referee.compile.spec import load_spec
from referee.data import cache as cache_module
from referee.data import limits as limits_module
from referee.data import walk as walk_module
from referee.run import batch as batch_module
from tests.referee_helpers import EXAMPLES
from tests.test_hostile import batch_beside_a_secret

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = Path(__file__).resolve().parent / "hostile"
LEGAL = EXAMPLES / "weeks-1-2.yaml"
NOTATION = EXAMPLES / "full-game.rec"
HEAD = 'game g "G"\nprinting p "P" base\n'
LINUX = sys.platform.startswith("linux")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in out + err, out + err
    return code, out, err


def bounded(text: str, limit: int = 1_000) -> bool:
    return all(len(line) <= limit for line in text.splitlines()) and len(text) < 20 * limit


def rec(tmp_path: Path, body: str, name: str = "r.rec") -> Path:
    path = tmp_path / name
    path.write_text("game: sekigahara\n" + body, encoding="utf-8")
    return path


# ------------------------------------------------------------------ the table notation


@pytest.mark.parametrize(
    ("escape", "column"), [("\\q", 9), ("\\x41", 9), ("\\u12", 10), ("\\a", 9), ("\\0", 9)]
)
def test_an_escape_json_lacks_is_said_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], escape: str, column: int
) -> None:
    path = rec(tmp_path, f'T deal "{escape}",tokugawa\n')
    code, out, err = run(capsys, "check", str(path))
    assert code == 2 and out == ""
    assert err.startswith(
        f"{path}:2:{column}: a quoted value with an escape or character JSON does not take"
    ), err
    assert "hint: the escapes are" in err


@pytest.mark.parametrize(
    ("header", "says"),
    [
        ("overlays: 5", "overlays: expected array, found integer 5"),
        ("no_overlays: true", "no_overlays: expected array, found boolean"),
    ],
)
def test_a_header_of_the_wrong_type_is_said_where_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str, says: str
) -> None:
    path = rec(tmp_path, f"{header}\nT deal tokugawa\n")
    code, _, err = run(capsys, "check", str(path))
    assert code == 2
    assert err.startswith(f"{path}:2:"), err
    assert says in err.splitlines()[0]


def test_repetition_counts_every_value_it_stands_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """14 KB of `item*9999` stood for ten million cards: counted as expanded, refused at the
    line where the count passes the limit, before they are made."""
    path = rec(tmp_path, "T deal tokugawa*9999,maeda*9999\n" * 60)
    assert path.stat().st_size < 3_000
    code, _, err = run(capsys, "check", str(path))
    assert code == 2
    # 51 lines of 19,998 values pass 1,000,000 (the first line is the game)
    assert (
        err.startswith(f"{path}:52:")
        and "the record holds more than 1,000,000 values, events and comments" in err
    ), err
    assert "hint: item*N counts as N values" in err


def test_convert_counts_repetitions_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = rec(tmp_path, "T deal tokugawa*9999,maeda*9999\n" * 60)
    code, out, err = run(capsys, "convert", str(path))
    assert code == 2 and out == ""
    assert "more than 1,000,000 values" in err


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("{a: &x Okazaki, b: *x, highway: Tokaido}", "aliases (&anchor / *alias) are not allowed"),
        ("{a: !!str Okazaki, b: Hamamatsu, highway: Tokaido}", "YAML tags are not allowed"),
        ("{a: 1:00, b: Hamamatsu, highway: Tokaido}", "no road has a: 1:00, b: Hamamatsu"),
    ],
)
def test_a_position_key_is_read_as_the_rest_of_a_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, says: str
) -> None:
    """A road written as a key (`road_uses`) is read by the record's own loader: no alias,
    no tag, no base 60 (an alias bomb there cost 1.1 GB)."""
    head = (HOSTILE / "kuwana_expect.yaml").read_text().split("events:")[0]
    path = tmp_path / "road.yaml"
    path.write_text(
        head.replace("    hand:\n", f"    road_uses:\n      '{key}': 1\n    hand:\n")
        + "events: []\n"
    )
    code, _, err = run(capsys, "check", str(path))
    assert code == 2
    assert err.startswith(f"{path}:9:"), err
    assert f"position.state.road_uses.{key}" in err.splitlines()[0] and says in err


# ------------------------------------------------------------------ read once, one budget


def _reads(monkeypatch: pytest.MonkeyPatch, path: Path, pause: float = 0.0) -> list[str]:
    """Each reading of ``path`` from the disk, recorded (and made to take ``pause`` s)."""
    seen: list[str] = []
    real = limits_module._read_bytes

    def reading(p: str | Path, limit: int, what: str) -> bytes:
        if Path(p) == path:
            seen.append(str(p))
            time.sleep(pause)
        return real(p, limit, what)

    monkeypatch.setattr(limits_module, "_read_bytes", reading)
    return seen


@pytest.mark.parametrize(
    ("argv", "doing"),
    [
        (["check"], "judging"),
        (["show"], "showing the record"),
        (["compare", "--only", "D-capitals"], "comparing the record"),
        (["convert"], "converting"),
        (["convert", "--to", "notation"], "converting"),
    ],
)
def test_a_record_is_read_once_inside_the_time_limit(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    doing: str,
) -> None:
    """The first reading (to learn the record's game) was outside the limit, and a second
    one followed: now one reading, inside it (a reading that takes too long is stopped)."""
    path = tmp_path / ("r.yaml" if "notation" in argv else "r.rec")
    shutil.copy(EXAMPLES / "full-game.yaml" if "notation" in argv else NOTATION, path)
    argv = [argv[0], str(path), *argv[1:]]
    seen = _reads(monkeypatch, path)
    code, _, _ = run(capsys, *argv)
    assert code in (0, 1) and len(seen) == 1, seen
    seen.clear()
    slow = _reads(monkeypatch, path, pause=3)
    monkeypatch.setenv("REFEREE_TIME_LIMIT", "1")
    code, _, err = run(capsys, *argv)
    assert code == 2 and len(slow) == 1
    assert err.startswith(f"{path}:0:0: stopped: {doing} took longer than the limit of 1 s"), err


def test_compare_has_one_budget_for_every_variant(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each variant took the time of a whole record (38 of them: 307 s): now the command
    has one limit. Here each variant takes 0.3 s: the limit of 1 s stops the comparison."""
    import referee.run.compare as compare_module

    real = compare_module.check_record
    judged: list[int] = []

    def check_record(*args: Any, **kw: Any) -> Any:
        judged.append(1)
        time.sleep(0.3)
        return real(*args, **kw)

    monkeypatch.setattr(compare_module, "check_record", check_record)
    monkeypatch.setenv("REFEREE_TIME_LIMIT", "1")
    record = EXAMPLES / "disputes" / "kuwana-overrun.yaml"
    code, _, err = run(capsys, "compare", str(record))
    assert code == 2
    # stopped in whichever variant the command's one second ran out, the variant named
    assert err.startswith(f"{record}:0:0: stopped: judging the record under "), err
    assert "took longer than the limit of 1 s" in err.splitlines()[0]
    assert len(judged) <= 5  # not one limit a variant


def test_convert_has_the_time_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = rec(tmp_path, "# a comment\n" * 300_000 + "T deal tokugawa\n")
    monkeypatch.setenv("REFEREE_TIME_LIMIT", "1")
    began = time.monotonic()
    code, out, err = run(capsys, "convert", str(path))
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:0:0: stopped: converting took longer than the limit of 1 s")
    assert time.monotonic() - began < 30


# ------------------------------------------------------------------ the spec cache


def test_the_cache_keeps_what_it_hashed_when_a_file_changes_between(
    game_copy: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rules file changed after the key is taken and changed back once the spec is parsed:
    the entry under the key holds the rules the key hashed, never the changed ones."""
    rules = game_copy / "clauses" / "07-movement.rules"
    original = rules.read_text()
    changed = original.replace("const overrun_ratio: int = 4", "const overrun_ratio: int = 9")
    assert changed != original
    real = spec_module._content_key
    moments: list[str] = []

    def content_key(game_dir: Path, data_dir: Path | None) -> str:
        key = real(game_dir, data_dir)
        if not moments:  # between the hashing and the parsing: the file changes
            rules.write_text(changed)
        moments.append(key)
        return key

    monkeypatch.setattr(spec_module, "_content_key", content_key)
    spec = load_spec(game_copy)
    assert spec.interpreter().call("overrun_ratio") == 4  # what was hashed, parsed
    rules.write_text(original)  # changed back
    monkeypatch.setattr(spec_module, "_content_key", real)
    spec_module._CACHE.clear()
    (entry,) = cache.glob("spec-*.signed")
    assert entry.name == f"spec-{moments[0]}{cache_module.ENTRY_SUFFIX}"
    assert load_spec(game_copy).interpreter().call("overrun_ratio") == 4  # from the entry


def test_a_full_disk_skips_the_cache_with_one_warning(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No space left under the cache folder: the verdict is given, one warning said, and no
    empty key file left behind."""
    real_write = os.write

    def write(fd: int, data: Any) -> int:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target.startswith(str(cache)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(cache_module, "_WARNED", [])
    code, out, err = run(capsys, "check", str(LEGAL))
    assert code == 0 and ": legal: 60 event(s)" in out
    assert err.count("warning: the spec cache in") == 1, err
    assert "No space left on device" in err
    assert not any(f.stat().st_size == 0 for f in cache.iterdir())
    assert list(cache.glob("spec-*")) == []


def test_a_full_disk_when_the_entry_is_written(
    cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import tempfile

    real = tempfile.mkstemp

    def mkstemp(*args: Any, **kw: Any) -> tuple[int, str]:
        fd, path = real(*args, **kw)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), path  # every write: ENOSPC

    monkeypatch.setattr(cache_module.tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(cache_module, "_WARNED", [])
    code, out, err = run(capsys, "check", str(LEGAL))
    assert code == 0 and ": legal: 60 event(s)" in out
    assert err.count("warning: the spec cache in") == 1 and "No space left" in err, err
    assert list(cache.glob("spec-*")) == [] and list(cache.glob(".tmp-*")) == []


def test_a_planted_entry_is_refused_by_its_size_unread(
    game_copy: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 600 MB file at the entry's name was read whole and copied for the HMAC (1.58 GB):
    its size is looked at first."""
    load_spec(game_copy)
    (entry,) = cache.glob("spec-*.signed")
    entry.unlink()
    with entry.open("wb") as f:
        f.truncate(600 * 1024 * 1024)
    entry.chmod(0o600)
    reads: list[int] = []
    real = cache_module._read_fd

    def read_fd(fd: int, limit: int) -> bytes | None:
        reads.append(os.fstat(fd).st_size)
        return real(fd, limit)

    monkeypatch.setattr(cache_module, "_read_fd", read_fd)
    spec_module._CACHE.clear()
    assert load_spec(game_copy).interpreter().call("overrun_ratio") == 4
    assert max(reads, default=0) <= cache_module.MAX_ENTRY_BYTES


def test_a_cache_home_with_a_name_too_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("REFEREE_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ("a" * 300)))
    spec_module._CACHE.clear()
    cache_module.store("spec-x.signed", b"payload")
    assert cache_module.load("spec-x.signed") is None
    code, out, _ = run(capsys, "check", str(LEGAL))
    assert code == 0 and ": legal: 60 event(s)" in out


# ------------------------------------------------------------------ files the referee writes


def test_play_out_writes_through_no_planted_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "game-0003.yaml").symlink_to(victim)
    code, _, err = run(capsys, "play", "--seed", "3", "--games", "2", "--out", str(out))
    assert code == 2
    assert err.startswith(f"{out / 'game-0003.yaml'}:0:0: already there: files are written new")
    assert victim.read_text() == "keep me"
    # asked to replace: the link is replaced, its target untouched
    code, _, err = run(
        capsys, "play", "--seed", "3", "--games", "2", "--out", str(out), "--replace"
    )
    assert code == 0, err
    assert victim.read_text() == "keep me" and not (out / "game-0003.yaml").is_symlink()
    assert (out / "game-0003.yaml").read_text().startswith("game: sekigahara")


def test_play_out_onto_a_folder_or_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "game-0003.yaml").mkdir()
    os.mkfifo(out / "game-0004.yaml")
    code, _, err = run(capsys, "play", "--seed", "3", "--games", "2", "--out", str(out))
    assert code == 2 and "already there and 1 more" in err
    done: list[int] = []

    def replace() -> None:
        done.append(main(["play", "--seed", "4", "--games", "1", "--out", str(out), "--replace"]))

    worker = threading.Thread(target=replace, daemon=True)
    worker.start()
    worker.join(60)
    assert done == [0]  # a FIFO is replaced, never opened: nothing blocks
    assert (out / "game-0004.yaml").is_file()
    code, _, err = run(
        capsys, "play", "--seed", "3", "--games", "1", "--out", str(out), "--replace"
    )
    assert code == 2 and err.startswith(f"{out / 'game-0003.yaml'}:0:0: cannot write it"), err


def test_convert_onto_a_fifo_never_blocks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "convert", str(NOTATION), "-o", str(fifo))
    assert code == 2 and out == ""
    assert err.startswith(f"referee convert: cannot write {fifo}: a FIFO, not a regular file"), err


@pytest.mark.parametrize(
    "argv",
    [
        ["convert", str(NOTATION), "-o", "/nonexistent/\x1b[2J\nlegal: 0/x.yaml"],
        ["play", "--seed", "1", "--games", "2", "--out", "/proc/\x1b[2J\nlegal"],
        ["check", str(LEGAL), "--\x1b[2J\nlegal"],
    ],
)
def test_paths_and_arguments_are_echoed_escaped(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's usage error
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err
    assert code == 2 and out == ""
    assert "\x1b" not in err and "\nlegal" not in err, err
    assert "\\x1b[2J\\nlegal" in err, err


# ------------------------------------------------------------------ files that change


def test_a_batch_reads_only_the_files_it_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record swapped for a link out of the folder after the folder was listed: refused,
    and the outside file's content never printed."""
    folder, secret = batch_beside_a_secret(tmp_path)
    real = walk_module.walk

    def walk(*args: Any) -> list[Path]:
        found = real(*args)
        (folder / "b.yaml").unlink()  # between the listing and the reading
        (folder / "b.yaml").symlink_to(secret)
        return found

    monkeypatch.setattr(batch_module, "walk", walk)
    code, out, _ = run(capsys, "check", str(folder))
    assert code == 2
    assert "secret" not in out.replace(str(secret), "")
    assert f"{folder / 'b.yaml'}:0:0: changed since its folder was listed" in out, out
    assert "2 records: 1 legal, 0 illegal, 1 bad input" in out


def test_overlays_reads_nothing_of_the_working_folder_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """./examples and ./tests held a 3 GB sparse file, 1,100 nested folders and a link to
    /proc/self/mem: `overlays` read them all. Now it reads none of them for its table, and
    with -v only what it can read bounded."""
    for name in ("examples", "tests"):
        (tmp_path / name).mkdir()
    with (tmp_path / "examples" / "huge.yaml").open("wb") as f:
        f.truncate(3 * 1024**3)
    _deep(tmp_path / "tests", 1_100, "x.py")
    (tmp_path / "tests" / "mem.py").symlink_to("/proc/self/mem")
    (tmp_path / "tests" / "case.py").write_text("# S-split\n")
    monkeypatch.chdir(tmp_path)
    try:
        code, out, _ = run(capsys, "overlays")
        assert code == 0 and "S-split" in out
        code, out, _ = run(capsys, "-v", "overlays")
        assert code == 0 and "tests/case.py" in out
        assert "tests/d/d" not in out  # deeper than a walk goes
    finally:
        _deep(tmp_path / "tests", 1_100, "x.py", remove=True)  # rmtree would recurse


def _deep(top: Path, depth: int, name: str, remove: bool = False) -> None:
    """Folders ``d/d/...`` ``depth`` deep below ``top`` with an empty file ``name`` at the
    bottom, made (or removed) a folder at a time: no path names them at once."""
    fds = [os.open(top, os.O_RDONLY)]
    for _ in range(depth):
        if not remove:
            os.mkdir("d", dir_fd=fds[-1])
        fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
    if remove:
        os.unlink(name, dir_fd=fds[-1])
    else:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT, dir_fd=fds[-1]))
    os.close(fds.pop())
    while fds:
        if remove:
            os.rmdir("d", dir_fd=fds[-1])
        os.close(fds.pop())


# ------------------------------------------------------------------ spec folders


def test_a_spec_folder_with_many_bad_entries_says_a_bounded_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = tmp_path / "spec" / "g"
    game.mkdir(parents=True)
    (game / "rules.rules").write_text(HEAD + 'clause 1.1 "One"\n  const a: int = 1\nend\n')
    for i in range(2_000):
        (game / f"nowhere-{i:04}.rules").symlink_to(tmp_path / "missing")
    code, out, err = run(capsys, "spec", "check", "--spec", str(game))
    assert code == 2 and out == ""
    assert bounded(err)
    assert err.count("a link that leads nowhere") == 50
    assert err.rstrip().endswith("more problems (the first 50 shown)"), err[-300:]


def test_a_walk_stops_after_so_many_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--spec /` walked the whole file system: a walk looks at MAX_WALK_ENTRIES entries."""
    monkeypatch.setattr(walk_module, "MAX_WALK_ENTRIES", 50)
    for i in range(20):
        (tmp_path / f"d{i:02}").mkdir()
        for j in range(10):
            (tmp_path / f"d{i:02}" / f"f{j}.rules").write_text("")
    skipped: list[walk_module.Skipped] = []
    found = walk_module.walk(tmp_path, (".rules",), skipped)
    assert len(found) <= 60
    assert skipped[-1].path == str(tmp_path)
    assert "the search stopped" in skipped[-1].reason


@pytest.mark.skipif(not LINUX, reason="/proc is Linux's")
def test_spec_check_of_proc_is_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "spec", "check", "--spec", "/proc/self/fd")
    assert code == 2 and out == "" and bounded(err, 300)


def test_repeated_clause_numbers_cost_linear_time_and_bounded_text(
    mini_game: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each dropped duplicate's names were unknown, each given a "did you mean" searched
    among every name: the square of the clauses in time, and text without end."""
    body = "".join(
        f'clause 1.1 "One"\n  const c{i}: int = 1\n  define f{i}(): int = c{i} + d{i}\nend\n'
        for i in range(600)
    )
    game = mini_game(HEAD + body)
    searches: list[str] = []
    real = difflib.get_close_matches

    def close(word: str, *args: Any, **kw: Any) -> list[str]:
        searches.append(word)
        return real(word, *args, **kw)

    monkeypatch.setattr(difflib, "get_close_matches", close)
    code, out, err = run(capsys, "spec", "check", "--spec", str(game))
    assert code == 2 and out == ""
    assert err.startswith(f"{game.resolve() / 'rules.rules'}:5:27: unknown name 'd0' [clause 1.1]")
    assert "duplicate clause id 1.1" in err
    assert len(searches) <= 60  # 50 unknown names given a suggestion, then none searched
    assert bounded(err) and "more problems (the first 50 shown)" in err


# ------------------------------------------------------------------ nesting without brackets

IMPLIES = " implies ".join(["true"] * 3_000)
ELSE_IF = "if true then 1 else " * 2_000 + "0"


@pytest.mark.parametrize(
    "body",
    [
        "  define f(x: bool): bool = " + " implies ".join(["x"] * 3_000) + "\n",
        "  define f(x: int): int = " + "if x > 0 then 1 else " * 2_000 + "0\n",
        "  define f(x: int): int = " + " + ".join(["x"] * 3_000) + "\n",
        "  define f(x: bool): bool = " + "not " * 3_000 + "x\n",
    ],
    ids=["implies", "else-if", "plus", "not"],
)
def test_a_chain_without_brackets_is_refused_where_it_passes_the_limit(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str], body: str
) -> None:
    game = mini_game(HEAD + 'clause 1.1 "One"\n' + body + "end\n")
    code, out, err = run(capsys, "spec", "check", "--spec", str(game))
    assert code == 2 and out == ""
    first = err.splitlines()[0]
    assert first.startswith(f"{game.resolve() / 'rules.rules'}:4:"), first
    assert "an expression nested too deeply to parse: more than 210 levels" in first
    assert bounded(err, 300)


@pytest.mark.parametrize(
    ("key", "value"), [(IMPLIES, "true"), (ELSE_IF, "1")], ids=["implies", "else-if"]
)
def test_a_chain_in_an_expect_key_is_refused_at_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str
) -> None:
    path = tmp_path / "expect.yaml"
    base = (HOSTILE / "kuwana_expect.yaml").read_text()
    path.write_text(base + f"      ? '{key}'\n      : {value}\n")
    code, _, err = run(capsys, "check", str(path))
    assert code == 2
    assert err.startswith(f"{path}:20:"), err
    assert "expect: an expression nested too deeply to parse: more than 210" in err.splitlines()[0]
    assert bounded(err, 300)


@pytest.mark.parametrize(
    "argv",
    [["play", "--until", IMPLIES], ["compare", "--games", "2", "--until", ELSE_IF + " > 0"]],
    ids=["play", "compare"],
)
def test_a_chain_in_until_is_refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert (
        err.startswith("<--until>:1:") and "nested too deeply to parse: more than 210 levels" in err
    ), err
    assert bounded(err, 300)


# ------------------------------------------------------------------ prove's budget


def _doubling(n: int, wide: int = 0) -> str:
    """f_k calls f_(k-1) twice: no recursion, 2**n calls inlined (f0 a sum of 2**wide terms)."""
    body = "x + 1"
    for _ in range(wide):
        body = f"({body}) + ({body})"
    lines = ['clause 1.1 "One"', f"  define f0(x: int): int = {body}"]
    lines += [
        f"  define f{k}(x: int): int = f{k - 1}(x) + f{k - 1}(x + 1)" for k in range(1, n + 1)
    ]
    lines.append(f'  property [big] "big": forall n: int in 0..3: f{n}(n) >= 0')
    return HEAD + "\n".join(lines) + "\nend\n"


def test_prove_timeout_bounds_the_translation(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # 2**14 - 1 calls inlined, under the count's budget (test_prove_counts_what_it_inlines),
    # each f0 a sum of 512 terms: the translation outlasts the --timeout, whatever the machine
    game = mini_game(_doubling(13, wide=8))
    began = time.monotonic()
    code, out, _ = run(capsys, "prove", "--spec", str(game), "--timeout", "1")
    assert time.monotonic() - began < 30
    assert code == 1
    assert "1.1/big" in out and "unknown: the --timeout of 1 s passed while translating it" in out


def test_prove_counts_what_it_inlines(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(_doubling(20))
    code, out, _ = run(capsys, "prove", "--spec", str(game))
    assert code == 1
    assert "skipped: cannot translate f0: more than 20,000 calls inlined in all" in out, out
    small = mini_game(_doubling(6))
    code, out, _ = run(capsys, "prove", "--spec", str(small))
    assert code == 0 and "all 1 proved" in out


# ------------------------------------------------------------------ the Python API


def _nested(depth: int) -> dict[str, Any]:
    top: dict[str, Any] = {}
    here = top
    for _ in range(depth):
        here["a"] = {}
        here = here["a"]
    return top


@pytest.mark.parametrize("depth", [300, 1_000, 100_000])
def test_the_api_refuses_a_mapping_nested_deep(depth: int) -> None:
    with pytest.raises(referee.RecordError) as caught:
        referee.check({"game": "sekigahara", "events": [_nested(depth)]})
    (first, *_) = caught.value.problems
    assert "nest" in first.message and "64 levels" in first.message


@pytest.mark.parametrize(
    ("at", "says"), [(10**5000, "a"), (-(10**5000), "a negative")], ids=["big", "negative"]
)
def test_the_api_says_an_event_number_too_large_to_print(at: int, says: str) -> None:
    with pytest.raises(referee.RecordError) as caught:
        referee.show(LEGAL, at=at)
    (problem,) = caught.value.problems
    assert problem.message == (
        f"--at ({says} number of about 5,001 digits): this record has 60 event(s), numbered 1 to 60"
    )


@pytest.mark.parametrize("call", [referee.check, referee.show, referee.compare])
def test_the_api_refuses_a_path_with_a_null_byte(call: Callable[..., Any]) -> None:
    with pytest.raises(referee.RecordError) as caught:
        call(Path("a\0b.yaml"))
    (problem,) = caught.value.problems
    assert problem.file == "a\\x00b.yaml"
    assert problem.message == "cannot read file: a path with a null byte names no file"
    # a str holding one is no path: it is taken as a record's text (binary data), refused
    with pytest.raises(referee.RecordError) as caught:
        call("a\0b.yaml")
    assert caught.value.problems[0].file == "<string>"


@pytest.mark.parametrize("at", [1.5, "3", True])
def test_the_api_says_an_event_number_must_be_an_int(at: object) -> None:
    with pytest.raises(
        TypeError, match=f"at: an event number \\(an int\\), not {type(at).__name__}"
    ):
        referee.show(LEGAL, at=at)  # type: ignore[arg-type]


def test_the_api_refuses_a_game_path_with_a_null_byte() -> None:
    with pytest.raises(referee.SpecError):
        referee.load_game(Path("a\0b"))


# ------------------------------------------------------------------ output encodings


@pytest.mark.usefixtures("shared_disk_cache")  # six processes: the spec checked once
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("command", ["convert", "check", "show"])
def test_every_command_copes_with_any_output_encoding(
    tmp_path: Path, encoding: str, command: str
) -> None:
    path = tmp_path / "r.rec"
    path.write_text(NOTATION.read_text().replace("A whole game, scored", "関ヶ原 — 1600"))
    env = {**os.environ, "PYTHONIOENCODING": encoding, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "referee", command, str(path)],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr
    if command == "convert":
        assert b"title: " in proc.stdout


def test_explain_escapes_a_hostile_specs_text(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Titles, summaries and source of a spec given by the user reach the terminal escaped,
    as `clauses` shows them."""
    game = mini_game(
        HEAD + 'clause 1.1 "One \x1b[31mred\u202e"\n  summary "sum \x1b[2J \u202e mary"\n'
        "  const a: int = 1  # note \x1b[31m\nend\n"
    )
    code, out, _ = run(capsys, "explain", "1.1", "--spec", str(game))
    assert code == 0
    assert "\x1b" not in out and "\u202e" not in out
    assert out.startswith("1.1  One \\x1b[31mred\\u202e  (normative)\n\nsum \\x1b[2J \\u202e mary")
    assert "  const a: int = 1  # note \\x1b[31m" in out
    code, out, _ = run(capsys, "clauses", "--spec", str(game))
    assert "One \\x1b[31mred\\u202e" in out


def test_a_spec_is_bounded_as_a_whole(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each .rules file was bounded (2 MB), not the spec: now its files together too."""
    game = mini_game(HEAD)
    comment = "# " + "x" * 98 + "\n"
    for name in ("a", "b", "c"):
        (game / f"{name}.rules").write_text(comment * 15_000)  # 1.5 MB each
    code, out, err = run(capsys, "spec", "check", "--spec", str(game))
    assert code == 2 and out == ""
    assert err.startswith(
        f"{game / 'c.rules'}:0:0: a spec of more than 1,000 .rules files or 4,194,304 bytes"
        " of them: this one passes the limit"
    ), err


def test_a_spec_of_too_many_files_is_refused(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(HEAD)
    for i in range(1_001):
        (game / f"z{i:04}.rules").write_text("")
    code, _, err = run(capsys, "spec", "check", "--spec", str(game))
    assert code == 2 and err.startswith(f"{game / 'z0999.rules'}:0:0: a spec of more than"), err


def test_a_line_of_too_many_values_is_refused_where_it_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Long lines each under the size limit reached a gigabyte: a line holds at most 250,000
    values and signs (100,000 values and their commas are read and judged: test_notation)."""
    path = rec(tmp_path, "T deal " + ",".join(["date"] * 2_000_000) + "\n")
    code, _, err = run(capsys, "check", str(path))
    assert code == 2
    assert err.startswith(f"{path}:2:") and "more than 250,000 values and signs on a line" in err
    assert bounded(err, 300)
