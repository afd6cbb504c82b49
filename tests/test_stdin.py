"""A record from standard input (`-`): the same limits, the same verdict as from its file,
errors located as `<stdin>:line:col`; a pipe given by its path is still refused."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import Span, source_line
from tests.referee_helpers import EXAMPLES, ROOT, output, verdict_of

LEGAL = EXAMPLES / "weeks-1-2.yaml"
ILLEGAL = EXAMPLES / "illegal" / "movement-too-far.yaml"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The referee's environment: a disk cache of the tests' own, so that each run after the
    first loads the spec in a few hundredths of a second."""
    env = dict(os.environ)
    env.pop("REFEREE_NO_CACHE", None)
    env["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    env.pop("NO_COLOR", None)
    return env


def referee(
    env: dict[str, str], *argv: str, stdin: bytes = b"", cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    # the bytes go in as they are; what comes out is read as text
    done = subprocess.run(
        [sys.executable, "-m", "referee", *argv],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**env, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def test_a_record_from_stdin_gets_the_verdict_of_its_file(env: dict[str, str]) -> None:
    for record, code in ((LEGAL, 0), (ILLEGAL, 1)):
        piped = referee(env, "check", "-", "--format", "json", stdin=record.read_bytes())
        filed = referee(env, "check", str(record), "--format", "json")
        assert piped.returncode == filed.returncode == code
        a, b = verdict_of(piped.stdout), verdict_of(filed.stdout)
        assert a.pop("file") == "<stdin>" and b.pop("file") == str(record)
        assert a == b


def test_a_verdict_from_stdin_names_stdin_where_the_event_is(env: dict[str, str]) -> None:
    done = referee(env, "check", "-", stdin=ILLEGAL.read_bytes())
    assert done.returncode == 1
    assert done.stdout.startswith("<stdin>:18:5: event 2 (move) is illegal")
    assert "within-allowance (Movement distance)" in done.stdout


def test_bad_input_from_stdin_is_located_at_stdin(env: dict[str, str]) -> None:
    text = LEGAL.read_text().replace("events:", "events: [\n", 1)
    done = referee(env, "check", "-", stdin=text.encode())
    assert done.returncode == 2 and done.stdout == ""
    first, shown, caret = done.stderr.splitlines()[:3]
    assert first.startswith("<stdin>:") and "malformed YAML or JSON" in first
    line = int(first.split(":")[1])
    assert shown.strip() == text.splitlines()[line - 1].strip() and caret.strip() == "^"
    assert "Traceback" not in done.stderr

    bad_byte = referee(env, "check", "-", stdin=b"game: sekigahara\nevents: [\xff]\n")
    assert bad_byte.returncode == 2
    assert bad_byte.stderr.startswith("<stdin>:2:10: not UTF-8 text (bad byte at offset 26)")

    empty = referee(env, "check", "-", stdin=b"")
    assert empty.returncode == 2 and empty.stderr.startswith("<stdin>:1:1: the record is empty")


def test_stdin_is_held_to_the_record_limit(env: dict[str, str]) -> None:
    big = b"# " + b"x" * (16 * 1024 * 1024) + b"\n"
    done = referee(env, "check", "-", stdin=big)
    assert done.returncode == 2
    assert done.stderr.startswith("<stdin>:1:1: record is over the limit of 16,777,216 bytes")


def test_a_pipe_given_by_its_path_is_still_refused(env: dict[str, str]) -> None:
    if not Path("/dev/stdin").exists():
        pytest.skip("no /dev/stdin here")
    done = referee(env, "check", "/dev/stdin", stdin=LEGAL.read_bytes())
    assert done.returncode == 2
    assert "/dev/stdin:0:0: a FIFO, not a regular file: a record must be one" in done.stderr
    assert "hint: to read a record from standard input, give - instead of a path" in done.stderr


def test_stdin_among_other_records(env: dict[str, str], tmp_path: Path) -> None:
    # a folder named '-' in the working directory does not stop '-' meaning standard input
    (tmp_path / "-").mkdir()
    (tmp_path / "-" / "decoy.yaml").write_text("not: a record\n")
    done = referee(
        env, "check", "-", str(LEGAL), "--format", "json", stdin=ILLEGAL.read_bytes(), cwd=tmp_path
    )
    assert done.returncode == 1
    out = output(done.stdout)
    assert [(r["file"], r["status"]) for r in out["records"]] == [
        ("<stdin>", "illegal"),
        (str(LEGAL), "legal"),
    ]
    assert out["records"][0]["violations"][0]["label"] == "within-allowance"
    # standard input that is no record is that record's bad input; the others are judged
    broken = referee(env, "check", str(LEGAL), "-", stdin=b"events: [\n")
    assert broken.returncode == 2
    assert "<stdin>:2:1: malformed YAML or JSON" in broken.stdout
    assert "2 records: 1 legal, 0 illegal, 1 bad input" in broken.stdout


def test_show_and_compare_read_stdin(env: dict[str, str]) -> None:
    piped = referee(env, "show", "-", "--at", "28", stdin=LEGAL.read_bytes())
    filed = referee(env, "show", str(LEGAL), "--at", "28")
    assert piped.returncode == filed.returncode == 0
    assert piped.stdout.startswith("<stdin>: the position before event 28 of 60")
    assert piped.stdout.replace("<stdin>", str(LEGAL), 1) == filed.stdout
    # compare replays the record once a variant: standard input is read once, and kept
    twice = EXAMPLES / "overlays" / "one-stack-twice.yaml"
    piped = referee(env, "compare", "--only", "gmt-2011", "-", stdin=twice.read_bytes())
    filed = referee(env, "compare", "--only", "gmt-2011", str(twice))
    assert piped.returncode == filed.returncode == 0
    assert re.search(r"printing gmt-2011 +2 +illegal \S+/segment-once +legal", piped.stdout)
    assert piped.stdout.replace("<stdin>", str(twice)) == filed.stdout


def test_no_file_named_like_stdin_is_read_in_its_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "<stdin>").write_text("a line from a file\n")
    monkeypatch.chdir(tmp_path)
    assert source_line(Span("<stdin>", 1, 1)) is None
    assert source_line(Span("<stdin>", 1, 1), {"<stdin>": "the record's line\n"}) == (
        "the record's line"
    )
