"""Each kind of spec error gives a `file:line:col: message`, the line, a caret, and exit 2."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import main
from referee.compile.spec import SPEC_ROOT
from tests.referee_helpers import output

HEAD = 'game g "G"\nprinting p "P" base\n'


def run_check(game: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["spec", "check", "--spec", str(game)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err
    return captured.err.splitlines()


CASES = [
    (
        "syntax: = for ==",
        'clause 1.1 "One"\n  require [r] (x: int): x = 1\nend\n',
        (4, 27),
        "`=` gives a definition its value; to compare two values use `==`",
    ),
    (
        "syntax: missing end",
        'clause 1.1 "One"\n  const a: int = 1\nclause 1.2 "Two"\nend\n',
        (5, 1),
        "`clause` starts here, but the clause, procedure, step or overlay before it is not closed",
    ),
    (
        "syntax: untyped parameter",
        'clause 1.1 "One"\n  define f(x): int = 1\nend\n',
        (4, 13),
        "every parameter needs a type",
    ),
    (
        "unknown name",
        'clause 1.1 "One"\n  const limit: int = 4\n  define f(x: int): bool = x <= limt\nend\n',
        (5, 33),
        "unknown name 'limt' [clause 1.1]",
    ),
    (
        "duplicate clause id",
        'clause 1.1 "One"\nend\nclause 1.1 "Again"\nend\n',
        (5, 1),
        "duplicate clause id 1.1",
    ),
    (
        "reference to a missing clause",
        'clause 1.1 "One"\n  see 1.2\nend\n',
        (4, 7),
        "reference to a missing clause 1.2 [clause 1.1]",
    ),
    (
        "reference to a missing label",
        'clause 1.1 "One"\n  require [ok] (x: int): x > 0\n  see 1.1/okay\nend\n',
        (5, 7),
        "clause 1.1 has no label [okay] [clause 1.1]",
    ),
    (
        "type mismatch",
        'clause 1.1 "One"\n  define f(x: int): int = x > 1\nend\n',
        (4, 27),
        "type mismatch: expected int, found bool [clause 1.1]",
    ),
    (
        "type mismatch in arithmetic",
        'clause 1.1 "One"\n  define f(x: bool): int = x + 1\nend\n',
        (4, 28),
        "type mismatch: + needs whole numbers, found bool [clause 1.1]",
    ),
    (
        "unknown type",
        'clause 1.1 "One"\n  define f(x: block): int = 1\nend\n',
        (4, 15),
        "unknown type 'block' [clause 1.1]",
    ),
    (
        "wrong number of arguments",
        'clause 1.1 "One"\n  define f(x: int): int = x\n  define g(): int = f(1, 2)\nend\n',
        (5, 21),
        "f takes 1 argument(s), 2 given [clause 1.1]",
    ),
    (
        "duplicate name",
        'clause 1.1 "One"\n  const a: int = 1\nend\nclause 1.2 "Two"\n  const a: int = 2\nend\n',
        (7, 3),
        "'a' is already declared [clause 1.2]",
    ),
    (
        "unknown printing",
        'clause 1.1 "One"\n  printings p, q\nend\n',
        (4, 16),
        "unknown printing 'q' [clause 1.1]",
    ),
    (
        "unknown enum value",
        'clause 1.1 "One"\n  enum side = east | west\n  define f(s: side): bool = s == side.north\nend\n',
        (5, 34),
        "unknown value of side 'north' [clause 1.1]",
    ),
    (
        "overlay amends a missing clause",
        'clause 1.1 "One"\nend\noverlay X-one "x"\n  amend 4.4\n    drop 4.4/a\n  end\nend\n',
        (6, 3),
        "overlay X-one amends a missing clause 4.4",
    ),
    (
        "overlay replaces a definition the clause lacks",
        'clause 1.1 "One"\nend\noverlay X-one "x"\n  amend 1.1\n'
        "    replace define f(): int = 1\n  end\nend\n",
        (7, 5),
        "overlay X-one replaces define 'f', which clause 1.1 does not declare [clause 1.1]",
    ),
    (
        "procedure goes to a missing step",
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n      allow go() then b\n    end\n'
        "  end\nend\n",
        (6, 7),
        "unknown step of procedure p 'b' [clause 1.1]",
    ),
    (
        "unknown action",
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n      allow go() effect do fly()\n'
        "    end\n  end\nend\n",
        (6, 25),
        "unknown action or procedure 'fly' [clause 1.1]",
    ),
    (
        "a property allows an unknown action",
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n      allow go()\n    end\n  end\n'
        '  property [x] "X" allows fly: true\nend\n',
        (9, 3),
        "unknown action 'fly' [clause 1.1]",
    ),
    (
        "before(...) outside a property after an action",
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n      allow go()\n    end\n  end\n'
        '  property [x] "X" allows go: before(1) == 1\nend\n',
        (9, 31),
        "unknown definition 'before' [clause 1.1]",
    ),
    (
        "a property of an action its steps give different parameters",
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n      allow go(n: int) then b\n    end\n'
        "    step b\n      allow go(m: int) then a\n    end\n  end\n"
        '  property [x] "X" allows go: true\nend\n',
        (12, 3),
        "the steps that allow 'go' give it different parameters (m: int; n: int): a property of"
        " the action reads them alike in every step [clause 1.1]",
    ),
    (
        "a type bounded twice",
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n      allow go()\n    end\n  end\n'
        '  property [x] "X" allows go within 2 int, 3 int: true\nend\n',
        (9, 46),
        "within bounds 'int' twice (2 and 3): give it once",
    ),
    (
        "a bound too big for a bounded model",
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n      allow go()\n    end\n  end\n'
        '  property [x] "X" allows go within 65 int: true\nend\n',
        (9, 3),
        "within 65 int: a bounded model holds at most 64 items a list (the proof grows with every"
        " slot) [clause 1.1]",
    ),
]


@pytest.mark.parametrize("name,body,where,message", CASES, ids=[c[0] for c in CASES])
def test_spec_error_is_located(
    mini_game: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str],
    name: str,
    body: str,
    where: tuple[int, int],
    message: str,
) -> None:
    text = HEAD + body
    game = mini_game(text)
    lines = run_check(game, capsys)
    file = game.resolve() / "rules.rules"
    line, col = where
    assert lines[0] == f"{file}:{line}:{col}: {message}"
    assert lines[1] == "    " + text.splitlines()[line - 1]
    assert lines[2] == "    " + " " * (col - 1) + "^"


def test_all_problems_are_reported_at_once(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(
        HEAD + 'clause 1.1 "One"\n  see 9.9\n  const a: int = true\n  const b: bool = c\nend\n'
    )
    heads = [ln for ln in run_check(game, capsys) if ln.startswith(str(game.resolve()))]
    assert [h.split(": ", 1)[1] for h in heads] == [
        "reference to a missing clause 9.9 [clause 1.1]",
        "type mismatch: expected int, found bool [clause 1.1]",
        "unknown name 'c' [clause 1.1]",
    ]


def test_hints_suggest_the_near_name(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(
        HEAD + 'clause 1.1 "One"\n  const limit: int = 4\n  const b: int = limt\nend\n'
    )
    assert "  hint: did you mean 'limit'?" in run_check(game, capsys)


def test_json_errors_for_programs(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:

    game = mini_game(HEAD + 'clause 1.1 "One"\n  see 1.9\nend\n')
    assert main(["spec", "check", "--spec", str(game), "--format", "json"]) == 2
    out = output(capsys.readouterr().out)
    assert out["ok"] is False
    assert out["errors"][0]["line"] == 4 and out["errors"][0]["column"] == 7
    assert out["errors"][0]["clause"] == "1.1"


def test_missing_spec_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "check", "--spec", str(tmp_path / "nope")]) == 2
    assert "no such spec directory" in capsys.readouterr().err


def test_the_folder_above_the_games_is_named_as_such(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--spec given the folder that holds the games: one message, not every clause's error."""
    assert main(["prove", "--spec", str(SPEC_ROOT)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2, err
    assert "a folder of 2 games (fierce-battle, sekigahara), not one game's spec" in err
    assert f"hint: give one of them: --spec {SPEC_ROOT / 'fierce-battle'}" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["frobnicate"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_overlays_in_force_together_must_agree(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(
        HEAD
        + 'clause 1.1 "One"\n  const limit: int = 4\nend\n'
        + 'overlay X-one "x"\n  kind clarification\n  default on\n  amend 1.1\n    replace const limit: int = 5\n  end\nend\n'
        + 'overlay X-two "y"\n  kind printing\n  printings p\n  amend 1.1\n    replace const limit: int = 6\n  end\nend\n'
    )
    lines = run_check(game, capsys)
    assert lines[0].endswith(
        "overlays X-one and X-two amend 1.1/limit in different ways, and are in force together (printing p)"
    )


def test_a_step_actor_is_a_player_or_a_list_of_players(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    head = 'game g "G"\n  players side\nprinting p "P" base\n'
    body = (
        'clause 1.1 "One"\n  enum side = a | b\n  procedure p "P"\n    step s\n'
        "      actor {}\n      allow go()\n    end\n  end\nend\n"
    )
    for actor in ("side.a", "[side.a, side.b]"):
        assert main(["spec", "check", "--spec", str(mini_game(head + body.format(actor)))]) == 0
        capsys.readouterr()
    lines = run_check(mini_game(head + body.format("3")), capsys)
    assert lines[0].endswith(
        "type mismatch: expected side or list of side, found int [clause 1.1]"
    ), lines[0]
