"""Habits every command shares: -q and -v before or after the command, colour only where it
is wanted (and never from the input), and help with a description, examples and exit codes."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import build_parser, main
from referee.style import CODES, paint, wanted
from tests.referee_helpers import EXAMPLES, ROOT

LEGAL = str(EXAMPLES / "weeks-1-2.yaml")
ILLEGAL = str(EXAMPLES / "illegal" / "movement-too-far.yaml")
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ help


def commands() -> list[list[str]]:
    """Every command the parser knows, `spec check` included, found by walking it."""
    found: list[list[str]] = []

    def walk(parser: argparse.ArgumentParser, prefix: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found.append(prefix)
        for action in subs:
            for name, child in action.choices.items():
                walk(child, [*prefix, name])

    walk(build_parser(), [])
    return found


def test_every_command_is_found() -> None:
    names = {" ".join(c) for c in commands()}
    assert names == {
        "clauses",
        "overlays",
        "explain",
        "check",
        "show",
        "compare",
        "play",
        "convert",
        "hide",
        "prove",
        "spec check",
        "moves",
        "table",
    }


@pytest.mark.parametrize("command", commands(), ids=" ".join)
def test_every_command_has_a_description_examples_and_exit_codes(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out.lower()
    assert "example" in text and "exit codes:" in text
    assert re.search(r"^\s+0 ", text, re.M) and re.search(r"^\s+2 ", text, re.M)
    usage, description = text.split("\n\n")[:2]
    assert usage.startswith("usage: referee") and len(description) > 60
    for option in ("-q, --quiet", "-v, --verbose", "--color"):
        assert option in text


# ------------------------------------------------------------------ -q and -v


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_prints_nothing_but_errors(where: str, capsys: pytest.CaptureFixture[str]) -> None:
    def quiet(*argv: str) -> tuple[int, str, str]:
        return run(capsys, "-q", *argv) if where == "before" else run(capsys, *argv, "-q")

    assert quiet("check", LEGAL) == (0, "", "")
    assert quiet("check", ILLEGAL) == (1, "", "")
    assert quiet("check", ILLEGAL, "--format", "json") == (1, "", "")
    assert quiet("check", LEGAL, ILLEGAL) == (1, "", "")
    assert quiet("show", ILLEGAL) == (1, "", "")
    assert quiet("clauses") == (0, "", "")
    assert quiet("explain", "size_penalty") == (0, "", "")
    code, out, err = quiet("check", "no-such-record.yaml")
    assert code == 2 and out == ""
    assert err.startswith("no-such-record.yaml:0:0: cannot read file")
    code, out, err = quiet("explain", "no_such_topic")
    assert code == 2 and out == "" and "no_such_topic" in err


def test_quiet_and_verbose_together_are_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "-q", "check", LEGAL, "-v")
    assert code == 2 and out == ""
    assert "give -q (nothing but errors) or -v (more), not both" in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_verbose_check_is_explain_and_trace(where: str, capsys: pytest.CaptureFixture[str]) -> None:
    def verbose(*argv: str) -> tuple[int, str, str]:
        return run(capsys, "-v", *argv) if where == "before" else run(capsys, *argv, "-v")

    _, plain, _ = run(capsys, "check", ILLEGAL)
    code, out, _ = verbose("check", ILLEGAL)
    _, both, _ = run(capsys, "check", ILLEGAL, "--trace", "--explain")
    assert code == 1 and out == both != plain
    assert "every call evaluated on the way (--trace):" in out
    assert "every call evaluated" not in plain
    code, out, _ = verbose("check", LEGAL)
    assert code == 0 and "  what happened:" in out
    assert out == run(capsys, "check", LEGAL, "--explain")[1]


def test_verbose_in_a_batch_shows_every_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in range(21):
        (tmp_path / f"game-{i:02}.yaml").write_text(Path(LEGAL).read_text())
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0 and "legal: 60 event(s)" not in out
    assert "21 records: 21 legal, 0 illegal, 0 bad input" in out
    code, out, _ = run(capsys, "check", str(tmp_path), "-v")
    assert code == 0 and out.count("legal: 60 event(s)") == 21
    assert out.count("  what happened:") == 21


def test_verbose_adds_detail_to_every_command(
    capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    def more(*argv: str) -> tuple[str, str]:
        code, plain, _ = run(capsys, *argv)
        again, detailed, _ = run(capsys, *argv, "-v")
        assert code == again
        return plain, detailed

    plain, detailed = more("clauses")
    assert "clauses/02-victory.rules:" not in plain
    assert re.search(r"^ +\S*clauses/02-victory\.rules:\d+$", detailed, re.M)
    plain, detailed = more("overlays")
    assert "    source: " in detailed and "    source: " not in plain
    plain, detailed = more("explain", "gmt-2011")
    assert detailed.startswith(plain) and "also the overlay file gmt-2011" in plain
    assert len(detailed) > len(plain) + 200
    plain, detailed = more("show", LEGAL, "--at", "3")
    assert re.search(r"\w x\d+\b", plain) and not re.search(r"\w x\d+\b", detailed)
    plain, detailed = more("compare", str(EXAMPLES / "illegal" / "road-used-twice.yaml"))
    assert "no change under the 44 other variants" in plain
    assert "    printing gmt-2011\n" in detailed and "    printing gmt-2011\n" not in plain
    plain, detailed = more("spec", "check")
    assert "files read:" in detailed and "files read:" not in plain
    assert re.search(r"^  \S+\.rules: \d+ clauses", detailed, re.M)
    request.getfixturevalue("shared_proofs")  # the bundled spec's proof, shared (conftest.py)
    plain, detailed = more("prove")
    assert "rests on clauses:" in detailed and "rests on clauses:" not in plain
    code, out, err = run(capsys, "play", "--weeks", "1", "-v")
    assert code == 0 and "\nevents:\n" in out
    assert re.fullmatch(r"seed 0: \d+ events; stopped: .+\n", err)


def test_play_quiet_writes_its_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "-q", "play", "--weeks", "1", "--out", str(tmp_path))
    assert (code, out, err) == (0, "", "")
    assert [p.name for p in tmp_path.iterdir()] == ["game-0000.yaml"]


# ------------------------------------------------------------------ colour


def test_colour_always_marks_verdicts_and_clauses(capsys: pytest.CaptureFixture[str]) -> None:
    red, green, bold, reset = "\x1b[31m", "\x1b[32m", "\x1b[1m", "\x1b[0m"
    code, out, _ = run(capsys, "check", ILLEGAL, "--color", "always")
    assert code == 1
    assert f"{red}is illegal{reset}" in out
    assert re.search(rf"{re.escape(bold)}\d+(\.\d+)+/within-allowance{re.escape(reset)}", out)
    assert ESCAPE.sub("", out) == run(capsys, "check", ILLEGAL)[1]
    code, out, _ = run(capsys, "--color", "always", "check", LEGAL)
    assert out.startswith(f"{LEGAL}: {green}legal{reset}: 60 event(s)")
    code, out, _ = run(capsys, "--color", "always", "check", LEGAL, ILLEGAL)
    assert f"{green}1 legal{reset}, {red}1 illegal{reset}, 0 bad input" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["check", ILLEGAL, "--color", "never"],
        ["check", ILLEGAL],  # captured output is no terminal
        ["check", ILLEGAL, "--color", "always", "--format", "json"],
        ["prove", "--color", "always", "--format", "json"],
        ["play", "--weeks", "1", "--color", "always"],
        ["clauses", "--color", "always", "--format", "markdown"],
    ],
)
def test_no_colour_when_not_wanted(
    argv: list[str], capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    if argv[0] == "prove":  # the bundled spec's proof, shared (conftest.py)
        request.getfixturevalue("shared_proofs")
    code, out, err = run(capsys, *argv)
    assert code in (0, 1) and out and "\x1b" not in out + err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_auto_colours_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert wanted("auto", Terminal()) and not wanted("auto", io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wanted("auto", Terminal())
    assert wanted("always", io.StringIO()) and not wanted("never", Terminal())
    monkeypatch.setenv("NO_COLOR", "")  # set but empty: no-color.org says it does not count
    assert wanted("auto", Terminal())
    monkeypatch.setenv("TERM", "dumb")
    assert not wanted("auto", Terminal())


def test_colour_codes_never_come_from_the_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a record whose name holds escape sequences and the words that are coloured
    if sys.platform == "win32":
        pytest.skip("no escape characters in file names here")
    name = tmp_path / "x\x1b[2J\x1b[32mlegal: is illegal \x9b31m.yaml"
    name.write_text(Path(ILLEGAL).read_text())
    code, out, _ = run(capsys, "check", str(name), "--color", "always")
    assert code == 1
    assert out.count("\x1b") == len(ESCAPE.findall(out))
    assert set(ESCAPE.findall(out)) <= set(CODES)
    assert "\\x1b[2J\\x1b[32mlegal" in out and "\x9b" not in out
    # and text that should have been escaped already is escaped before colouring
    assert paint("a\x1b[2Jb: legal") == "a\\x1b[2Jb: \x1b[32mlegal\x1b[0m"


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminals here")
@pytest.mark.usefixtures("shared_disk_cache")  # two processes: the spec checked once
def test_a_terminal_gets_colour_and_no_color_turns_it_off() -> None:
    def on_terminal(**extra: str) -> str:
        leader, follower = os.openpty()
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env.update({"TERM": "xterm", "PYTHONPATH": str(ROOT), **extra})
        done = subprocess.run(
            [sys.executable, "-m", "referee", "explain", "size_penalty"],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
            check=False,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal is closed once all is read
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        assert done.returncode == 0, done.stderr
        return b"".join(chunks).decode()

    coloured = on_terminal()
    assert re.match(r"\x1b\[1m\d+(\.\d+)+\x1b\[0m  ", coloured)  # the clause's number
    plain = on_terminal(NO_COLOR="1")
    assert "\x1b" not in plain and ESCAPE.sub("", coloured) == plain
