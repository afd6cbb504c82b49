"""Random games draw like real ones (`shuffled` in the spec's proposals): the seed shuffles
the decks, draws the bags and rolls the dice. The same seed gives the same game, different
seeds different hands and draws; `shuffled` stands only where events are suggested."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.compile.builtins import _builtin
from referee.compile.spec import SPEC_ROOT, Spec, load_spec
from referee.run.play import Player, play

SEEDS = range(50)


def opening(spec: Spec, seed: int, stop: Callable[[str], bool], most: int) -> list[Any]:
    """The events a game of this seed plays up to the first of an action ``stop`` picks."""
    player = Player(spec, seed)
    try:
        while len(player.events) < most:
            event = player.step()
            if event is None:  # the game is over (a commander lost ends a battle early)
                assert player.ref.machine.finished, f"seed {seed}: stuck"
                break
            if stop(next(iter(event))):
                break
            player.events.append(event)
        return list(player.events)
    finally:
        player.ref.release()


def ids(values: Any) -> tuple[str, ...]:
    return tuple(v["id"] if isinstance(v, dict) else v for v in values)


@pytest.fixture(scope="module")
def sekigahara() -> tuple[Spec, dict[int, list[Any]], dict[str, Any]]:
    """Each seed's set-up (up to the first bid), and each side's deck and bag faces."""
    spec = load_spec()
    setups = {s: opening(spec, s, lambda action: action == "bid", 200) for s in SEEDS}
    player = Player(spec, 0)
    call = player.ref.interp.call
    sides = list(player.players)
    pieces = {
        side: {"deck": set(ids(call("full_deck", side))), "bag": set(ids(call("bag_faces", side)))}
        for side in sides
    }
    player.ref.release()
    return spec, setups, pieces


def drawn(events: list[Any], action: str, side: str, arg: str) -> list[tuple[str, ...]]:
    return [ids(e[action][arg]) for e in events if action in e and e[action]["by"] == side]


def test_every_card_of_a_deck_is_dealt_in_some_opening_hand(
    sekigahara: tuple[Spec, dict[int, list[Any]], dict[str, Any]],
) -> None:
    _, setups, pieces = sekigahara
    assert len(pieces) == 2
    for side, have in pieces.items():
        hands = [drawn(setups[s], "deal", side, "cards") for s in SEEDS]
        assert all(len(h) == 1 and len(h[0]) == 5 for h in hands), side
        dealt = {card for h in hands for card in h[0]}
        assert dealt == have["deck"], (side, have["deck"] - dealt)
        # no seed-independent hand: (almost) every seed deals its own, and no card is in all
        distinct = {tuple(sorted(h[0])) for h in hands}
        assert len(distinct) >= 45, (side, len(distinct))
        assert not set.intersection(*(set(h[0]) for h in hands)), side


def test_every_bag_face_is_drawn_in_some_set_up(
    sekigahara: tuple[Spec, dict[int, list[Any]], dict[str, Any]],
) -> None:
    _, setups, pieces = sekigahara
    for side, have in pieces.items():
        waves = [drawn(setups[s], "recruit", side, "blocks") for s in SEEDS]
        assert all(len(w) == 1 and len(w[0]) == 4 for w in waves), side
        spots = [drawn(setups[s], "place_random", side, "blocks") for s in SEEDS]
        faces = {f for draws in waves + spots for d in draws for f in d}
        assert faces == have["bag"], (side, have["bag"] - faces)
        assert len({tuple(sorted(w[0])) for w in waves}) >= 45, side
        assert not set.intersection(*(set(w[0]) for w in waves)), side
        # each +N spot too: what one location receives differs from seed to seed
        by_spot: dict[str, set[tuple[str, ...]]] = {}
        for s in SEEDS:
            for e in setups[s]:
                if "place_random" in e and e["place_random"]["by"] == side:
                    at = e["place_random"]["at"]
                    by_spot.setdefault(at, set()).add(ids(e["place_random"]["blocks"]))
        assert by_spot and all(len(got) > 5 for got in by_spot.values()), by_spot


def test_the_same_seed_plays_the_same_game() -> None:
    spec = load_spec()
    first = play(spec, 7, "week > 2").events
    assert play(spec, 7, "week > 2").events == first
    assert play(spec, 8, "week > 2").events != first
    weekly = [e for e in first if "reinforce" in e]
    assert weekly and all(e["reinforce"]["cards"] for e in weekly)


def test_fierce_battle_rolls_its_dice_from_the_seed() -> None:
    """Fierce Battle deals no cards; what it leaves to chance is its dice (fire, melee,
    participation checks), proposed from 36 rolls of two dice shuffled by the seed."""
    spec = load_spec(SPEC_ROOT / "fierce-battle")
    rolls: list[tuple[int, ...]] = []
    for seed in SEEDS:
        events = opening(spec, seed, lambda action: False, 40)
        dice = [tuple(a["dice"]) for e in events for a in e.values() if "dice" in a]
        assert dice, f"seed {seed}: no roll in 40 events"
        rolls.append(dice[0])
    pairs = [r for r in rolls if len(r) == 2]
    assert {d for r in pairs for d in r} == set(range(1, 7))
    assert len(set(rolls)) >= 20, Counter(rolls)
    again = opening(spec, 3, lambda action: False, 40)
    assert opening(spec, 3, lambda action: False, 40) == again


def test_shuffled_without_a_player_leaves_a_list_as_it_is() -> None:
    """The referee's own evaluations (alternatives to a refused event) draw nothing."""
    assert _builtin("shuffled", ([3, 1, 2],)) == (3, 1, 2)


MINI = (
    'game g "G"\n  start p\nprinting p1 "P" base\n'
    'clause 1.1 "One"\n  state got: list of int = []\n  procedure p "P"\n    step a\n'
    "      allow pick(xs: list of int)\n"
    "        propose [{xs: take(shuffled([1, 2, 3, 4, 5, 6, 7, 8, 9]), 3)}]\n"
    "        alternatives [{xs: shuffled(xs)}]\n"
    "        effect\n          set got = xs\n        then b\n    end\n    step b\n    end\n"
    "  end\nend\n"
)


def test_a_proposal_draws_from_the_seed(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    game = mini_game(MINI)
    picks = []
    for seed in (*range(12), 1):
        assert main(["play", "--spec", str(game), "--seed", str(seed), "--format", "json"]) == 0
        picks.append(capsys.readouterr().out)
    assert picks[-1] == picks[1]
    assert len(set(picks)) >= 10


@pytest.mark.parametrize(
    ("where", "text"),
    [
        ("a definition", "  define deal(): list of int = shuffled([1, 2])\n"),
        ("a requirement", "  require [r] (x: list of int): size(shuffled(x)) > 0\n"),
    ],
)
def test_shuffled_is_refused_where_the_referee_judges(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str], where: str, text: str
) -> None:
    game = mini_game(MINI + 'clause 1.2 "Two"\n' + text + "end\n")
    assert main(["spec", "check", "--spec", str(game)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith(
        ":20:" + str(text.index("shuffled") + 1) + ": shuffled draws at random: it may stand"
        " only in a `propose` or `alternatives` expression, which suggest events; what the"
        " referee judges is never random [clause 1.2]"
    ), where


def test_shuffled_is_refused_in_until(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--seed", "1", "--until", "size(shuffled(hand(side.ishida))) > 4"]) == 2
    err = capsys.readouterr().err
    assert "shuffled draws at random" in err and "Traceback" not in err
