"""Language additions any game can use: clause numbers in either style (7.3.1, 7-3-1, 5),
table keys below zero and open below (..-8), clamp, and hex_distance on a grid of columns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from referee.compile.spec import clause_key, load_spec
from referee.errors import RefereeError
from referee.resolve.types import hex_distance

RULES = """
game mini "A made-up game"
clause 5 "A section numbered alone"
  summary "One thing a hex."
  see 7-3-1, 7-3-1/stop
  const most: int = 1
end
clause 7-3-1 "Hyphenated"
  summary "Stop on entering."
  table column(difference: int): int = {
    ..-8 -> 0, -7..-5 -> 1, -4..-1 -> 2, 0 -> 3, 1..3 -> 4, 4+ -> 5,
  }
  define shifted(difference: int, shift: int): int = clamp(column(difference) + shift, 0, 5)
  define apart(c1: int, r1: int, c2: int, r2: int): int = hex_distance(c1, r1, c2, r2)
  require [stop] (n: int): n <= most because "{n} units"
  property [near] "a hex is its own distance 0 and neighbours are 1 apart":
    forall c: int in 1..4, r: int in 1..4: apart(c, r, c, r) == 0 and apart(c, r, c, r + 1) == 1
  property [kept] "a shifted column stays on the table":
    forall d: int in -20..20, s: int in -3..3: 0 <= shifted(d, s) and shifted(d, s) <= 5
end
"""


def test_numbers_of_both_styles_sort_as_numbers() -> None:
    numbers = ["10-1", "9-3-3", "5", "2-1-4", "7.3.1", "10"]
    assert sorted(numbers, key=clause_key) == ["2-1-4", "5", "7.3.1", "9-3-3", "10", "10-1"]


def test_clauses_tables_and_builtins(mini_game: Callable[[str], Path]) -> None:
    spec = load_spec(mini_game(RULES))
    assert [c.number for c in spec.clauses()] == ["5", "7-3-1"]
    rules = spec.interpreter()
    assert [rules.call("column", d) for d in (-30, -8, -7, -5, -1, 0, 3, 4, 99)] == [
        0, 0, 1, 1, 2, 3, 4, 5, 5,
    ]  # fmt: skip
    assert rules.call("shifted", -30, -1) == 0
    assert rules.call("shifted", 99, 2) == 5
    assert rules.call("shifted", 0, 1) == 4


@pytest.mark.parametrize(
    ("a", "b", "apart"),
    [
        ((2, 2), (2, 2), 0),
        ((2, 2), (1, 2), 1),
        ((2, 2), (1, 3), 1),  # column 2 sits lower: its neighbours in column 1 are rows 2, 3
        ((2, 2), (3, 3), 1),
        ((2, 2), (1, 1), 2),
        ((3, 2), (2, 1), 1),  # column 3 sits higher: its neighbours in column 2 are rows 1, 2
        ((3, 2), (2, 3), 2),
        ((1, 1), (5, 1), 4),
        ((1, 1), (1, 6), 5),
    ],
)
def test_hex_distance(a: tuple[int, int], b: tuple[int, int], apart: int) -> None:
    assert hex_distance(*a, *b) == apart
    assert hex_distance(*b, *a) == apart


@pytest.mark.parametrize(
    ("a", "b", "apart"),
    [
        ((2, 3), (3, 2), 1),  # column 2 sits higher: its neighbours in column 3 are rows 2, 3
        ((2, 3), (3, 3), 1),
        ((2, 3), (3, 4), 2),
        ((3, 3), (2, 4), 1),  # column 3 sits lower: its neighbours in column 2 are rows 3, 4
        ((3, 3), (2, 2), 2),
    ],
)
def test_a_grid_whose_odd_columns_sit_lower(
    a: tuple[int, int], b: tuple[int, int], apart: int
) -> None:
    """The other orientation is the same grid counted one column further along: a game states
    it in its data and shifts the columns it gives hex_distance (Fierce Battle's
    `lower_columns: odd`)."""
    assert hex_distance(a[0] + 1, a[1], b[0] + 1, b[1]) == apart
    assert hex_distance(b[0] + 1, b[1], a[0] + 1, a[1]) == apart


def test_every_hex_has_six_neighbours() -> None:
    for c in range(3, 8):
        for r in range(3, 8):
            around = [
                (x, y) for x in range(1, 11) for y in range(1, 11) if hex_distance(c, r, x, y) == 1
            ]
            assert len(around) == 6


def test_a_row_key_out_of_order_is_refused(mini_game: Callable[[str], Path]) -> None:
    game = mini_game(RULES.replace("-7..-5", "-5..-7"))
    with pytest.raises(RefereeError, match="empty range -5..-7"):
        load_spec(game)


def test_prover_proves_hex_and_clamp_properties(mini_game: Callable[[str], Path]) -> None:
    from referee.verify.prover import prove

    spec = load_spec(mini_game(RULES))
    outcomes = {o.label: o.status for o in prove(spec.sym, spec.components.names())}
    assert outcomes == {"near": "proved", "kept": "proved"}


def test_game_option(capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    assert main(["clauses", "--game", "sekigahara", "--format", "json"]) == 0
    assert '"2.1"' in capsys.readouterr().out
    assert main(["clauses", "--game", "sekigaharra"]) == 2
    err = capsys.readouterr().err
    assert "no bundled game of that name" in err and "did you mean 'sekigahara'?" in err
    assert main(["clauses", "--game", "sekigahara", "--spec", "."]) == 2
    assert "not both" in capsys.readouterr().err


def test_a_games_turn_counter(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`turns NAME` in a game's declaration names the state that counts its turns: play's
    --turns K (--weeks K) stops once it passes K. A game that names none asks for --until; a
    name that is no state without parameters is refused when the spec is read."""
    from referee.cli import main

    assert main(["play", "--game", "fierce-battle", "--turns", "1", "--format", "json"]) == 0
    events = capsys.readouterr().out
    assert main(["play", "--game", "fierce-battle", "--weeks", "1", "--format", "json"]) == 0
    assert capsys.readouterr().out == events
    assert main(["play", "--game", "fierce-battle", "--until", "turn > 1", "--format", "json"]) == 0
    assert capsys.readouterr().out == events
    game = mini_game(RULES)
    assert main(["play", "--spec", str(game), "--turns", "1"]) == 2
    err = capsys.readouterr().err
    assert "this game declares no turn counter" in err and "--until" in err
    with pytest.raises(RefereeError, match="the turn counter must be a state without parameters"):
        load_spec(mini_game(RULES.replace('"A made-up game"', '"A made-up game" turns most')))
