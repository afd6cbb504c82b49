"""Second reading ("readview") of `referee check` on view records (issue 31.3: consistent,
inconsistent, unknown, `--witness`, the agreed facts, JSON, `referee.check_view`) and on
positions judged against the spec's position invariants, attacked as issue 33 asks."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tests import test_hidden_judge as judged
from tests.referee_helpers import EXAMPLES

KUWANA = EXAMPLES / "disputes" / "kuwana-overrun.yaml"
FIFTH = EXAMPLES / "illegal" / "position-a-fifth-loyalty-challenge.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    got = capsys.readouterr()
    assert "Traceback" not in got.err and "internal error" not in got.err
    return code, got.out, got.err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code, out, _ = run(capsys, *argv, "--format", "json")
    return code, json.loads(out)


def with_header(source: Path, to: Path, line: str) -> Path:
    """``source`` with ``line`` added to its header, after `game:`."""
    text = source.read_text()
    head, rest = text.split("\ngame: ", 1)
    name, rest = rest.split("\n", 1)
    to.write_text(f"{head}\ngame: {name}\n{line}\n{rest}")
    return to


def hidden(capsys: pytest.CaptureFixture[str], record: Path, view: str, to: Path) -> Path:
    assert main(["hide", str(record), "--view", view, "-o", str(to)]) == 0
    capsys.readouterr()
    return to


# ------------------------------------------------------------------ --witness FILE


@pytest.fixture
def kuwana_view(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    return hidden(capsys, KUWANA, "ishida", tmp_path / "view.yaml")


def test_a_witness_to_a_folder_is_refused_and_the_verdict_still_given(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kuwana_view: Path
) -> None:
    """`--witness DIR` was an internal error (IsADirectoryError)."""
    folder = tmp_path / "folder"
    folder.mkdir()
    code, out, err = run(capsys, "check", str(kuwana_view), "--witness", str(folder))
    assert code == 2
    assert "consistent: a witness makes every event legal" in out
    assert f"referee check: cannot write the witness {folder}: a folder, not a regular file" in err
    assert list(folder.iterdir()) == []


def test_a_witness_to_a_fifo_is_refused_never_waited_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kuwana_view: Path
) -> None:
    """`--witness FIFO` blocked for ever (nobody reads the FIFO)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "check", str(kuwana_view), "--witness", str(fifo))
    assert code == 2 and "a FIFO, not a regular file" in err


def test_a_witness_to_a_full_device_or_a_missing_folder_is_said(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kuwana_view: Path
) -> None:
    """`--witness /dev/full` was an internal error (OSError: no space left on device), and a
    name in a folder that is not there another (FileNotFoundError)."""
    if os.path.exists("/dev/full"):
        code, _, err = run(capsys, "check", str(kuwana_view), "--witness", "/dev/full")
        assert code == 2 and "/dev/full: a character device, not a regular file" in err
    missing = tmp_path / "not-here" / "w.yaml"
    code, _, err = run(capsys, "check", str(kuwana_view), "--witness", str(missing))
    assert code == 2 and f"cannot write the witness {missing}: No such file or directory" in err


def test_a_witness_over_an_existing_file_replaces_it_with_a_legal_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kuwana_view: Path
) -> None:
    """As `convert -o`: the file the user names is made or truncated (a longer old file
    leaves no tail behind); the witness it then holds `check` judges legal."""
    there = tmp_path / "there.yaml"
    there.write_text("x" * 100_000)
    code, out, _ = run(capsys, "check", str(kuwana_view), "--witness", str(there))
    assert code == 0 and f"judges legal: {there}" in out
    assert "x" not in there.read_text().splitlines()[-1]
    code, out, _ = run(capsys, "check", str(there))
    assert code == 0 and ": legal: 1 event(s)" in out


def test_a_witness_path_is_echoed_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kuwana_view: Path
) -> None:
    """The witness's name was printed raw: an escape sequence in it reached the terminal."""
    odd = tmp_path / "\x1b[31mred.yaml"
    code, out, _ = run(capsys, "check", str(kuwana_view), "--witness", str(odd))
    assert code == 0 and odd.exists()
    assert "\x1b" not in out and "\\x1b[31mred.yaml" in out


# ------------------------------------------------------------------ the view: header


def test_a_view_no_side_has_is_refused_as_hide_refuses_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`view: mori` (no side of the game) was judged consistent; `hide` refuses it."""
    record = with_header(KUWANA, tmp_path / "mori.yaml", "view: mori")
    code, _, err = run(capsys, "check", str(record))
    assert code == 2
    assert "mori.yaml:8:7: view: no such view 'mori'" in err
    assert "hint: views: public, tokugawa, ishida" in err


def test_a_view_of_fierce_battle_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Fierce Battle declares nothing hidden: `hide` says so; `check` judged `view: ishida`
    (no side of that game) consistent, and searched for marks it has no declaration for."""
    record = with_header(
        EXAMPLES / "fierce-battle" / "advance-after-melee.yaml", tmp_path / "fb.yaml", "view: east"
    )
    code, _, err = run(capsys, "check", str(record))
    assert code == 2
    assert "this game's spec declares nothing hidden: every record of it is complete" in err


def test_a_complete_illegal_record_under_a_view_header_is_inconsistent_citing_its_clause(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Nothing hidden: the verdict is the complete record's, the same clause and numbers."""
    record = with_header(
        EXAMPLES / "illegal" / "movement-too-far.yaml", tmp_path / "far.yaml", "view: public"
    )
    code, out = as_json(capsys, "check", str(record))
    assert code == 1 and out["result"]["status"] == "inconsistent"
    failure = out["result"]["failure"]
    assert (failure["index"], failure["visible"], failure["depends_on"]) == (2, True, [])
    assert failure["violations"][0]["cites"] == "7.3.3/within-allowance"
    assert "distance = 3" in failure["violations"][0]["numbers"]


# ------------------------------------------------------------------ positions no game reaches


def test_a_view_of_a_position_no_game_reaches_is_inconsistent_citing_the_invariant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Five loyalty challenges in a deck of four, nothing hidden, under `view: public`: the
    judgement of the view never asked the position invariants, and said consistent with a
    witness `referee check` refuses (3.3/cards-conserved)."""
    record = with_header(FIFTH, tmp_path / "fifth.yaml", "view: public")
    code, out = as_json(capsys, "check", str(record), "--witness", str(tmp_path / "w.yaml"))
    assert code == 1 and out["result"]["status"] == "inconsistent"
    failure = out["result"]["failure"]
    assert (failure["index"], failure["action"], failure["visible"]) == (0, "position", True)
    assert failure["line"] == 6  # `position:`
    (v,) = failure["violations"]
    assert v["cites"] == "3.3/cards-conserved"
    assert "copies(s: tokugawa, c: tokugawa-loyalty) = 5  (3.3)" in v["numbers"]
    assert not (tmp_path / "w.yaml").exists()
    code, text, _ = run(capsys, "check", str(record))
    assert code == 1
    assert "fifth.yaml:6: the starting position cannot arise whatever is hidden" in text


def test_a_hidden_position_is_never_consistent_with_a_witness_check_refuses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The same position from Ishida's seat (Tokugawa's hand of one and draw pile of four
    as counts): five cards where the deck holds many more, whatever they are. It was
    consistent, with a witness `check` judged illegal (3.3/cards-conserved)."""
    view = hidden(capsys, FIFTH, "ishida", tmp_path / "view.yaml")
    witness = tmp_path / "w.yaml"
    code, out = as_json(capsys, "check", str(view), "--witness", str(witness), "--timeout", "20")
    assert out["result"]["status"] != "consistent"
    assert code == 2 and out["result"]["status"] == "unknown"  # a bound: not yet proved
    assert out["result"]["failure"]["violations"][0]["cites"] == "3.3/cards-conserved"
    assert not witness.exists()


# ------------------------------------------------------------------ marks and counts

A_POSITION = judged.A_POSITION.split("    units_at:")[0]  # a movement step, up to state:
A_STACK = "    units_at:\n      Kiyosu:\n        tokugawa: ['?']\nevents:\n"


@pytest.mark.parametrize(
    ("event", "column"),
    [
        ("- move: {by: '?', from: Kiyosu, groups: [{blocks: ['?'], path: [Kiyosu, Kuwana]}]}", 14),
        (
            "- move: {by: tokugawa, from: '?', groups: [{blocks: ['?'], path: [Kiyosu, Kuwana]}]}",
            30,
        ),
        (
            "- move: {by: tokugawa, from: Kiyosu, groups: [{blocks: ['?'], path: [Kiyosu, '?']}]}",
            78,
        ),
    ],
    ids=["actor", "from", "path"],
)
def test_a_mark_where_every_view_sees_the_value_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, event: str, column: int
) -> None:
    """A mark as the actor was judged inconsistent citing no clause ("the rules fail
    here"); as a location or a step of a path it was searched for like a block and judged
    consistent. Only what the spec keeps secret (a face, a card) may be written unseen."""
    record = tmp_path / "odd.yaml"
    record.write_text(A_POSITION + A_STACK + event + "\n")
    code, _, err = run(capsys, "check", str(record))
    assert code == 2
    assert err.startswith(
        f"{record}:13:{column}: '?' where every view sees the value: only what the spec keeps"
        " secret (face, card) may be written unseen"
    )


def test_a_mark_in_a_positions_cell_no_view_hides_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = tmp_path / "owner.yaml"
    record.write_text(
        A_POSITION + A_STACK.replace("events:\n", "    castle_owner: {Osaka: '?'}\nevents: []\n")
    )
    code, _, err = run(capsys, "check", str(record))
    assert code == 2 and f"{record}:12:27: '?' where every view sees the value" in err


@pytest.mark.parametrize("count", [1_000_000, 10**20])
def test_a_hidden_hand_above_the_decks_is_inconsistent_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, count: int
) -> None:
    """A position's hand of a million cards was consistent, its witness a million cards
    long, printed whole on one line (13 MB); one of 10**20 ran to the 50 s limit. The
    components' counts bound a position's counts as they bound an event's."""
    record = tmp_path / "hand.yaml"
    record.write_text(A_POSITION + f"    hand: {{tokugawa: {count}}}\nevents: []\n")
    code, out = as_json(capsys, "check", str(record))
    assert code == 1 and out["result"]["status"] == "inconsistent"
    failure = out["result"]["failure"]
    assert (failure["index"], failure["action"], failure["visible"]) == (0, "position", True)
    (v,) = failure["violations"]
    assert v["cites"] == "components" and v["clause"] == "3.3"
    assert v["numbers"] == [f"card = {count}", "the components' card = 110"]
    assert out["result"]["printing"] == "gmt-later" and out["result"]["overlays"]


def test_a_witness_in_brief_is_bounded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A witness's values in brief, 12 a hole at most, and how many more."""
    record = tmp_path / "hand.yaml"
    record.write_text(A_POSITION + "    hand: {tokugawa: 40}\nevents: []\n")
    code, out, _ = run(capsys, "check", str(record))
    assert code == 0
    (line,) = [ln for ln in out.splitlines() if "position.state.hand.tokugawa = " in ln]
    assert line.endswith(", ... and 28 more") and line.count(",") == 12


# ------------------------------------------------------------------ left as strict xfails


@pytest.mark.xfail(
    strict=True,
    reason="a fault the public view sees whatever the stack holds (five blocks, three"
    " locations: allowance 2 even with a leader) is unknown, not inconsistent: the refusal"
    " reads the stack the position's holes fill (leadership), and the search charges it to"
    " them; 50 of the position's assignments tried then the bound. Needs the z3 encoding or"
    " an exhaustive argument over the stack's leader/no-leader cases (docs/hidden.md)",
)
def test_a_stack_sent_too_far_is_inconsistent_from_the_public_view(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    view = hidden(
        capsys, EXAMPLES / "illegal" / "movement-too-far.yaml", "public", tmp_path / "v.yaml"
    )
    code, out = as_json(capsys, "check", str(view), "--timeout", "20")
    assert code == 1 and out["result"]["status"] == "inconsistent"
    assert out["result"]["failure"]["violations"][0]["cites"] == "7.3.3/within-allowance"
