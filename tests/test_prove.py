"""`referee prove`: the spec's properties, proved by z3 from the definitions the referee runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import main
from referee.spec import Spec
from referee.verify.prover import prove

# The properties the project promises (issue "Proving the rules"), by clause and label.
PROMISED = {
    "7.3.3/at-most-four",
    "7.3.5/seventeen-never-move",
    "7.3.5/penalty-never-shrinks",
    "7.4.1/four-to-one",
    "7.4.3/castle-holders-safe",
    "8.7.1/more-impact-more-losses",
    "8.7.1/loser-one-more",
    "8.3.1/impact-bounds",
    "6.2/keeps-half",
    "2.2/tie-to-ishida",
    "8.9.4/siege-spares-attacker",
}


def test_every_property_is_proved(spec: Spec) -> None:
    outcomes = prove(spec.sym, spec.components.names(), collections=spec.components.collections)
    assert {o.cites for o in outcomes} >= PROMISED
    assert [o.cites for o in outcomes if o.status != "proved"] == []


def test_prove_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove"]) == 0
    out = capsys.readouterr().out
    assert "7.3.3/at-most-four" in out and "failed" not in out
    assert main(["prove", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {p["status"] for p in data["properties"]} == {"proved"}


def test_every_printing_and_overlay_keeps_the_properties(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["prove", "--all-overlays"]) == 0
    out = capsys.readouterr().out
    assert "printing gmt-2011" in out and "without S-overrun-draw" in out
    assert "failed" not in out


def test_a_mutated_size_penalty_is_caught(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = game_copy / "clauses" / "07-movement.rules"
    text = rules.read_text()
    good = "define size_penalty(blocks: int): int = min((blocks - 1) // size_step, size_steps)"
    assert good in text
    rules.write_text(
        text.replace(good, "define size_penalty(blocks: int): int = (blocks - 5) // size_step")
    )
    assert main(["prove", "--spec", str(game_copy)]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "7.3.3/at-most-four" in ln)
    assert "failed: counterexample" in line
    assert "h = True, l = True, f = True" in line  # every bonus, and a penalty below zero
    assert "clauses 7.3.3, 7.3.5" in line
    assert "7.3.5/seventeen-never-move" in out


def test_untranslatable_properties_are_skipped_with_a_reason(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(
        'clause 1.1 "One"\n'
        "  state counter: int = 0\n"
        '  property [uses-state] "state is not a definition": forall n: int in 0..3: counter >= 0\n'
        '  property [plain] "arithmetic": forall n: int in 0..3: n + 1 > n\n'
        "end\n"
    )
    assert main(["prove", "--spec", str(game)]) == 0
    out = capsys.readouterr().out
    assert "1.1/uses-state" in out and "skipped: cannot translate 'counter' is game state" in out
    assert "1.1/plain" in out and "proved" in out


# The step invariants the issue asks for (issue 15), by clause and label.
STEP_INVARIANTS = {
    "7.3.1/segment-used-once",
    "7.4.2/no-overrun-left",
    "7.4.3/castle-holders-stand",
    "2.1/nothing-after-instant-win",
    "4.3/alone-holds-castle",
    "7.1/cycle-at-most-once",
    "7.2/one-muster-a-turn",
    "8.9.6/siege-needs-both",
    "9.3/mori-box-joins",
}


def test_step_invariants_are_proved(spec: Spec) -> None:
    outcomes = prove(spec.sym, spec.components.names(), collections=spec.components.collections)
    invariants = {o.cites: o for o in outcomes if o.how}
    assert set(invariants) >= STEP_INVARIANTS
    assert {c: o.status for c, o in invariants.items()} == dict.fromkeys(invariants, "proved")
    assert "by induction" in invariants["7.3.1/segment-used-once"].how
    assert "standing rules" in invariants["7.4.2/no-overrun-left"].how


def test_a_changed_overrun_ratio_gives_a_counterexample_check_replays(
    game_copy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = game_copy / "clauses" / "07-movement.rules"
    text = rules.read_text()
    assert "const overrun_ratio: int = 4" in text
    rules.write_text(text.replace("const overrun_ratio: int = 4", "const overrun_ratio: int = 5"))
    folder = tmp_path / "cx"
    assert main(["prove", "--spec", str(game_copy), "--counterexample-dir", str(folder)]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "7.4.2/no-overrun-left" in ln)
    assert "failed: counterexample" in line and "written to" in line
    record = folder / "7.4.2-no-overrun-left-printing-gmt-later.yaml"
    assert record.is_file()
    # four blocks against one stand side by side, and nothing overruns them
    assert main(["check", "--spec", str(game_copy), str(record)]) == 1
    replay = capsys.readouterr().out + capsys.readouterr().err
    assert "misses an expectation" in replay and "the rules give false" in replay
    # the same record under the real spec: the overrun happens, the invariant holds
    assert main(["check", str(record)]) == 0


def test_a_dropped_segment_check_is_caught(
    game_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = game_copy / "clauses" / "07-movement.rules"
    text = rules.read_text()
    check = "            check 7.3.1/segment-once\n"
    assert check in text
    rules.write_text(text.replace(check, ""))
    assert main(["prove", "--spec", str(game_copy)]) == 1
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "7.3.1/segment-used-once" in ln)
    assert "failed: counterexample after movement_phase.moving.move" in line
    assert "road_uses" in out and "- move:" in out


STEPS_GAME = (
    'game g "G"\nprinting p "P" base\n'
    'clause 1.1 "One"\n'
    "  enum side = red | blue\n"
    "  state tokens(s: side): list of int = []\n"
    "  require [room] (n: int): n < 3\n"
    '    because "{n} tokens already"\n'
    '  property [at-most-three] "no side ever holds more than three tokens"\n'
    "    invariant within 4 int:\n"
    "    forall s in [side.red, side.blue]: size(tokens(s)) <= 3\n"
    '  procedure play "Play"\n'
    "    step taking\n"
    "      allow take(who: side, n: int)\n"
    "        effect\n"
    "          check 1.1/room(size(tokens(who)))\n"
    "          set tokens(who) = tokens(who) + [n]\n"
    "    end\n"
    "  end\n"
    "end\n"
)


def test_a_step_invariant_of_a_small_game(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The move's check keeps the invariant; without it, a fourth token is taken."""
    game = mini_game(STEPS_GAME)
    assert main(["prove", "--spec", str(game)]) == 0
    out = capsys.readouterr().out
    assert (
        "1.1/at-most-three" in out and "by induction over 2 transition(s)" in out
    )  # take, any other event
    game = mini_game(STEPS_GAME.replace("          check 1.1/room(size(tokens(who)))\n", ""))
    assert main(["prove", "--spec", str(game)]) == 1
    out = capsys.readouterr().out
    assert "1.1/at-most-three" in out and "failed: counterexample after play.taking.take" in out
    # the position before holds three tokens of the side that takes a fourth
    assert "tokens:" in out and "- take:" in out
