"""A starting position no game reaches (issue 33: `referee check` refuses it, exit 1, kind
position, citing the invariant it breaks) is refused so by every command that stands at a
record's position: `play --from` plays no game from it, `referee.Game` raises, `table
--from` reads nothing, `moves` and `show` stand at it and say so; each cites the clause
check cites and exits 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import referee
from referee.cli import main
from referee.compile.spec import Spec
from referee.run.batch import expand
from referee.run.play import play_many
from tests.referee_helpers import EXAMPLES, ROOT

UNREACHABLE = EXAMPLES / "illegal" / "position-a-fifth-loyalty-challenge.yaml"
CITES = "3.3/cards-conserved"
SAID = f"the starting position cannot arise: {CITES} (Cards)"


def test_check_refuses_the_position(capsys: pytest.CaptureFixture[str]) -> None:
    """What the others follow: check's verdict on the record."""
    assert main(["check", str(UNREACHABLE)]) == 1
    assert f"the starting position cannot arise (as the record expects): {CITES}" in (
        capsys.readouterr().out
    )


def test_play_from_it_plays_no_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--from", str(UNREACHABLE)]) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no record: no game stands there
    # check's verdict, as check prints it (the record's expect aside)
    assert err.startswith(f"{UNREACHABLE}:5:3: {SAID}\n")
    assert "copies(s: tokugawa, c: tokugawa-loyalty) = 5  (3.3)" in err


def test_play_from_a_folder_plays_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    starts = tmp_path / "starts"
    starts.mkdir()
    (starts / "a.yaml").write_text(UNREACHABLE.read_text())
    (starts / "b.yaml").write_text((EXAMPLES / "weeks-1-2.yaml").read_text())
    out = tmp_path / "out"
    args = ["play", "--from", str(starts), "--games", "2", "--out", str(out), "--until", "true"]
    assert main(args) == 1
    got, err = capsys.readouterr()
    assert err.count(SAID) == 1  # said once for the record, not once a seed
    assert "2 game(s)" in got
    assert sorted(p.name for p in out.iterdir()) == ["b-0000.yaml", "b-0001.yaml"]
    assert main(["check", str(out)]) == 0


def test_play_many_gives_no_game_from_it(spec: Spec) -> None:
    starts, _ = expand([UNREACHABLE, EXAMPLES / "weeks-1-2.yaml"])
    games = play_many(spec, [0], until="true", starts=starts)
    assert [g.start for g in games] == [str(EXAMPLES / "weeks-1-2.yaml")]
    (refused, played) = play_many(spec, [0], until="true", starts=starts, refused=True)
    assert (
        refused.events == [] and refused.stopped == f"the starting position cannot arise: {CITES}"
    )
    assert refused.refused is not None and refused.refused.violations[0].kind == "position"
    assert played.refused is None and played.events


def test_a_game_is_not_started_there() -> None:
    with pytest.raises(referee.RecordError) as err:
        referee.Game(UNREACHABLE)
    (problem,) = err.value.problems
    assert (problem.file, problem.line, problem.column) == (str(UNREACHABLE), 5, 3)
    assert problem.message.startswith(SAID + ": a side's cards")
    assert problem.clause == "3.3"


@pytest.mark.usefixtures("shared_disk_cache")  # a process: the spec from the session's cache
def test_the_table_reads_nothing_from_it() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "referee", "table", "--from", str(UNREACHABLE)],
        input=b"T movement no_movement\n",
        capture_output=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )
    out = done.stdout.decode()
    assert done.returncode == 1, done.stderr
    assert out.startswith(f"{UNREACHABLE}:5:3: {SAID}: ")
    assert "movement" not in out.split(SAID)[1]  # the line typed was not read


def test_moves_stand_at_it_and_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", str(UNREACHABLE)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{UNREACHABLE}: after its last event (0 of 1 events applied)"
    assert lines[1].startswith(f"  the starting position cannot arise: {CITES} a side's cards")
    assert main(["moves", str(UNREACHABLE), "--format", "json"]) == 1
    illegal = json.loads(capsys.readouterr().out)["result"]["illegal"]
    assert (illegal["event"], illegal["action"], illegal["cites"]) == (0, "", CITES)


def test_show_stands_at_it_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(UNREACHABLE)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{UNREACHABLE}: the position the record starts from"
    assert (
        lines[2]
        == f"  the starting position cannot arise, so it is shown as given: {CITES} (Cards)"
    )
    assert main(["show", str(UNREACHABLE), "--after", "1", "--format", "json"]) == 1
    result = json.loads(capsys.readouterr().out)["result"]
    assert (result["after"], result["illegal"]["index"], result["illegal"]["cites"]) == (
        0,
        0,
        CITES,
    )
    # the position as given: five loyalty challenges, none of the record's events applied
    assert result["state"]


@pytest.mark.parametrize("form", ["svg", "html"])
def test_show_draws_it_refused(form: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(UNREACHABLE), "--format", form]) == 1
    out = capsys.readouterr().out
    assert f"{UNREACHABLE}: the position the record starts from" in out
    assert "(it has no events)" not in out  # it has one: none is applied
    assert f"ILLEGAL: {CITES} (Cards): a side&#x27;s cards" in out or (
        f"ILLEGAL: {CITES} (Cards): a side's cards" in out
    )
