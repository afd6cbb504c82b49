"""Random legal games (`referee play`): every one judged legal, invariants kept after
every event, and mutated games rejected citing the clause they break."""

from __future__ import annotations

import copy
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from referee.cli import main
from referee.compile.spec import Spec, load_spec
from referee.records.record import Event
from referee.run.machine import NotAllowed
from referee.run.play import Player, play, raw
from tests.referee_helpers import assert_illegal_at, judge

SIDES = ("tokugawa", "ishida")


def keys(values: Any) -> Counter[str]:
    return Counter(v["id"] for v in values)


def invariants(player: Player) -> None:
    """What must hold after every event of any game."""
    read = player.ref.interp.read_state
    values = player.ref.sym.values
    call = player.ref.interp.call
    for side in SIDES:
        # every card of a deck in exactly one place: hand, draw pile, discards, or in play
        places = sum(
            (
                keys(read(values[name], (side,)))
                for name in ("hand", "draw_pile", "discards", "played")
            ),  # type: ignore[arg-type]
            Counter(),
        )
        assert places == keys(call("full_deck", side)), side
    top = player.ref.machine.top
    # 7.3.1: no road used twice in a movement phase
    assert all(uses <= 1 for uses in player.ref.interp.state.get("road_uses", {}).values())
    state = player.ref.interp.state
    units = state.get("units_at", {})
    fighting = read(values["combat_at"], ())  # type: ignore[arg-type]
    for loc in call("all_locations"):
        present = call("present", loc)
        if call("has_castle", loc) and len(present) == 1:  # 4.3: a side alone holds the castle
            assert call("castle_controller", loc) == present[0]
        # (4.2 has no such invariant: a location stays with the last side to enter it, even
        # after that side is beaten out of it and the defender alone remains.)
        # 7.4: no unresolved overrun anywhere, of anybody, but of a side holding the castle,
        # and of the forces locked in the combat being fought (8.7.1)
        if loc == fighting:
            continue
        for side, enemy in (SIDES, SIDES[::-1]):
            own, theirs = len(units.get((loc, side), ())), len(units.get((loc, enemy), ()))
            if theirs and call("overruns", own, theirs):
                assert call("castle_shields", loc, enemy), (loc, side, own, theirs)
    # 8.9.2: no castle holds more than two blocks at a declaration (a siege begun)
    if top is not None and top.proc.name == "siege" and top.step and top.step.name == "deploying":
        at, defender = top.vars["at"], top.vars["defender"]
        if not read(values["in_battle"], (top.vars["attacker"],)):  # type: ignore[arg-type]
            assert call("fits_in_castle", call("blocks", at, defender)), at


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 10_000))
def test_random_whole_games_keep_the_invariants(spec: Spec, seed: int) -> None:
    """Whole games, seven weeks or up to an instant win, with the invariants after every event;
    after an instant win no event is allowed."""
    player = Player(spec, seed)
    player.events = []
    for _ in range(2_000):
        if player.ref.machine.finished:
            break
        event = player.step()
        assert event is not None, f"seed {seed}: stuck at {player.ref.machine.top.where()}"  # type: ignore[union-attr]
        player.events.append(event)
        invariants(player)
    assert player.ref.machine.finished, f"seed {seed}: not over after 2,000 events"
    summary = player.ref.summary()
    assert "wins at once (2.1)" in summary or "after week 7" in summary, summary
    if "wins at once" in summary:  # no event follows an instant win (2.1)
        assert player.ref.machine.over == "2.1" and player.candidates() == []
        assert any(rule.name == "at-once" for rule, _ in player.ref.interp.fired)
        with pytest.raises(NotAllowed) as refused:
            player.ref.machine.find_allow("movement", "ishida")
        assert refused.value.clause == "2.1"


def test_a_whole_random_game_is_legal(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = play(spec, 12)
    assert game.stopped == "the game is over"
    assert game.summary.startswith("the game is over after week 7")
    record = {"game": "sekigahara", "events": game.events}
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v
    assert v["judged"] == len(game.events) > 120
    actions = Counter(next(iter(e)) for e in game.events)
    assert actions["move"] > 10 and actions["muster"] > 0 and actions["result"] == 1
    assert actions["declare"] > 0 and actions["losses"] > 0  # random games fight too
    # and split stacks, part of one force-marching further (7.3.3, S-split)
    assert any(
        len(m["groups"]) > 1 and any(g.get("force_march") for g in m["groups"])
        for m in (e["move"] for e in game.events if "move" in e)
    )


def test_play_command_is_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = set()
    for _ in range(2):
        assert main(["play", "--seed", "5", "--weeks", "1"]) == 0
        outputs.add(capsys.readouterr().out)
    (out,) = outputs
    record = yaml.safe_load(out)
    assert (
        record["game"] == "sekigahara" and "stopped: the condition to stop holds" in record["notes"]
    )


def test_play_with_a_bad_condition(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--until", "week >"]) == 2
    assert "bad expression" in capsys.readouterr().err


@pytest.fixture(scope="module")
def game(spec: Spec) -> list[dict[str, Any]]:
    return play(spec, 6).events  # a game with battles, losses and retreats


def first(events: list[dict[str, Any]], action: str, pred: Any = lambda a: True) -> int:
    return next(i for i, e in enumerate(events) if action in e and pred(e[action])) + 1


MUTATIONS = [
    (
        "a card not in hand pays for movement",
        "movement",
        lambda a: a["cards"],
        lambda a: a.update(cards=["ukita-double"] if a["by"] == "ishida" else ["tokugawa-double"]),
        "3.3/in-hand",
    ),
    (
        "a path one step too long",
        "move",
        lambda a: True,
        lambda a: a["groups"][0]["path"].extend(a["groups"][0]["path"][-2:] * 2),
        "7.3.3/within-allowance",
    ),
    (
        "a block that is not there",
        "move",
        lambda a: True,
        lambda a: a["groups"][0]["blocks"].append(  # the other side's: never there
            "ishida-leader-square" if a["by"] == "tokugawa" else "ii-4-star"
        ),
        "7.3.1/available",
    ),
    (
        "a bid with a card not in hand",
        "bid",
        lambda a: True,
        lambda a: a.update(card="date-double" if a["by"] == "tokugawa" else "uesugi-double"),
        "3.3/in-hand",
    ),
    (
        "a wrong number of losses",
        "losses",
        lambda a: a["blocks"],
        lambda a: a["blocks"].pop(),
        "8.7.1/loss-count",
    ),
    (
        "a retreat to a location not joined by road",
        "retreat",
        lambda a: True,
        lambda a: a.update(to="Sendai" if a["to"] != "Sendai" else "Osaka"),
        "8.8.1/adjacent",
    ),
    (
        "too few cards drawn at reinforcement",
        "reinforce",
        lambda a: True,
        lambda a: a["cards"].pop(),
        "6.2/card-draw",
    ),
]


@pytest.mark.parametrize("why,action,pred,change,cites", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_mutated_random_game_is_rejected(
    game: list[dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    why: str,
    action: str,
    pred: Any,
    change: Any,
    cites: str,
) -> None:
    events = copy.deepcopy(game)
    number = first(events, action, pred)
    change(events[number - 1][action])
    violation = assert_illegal_at(
        tmp_path, capsys, {"game": "sekigahara", "events": events}, number, cites
    )
    assert violation["message"]


def test_a_block_moved_twice_is_rejected(
    game: list[dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = copy.deepcopy(game)
    # the first move under limited movement, which leaves stack moves to spare
    bought = first(events, "movement", lambda a: a["choice"] == "limited")
    number = bought + first(events[bought:], "move")
    group = events[number - 1]["move"]["groups"][0]
    # the blocks that arrived move on again, back the way they came
    again = {
        "by": events[number - 1]["move"]["by"],
        "from": group["path"][-1],
        "groups": [
            {"blocks": list(group["blocks"]), "path": [group["path"][-1], group["path"][-2]]}
        ],
    }
    events.insert(number, {"move": again})
    record = {"game": "sekigahara", "events": events}
    assert_illegal_at(tmp_path, capsys, record, number + 1, "7.3.1/available")


def test_judging_an_event_twice_is_the_same(spec: Spec) -> None:
    """The generator tries events on a copy of the position: trying must not change it."""
    player = Player(spec, 4)
    player.events = []

    def cells() -> dict[tuple[str, Any], Any]:
        state = player.ref.interp.state
        return {
            (name, k): x
            for name, v in state.items()
            for k, x in (v.items() if isinstance(v, dict) else [(None, v)])
        }

    for _ in range(30):
        saved = cells()
        before = player.snapshot()
        cands = player.candidates()
        if not cands:
            break
        action, by, values = cands[0]
        player.ref.judge(Event(1, action, {"by": by, **raw(values)}, ("events", 0, action)))
        player.restore(before)
        after = cells()
        # every cell is back; a cell read for the first time holds its default
        assert {c: after[c] for c in saved} == saved
        event = player.step()
        assert event is not None
        player.events.append(event)


class GameMachine(RuleBasedStateMachine):
    """Hypothesis drives the engine through its own actions, one legal proposal at a time."""

    @initialize(seed=st.integers(0, 1000))
    def start(self, seed: int) -> None:
        self.player = Player(load_spec(), seed)
        self.player.events = []

    @rule(pick=st.integers(0, 10_000))
    def act(self, pick: int) -> None:
        if self.player.ref.machine.finished:
            return
        cands = self.player.candidates()
        for offset in range(len(cands)):  # the first legal candidate from hypothesis's pick on
            event = self.player.attempt(*cands[(pick + offset) % len(cands)])
            if event is not None:
                self.player.events.append(event)
                return
        raise AssertionError(f"no legal proposal at {self.player.ref.machine.top.where()}")  # type: ignore[union-attr]

    @invariant()
    def rules_hold(self) -> None:
        if hasattr(self, "player"):
            invariants(self.player)


TestGameMachine = GameMachine.TestCase
TestGameMachine.settings = settings(max_examples=20, stateful_step_count=60, deadline=None)


def test_a_road_used_twice_in_a_random_game_is_rejected(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replay random games until a move leaves a road another stack could take back; add
    that move: the road is used twice in one movement phase (7.3.1)."""
    from referee.run.referee import Referee

    for seed in range(20):
        events = play(spec, seed, "week > 2").events
        player = Player(spec, seed)
        ref: Referee = player.ref
        for i, ev in enumerate(events):
            ((action, args),) = ev.items()
            assert ref.judge(Event(i + 1, action, dict(args), ("events", i, action))) == []
            if action != "move":
                continue
            group = args["groups"][0]
            origin, dest = group["path"][0], group["path"][-1]
            top = ref.machine.top
            assert top is not None
            free = ref.interp.call("movable", dest, args["by"])
            more = top.vars["level"] == "total" or (
                top.vars["level"] == "limited" and top.vars["moves"] + top.vars["musters"] < 3
            )
            if len(group["path"]) == 2 and free and more:
                back = {
                    "move": {
                        "by": args["by"],
                        "from": dest,
                        "groups": [{"blocks": [free[0]["id"]], "path": [dest, origin]}],
                    }
                }
                record = {"game": "sekigahara", "events": [*events[: i + 1], back]}
                assert_illegal_at(tmp_path, capsys, record, i + 2, "7.3.1/segment-once")
                return
    pytest.fail(
        "no random game offered a road to take back"
    )  # the proposals changed: widen the search


def test_blocks_are_never_more_than_the_game_has(spec: Spec) -> None:
    """48 blocks a side: on the map, in the boxes and lost, never more (the bags hold the rest)."""
    player = Player(spec, 8)
    player.events = []
    read, values = player.ref.interp.read_state, player.ref.sym.values
    totals = {t["colour"]: t["blocks"] for t in spec.components.collections["totals"]}
    for _ in range(150):
        event = player.step()
        if event is None:
            break
        player.events.append(event)
        for side, colour in (("tokugawa", "black"), ("ishida", "gold")):
            on_map = sum(
                len(read(values["units_at"], (loc, side)))
                for loc in player.ref.interp.call("all_locations")
            )  # type: ignore[arg-type]
            boxes = len(read(values["recruits"], (side,))) + (
                len(read(values["mori_box"], ())) if side == "ishida" else 0
            )  # type: ignore[arg-type]
            assert on_map + boxes + len(read(values["lost"], (side,))) <= totals[colour]  # type: ignore[arg-type]


def test_a_deployment_with_a_card_of_another_mon_is_rejected(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Replay random games to a deployment; play instead a card in hand that cannot deploy
    that block: the referee cites 8.2.2."""
    for seed in range(20):
        events = play(spec, seed).events
        player = Player(spec, seed)
        ref = player.ref
        for i, ev in enumerate(events):
            ((action, args),) = ev.items()
            if action == "deploy" and "card" in args:
                block = spec.components.item("faces", args["blocks"][0])
                hand = ref.interp.read_state(ref.sym.values["hand"], (args["by"],))  # type: ignore[arg-type]
                wrong = [c for c in hand if not ref.interp.call("deploys", c, block)]
                if wrong:
                    bad = {"deploy": {**args, "card": wrong[0]["id"]}}
                    record = {"game": "sekigahara", "events": [*events[:i], bad]}
                    assert_illegal_at(tmp_path, capsys, record, i + 1, "8.2.2/matching-mon")
                    return
            assert ref.judge(Event(i + 1, action, dict(args), ("events", i, action))) == []
    pytest.fail("no random game offered a deployment to spoil")


def test_many_games_on_every_core(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--games N --out DIR`: the same games as one seed at a time, written as records."""
    out = tmp_path / "games"
    assert main(["play", "--seed", "3", "--games", "8", "--weeks", "1", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("8 game(s), ")
    files = sorted(p.name for p in out.iterdir())
    assert files == [f"game-{seed:04}.yaml" for seed in range(3, 11)]
    assert main(["play", "--seed", "5", "--weeks", "1"]) == 0
    assert (out / "game-0005.yaml").read_text() == capsys.readouterr().out
    assert main(["check", str(out)]) == 0
    assert "8 records: 8 legal, 0 illegal, 0 bad input" in capsys.readouterr().out


def test_many_games_need_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--games", "3"]) == 2
    assert "--out DIR" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [12, 7])  # a challenge refuted, a challenge that turns a block
def test_random_games_play_loyalty_challenges(
    spec: Spec, seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = play(spec, seed)
    (challenge,) = [e["challenge"] for e in game.events if "challenge" in e]
    assert ("refute" in challenge) == (seed == 12)
    code, v = judge(tmp_path, capsys, {"game": "sekigahara", "events": game.events})
    assert code == 0, v


def test_a_random_game_won_at_once_allows_no_more_events(spec: Spec) -> None:
    """Seed 766 ends with an instant Ishida win in week 6: the invariants hold throughout, and
    nothing is allowed after the win (2.1)."""
    player = Player(spec, 766)
    player.events = []
    while not player.ref.machine.finished:
        event = player.step()
        assert event is not None
        player.events.append(event)
        invariants(player)
    assert player.ref.summary() == "ishida wins at once (2.1) in week 6"
    assert player.ref.machine.over == "2.1" and player.candidates() == []
    with pytest.raises(NotAllowed) as refused:
        player.ref.machine.find_allow("declare", "tokugawa")
    assert refused.value.clause == "2.1"


def test_play_from_a_folder_of_two_games_plays_the_first_records_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--from DIR` plays on from the records of one game (--game's, else the first record's)
    and skips the others with a note, rather than refusing them or playing them by the wrong
    rules."""
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    root = Path(__file__).parent.parent / "examples"
    (mixed / "a-fb.yaml").write_text((root / "fierce-battle" / "first-turn.yaml").read_text())
    (mixed / "b-sek.yaml").write_text((root / "weeks-1-2.yaml").read_text())
    out = tmp_path / "out"
    args = ["play", "--from", str(mixed), "--out", str(out), "--until", "true"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "1 record(s) of another game skipped (playing fierce-battle)" in captured.err
    assert sorted(p.name for p in out.iterdir()) == ["a-fb-0000.yaml"]
    assert main(["play", "--game", "sekigahara", *args[1:]]) == 0
    assert "(playing sekigahara)" in capsys.readouterr().err
    assert "b-sek-0000.yaml" in {p.name for p in out.iterdir()}
    assert main(["check", str(out)]) == 0
    assert "2 records: 2 legal" in capsys.readouterr().out
