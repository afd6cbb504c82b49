"""`referee prove`: the spec's properties, proved by z3 from the definitions the referee runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import main
from referee.spec import Spec
from referee.verify.prover import prove
from tests.referee_helpers import output

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
    outcomes = prove(spec.sym, spec.components.names())
    assert {o.cites for o in outcomes} >= PROMISED
    assert [o.cites for o in outcomes if o.status != "proved"] == []


def test_prove_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove"]) == 0
    out = capsys.readouterr().out
    assert "7.3.3/at-most-four" in out and "failed" not in out
    assert main(["prove", "--format", "json"]) == 0
    data = output(capsys.readouterr().out)
    assert {p["status"] for p in data["runs"][0]["properties"]} == {"proved"}


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
