"""Why an action is out of sequence (referee/run/machine.py `_out_of_sequence`): an action
whose step waits under a procedure it started, and ends when that procedure returns (its
end condition holds), was taken already: the refusal says the step is over, not that the
procedure on top "comes first" (a second reading of 8.9.2: a second stance during the siege
the first began was refused as though a stance could follow the siege)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from referee.cli import main

RULES = """game g "G"
  start p
printing p1 "P" base
clause 1.1 "One"
  state chosen: bool = false
  state waits: bool = false
  procedure p "P"
    step a (1.1)
      allow choose()
        effect
          set chosen = {chosen}
          do q()
      ends when chosen
    end
    step b
      allow finish()
    end
  end
end
clause 1.2 "Two"
  procedure q "Q"
    step c
      allow go()
    end
  end
end
"""


@pytest.fixture
def game(schema_game: Callable[[str], Path]) -> Callable[[str], Path]:
    return schema_game


@pytest.mark.parametrize(
    ("chosen", "said"),
    [
        (
            "true",
            "step a of p (1.1) is over (its end condition `chosen` holds); q (1.2) is under way",
        ),
        ("false", "q (1.2) comes first, as 1.1 orders"),
    ],
)
def test_a_step_whose_end_holds_under_a_procedure_it_started_is_over(
    chosen: str,
    said: str,
    game: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec = str(game(RULES.replace("{chosen}", chosen)))
    path = tmp_path / "r.yaml"
    path.write_text("game: g\nevents:\n  - choose: {}\n  - choose: {}\n")
    assert main(["check", "--spec", spec, str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("event 2 (choose) is illegal: 1.1 (One)"), out
    assert out[1].strip() == (f"'choose' is not allowed now (Q, step c; allowed: go): {said}"), out
