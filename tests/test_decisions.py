"""Each clarification and decision that has another reading: the verdict with it on (the
default) and off. The few that no record can tell apart say why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from referee.compile.spec import Spec
from tests.referee_helpers import deploy, example, judge, move, mutate, output, position
from tests.test_combat import ATTACKER_LOSES, COMBAT, SIEGE, battle_record, challenged_gun

READINGS = Path(__file__).resolve().parent / "readings"


def reading(name: str, *events: Any) -> dict[str, Any]:
    """A record of the second readings (tests/readings/), its expectations and switches left
    out, with events added."""
    record: dict[str, Any] = yaml.safe_load((READINGS / f"{name}.yaml").read_text())
    record.pop("no_overlays", None)
    record["events"] = [{k: v for k, v in e.items() if k != "expect"} for e in record["events"]]
    record["events"] += events
    return record


def moving(active: str, state: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "game": "sekigahara",
        "position": {"procedure": "movement_phase", "args": {"active": active}, "state": state},
        "events": [{"movement": {"by": active, "choice": "minimal"}}, *events],
    }


def led(event: dict[str, Any]) -> dict[str, Any]:
    """A move that declares the leader whose bonus it uses (7.3.4, D-leader-declared)."""
    event["move"]["leadership"] = "leader"
    return event


def fight(
    ishida: list[str], tokugawa: list[str], hands: dict[str, list[str]], events: list[Any]
) -> dict[str, Any]:
    """Ishida, in its combat phase, attacks Tokugawa at Sawayama."""
    state = {"hand": hands, "units_at": {"Sawayama": {"ishida": ishida, "tokugawa": tokugawa}}}
    return position(
        "combat_phase", "ishida", state, [{"declare": {"by": "ishida", "at": "Sawayama"}}, *events]
    )


def combat_example(events: int, **state: Any) -> dict[str, Any]:
    """The rulebook's combat example, its first ``events`` events, with more in hand or here."""
    record = mutate(COMBAT, lambda ev: ev.__delitem__(slice(events, None)))
    for side, cards in state.get("hand", {}).items():
        record["position"]["state"]["hand"][side] += cards
    for side, blocks in state.get("here", {}).items():
        record["position"]["state"]["units_at"]["Sawayama"][side] += blocks
    return record


def siege(
    defenders: list[str], attackers: list[str], hand: list[str], events: list[Any], **state: Any
) -> dict[str, Any]:
    """Tokugawa besieges Osaka, held by ``defenders`` and the Hideyori disk."""
    record = mutate(SIEGE, lambda ev: ev.clear())
    st = record["position"]["state"]
    st["units_at"]["Osaka"] = {"ishida": defenders, "tokugawa": attackers}
    st["hand"]["tokugawa"] = hand
    st.update(state)
    record["events"] = [{"declare": {"by": "tokugawa", "at": "Osaka", "inside": True}}, *events]
    return record


def with_position(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    record["position"].update(changes)
    return record


def final_count(**units: dict[str, list[str]]) -> dict[str, Any]:
    """The end of week 7 scored, with more units on the map: the result stated is checked."""
    record = example("end-of-week-7.yaml")
    record["position"]["step"] = "next_week"
    record["position"]["state"]["units_at"].update(units)
    record["events"] = record["events"][-1:]
    return record


def defected_gun(*events: Any) -> dict[str, Any]:
    """The combat example's Mori gun (6 Impact, 4 of it special) goes over to Tokugawa, who
    has a Date gun and a Date swords card besides."""
    record = challenged_gun(2)
    record["position"]["state"]["units_at"]["Sawayama"]["tokugawa"].append("date-gun")
    record["position"]["state"]["hand"]["tokugawa"].append("date-swords")
    record["events"] += events
    return record


def final_fight() -> dict[str, Any]:
    """The last combat of the game: Ishida loses at Minakuchi and retreats the way it came, into
    Kuwana; the result stated counts Kuwana for Ishida."""
    record = final_count()
    record["position"] |= {
        "within": [
            {"procedure": "campaign", "step": "campaigning"},
            {"procedure": "week_cycle", "step": "turn_b"},
            {"procedure": "game_turn", "step": "second_fights"},
        ],
        "procedure": "combat_phase",
        "args": {"active": "ishida"},
    }
    del record["position"]["step"]
    state = record["position"]["state"]
    state["hand"] = {"ishida": ["ukita"], "tokugawa": ["date"]}
    state["units_at"]["Minakuchi"] = {"ishida": ["ukita-2", "ukita-3"], "tokugawa": ["date-3"]}
    state["came_from"] = {"Minakuchi": {"ishida": ["Kuwana"]}}
    record["events"] = [
        {"declare": {"by": "ishida", "at": "Minakuchi"}},
        deploy("ishida", ["ukita-2"], "ukita"),
        deploy("tokugawa", ["date-3"], "date"),
        {"finish": {"by": "ishida"}},
        {"finish": {"by": "tokugawa"}},
        {"losses": {"by": "ishida", "blocks": ["ukita-2"]}},
        {"retreat": {"by": "ishida", "to": "Kuwana"}},
        {"replenish": {"by": "ishida", "cards": ["mori"]}},
        {"replenish": {"by": "tokugawa", "cards": ["date"]}},
        {"result": {"by": "ishida", "winner": "ishida", "tokugawa": 12, "ishida": 14}},
    ]
    return record


FIRST_FIGHTS = [
    {"procedure": "campaign", "step": "campaigning"},
    {"procedure": "week_cycle", "step": "turn_a"},
    {"procedure": "game_turn", "step": "first_fights"},
]
SEVEN_IMPACT_SIEGE = [
    deploy("tokugawa", ["ii-4-star"], "date"),
    deploy("tokugawa", ["tokugawa-3"], "tokugawa"),
    {"finish": {"by": "tokugawa"}},
]


CASES: list[tuple[str, dict[str, Any], str]] = [
    (
        "D-capital-lead",  # Kyoto leads Ishida's moves though Tokugawa holds it
        moving(
            "ishida",
            {
                "units_at": {"Kyoto": {"ishida": ["ukita-2"]}},
                "resource_holder": {"Kyoto": "tokugawa"},
            },
            [
                {
                    "move": {
                        "by": "ishida",
                        "from": "Kyoto",
                        "groups": [{"blocks": ["ukita-2"], "path": ["Kyoto", "Ayabe", "Himeji"]}],
                    }
                }
            ],
        ),
        "7.3.3/within-allowance",
    ),
    (
        "D-enemy-disk-stops",  # the Sanada disk stops a Tokugawa stack passing Ueda
        moving(
            "tokugawa",
            {"units_at": {"Saku": {"tokugawa": ["tokugawa-2", "tokugawa-leader-square"]}}},
            [
                {
                    "move": {
                        "by": "tokugawa",
                        "from": "Saku",
                        "leadership": "leader",  # its bonus declared (D-leader-declared)
                        "groups": [
                            {
                                "blocks": ["tokugawa-2", "tokugawa-leader-square"],
                                "path": ["Saku", "Ueda", "Arato"],
                            }
                        ],
                    }
                }
            ],
        ),
        "7.4.3/castle-holders-immune",  # the disk holds the castle: it is not overrun either
    ),
    (
        "D-mori-cost",  # a Mori arrival besides the one stack of minimal movement
        moving(
            "ishida",
            {
                "units_at": {"Kyoto": {"ishida": ["ukita-2"]}},
                "hand": {"ishida": ["mori"]},
                "mori_box": ["mori-3-triangle", "mori-leader-triangle"],
            },
            [
                {
                    "move": {
                        "by": "ishida",
                        "from": "Kyoto",
                        "groups": [{"blocks": ["ukita-2"], "path": ["Kyoto", "Ayabe"]}],
                    }
                },
                {"mori": {"by": "ishida", "cards": ["mori"], "blocks": ["mori-3-triangle"]}},
            ],
        ),
        "7.1/stack-limit",
    ),
    (
        "D-muster-contested",  # a muster into Osaka, where both sides' blocks already stand
        moving(
            "ishida",
            {
                "units_at": {"Osaka": {"ishida": ["ukita-2"], "tokugawa": ["date-2"]}},
                "recruits": {"ishida": ["kobayakawa-3"]},
            },
            [
                {
                    "muster": {
                        "by": "ishida",
                        "option": "A",
                        "to": "Osaka",
                        "blocks": ["kobayakawa-3"],
                    }
                }
            ],
        ),
        "7.2/no-attack-from-box",
    ),
    (
        "S-refute-double",  # a single Ukita card refutes the challenge to the Ukita double
        combat_example(4, hand={"tokugawa": ["tokugawa-loyalty"]})
        | {
            "events": COMBAT["events"][:4]
            + [{"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty", "refute": "ukita"}}]
        },
        "8.6.3/refuted-double",  # a double's challenge is 8.6.3's (issue 27)
    ),
    (
        "S-disks",  # Tokugawa passes Ueda, held by the Sanada disk alone
        position(
            "movement_phase",
            "tokugawa",
            {"units_at": {"Saku": {"tokugawa": ["tokugawa-2", "tokugawa-leader-square"]}}},
            [
                {"movement": {"by": "tokugawa", "choice": "minimal"}},
                led(
                    move(
                        "tokugawa",
                        "Saku",
                        (["tokugawa-2", "tokugawa-leader-square"], ["Saku", "Ueda", "Arato"]),
                    )
                ),
            ],
        ),
        "7.4.3/castle-holders-immune",  # read broadly, walking in takes the disk
    ),
    (
        "S-protagonists",  # the Ishida block, deployed with a card, is challenged
        fight(
            ["ishida-leader-square", "ukita-3"],
            ["date-3"],
            {"ishida": ["ukita"], "tokugawa": ["tokugawa-loyalty"]},
            [
                deploy("ishida", ["ishida-leader-square"], "ukita"),
                {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty"}},
            ],
        ),
        "8.6.1/after-a-deployment",
    ),
    (
        "D-protagonist-defects",  # the defected Ishida block must be Ishida's first loss
        fight(
            ["ishida-leader-square", "ukita-3"],
            ["date-3"],
            {"ishida": ["ukita"], "tokugawa": ["tokugawa-loyalty", "date"]},
            [
                deploy("ishida", ["ishida-leader-square"], "ukita"),
                # Ishida holds no other card that could deploy it: the challenge succeeds
                {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty"}},
                {"finish": {"by": "ishida"}},
                deploy("tokugawa", ["date-3"], "date"),
                {"finish": {"by": "tokugawa"}},
                {"losses": {"by": "ishida", "blocks": ["ukita-3"]}},
            ],
        ),
        "8.7.2/loss-order",
    ),
    (
        "D-instant-timing",  # both protagonists fall at Sawayama: Ishida wins, or Tokugawa first
        with_position(
            fight(
                ["ishida-leader-square", "ukita-3", "ukita-2"],
                ["tokugawa-leader-square", "date-3", "date-2"],
                {"ishida": ["ukita", "ukita"], "tokugawa": ["date", "date"]},
                [
                    deploy("ishida", ["ishida-leader-square"]),
                    deploy("tokugawa", ["tokugawa-leader-square"]),
                    deploy("ishida", ["ukita-3"], "ukita"),
                    deploy("tokugawa", ["date-3"], "date"),
                    deploy("ishida", ["ukita-2"], "ukita"),
                    deploy("tokugawa", ["date-2"], "date"),
                    {"finish": {"by": "ishida"}},
                    {"finish": {"by": "tokugawa"}},
                    {"losses": {"by": "ishida", "blocks": ["ishida-leader-square", "ukita-3"]}},
                    {"losses": {"by": "tokugawa", "blocks": ["tokugawa-leader-square"]}},
                ],
            ),
            within=FIRST_FIGHTS,
        ),
        "2.1",  # read literally, Tokugawa has won before the defender's losses
    ),
    (
        "D-empty-bag",  # Ishida's draw and discard piles are empty after the siege
        siege(
            ["ukita-2"],
            ["ii-4-star", "tokugawa-3"],
            ["date", "tokugawa"],
            [
                *SEVEN_IMPACT_SIEGE,
                {"losses": {"by": "ishida", "blocks": ["ukita-2"]}},
                {"replenish": {"by": "tokugawa", "cards": ["tokugawa", "maeda"]}},
                {"replenish": {"by": "ishida", "cards": []}},
            ],
            draw_pile={"ishida": []},
        ),
        "8.10/redraw",
    ),
    (
        "D-retreat-roads",  # Ishida retreats to Kyoto along the road it came by
        battle_record(["ukita", "mori"], ATTACKER_LOSES),
        "7.3.1/segment-once",
    ),
    (
        "D-overrun-castle",  # twelve walk into three at Gifu, a castle Ishida holds
        position(
            "movement_phase",
            "tokugawa",
            {
                "units_at": {
                    "Iwamura": {"tokugawa": ["tokugawa-leader-square"] + ["tokugawa-2"] * 11},
                    "Gifu": {"ishida": ["ukita-2", "ukita-3", "mori-2"]},
                }
            },
            [
                {"movement": {"by": "tokugawa", "choice": "minimal"}},
                led(
                    move(
                        "tokugawa",
                        "Iwamura",
                        (["tokugawa-leader-square"] + ["tokugawa-2"] * 11, ["Iwamura", "Gifu"]),
                    )
                ),
                {"end_movement": {"by": "tokugawa"}},
            ],
        ),
        "8.10",  # read narrowly, the three are overrun and Ishida's draw is due first
    ),
    (
        "D-disk-control",  # a Tokugawa block beside the Sanada disk at the final count
        final_count(Ueda={"tokugawa": ["date-2"]}),
        "2.2/points",
    ),
    (
        "D-siege-options",  # a leader deployed without a card in a siege
        siege(
            ["ukita-2"],
            ["ii-4-star", "tokugawa-leader-square"],
            ["date"],
            [deploy("tokugawa", ["tokugawa-leader-square"])],
        ),
        "8.9.4/card-in-siege",
    ),
    (
        "D-cardless-optional",  # Tokugawa opens with a card though its leader stands by
        combat_example(3, here={"tokugawa": ["tokugawa-leader-square"]}),
        "8.2.4/leaders-first",
    ),
    (
        "D-double-atomic",  # the first Ukita block of the double already leads 2-0
        battle_record(["ukita-double"], [deploy("ishida", ["ukita-2", "ukita-3"], "ukita-double")]),
        "8.4.2/second-before-lead",
    ),
    (
        "D-lc-uses",  # a loyalty challenge card pays for limited movement
        position(
            "movement_phase",
            "ishida",
            {"hand": {"ishida": ["ishida-loyalty"]}},
            [{"movement": {"by": "ishida", "choice": "limited", "cards": ["ishida-loyalty"]}}],
        ),
        "3.3/loyalty-pays",
    ),
    (
        "D-one-challenge",  # a second challenge after the first is refuted
        combat_example(4, hand={"tokugawa": ["tokugawa-loyalty", "tokugawa-loyalty"]})
        | {
            "events": COMBAT["events"][:4]
            + [
                {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty", "refute": "ukita"}}
                for _ in range(2)
            ]
        },
        "8.6.1/after-a-deployment",
    ),
    (
        "D-defector-impact",  # the Mori gun defects: does Ishida keep its 6 on the track?
        defected_gun(deploy("tokugawa", ["tokugawa-3-square"], "tokugawa")),
        "8.5/initiative",
    ),
    (
        "D-attacker-declines",  # Ishida attacks and finishes without a deployment
        battle_record(["ukita"], [{"finish": {"by": "ishida"}}]),
        "8.5/attacker-deploys-first",
    ),
    (
        "D-siege-draws",  # two blocks lost inside Osaka: Ishida draws two, not three
        siege(
            ["ukita-2", "ukita-3"],
            ["ii-4-star", "tokugawa-3", "tokugawa-3-square", "tokugawa-2"],
            ["date", "tokugawa", "tokugawa", "tokugawa"],
            [
                *SEVEN_IMPACT_SIEGE[:2],
                deploy("tokugawa", ["tokugawa-3-square"], "tokugawa"),
                deploy("tokugawa", ["tokugawa-2"], "tokugawa"),
                {"finish": {"by": "tokugawa"}},
                {"losses": {"by": "ishida", "blocks": ["ukita-2", "ukita-3"]}},
                {"replenish": {"by": "ishida", "cards": ["ukita", "mori"]}},
            ],
        ),
        "8.10/redraw",
    ),
    (
        "D-attacker-role",  # beaten Tokugawa retreats into Ishida's block at Kuwana and fights
        position(
            "combat_phase",
            "ishida",
            {
                "hand": {"ishida": ["ukita"], "tokugawa": ["date"]},
                "units_at": {
                    "Minakuchi": {
                        "ishida": ["ukita-2", "ukita-3"],
                        "tokugawa": ["date-2", "date-3"],
                    },
                    "Kuwana": {"ishida": ["mori-2"]},
                },
                "came_from": {"Minakuchi": {"ishida": ["Kyoto"]}},
            },
            [
                {"declare": {"by": "ishida", "at": "Minakuchi"}},
                deploy("ishida", ["ukita-3"], "ukita"),
                deploy("tokugawa", ["date-2"], "date"),
                {"finish": {"by": "tokugawa"}},
                {"finish": {"by": "ishida"}},
                {"losses": {"by": "tokugawa", "blocks": ["date-2"]}},
                # no safe way back: Kyoto is Ishida's way in, Kuwana holds Ishida (8.8.3)
                {"retreat": {"by": "tokugawa", "to": "Kuwana"}},
                {"replenish": {"by": "ishida", "cards": ["mori"]}},
                {"replenish": {"by": "tokugawa", "cards": ["date"]}},
                deploy("tokugawa", ["date-3"], "date"),
            ],
        ),
        "8.8.5/retreating-blocks-attack",
    ),
    (
        "D-onto-through",  # Ishida's beaten stack retreats into Kuwana, Tokugawa's resource
        final_fight(),
        "2.2/points",
    ),
    (
        "S-overrun-draw",  # an overrun in movement: Tokugawa draws for the blocks it lost
        example("overlays/overrun-draw.yaml"),
        "8.10",
    ),
    (
        "D-cycle-once",  # under no movement, cards cycled a second time
        position(
            "movement_phase",
            "ishida",
            {
                "hand": {"ishida": ["mori", "ukita"]},
                "draw_pile": {"ishida": ["uesugi", "kobayakawa"]},
            },
            [
                {"movement": {"by": "ishida", "choice": "no_movement"}},
                {"cycle": {"by": "ishida", "discard": ["mori"], "draw": ["uesugi"]}},
                {"cycle": {"by": "ishida", "discard": ["ukita"], "draw": ["kobayakawa"]}},
            ],
        ),
        "7.1/cycle-once",
    ),
    (
        "D-stack-once",  # part of Osaka moves, then Sawayama, then the rest of Osaka
        position(
            "movement_phase",
            "ishida",
            {
                "hand": {"ishida": ["mori"]},
                "units_at": {
                    "Osaka": {"ishida": ["ukita-2", "ukita-3"]},
                    "Sawayama": {"ishida": ["mori-2"]},
                },
            },
            [
                {"movement": {"by": "ishida", "choice": "limited", "cards": ["mori"]}},
                move("ishida", "Osaka", (["ukita-2"], ["Osaka", "Kyoto"])),
                move("ishida", "Sawayama", (["mori-2"], ["Sawayama", "Gifu"])),
                move("ishida", "Osaka", (["ukita-3"], ["Osaka", "Himeji"])),
            ],
        ),
        "7.3.1/one-move-a-stack",
    ),
    (
        "D-refute-when-able",  # Ishida holds a second Ukita card, and its block still turns
        fight(
            ["ukita-3", "ukita-2"],
            ["date-3"],
            {"ishida": ["ukita", "ukita"], "tokugawa": ["tokugawa-loyalty", "date"]},
            [
                deploy("ishida", ["ukita-3"], "ukita"),
                {"challenge": {"by": "tokugawa", "card": "tokugawa-loyalty"}},
            ],
        ),
        "8.6.1/refute-when-able",
    ),
    (
        "D-walk-into-overrun",  # one block walks into four: overrun at once, or a battle due
        with_position(
            position(
                "movement_phase",
                "tokugawa",
                {
                    "first_player": "tokugawa",
                    "units_at": {
                        "Kuwana": {"tokugawa": ["tokugawa-2"]},
                        "Kiyosu": {"ishida": ["ukita-2", "ukita-3", "mori-2", "mori-3"]},
                    },
                },
                [
                    {"movement": {"by": "tokugawa", "choice": "minimal"}},
                    move("tokugawa", "Kuwana", (["tokugawa-2"], ["Kuwana", "Kiyosu"])),
                    {"end_movement": {"by": "tokugawa"}},
                    {"movement": {"by": "ishida", "choice": "minimal"}},
                ],
            ),
            within=[{"procedure": "game_turn", "step": "first_moves"}],
        ),
        "8.1",
    ),
    (
        "D-march-together",  # four blocks in two groups on one path, the card named on the first
        moving(
            "ishida",
            {
                "hand": {"ishida": ["ukita", "mori"]},
                "units_at": {"Himeji": {"ishida": ["ukita-2", "ukita-3", "mori-2", "mori-3"]}},
            },
            [
                {
                    "move": {
                        "by": "ishida",
                        "from": "Himeji",
                        "groups": [
                            {
                                "blocks": ["ukita-2", "ukita-3"],
                                "path": ["Himeji", "Ayabe", "Miyazu"],
                                "force_march": "mori",
                            },
                            {"blocks": ["mori-2", "mori-3"], "path": ["Himeji", "Ayabe", "Miyazu"]},
                        ],
                    }
                }
            ],
        ),
        "7.3.3/within-allowance",
    ),
    (
        "D-leader-declared",  # the Ukita leader's bonus taken from Himeji, undeclared
        moving(
            "ishida",
            {"units_at": {"Himeji": {"ishida": ["ukita-leader-square", "ukita-cavalry"]}}},
            [
                move(
                    "ishida",
                    "Himeji",
                    (["ukita-leader-square", "ukita-cavalry"], ["Himeji", "Ayabe", "Kyoto"]),
                )
            ],
        ),
        "7.3.4/leader-declared",
    ),
    # the decisions a second reading of chapters 5, 8 and 9 registered (issue 27): the
    # readers' records, with what tells the readings apart
    (
        "D-arrival-lost-first",
        reading("r8-ch9/50-joined-mori-lost-old-one-moves"),
        "9.3/not-on-arrival-turn",
    ),
    (
        "D-setup-per-side",
        reading("r8-ch9/49-setup-sides-independent"),
        "5.2.2/all-designated-first",
    ),
    (
        "D-relief-outside",
        reading("r8-ch8/63-relieved-garrison-stays-in"),
        "8.9.6/relief-fights-outside",
    ),
    ("D-2011-chapter-9", reading("r8-ch9/02b-2011-mori-without-chapter-9"), "9.3/in-force"),
    (
        "D-mori-any-attack",  # the Mori box joined or not: the owner at Osaka has one block to
        # put inside or outside (8.9.2, a stance first), or three that fight outside
        reading(
            "r8-ch9/41-retreat-into-osaka-box-joins",
            deploy("tokugawa", ["tokugawa-3"], "tokugawa"),
        ),
        "8.9.2",
    ),
    (
        "D-retreat-joins-siege",  # the retreat into besieged Gifu: a battle there at once, or none
        reading(
            "r8-ch8/62-retreat-joins-a-besieged-garrison",
            deploy("ishida", ["mori-2"], "mori"),
        ),
        "8.1",
    ),
]


@pytest.mark.parametrize("decision,record,cites", CASES, ids=[c[0] for c in CASES])
def test_decision_on_and_off(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    decision: str,
    record: dict[str, Any],
    cites: str,
) -> None:
    code, on = judge(tmp_path, capsys, record)
    on_violations = [x["cites"] for x in on["violations"]]
    code_off, off = judge(tmp_path, capsys, record, "--no-overlay", decision)
    off_violations = [x["cites"] for x in off["violations"]]
    # the decision makes the difference, one way or the other, and the verdict cites it
    assert (code, code_off) in ((0, 1), (1, 0)), (on_violations, off_violations)
    assert cites in on_violations + off_violations
    legal = on if code == 0 else off
    if legal is on:
        assert decision in on["relied"]


def test_castle_tie_gives_nobody_the_sixth_card(spec: Spec) -> None:
    """With nine castles on the map a tie cannot occur in play; the rule still says what one does."""
    from referee.compile.execute import Interpreter
    from referee.resolve.overlays import apply

    on = Interpreter(apply(spec.sym, [spec.sym.overlays["D-castle-tie"]]))
    off = Interpreter(apply(spec.sym, []))
    assert (on.call("weekly_card_draw", 4, 4), off.call("weekly_card_draw", 4, 4)) == (5, 6)
    assert on.call("weekly_card_draw", 5, 4) == off.call("weekly_card_draw", 5, 4) == 6
    assert sum(1 for loc in spec.components.collections["locations"] if loc["castle"]) == 9


def test_capitals_start_with_their_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = example("end-of-week-7.yaml")
    del record["position"]["state"]["resource_holder"]["Kyoto"]  # Kyoto as it started
    record["events"].pop()
    code, v = judge(tmp_path, capsys, record)
    assert "Ishida 13 (4 castles, 5 resources): ishida wins" in v["summary"]
    code, v = judge(tmp_path, capsys, record, "--no-overlay", "D-capitals")
    assert (
        "Tokugawa 13 (5 castles, 3 resources), Ishida 12 (4 castles, 4 resources): tokugawa wins"
        in v["summary"]
    )


# The decisions and clarifications that amend no rule. Switching one off changes nothing, so
# comparing verdicts with it on and off could never fail: each is tested instead on what it
# says the rules do, so that a change to that behaviour fails its case.
NO_DIFFERENCE = {
    "D-special-base": "the combat example counts a gun deployed without swords; 8.6.2 counts defectors",
    "S-split": "every printing's 7.3.5 takes the penalty from the largest group a block moved in",
    "D-bid-tie": "Tokugawa's bid numbers are even and Ishida's odd; a tie is still rejected",
    "D-reference-8.5.5": "a cross-reference in a note, read as 8.8.5",
    "D-recruitment-box": "a name: the blocks drawn go to the recruitment box",
}
# Nothing the referee decides depends on it: it tracks no concealment (a record names every
# block, concealed or not), so what a player may see of the Mori blocks is outside any verdict.
UNTESTABLE = {"D-mori-faceup"}
TESTED_APART = {"D-castle-tie", "D-capitals"}  # below: no record can reach a tie; the scores


@pytest.mark.parametrize("decision", sorted(NO_DIFFERENCE))
def test_decisions_no_record_can_tell_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: Spec, decision: str
) -> None:
    from referee.compile.execute import Interpreter
    from referee.parse import ast
    from referee.resolve.overlays import apply

    assert spec.sym.overlays[decision].amends == []
    if decision == "D-special-base":
        # the Mori gun's special attack counts the Uesugi gun deployed without swords
        code, v = judge(tmp_path, capsys, example("combat-example.yaml"))
        told = [t["values"] for o in v["outcomes"] for t in o["outcome"] if t["label"] == "impact"]
        mori = next(t for t in told if t["blocks"] == ["mori-gun"])
        assert code == 0 and (mori["special_bonus"], mori["impact"]) == (4, 6)
    elif decision == "S-split":
        # five leave Osaka, four stop at Kyoto: the leader keeps the five's penalty
        five = ["ukita-leader-square", "ukita-2", "ukita-3", "mori-2", "mori-3"]
        record = moving(
            "ishida",
            {"units_at": {"Osaka": {"ishida": five}}},
            [
                move(
                    "ishida",
                    "Osaka",
                    (five[1:], ["Osaka", "Kyoto"]),
                    (five[:1], ["Osaka", "Kyoto", "Minakuchi", "Kuwana"]),
                )
            ],
        )
        code, v = judge(tmp_path, capsys, record)
        assert code == 1 and v["violations"][0]["cites"] == "7.3.3/within-allowance"
        assert "- size 1" in v["violations"][0]["message"]
    elif decision == "D-bid-tie":
        # no two bids of the decks tie (test_bids_never_tie), and a tie claimed is refused
        rules = Interpreter(apply(spec.sym, [spec.sym.overlays[decision]]))
        req = spec.sym.labels["6.3/no-tie"]
        assert isinstance(req, ast.Require) and decision in req.decisions
        card = next(c for c in spec.components.collections["cards"] if c.get("bid"))
        assert rules.holds(req, {"a": card, "b": card}) == (
            False,
            f"bids {card['bid']} and {card['bid']} tie, and the rules give no way to break a tie",
        )
    elif decision == "D-2011-chapter-9":
        # the first printing applies 9.1 and names the decision; the later one does not need it
        record = example("illegal/hideyori-taken-first.yaml")
        code, v = judge(tmp_path, capsys, record, "--printing", "gmt-2011")
        assert code == 1 and v["violations"][0]["cites"] == "9.1/hideyori-last"
        assert decision in v["relied"]
        code, v = judge(tmp_path, capsys, record)
        assert code == 1 and v["violations"][0]["cites"] == "9.1/hideyori-last"
        assert decision not in v["relied"] and decision not in v["overlays"]
        assert all("gmt-2011" in spec.clause(n).printings for n in ("9.1", "9.3", "9.5"))  # type: ignore[union-attr]
    elif decision == "D-reference-8.5.5":
        # the note of 8.7.1 points at retreats into combat, 8.8.5; there is no 8.5.5
        assert spec.clause("8.5.5") is None
        assert [str(r) for r in spec.clause("8.7.1").see] == ["8.8.5"]  # type: ignore[union-attr]
    else:
        # week 2's reinforcements: the blocks drawn are at the end of the recruitment boxes
        record = Path(__file__).parent.parent / "examples" / "weeks-1-2.yaml"
        assert main(["show", str(record), "--after", "45", "--format", "json"]) == 0
        boxes = output(capsys.readouterr().out)["state"]["recruits"]
        assert boxes["clause"] == "4.4"
        assert boxes["value"]["tokugawa"][-3:] == ["date-2", "maeda-gun", "date-3"]
        assert boxes["value"]["ishida"][-3:] == ["ukita-3", "mori-cavalry", "kobayakawa-cavalry"]


def test_bids_never_tie(spec: Spec) -> None:
    """D-bid-tie: every bid number of one deck differs in parity from every one of the other."""
    decks: dict[str, set[int]] = {}
    for card in spec.components.collections["cards"]:
        if card.get("bid") is not None:
            decks.setdefault(card["deck"], set()).add(card["bid"] % 2)
    assert sorted(map(sorted, decks.values())) == [[0], [1]]


def test_every_clarification_and_decision_has_its_case(spec: Spec) -> None:
    ids = {o.id for o in spec.sym.overlays.values() if o.kind in ("clarification", "decision")}
    on_off = {c[0] for c in CASES}
    assert ids == on_off | set(NO_DIFFERENCE) | UNTESTABLE | TESTED_APART
    assert not on_off & (set(NO_DIFFERENCE) | UNTESTABLE)
    # each one tested on and off amends the rules; those that cannot differ amend nothing
    assert all(spec.sym.overlays[i].amends for i in on_off | TESTED_APART)


def test_a_defected_gun_counts_for_its_new_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.6.2: the Mori gun went over to Tokugawa; Tokugawa's next gun attack counts it, under
    every reading (D-special-base records the reading and amends nothing)."""
    record = defected_gun(
        {"finish": {"by": "ishida"}},
        deploy("tokugawa", ["date-gun"], "date-swords", special_bonus=4),
    )
    for options in ((), ("--no-overlay", "D-special-base")):
        code, v = judge(tmp_path, capsys, record, *options)
        assert code == 1 and v["violations"][0]["cites"] == "8.4.1/special-as-recorded"
        assert "earns 6" in v["violations"][0]["message"]
