"""The engine knows nothing of the game: its names are in no Python file of referee/ (the
bundled spec in referee/games/ is data), and a number changed in the spec changes what the
rules compute, with no Python edited."""

from __future__ import annotations

import re
from pathlib import Path

from referee.compile.spec import Spec, load_spec

ENGINE = Path(__file__).resolve().parents[1] / "referee"


def game_words(spec: Spec) -> set[str]:
    c = spec.components.collections
    words = {loc["name"] for loc in c["locations"]} | {cl["name"] for cl in c["clans"]}
    words |= {"Tokugawa", "Ishida", "Ieyasu", "Mitsunari", "Hideyori", "Sanada", "Sekigahara"}
    words |= {"Tokaido", "Nakasendo", "Naomasa", "Terumoto"}
    # "Date" is a clan, and also the English word an overlay's date field is named by.
    return {w.lower() for w in words} - {"date"}


def test_engine_names_nothing_of_the_game(spec: Spec) -> None:
    words = game_words(spec)
    assert len(words) > 60
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, words))) + r")\b", re.I)
    hits = []
    for path in ENGINE.rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.name}:{n}: {line.strip()}")
    assert hits == []


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_changing_the_overrun_ratio_changes_the_rule(game_copy: Path) -> None:
    before = load_spec(game_copy).interpreter()
    assert not before.call("overruns", 3, 1)
    edit(
        game_copy / "clauses" / "07-movement.rules",
        "const overrun_ratio: int = 4",
        "const overrun_ratio: int = 3",
    )
    after = load_spec(game_copy).interpreter()
    assert after.call("overruns", 3, 1)


def test_changing_impact_per_loss_changes_the_losses(game_copy: Path) -> None:
    assert load_spec(game_copy).interpreter().call("battle_losses", 13, True) == 2
    edit(
        game_copy / "clauses" / "08-combat.rules",
        "const impact_per_loss: int = 7",
        "const impact_per_loss: int = 6",
    )
    assert load_spec(game_copy).interpreter().call("battle_losses", 13, True) == 3
