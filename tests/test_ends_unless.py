"""`ends unless 1.2/label(args) [then step]` (docs/rules-language.md): a step passed while a
labelled requirement fails. An event of the passed step is refused citing that label, with the
requirement's message and numbers, not the step's clause; the prover takes the requirement as
holding wherever the step's events are played (its at-rest term), and loses that without it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import main

RULES = """game g "G"
  start p
printing p1 "P" base
clause 1.1 "One"
  state n: int = 0
  state chosen: bool = false
  procedure p "P"
    step sizing
      allow size(k: int)
        effect
          set n = k
        then a
    end
    step a (1.1)
      allow choose()
        effect
          set chosen = true
      ends when chosen
      ends unless 1.2/small(n) then b
    end
    step b
      allow finish()
        effect
          set chosen = false
    end
  end
end
clause 1.2 "Two"
  require [small] (k: int): k <= 2 because "{k} is more than two"
end
clause 1.3 "Three"
  property [chosen-small] "a choice is made only with two or fewer"
    after choose: n <= 2
end
"""
ENDS = "      ends unless 1.2/small(n) then b\n"


@pytest.fixture
def game(schema_game: Callable[[str], Path]) -> Callable[[str], Path]:
    return schema_game


def record(tmp_path: Path, k: int) -> Path:
    path = tmp_path / f"r{k}.yaml"
    path.write_text(f"game: g\nevents:\n  - size: {{k: {k}}}\n  - choose: {{}}\n")
    return path


def test_a_step_passed_while_its_requirement_fails_refuses_its_events_citing_it(
    game: Callable[[str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = str(game(RULES))
    assert main(["check", "--spec", spec, str(record(tmp_path, 2))]) == 0
    assert "legal: 2 event(s)" in capsys.readouterr().out
    assert main(["check", "--spec", spec, str(record(tmp_path, 3))]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("event 2 (choose) is illegal: 1.2/small (Two)")
    assert (
        out[1]
        .strip()
        .endswith("it belongs to step a of p (1.1), which does not happen now: 3 is more than two")
    )


def test_the_prover_holds_the_requirement_where_the_steps_events_are_played(
    game: Callable[[str], Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REFEREE_NO_CACHE", "1")
    assert main(["prove", "--spec", str(game(RULES))]) == 0
    assert "1.3/chosen-small                         proved" in capsys.readouterr().out
    assert ENDS in RULES
    assert main(["prove", "--spec", str(game(RULES.replace(ENDS, "")))]) == 1
    out = capsys.readouterr().out
    assert "1.3/chosen-small                         failed: counterexample after p.a.choose" in out
    assert "n: 3" in out


@pytest.mark.parametrize(
    ("ends", "error"),
    [
        ("1.2/nosuch(n) then b", "19:19: clause 1.2 has no label [nosuch] [clause 1.1]"),
        ("1.2/small(n, n) then b", "19:7: 1.2/small takes 1 argument(s), 2 given [clause 1.1]"),
        ("1.2/small(n) then c", "19:7: unknown step of procedure p 'c' [clause 1.1]"),
    ],
)
def test_a_wrong_ends_unless_is_a_located_error(
    game: Callable[[str], Path], capsys: pytest.CaptureFixture[str], ends: str, error: str
) -> None:
    spec = game(RULES.replace("1.2/small(n) then b", ends))
    assert main(["spec", "check", "--spec", str(spec)]) == 2
    assert capsys.readouterr().err.splitlines()[0] == f"{spec / 'rules.rules'}:{error}"
