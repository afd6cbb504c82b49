"""`referee table` (issue 30, 3, and 33's attack on the new commands): a game piped in the
notation is judged line by line and saved; refused lines are not applied; undo, moves, show,
save and help work from a pipe; a million lines, binary data and an endless line are refused
within the bounds, each with a located message and exit code 2."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import referee
from tests.referee_helpers import EXAMPLES, ROOT

# each test runs `referee table` in a process of its own: the spec read from the session's cache
pytestmark = pytest.mark.usefixtures("shared_disk_cache")


def table(lines: str | bytes, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    data = lines.encode() if isinstance(lines, str) else lines
    return subprocess.run(
        [sys.executable, "-m", "referee", "table", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        check=False,
        timeout=300,
    )


def game_lines() -> list[str]:
    """The events of the whole game, in the notation, one a line."""
    text = (EXAMPLES / "full-game.rec").read_text()
    return [x for x in text.splitlines() if x and not x.startswith(("#", "game:", "title:"))]


def test_a_piped_game_is_judged_line_by_line_and_saved(tmp_path: Path) -> None:
    lines = game_lines()
    saved = tmp_path / "game.rec"
    done = table("\n".join(lines) + f"\nsave {saved}\n", "--game", "sekigahara")
    out = done.stdout.decode()
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    assert "\n147 result: legal" in out
    assert "  expect score(tokugawa): 12: as expected" in out
    assert f"saved 147 event(s) to {saved}" in out
    verdict = referee.check(saved)
    assert verdict.legal and verdict.events == 147
    assert "tokugawa wins" in verdict.summary


def test_a_refused_line_is_not_applied_and_the_game_goes_on(tmp_path: Path) -> None:
    lines = game_lines()[:4]
    script = [
        lines[0],
        lines[0],
        *lines[1:],
        "undo",
        "show",
        "moves",
        "help",
        f"save {tmp_path / 'g.yaml'}",
    ]
    done = table("\n".join(script) + "\nquit\nT deal never,read\n", "--game", "sekigahara")
    out = done.stdout.decode()
    assert done.returncode == 1, done.stderr
    assert "2 deal: refused, not applied: 5.1/one-deal" in out
    assert "2 deal: legal" in out  # the next line is event 2 again: the refused one was left out
    assert "undone: " in out
    assert "allowed now:" in out and "step placing" in out
    saved = (tmp_path / "g.yaml").read_text()
    assert referee.check(saved).legal
    assert "never" not in out  # nothing after quit is read


def test_the_table_starts_from_a_record(tmp_path: Path) -> None:
    text = (EXAMPLES / "movement-example.yaml").read_text()
    start = tmp_path / "start.yaml"
    start.write_text(text[: text.index("  - end_movement")])
    done = table("moves end_movement\n", "--from", str(start))
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert out.splitlines()[0].startswith("6 event(s); ")
    assert "end_movement (7.1), by ishida: 1 legal of 1 tried" in out


def test_an_unreadable_line_is_located_and_the_others_judged() -> None:
    lines = game_lines()
    done = table(f"{lines[0]}\nT fly Edo\n{lines[1]}\n", "--game", "sekigahara")
    err = done.stderr.decode()
    assert done.returncode == 2
    assert err.startswith("<stdin>:2:")
    assert "2 deal: legal" in done.stdout.decode()


def test_binary_input_is_refused() -> None:
    done = table(b"\x7fELF\x02\x01\x01\x00\x00\x00\x00binary\n", "--game", "sekigahara")
    assert done.returncode == 2
    assert b"<stdin>:1: binary data, not text" in done.stderr


def test_a_million_lines_stop_within_the_bounds() -> None:
    """A million lines the table cannot use: it stops at the bound of problems, at once."""
    started = time.monotonic()
    done = table("T fly Edo\n" * 1_000_000, "--game", "sekigahara")
    took = time.monotonic() - started
    err = done.stderr.decode()
    assert done.returncode == 2
    assert "<stdin>:100: 100 refused or unreadable lines: stopped" in err
    assert took < 60


def test_a_million_blank_lines_stop_at_the_line_bound() -> None:
    done = table("\n" * 1_000_000, "--game", "sekigahara", "--max-lines", "50000")
    assert done.returncode == 2
    assert b"<stdin>:50001: more than 50,000 lines: stopped (--max-lines)" in done.stderr


def test_an_endless_line_is_refused() -> None:
    lines = game_lines()
    done = table("T " + "x" * 100_000 + f"\n{lines[0]}\n", "--game", "sekigahara")
    assert done.returncode == 2
    assert b"<stdin>:1: a line longer than 16,384 bytes: refused" in done.stderr
    assert "1 deal: legal" in done.stdout.decode()


def test_what_a_line_gave_is_echoed_clipped_and_escaped(tmp_path: Path) -> None:
    """A word the table cannot use is said back escaped (no terminal control reaches the
    screen) and clipped, however long the line."""
    word = "x" * 15_000 + "\x1b[31m"
    done = table(f"moves {word}\nmoves fly\x1b[2J\nsave {tmp_path}/no/such/{'y' * 3000}.rec\n")
    err = done.stderr.decode()
    assert done.returncode == 2
    assert "\x1b" not in err and len(err) < 4_000, len(err)
    assert "<stdin>:1: moves xxx" in err and "more characters)" in err
    assert "<stdin>:2: moves fly\\x1b[2J: no such action" in err
    assert f"<stdin>:3: save {tmp_path}/no/such/yyy" in err and ": cannot write: " in err
