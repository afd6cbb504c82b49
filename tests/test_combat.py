"""Chapter 8, 2.1 and 9.1-9.5: the rulebook's combat example, sieges, and one illegal
change per rule, each rejected citing its clause."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.compile.spec import Spec
from referee.records.record import load_record
from referee.resolve.overlays import Choice
from referee.run.referee import Referee
from tests.referee_helpers import (
    EXAMPLES,
    Events,
    args,
    assert_illegal_at,
    example,
    judge,
    move,
    mutate,
    position,
)

COMBAT = example("combat-example.yaml")
SIEGE = example("siege-of-osaka.yaml")


def replay(spec: Spec, name: str) -> tuple[Referee, list[Any]]:
    record = load_record(EXAMPLES / name, spec.game_dir.parent / "schema")
    ref = Referee(spec, record, Choice())
    ref.start()
    return ref, record.events


def state(ref: Referee, name: str, *key: Any) -> Any:
    return ref.interp.read_state(ref.sym.values[name], key)  # type: ignore[arg-type]


def replay_legal(spec: Spec, tmp_path: Path, record: dict[str, Any]) -> Referee:
    """Judge every event of a record, asserting each legal; the referee, to read its state."""
    path = tmp_path / "replayed.yaml"
    path.write_text(yaml.safe_dump(record))
    loaded = load_record(path, spec.game_dir.parent / "schema")
    ref = Referee(spec, loaded, Choice())
    ref.start()
    for ev in loaded.events:
        assert ref.judge(ev) == [], ev
    return ref


def test_combat_example_scores_as_the_rulebook_table(spec: Spec) -> None:
    ref, events = replay(spec, "combat-example.yaml")
    scores = []
    for ev in events:
        assert ref.judge(ev) == [], ev
        if ev.action == "deploy":
            scores.append((state(ref, "impact", "ishida"), state(ref, "impact", "tokugawa")))
        if ev.action == "losses" and ev.args["by"] == "ishida":
            assert state(ref, "loss_due", "ishida") == 2
            assert state(ref, "loss_due", "tokugawa") == 1
    assert scores == [(1, 0), (1, 3), (6, 3), (6, 6), (7, 6), (7, 8), (13, 8), (13, 13)]
    assert [f["id"] for f in state(ref, "lost", "ishida")] == ["ukita-2", "ukita-2-square"]
    assert [f["id"] for f in state(ref, "lost", "tokugawa")] == ["maeda-cavalry"]
    kyoto = [f["id"] for f in state(ref, "units_at", "Kyoto", "ishida")]
    assert sorted(kyoto) == sorted(
        ["mori-leader-triangle", "uesugi-gun", "mori-gun", "kobayakawa-2", "kobayakawa-3"]
    )
    assert state(ref, "units_at", "Sawayama", "ishida") == ()
    assert ref.machine.finished  # the combat phase is over: nothing else to fight


def test_examples_are_legal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for record in (COMBAT, SIEGE):
        code, v = judge(tmp_path, capsys, record)
        assert code == 0, v


def test_siege_leaves_osaka_besieged(spec: Spec) -> None:
    ref, events = replay(spec, "siege-of-osaka.yaml")
    for ev in events:
        assert ref.judge(ev) == [], ev
    assert state(ref, "disk_standing", "Osaka") is True
    assert state(ref, "besieged_at", "Osaka") == "ishida"
    assert [f["id"] for f in state(ref, "lost", "ishida")] == ["ukita-2"]
    assert state(ref, "lost", "tokugawa") == ()  # a siege never harms the attacker


def test_capturing_hideyori_is_an_instant_tokugawa_win(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = mutate(SIEGE, lambda ev: None)
    record["position"]["state"]["hand"]["tokugawa"] = ["date", "tokugawa", "tokugawa", "tokugawa"]
    record["position"]["state"]["units_at"]["Osaka"]["tokugawa"] = [
        "ii-4-star",
        "tokugawa-3",
        "tokugawa-3-square",
        "tokugawa-2",
    ]
    record["events"] = [
        {"declare": {"by": "tokugawa", "at": "Osaka", "inside": True}},
        {"deploy": {"by": "tokugawa", "card": "date", "blocks": ["ii-4-star"]}},  # 4
        {"deploy": {"by": "tokugawa", "card": "tokugawa", "blocks": ["tokugawa-3"]}},  # 3
        {
            "deploy": {"by": "tokugawa", "card": "tokugawa", "blocks": ["tokugawa-3-square"]}
        },  # 3 + 1
        {"deploy": {"by": "tokugawa", "card": "tokugawa", "blocks": ["tokugawa-2"]}},  # 2 + 2
        {"finish": {"by": "tokugawa"}},
        # 15 Impact: two losses, the block and then Hideyori
        {"losses": {"by": "ishida", "blocks": ["ukita-2"], "disk": True}},
    ]
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v
    assert v["summary"] == "tokugawa wins at once (2.1) in week 1"


def deploy_arg(number: int, **changes: Any) -> Callable[[Events], None]:
    return lambda ev: args(ev, number).update(changes)


def insert(number: int, event: dict[str, Any]) -> Callable[[Events], None]:
    return lambda ev: ev.insert(number - 1, event)


def drop(number: int) -> Callable[[Events], None]:
    return lambda ev: ev.pop(number - 1)


COMBAT_ILLEGAL = [
    (
        "declared by the side not in its phase",
        deploy_arg(1, by="tokugawa"),
        1,
        "8.1/by-the-active-side",
    ),
    ("declared where nobody fights", deploy_arg(1, at="Kyoto"), 1, "8.1/in-conflict"),
    ("staying inside with no castle", deploy_arg(1, inside=True), 1, "8.9.1/owner-inside"),
    (
        "the defender deploys first",
        insert(2, {"deploy": {"by": "tokugawa", "card": "tokugawa", "blocks": ["tokugawa-3"]}}),
        2,
        "8.5/initiative",
    ),
    ("a card of another mon", deploy_arg(3, card="tokugawa"), 3, "8.2.2/matching-mon"),
    (
        "a cardless block that is no leader",
        deploy_arg(2, blocks=["ukita-2"]),
        2,
        "8.2.4/cardless-leader",
    ),
    (
        "a cardless leader after a card deployment",
        insert(4, {"deploy": {"by": "ishida", "blocks": ["mori-leader-triangle"]}}),
        4,
        "8.2.3/undeployed",
    ),
    ("a block deployed twice", deploy_arg(6, blocks=["ukita-2"]), 6, "8.2.3/undeployed"),
    (
        "a double card for three blocks",
        deploy_arg(4, blocks=["ukita-2", "ukita-2-square", "ukita-2"]),
        4,
        "8.2.3/undeployed",
    ),
    (
        "a single card for two blocks",
        deploy_arg(6, blocks=["uesugi-gun", "mori-gun"]),
        6,
        "8.2.2/matching-mon",
    ),
    ("a card not in hand", deploy_arg(3, card="maeda-double"), 3, "3.3/in-hand"),
    (
        "deploying after finishing",
        insert(11, {"deploy": {"by": "ishida", "card": "mori", "blocks": ["kobayakawa-2"]}}),
        11,
        "8.5/still-deploying",
    ),
    (
        "the defender takes its losses first",
        lambda ev: ev.insert(11, ev.pop(12)),
        12,
        "8.7.2/attacker-first",
    ),
    ("too few losses", deploy_arg(12, blocks=["ukita-2"]), 12, "8.7.1/loss-count"),
    (
        "undeployed blocks lost before deployed ones",
        deploy_arg(12, blocks=["kobayakawa-2", "kobayakawa-3"]),
        12,
        "8.7.2/loss-order",
    ),
    ("the winner retreats", deploy_arg(14, by="tokugawa"), 14, "8.8.1/loser-retreats"),
    ("a retreat off the roads", deploy_arg(14, to="Osaka"), 14, "8.8.1/adjacent"),
    (
        "a castle refuge with no castle",
        deploy_arg(14, into_castle=["mori-gun"]),
        14,
        "8.8.4/castle-refuge",
    ),
    ("too few cards drawn after the battle", deploy_arg(15, cards=["mori"]), 15, "8.10/redraw"),
    ("drawing twice", insert(16, {"replenish": {"by": "ishida", "cards": []}}), 16, "8.10/once"),
    (
        "a challenge with an ordinary card",
        insert(3, {"challenge": {"by": "tokugawa", "card": "tokugawa"}}),
        3,
        "8.2.4/immune",  # the deployment before it is a cardless leader's (issue 27)
    ),
    (
        "challenging a cardless leader",
        insert(3, {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty"}}),
        3,
        "8.2.4/immune",  # 8.2.4 gives the immunity, not 8.6.1 (issue 27)
    ),
    (
        "a refutation by a card that cannot deploy the block",
        insert(
            5, {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty", "refute": "uesugi"}}
        ),
        5,
        "8.6.3/refuted-double",  # the challenged deployment is the Ukita double (issue 27)
    ),
]


def test_a_successful_challenge_turns_the_block(
    spec: Spec, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.6.1: Ishida's Ukita double cannot be refuted (no Ukita card left in hand): both
    blocks join Tokugawa with their Impact (D-defector-impact), and the battle turns."""
    record = challenged_double()
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v
    assert "D-defector-impact" in v["relied"]
    ref = replay_legal(spec, tmp_path, record)
    assert state(ref, "impact", "ishida") == 1 and state(ref, "impact", "tokugawa") == 3 + 5
    # Tokugawa now leads 8-1: the initiative is Ishida's
    assert ref.interp.call("to_deploy", "ishida", "tokugawa") == "ishida"


def test_a_refuted_challenge_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = mutate(
        COMBAT,
        insert(5, {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty", "refute": "ukita"}}),
    )
    record["position"]["state"]["hand"]["tokugawa"].append("tokugawa-loyalty")
    # the loyalty card stays played: Tokugawa draws it back after the battle (8.10)
    args(record["events"], 17)["cards"] = ["date", "date", "fukushima", "maeda", "date"]
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v


SIEGE_ILLEGAL = [
    (
        "the defender deploys in a siege",
        insert(2, {"deploy": {"by": "ishida", "card": "mori", "blocks": ["ukita-2"]}}),
        2,
        "8.9.4/attacker-deploys",
    ),
    (
        "a loyalty challenge in a siege",
        insert(3, {"challenge": {"by": "ishida", "card": "ishida-loyalty"}}),
        3,
        "8.9.5/no-challenge",
    ),
    (
        "Hideyori lost before the last block",
        deploy_arg(5, blocks=[], disk=True),
        5,
        "9.1/hideyori-last",
    ),
    (
        "a siege loss too many",
        deploy_arg(5, blocks=["ukita-2"], disk=True),
        5,
        "8.9.4/siege-loss-count",
    ),
    (
        "the attacker draws for blocks it did not lose",
        deploy_arg(6, cards=["tokugawa", "maeda", "date"]),
        6,
        "8.10/redraw",
    ),
]


# Each case: the example it changes, and a loyalty card put in the hand of the side named.
ILLEGAL = [(COMBAT, "tokugawa", c) for c in COMBAT_ILLEGAL] + [
    (SIEGE, "ishida", c) for c in SIEGE_ILLEGAL
]


@pytest.mark.parametrize("base,side,case", ILLEGAL, ids=[c[2][0] for c in ILLEGAL])
def test_illegal_combat_event(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    base: dict[str, Any],
    side: str,
    case: tuple[str, Callable[[Events], None], int, str],
) -> None:
    why, change, number, cites = case
    record = mutate(base, change)
    record["position"]["state"]["hand"][side].append(f"{side}-loyalty")
    assert_illegal_at(tmp_path, capsys, record, number, cites)


def battle_record(ishida_hand: list[str], events: list[dict[str, Any]]) -> dict[str, Any]:
    """Ishida moves two Ukita blocks from Kyoto into two Date blocks at Sawayama, and fights."""
    record = position(
        "movement_phase",
        "ishida",
        {
            "first_player": "ishida",
            "hand": {"ishida": ishida_hand, "tokugawa": ["date", "tokugawa"]},
            "units_at": {
                "Kyoto": {"ishida": ["ukita-2", "ukita-3"]},
                "Sawayama": {"tokugawa": ["date-2", "date-3"]},
            },
        },
        [
            {"movement": {"by": "ishida", "choice": "minimal"}},
            move("ishida", "Kyoto", (["ukita-2", "ukita-3"], ["Kyoto", "Sawayama"])),
            {"end_movement": {"by": "ishida"}},
            {"declare": {"by": "ishida", "at": "Sawayama"}},
            *copy.deepcopy(events),
        ],
    )
    record["position"]["within"] = [{"procedure": "game_turn", "step": "first_moves"}]
    return record


ATTACKER_LOSES = [
    {"deploy": {"by": "ishida", "card": "ukita", "blocks": ["ukita-2"], "impact": 2}},
    {"deploy": {"by": "tokugawa", "card": "date", "blocks": ["date-3"], "impact": 3}},
    {"finish": {"by": "ishida"}},
    {"finish": {"by": "tokugawa"}},
    {"losses": {"by": "ishida", "blocks": ["ukita-2"]}},
    {"retreat": {"by": "ishida", "to": "Kyoto"}},
    {"replenish": {"by": "ishida", "cards": ["mori"]}},
    {"replenish": {"by": "tokugawa", "cards": ["maeda"]}},
]
DEFENDER_LOSES = [
    {"deploy": {"by": "ishida", "card": "ukita", "blocks": ["ukita-2"]}},
    {"deploy": {"by": "tokugawa", "card": "date", "blocks": ["date-3"]}},
    {"deploy": {"by": "ishida", "card": "ukita", "blocks": ["ukita-3"], "impact": 4}},
    {"finish": {"by": "tokugawa"}},
    {"finish": {"by": "ishida"}},
    {"losses": {"by": "tokugawa", "blocks": ["date-3"]}},
    {"retreat": {"by": "tokugawa", "to": "Gifu"}},
    {"replenish": {"by": "ishida", "cards": ["mori", "mori"]}},
    {"replenish": {"by": "tokugawa", "cards": ["maeda"]}},
]


def test_retreats_that_follow_the_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, v = judge(tmp_path, capsys, battle_record(["ukita", "mori"], ATTACKER_LOSES))
    assert code == 0, v
    # the game goes on: Tokugawa's movement phase is next
    assert v["summary"].endswith("next: movement phase, step buying")
    code, v = judge(tmp_path, capsys, battle_record(["ukita", "ukita"], DEFENDER_LOSES))
    assert code == 0, v


MORE_ILLEGAL = [
    (
        "the attacker retreats elsewhere than it came from",
        ["ukita", "mori"],
        ATTACKER_LOSES,
        10,
        {"to": "Gifu"},
        "8.8.2/back-the-way-it-came",
    ),
    (
        "the defender retreats toward the enemy's way in",
        ["ukita", "ukita"],
        DEFENDER_LOSES,
        11,
        {"to": "Kyoto"},
        "8.8.3/away-from-the-enemy",
    ),
    (
        "an Impact the rules do not give",
        ["ukita", "ukita"],
        DEFENDER_LOSES,
        7,
        {"impact": 3},
        "8.3.1/impact-as-recorded",
    ),
    (
        "losses before the battle ends",
        ["ukita", "mori"],
        ATTACKER_LOSES,
        7,
        {"blocks": ["ukita-2"]},
        "8.2.1",
    ),
]


@pytest.mark.parametrize(
    "why,hand,events,number,change,cites", MORE_ILLEGAL, ids=[m[0] for m in MORE_ILLEGAL]
)
def test_more_illegal_combat(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    why: str,
    hand: list[str],
    events: list[dict[str, Any]],
    number: int,
    change: dict[str, Any],
    cites: str,
) -> None:
    record = battle_record(hand, events)
    if cites == "8.2.1":  # a losses event in place of a finish
        record["events"][number - 1] = {"losses": {"by": "ishida", **change}}
    else:
        args(record["events"], number).update(change)
    code, v = judge(tmp_path, capsys, record)
    assert code == 1, why
    x = v["violations"][0]
    assert (x["index"], x["cites"]) == (number, cites), x["message"]
    if cites == "8.3.1/impact-as-recorded":
        assert x["message"] == (
            "the record puts 3 on the Impact track; the deployment scores 4: mon 3 (8.3.2)"
            " + 1 for earlier blocks of its daimyo (8.3.3) + 0 special attack (8.4.1)"
        )


def test_a_double_card_deploys_the_ishida_block_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = mutate(COMBAT, lambda ev: None)
    record["position"]["state"]["units_at"]["Sawayama"]["ishida"].append("ishida-leader-square")
    args(record["events"], 4)["blocks"] = ["ishida-leader-square", "ukita-2"]
    code, v = judge(tmp_path, capsys, record)
    assert code == 1
    assert v["violations"][0]["cites"] == "8.4.2/double-count"


def test_besieged_blocks_cannot_leave(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = {
        "game": "sekigahara",
        "position": {
            "procedure": "movement_phase",
            "args": {"active": "ishida"},
            "state": {
                "besieged_at": {"Osaka": "ishida"},
                "units_at": {
                    "Osaka": {"ishida": ["ukita-2"], "tokugawa": ["tokugawa-3", "tokugawa-2"]}
                },
            },
        },
        "events": [
            {"movement": {"by": "ishida", "choice": "minimal"}},
            {
                "move": {
                    "by": "ishida",
                    "from": "Osaka",
                    "groups": [{"blocks": ["ukita-2"], "path": ["Osaka", "Himeji"]}],
                }
            },
        ],
    }
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["cites"] == "8.9.6/besieged-stay"


def test_sanada_takes_a_loss_at_ueda(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """9.2: a siege loss at Ueda may take the Sanada disk instead of a block."""
    record = mutate(SIEGE, lambda ev: None)
    state = record["position"]["state"]
    state["units_at"] = {"Ueda": state["units_at"].pop("Osaka")}
    record["events"][0]["declare"]["at"] = "Ueda"
    args(record["events"], 5).update({"blocks": [], "disk": True})
    record["events"][6]["replenish"]["cards"] = []  # a disk lost draws no card (8.10)
    record["events"].pop(6)
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v


@pytest.mark.parametrize(
    "block,card,cites",
    [
        ("ii-4-star", "tokugawa-loyalty", "9.4/not-by-challenge"),
        ("ii-4-star", "date", ""),  # any other card deploys the Ii block (9.4)
    ],
)
def test_the_ii_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], block: str, card: str, cites: str
) -> None:
    record = mutate(COMBAT, lambda ev: ev.__delitem__(slice(2, None)))  # Ishida leads 1-0
    record["position"]["state"]["units_at"]["Sawayama"]["tokugawa"].append(block)
    record["position"]["state"]["hand"]["tokugawa"] += [card]
    record["events"].append({"deploy": {"by": "tokugawa", "card": card, "blocks": [block]}})
    code, v = judge(tmp_path, capsys, record)
    if cites:
        assert code == 1 and v["violations"][0]["cites"] == cites
    else:
        assert code == 0, v


def test_the_ishida_block_and_a_loyalty_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = mutate(COMBAT, lambda ev: ev.__delitem__(slice(1, None)))
    record["position"]["state"]["units_at"]["Sawayama"]["ishida"].append("ishida-leader-square")
    record["position"]["state"]["hand"]["ishida"] += ["ishida-loyalty"]
    record["events"].append(
        {"deploy": {"by": "ishida", "card": "ishida-loyalty", "blocks": ["ishida-leader-square"]}}
    )
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["cites"] == "9.5/not-by-challenge"
    record["events"][-1]["deploy"]["card"] = "mori"  # any Ishida card but a challenge (9.5)
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v


def test_a_battle_never_takes_a_disk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = mutate(COMBAT, lambda ev: args(ev, 12).update({"disk": True}))
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["cites"] == "8.9.3/only-sieges-take-disks"


# Ishida attacks two Date blocks at Sawayama with one Ukita block, loses, and retreats to Kyoto.
BEATEN_AT_SAWAYAMA = [
    {"declare": {"by": "ishida", "at": "Sawayama"}},
    {"deploy": {"by": "ishida", "card": "ukita", "blocks": ["ukita-2"]}},
    {"deploy": {"by": "tokugawa", "card": "date", "blocks": ["date-3"]}},
    {"finish": {"by": "ishida"}},
    {"finish": {"by": "tokugawa"}},
    {"losses": {"by": "ishida", "blocks": ["ukita-2"]}},
    {"retreat": {"by": "ishida", "to": "Kyoto"}},
]


def retreat_into(kyoto: list[str], *after: dict[str, Any]) -> dict[str, Any]:
    """Ishida, beaten at Sawayama, retreats four blocks into Kyoto, held by Tokugawa's ``kyoto``."""
    record = position(
        "combat_phase",
        "ishida",
        {
            "first_player": "ishida",
            "hand": {"ishida": ["ukita", "mori"], "tokugawa": ["date"]},
            "units_at": {
                "Sawayama": {
                    "ishida": ["ukita-2", "ukita-3", "mori-2", "mori-3", "kobayakawa-2"],
                    "tokugawa": ["date-2", "date-3"],
                },
                "Kyoto": {"tokugawa": kyoto},
            },
            "came_from": {"Sawayama": {"ishida": ["Kyoto"]}},
        },
        [*copy.deepcopy(BEATEN_AT_SAWAYAMA), *after],
    )
    record["position"]["within"] = [{"procedure": "game_turn", "step": "first_fights"}]
    return record


def test_a_retreat_into_enemies_overruns_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Spec
) -> None:
    """8.8.5: the retreating blocks enter enemies; four times their number overruns them."""
    record = retreat_into(["tokugawa-2"])
    ref = replay_legal(spec, tmp_path, record)
    assert [f["id"] for f in state(ref, "lost", "tokugawa")] == ["tokugawa-2"]  # overrun
    assert len(state(ref, "units_at", "Kyoto", "ishida")) == 4


def test_no_event_after_an_instant_victory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = example("instant-victory.yaml")
    record["events"].append({"movement": {"by": "ishida", "choice": "minimal"}})
    first = assert_illegal_at(tmp_path, capsys, record, len(record["events"]), "2.1")
    assert first["message"] == "the game is over (2.1): no more events are allowed"


def test_a_special_attack_recorded_without_its_bonus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The combat example's Mori gun attack scores 6; a record that puts 2 shows why."""
    record = mutate(COMBAT, lambda ev: args(ev, 8).update({"impact": 2}))
    first = assert_illegal_at(tmp_path, capsys, record, 8, "8.3.1/impact-as-recorded")
    assert first["message"] == (
        "the record puts 2 on the Impact track; the deployment scores 6: mon 1 (8.3.2)"
        " + 1 for earlier blocks of its daimyo (8.3.3) + 4 special attack (8.4.1)"
    )
    record = mutate(COMBAT, lambda ev: args(ev, 8).update({"impact": 6}))
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v


def test_a_defector_makes_no_special_attack(spec: Spec, tmp_path: Path) -> None:
    """8.6.2 (and D-defector-impact): the Mori gun, deployed with swords for 6 (1 mon, 1 Mori,
    4 special), is challenged and cannot be refuted: Ishida loses the 6, Tokugawa gains 2."""
    record = challenged_gun()
    ref = replay_legal(spec, tmp_path, record)
    assert (state(ref, "impact", "ishida"), state(ref, "impact", "tokugawa")) == (13 - 6, 8 + 2)
    assert [f["id"] for f in state(ref, "in_battle", "tokugawa")][-1] == "mori-gun"


def test_a_retreat_into_a_fight_still_to_be_declared_joins_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Spec
) -> None:
    """8.8.5: Ishida, beaten at Sawayama, retreats to Kyoto, where its blocks already face
    Tokugawa's: they join that fight, which Ishida must still declare."""
    record = position(
        "combat_phase",
        "ishida",
        {
            "hand": {"ishida": ["ukita"], "tokugawa": ["date"]},
            "units_at": {
                "Sawayama": {"ishida": ["ukita-2", "ukita-3"], "tokugawa": ["date-2", "date-3"]},
                "Kyoto": {"ishida": ["mori-2"], "tokugawa": ["tokugawa-2"]},
            },
            "came_from": {"Sawayama": {"ishida": ["Kyoto"]}},
        },
        [
            *copy.deepcopy(BEATEN_AT_SAWAYAMA),
            {"replenish": {"by": "ishida", "cards": ["mori"]}},
            {"replenish": {"by": "tokugawa", "cards": ["maeda"]}},
        ],
    )
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v
    assert v["summary"].endswith("next: combat phase, step declaring")  # Kyoto is still to fight
    record["events"].append({"declare": {"by": "ishida", "at": "Kyoto"}})
    code, v = judge(tmp_path, capsys, record)
    assert code == 0 and v["summary"].endswith("next: battle, step deploying"), v


# A record may give the parts of a deployment's Impact; each part wrong cites its own clause.
IMPACT_PARTS = [
    ({"mon": 3, "daimyo_bonus": 1, "special_bonus": 0, "impact": 4}, ""),
    ({"mon": 2}, "8.3.2/mon-as-recorded"),
    ({"daimyo_bonus": 0}, "8.3.3/bonus-as-recorded"),
    ({"special_bonus": 2}, "8.4.1/special-as-recorded"),
]


@pytest.mark.parametrize("parts,cites", IMPACT_PARTS, ids=[c or "legal" for _, c in IMPACT_PARTS])
def test_the_parts_of_a_deployments_impact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], parts: dict[str, int], cites: str
) -> None:
    """The second Ukita block scores mon 3 (8.3.2) + 1 for the Ukita block before it (8.3.3),
    with no special attack (8.4.1)."""
    record = battle_record(["ukita", "ukita"], DEFENDER_LOSES)
    args(record["events"], 7).update(parts)
    if not cites:
        code, v = judge(tmp_path, capsys, record)
        assert code == 0, v
        return
    first = assert_illegal_at(tmp_path, capsys, record, 7, cites)
    name, value = next(iter(parts.items()))
    assert f"the record gives {'' if name == 'mon' else 'a '}" in first["message"]
    assert str(value) in first["message"]


def test_a_special_attack_in_parts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The combat example's Mori gun: mon 1, Mori bonus 1, special attack 4 (one gun before)."""
    parts = {"mon": 1, "daimyo_bonus": 1, "special_bonus": 4, "impact": 6}
    code, v = judge(tmp_path, capsys, mutate(COMBAT, lambda ev: args(ev, 8).update(parts)))
    assert code == 0, v
    record = mutate(COMBAT, lambda ev: args(ev, 8).update({"special_bonus": 2}))
    first = assert_illegal_at(tmp_path, capsys, record, 8, "8.4.1/special-as-recorded")
    assert first["message"].startswith(
        "the record gives a special-attack bonus of 2; the deployment earns 4"
    )


def challenged_gun(impact: int | None = None) -> dict[str, Any]:
    """The combat example up to the Mori gun (6 Impact, 4 of it special), challenged with no
    Mori card left to refute it; ``impact``, if given, the Impact the record moves."""
    record = mutate(COMBAT, lambda ev: ev.__delitem__(slice(8, None)))
    record["position"]["state"]["hand"]["ishida"] = [
        "ukita-double",
        "uesugi",
        "mori-swords",
        "ukita",
    ]
    record["position"]["state"]["hand"]["tokugawa"].append("tokugawa-loyalty")
    challenge: dict[str, Any] = {"by": "tokugawa", "card": "tokugawa-loyalty"}
    if impact is not None:
        challenge["impact"] = impact
    record["events"].append({"challenge": challenge})
    return record


def test_a_betrayal_carries_no_special_attack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.6.2: the challenged Mori gun scored 6, 4 of it a special attack: 2 changes sides."""
    code, v = judge(tmp_path, capsys, challenged_gun(2))
    assert code == 0, v
    first = assert_illegal_at(
        tmp_path, capsys, challenged_gun(6), 9, "8.6.2/no-special-on-betrayal"
    )
    assert "of which 4 was its special attack" in first["message"]


def challenged_double(impact: int | None = None) -> dict[str, Any]:
    """The combat example up to Ishida's Ukita double, challenged with no Ukita card left to
    refute it; ``impact``, if given, the Impact the record moves."""
    challenge: dict[str, Any] = {"by": "tokugawa", "card": "tokugawa-loyalty"}
    if impact is not None:
        challenge["impact"] = impact
    record = mutate(
        COMBAT,
        lambda ev: (ev.insert(4, {"challenge": challenge}), ev.__delitem__(slice(5, None))),
    )
    record["position"]["state"]["hand"]["tokugawa"].append("tokugawa-loyalty")
    record["position"]["state"]["hand"]["ishida"] = [
        "ukita-double",
        "uesugi",
        "mori-swords",
        "mori",
    ]
    return record


def test_a_challenged_double_turns_both_blocks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.6.3: the Ukita double deployed 2 and 3 (2 + 1 bonus): both change sides, 5 Impact;
    a record moving only the first block's 2 is wrong."""
    code, v = judge(tmp_path, capsys, challenged_double(5))
    assert code == 0, v
    first = assert_illegal_at(tmp_path, capsys, challenged_double(2), 5, "8.6.3/both-defect")
    assert "[2, 3] make 5" in first["message"]


def test_a_single_defector_moves_its_impact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.6.1: the Uesugi gun deployed with a plain card scored 1; no other Uesugi card is left
    to refute the challenge, so 1 changes sides, not 2."""
    record = mutate(COMBAT, lambda ev: ev.__delitem__(slice(6, None)))
    record["position"]["state"]["hand"]["tokugawa"].append("tokugawa-loyalty")
    record["events"].append(
        {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty", "impact": 2}}
    )
    first = assert_illegal_at(tmp_path, capsys, record, 7, "8.6.1/defector-impact")
    assert first["message"] == (
        "the record moves 2 Impact to the challenger; the defecting block scored 1"
    )
    args(record["events"], 7)["impact"] = 1
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v


def test_a_lost_block_never_returns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """8.7.3: Ishida lost ukita-3 in an earlier battle; a record moving it again is refused
    with the clause that keeps it off the map, and so is one deploying it."""
    record = battle_record(["ukita", "ukita"], [])
    position = record["position"]["state"]
    position["units_at"]["Kyoto"]["ishida"] = ["ukita-2"]
    position["lost"] = {"ishida": ["ukita-3"]}
    first = assert_illegal_at(tmp_path, capsys, record, 2, "8.7.3/lost-for-good")
    assert first["message"] == (
        "[ukita-3] of ishida's were lost in combat, and lost blocks never return to the map"
    )
    record = mutate(COMBAT, lambda ev: args(ev, 6).update({"blocks": ["ukita-3"]}))
    record["position"]["state"]["lost"] = {"ishida": ["ukita-3"]}
    assert_illegal_at(tmp_path, capsys, record, 6, "8.7.3/lost-for-good")


def test_more_than_two_blocks_cannot_stay_inside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.9.2: with three blocks at Osaka, Ishida must fight outside: no siege."""
    record = mutate(SIEGE, lambda ev: None)
    record["position"]["state"]["units_at"]["Osaka"]["ishida"] += ["ukita-3", "mori-gun"]
    first = assert_illegal_at(tmp_path, capsys, record, 1, "8.9.2/more-than-two-outside")
    assert first["message"] == (
        "ishida has 3 blocks here: more than 2 must fight outside, so staying inside or not is no choice of ishida's"
    )


def test_the_sanada_disk_takes_one_loss_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """9.2: a siege of Ueda after Sanada's disk was destroyed cannot take a loss on it."""
    record = mutate(SIEGE, lambda ev: None)
    state = record["position"]["state"]
    state["units_at"] = {"Ueda": state["units_at"].pop("Osaka")}
    state["disk_standing"] = {"Ueda": False}
    record["events"][0]["declare"]["at"] = "Ueda"
    args(record["events"], 5).update({"blocks": [], "disk": True})
    assert_illegal_at(tmp_path, capsys, record, 5, "9.2/sanada-standing")


AFTER_THE_RETREAT = [
    {"replenish": {"by": "ishida", "cards": ["mori"]}},
    {"replenish": {"by": "tokugawa", "cards": ["tokugawa"]}},
]


def test_a_retreat_into_enemies_starts_a_battle_it_attacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.8.5: four blocks retreat into two: no overrun, a battle at once, the retreating
    side attacking and deploying first."""
    kyoto = ["tokugawa-2", "tokugawa-3"]
    ishida_first = {"deploy": {"by": "ishida", "card": "mori", "blocks": ["mori-3"]}}
    code, v = judge(tmp_path, capsys, retreat_into(kyoto, *AFTER_THE_RETREAT, ishida_first))
    assert code == 0, v
    assert v["summary"].endswith("next: battle, step deploying")
    tokugawa_first = {"deploy": {"by": "tokugawa", "card": "tokugawa", "blocks": ["tokugawa-3"]}}
    record = retreat_into(kyoto, *AFTER_THE_RETREAT, tokugawa_first)
    first = assert_illegal_at(tmp_path, capsys, record, 10, "8.8.5/retreating-blocks-attack")
    assert first["message"] == (
        "ishida attacks in the battle the retreat into Kyoto started and deploys first,"
        " not tokugawa"
    )


def test_every_combat_clause_has_an_illegal_case(spec: Spec) -> None:
    """Issue 4's floor: each clause of chapter 8 and 9.1, 9.2, 9.4, 9.5, 2.1 (all but the
    informative ones) is the clause cited by at least one illegal case in the tests or in
    examples/illegal/ (the cases assert the citation; this keeps one from going missing)."""
    texts = [
        p.read_text()
        for p in Path(__file__).parent.glob("test_*.py")
        if p.name != "test_clauses.py"
    ]
    texts += [p.read_text() for p in (EXAMPLES / "illegal").glob("*.yaml")]
    # (this test names the clauses itself: its own text does not count)
    corpus = "\n".join(texts).replace(
        inspect.getsource(test_every_combat_clause_has_an_illegal_case), ""
    )
    wanted = [
        c.number
        for c in spec.clauses()
        if (c.number.startswith("8.") or c.number in ("2.1", "9.1", "9.2", "9.4", "9.5"))
        and not c.informative
    ]
    missing = [
        n
        for n in wanted
        if f'"{n}/' not in corpus and f'"{n}"' not in corpus and f"# Illegal ({n}" not in corpus
    ]
    assert wanted and missing == []
