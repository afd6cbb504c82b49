"""Random games reach every rule: every requirement and every action of the spec is reached
(evaluated, whether it held or refused) at least once by a fixed, bounded set of exploring
random games, and every one of those games is legal (`referee play --coverage --explore`,
docs/commands/play.md).

The lists are the spec's own, not written here: a requirement or action added to the spec
fails this test until some game reaches it. The games: exploring games from the set-up, each
printing in turn with and without the default overlays, and exploring games played on from
each record of examples/ (a random number of its legal events, then random play), as
`referee play --coverage --explore --from examples` plays them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from referee.cli import main
from referee.compile.coverage import Coverage
from referee.compile.spec import Spec
from referee.run import coverage
from referee.run.batch import expand
from referee.run.play import Game, as_yaml, play_many

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SEED = 0
FROM_THE_SET_UP = 6  # games: each printing, with and without the default overlays
SEEDS_AN_EXAMPLE = 2  # games played on from each example
ON_FROM_AN_EXAMPLE = 15  # events at most after an example's own


def _of_game(record: Path, spec: Spec) -> bool:
    """A record of this game (examples/ holds the second game's too)."""
    head = yaml.safe_load(record.read_text())
    return isinstance(head, dict) and head.get("game") == (spec.game.name if spec.game else "")


@pytest.fixture(scope="module")
def games(spec: Spec) -> list[Game]:
    seeds = list(range(SEED, SEED + FROM_THE_SET_UP))
    played = play_many(spec, seeds, coverage=True, explore=True)
    starts, _ = expand([EXAMPLES])
    played += play_many(
        spec,
        list(range(SEED, SEED + SEEDS_AN_EXAMPLE)),
        coverage=True,
        explore=True,
        starts=[s for s in starts if s.suffix == ".yaml" and _of_game(s, spec)],
        max_events=ON_FROM_AN_EXAMPLE,
    )
    return played


@pytest.fixture(scope="module")
def reached(spec: Spec, games: list[Game]) -> coverage.Table:
    counts = Coverage()
    for g in games:
        assert g.coverage is not None
        counts.add(g.coverage)
    return coverage.table(spec.sym, counts, len(games), sum(len(g.events) for g in games))


def test_every_requirement_is_reached(spec: Spec, reached: coverage.Table) -> None:
    assert len(reached.requirements) == len(coverage.requirements(spec.sym)) > 100
    assert reached.never("requirements") == []


def test_every_action_is_reached(spec: Spec, reached: coverage.Table) -> None:
    assert [a["name"] for a in reached.actions] == sorted(spec.sym.event_actions())
    assert reached.never("actions") == []
    # and taken in a legal event, not only tried
    assert [a["name"] for a in reached.actions if not a["passed"]] == []


def test_the_games_are_legal(
    spec: Spec, games: list[Game], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i, g in enumerate(games):
        (tmp_path / f"game-{i:03}.yaml").write_text(as_yaml(g.record(spec, SEED + i)))
    assert main(["check", str(tmp_path)]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"{len(games)} records: {len(games)} legal, 0 illegal, 0 bad input"
    # the set-up games: each printing, with the default overlays (played to the end) and
    # without them (the rules as printed; their strict readings may leave a player no legal
    # event, as the attacker with nothing to deploy who may not finish first, 8.5)
    whole = games[:FROM_THE_SET_UP]
    assert len({g.head.get("printing", "") for g in whole}) == len(spec.sym.printings)
    n = len(spec.sym.printings)
    assert [g.stopped for g in whole if "no_overlays" not in g.head] == ["the game is over"] * n
    assert sum("no_overlays" in g.head for g in whole) == n
