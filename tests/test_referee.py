"""`referee check`: legal records, and one illegal change for each rule of chapters
2-7 and 9.3, each rejected citing the clause and condition it breaks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.referee_helpers import EXAMPLES as EXAMPLES_DIR
from tests.referee_helpers import (
    Events,
    args,
    assert_illegal_at,
    example,
    judge,
    mutate,
    verdict_of,
)

WEEKS = example("weeks-1-2.yaml")


def test_weeks_1_and_2_are_legal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, v = judge(tmp_path, capsys, WEEKS)
    assert code == 0 and v["legal"] is True
    assert v["events"] == v["judged"] == 60
    assert v["printing"] == "gmt-later"
    kinds = v["kinds"]
    assert sorted(o for o in v["overlays"] if kinds[o] == "clarification") == [
        "S-disks",
        "S-overrun-draw",
        "S-protagonists",
        "S-refute-double",
        "S-split",
    ]
    assert (
        len([o for o in v["overlays"] if kinds[o] == "decision"]) == 38
    )  # RULINGS.md, three of our own and seven of issue 27 (D-2011-chapter-9 only with 2011)
    # the overrun at Kiyosu asked 8.10 for its draw (S-overrun-draw: one block lost, no
    # card); the decisions the replay used:
    # only the decisions that decided something (a replaced definition whose value differs
    # from the base reading's, a requirement added that refused): no bid ties, no capital
    # changes hands, no castle count ties, the overrun destroys one block (issue 27)
    assert v["relied"] == ["D-capitals", "D-mori-cost", "D-onto-through"]
    assert v["summary"] == "week 3; next: the week, step reinforcement"


def test_movement_example_is_legal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, v = judge(tmp_path, capsys, example("movement-example.yaml"))
    assert code == 0 and v["judged"] == 7


def drop_event(number: int) -> Callable[[Events], None]:
    return lambda ev: ev.pop(number - 1)


def set_arg(number: int, **changes: Any) -> Callable[[Events], None]:
    return lambda ev: args(ev, number).update(changes)


def insert(number: int, event: dict[str, Any]) -> Callable[[Events], None]:
    """Put ``event`` in as event ``number``."""
    return lambda ev: ev.insert(number - 1, event)


def group(number: int, **changes: Any) -> Callable[[Events], None]:
    return lambda ev: args(ev, number)["groups"][0].update(changes)


# (why, change, event number, clause/label cited)
ILLEGAL = [
    # 3.2, 3.3: blocks and cards
    (
        "a card not from the side's deck",
        set_arg(1, cards=["mori", "tokugawa", "fukushima", "maeda", "date"]),
        1,
        "3.3/own-deck",
    ),
    (
        "a card the draw pile no longer holds",
        set_arg(1, cards=["tokugawa-double"] * 2 + ["date"] * 3),
        1,
        "3.3/in-draw-pile",
    ),
    ("paying with a card not in hand", set_arg(27, cards=["date"]), 27, "3.3/in-hand"),
    ("placing another side's block", set_arg(3, by="tokugawa"), 3, "3.2/own-blocks"),
    # 5.1, 5.2.x: set-up
    ("a four-card starting hand", set_arg(1, cards=["tokugawa"] * 4), 1, "5.1/starting-hand"),
    (
        "a second deal",
        insert(3, {"deal": {"by": "ishida", "cards": ["mori"] * 5}}),
        3,
        "5.1/one-deal",
    ),
    (
        "a block on the wrong set-up symbol",
        set_arg(6, blocks=["fukushima-leader-star"]),
        6,
        "5.2.1/matching-symbol",
    ),
    (
        "more blocks than printed symbols",
        set_arg(4, blocks=["uesugi-3-circle"] * 4),
        4,
        "5.2.1/one-per-symbol",
    ),
    (
        "six blocks in the Mori box",
        set_arg(5, blocks=["mori-3-triangle"] * 5 + ["mori-leader-triangle"]),
        5,
        "5.2.1/mori-count",
    ),
    (
        "a non-Mori block in the Mori box",
        set_arg(5, blocks=["ukita-2-square"]),
        5,
        "5.2.1/mori-symbol",
    ),
    (
        "three blocks on a +2 spot",
        set_arg(11, blocks=["mori-2", "ukita-3", "ukita-2"]),
        11,
        "5.2.2/random-spot",
    ),
    (
        "a spot filled twice",
        insert(
            12, {"place_random": {"by": "ishida", "at": "Gifu", "blocks": ["mori-2", "mori-2"]}}
        ),
        12,
        "5.2.2/once-a-spot",
    ),
    (
        "a set-up block drawn from the bag",
        set_arg(15, blocks=["maeda-2-triangle"]),
        15,
        "5.2.2/from-bag",
    ),
    (
        "a first wave of three",
        set_arg(22, blocks=["tokugawa-2", "tokugawa-3", "maeda-2"]),
        22,
        "5.2.3/first-wave",
    ),
    ("a bid before the set-up is done", drop_event(23), 23, "5.1"),
    # 6.x: the week
    ("a side bids twice", set_arg(25, by="tokugawa", card="tokugawa"), 25, "6.3/one-bid"),
    ("the bid's loser chooses", set_arg(26, by="ishida"), 26, "6.3/winner-chooses"),
    ("keeping too many cards", set_arg(44, discard=[]), 44, "6.2/discard-half"),
    (
        "five cards for the side with more castles",
        set_arg(44, cards=["tokugawa", "tokugawa", "fukushima", "maeda", "date"]),
        44,
        "6.2/card-draw",
    ),
    (
        "two blocks on a tie for resources",
        set_arg(44, blocks=["date-2", "maeda-gun"]),
        44,
        "6.2/block-draw",
    ),
    (
        "reinforcing twice",
        insert(45, {"reinforce": {"by": "tokugawa", "discard": [], "cards": [], "blocks": []}}),
        45,
        "6.2/once-each",
    ),
    (
        "reinforcing after the step has ended",
        insert(46, {"reinforce": {"by": "ishida", "discard": [], "cards": [], "blocks": []}}),
        46,
        "6.2",
    ),
    ("the second player moving first", set_arg(27, by="ishida", cards=["mori"]), 27, "6.4"),
    ("a move before the movement is bought", drop_event(27), 27, "7.1"),
    # 7.1, 7.2: buying movement, mustering
    ("limited movement for no card", set_arg(27, cards=[]), 27, "7.1/movement-cost"),
    (
        "two stacks under minimal movement",
        insert(
            51,
            {
                "move": {
                    "by": "ishida",
                    "from": "Aizu",
                    "groups": [{"blocks": ["uesugi-3-circle"], "path": ["Aizu", "Tsugawa"]}],
                }
            },
        ),
        51,
        "7.1/stack-limit",
    ),
    (
        "cycling cards under minimal movement",
        set_arg(37, choice="minimal"),
        38,
        "7.1/cycle-only-when-still",
    ),
    (
        "cycling two cards for one",
        set_arg(38, draw=["tokugawa-swords", "tokugawa"]),
        38,
        "7.1/cycle-one-for-one",
    ),
    (
        "a second muster",
        insert(
            34, {"muster": {"by": "ishida", "option": "B", "to": "Osaka", "blocks": ["mori-2"]}}
        ),
        34,
        "7.2/once-a-turn",
    ),
    (
        "mustering a block not in the box",
        set_arg(30, blocks=["tokugawa-2", "tokugawa-cavalry"]),
        30,
        "7.2/in-box",
    ),
    (
        "mustering to a location with no friendly mon",
        set_arg(33, to="Kyoto"),
        33,
        "7.2/friendly-recruitment",
    ),
    (
        "option A with a block of another daimyo",
        set_arg(30, blocks=["tokugawa-2", "maeda-2"]),
        30,
        "7.2/one-daimyo-shown",
    ),
    (
        "option B with two blocks",
        set_arg(33, blocks=["ukita-gun", "mori-2"]),
        33,
        "7.2/one-block-unshown",
    ),
    # 7.3: moving
    (
        "moving a block that is not there",
        group(29, blocks=["fukushima-leader-star", "fukushima-3"]),
        29,
        "7.3.1/available",
    ),
    (
        "moving a block just mustered",
        insert(
            34,
            {
                "move": {
                    "by": "ishida",
                    "from": "Himeji",
                    "groups": [{"blocks": ["ukita-gun"], "path": ["Himeji", "Ayabe"]}],
                }
            },
        ),
        34,
        "7.2/not-the-turn-mustered",  # 7.2 says it (issue 27), not 7.3.1's list of the free
    ),
    (
        "moving a block twice in a turn",
        insert(
            35,
            {
                "move": {
                    "by": "ishida",
                    "from": "Kyoto",
                    "groups": [{"blocks": ["kobayakawa-gun"], "path": ["Kyoto", "Ayabe"]}],
                }
            },
        ),
        35,
        "7.3.1/available",
    ),
    (
        "a fourth stack under limited movement",
        insert(
            31,
            {
                "move": {
                    "by": "tokugawa",
                    "from": "Sendai",
                    "groups": [{"blocks": ["date-2-circle"], "path": ["Sendai", "Soma"]}],
                }
            },
        ),
        31,
        "7.1/stack-limit",
    ),
    (
        "a path that leaves the roads",
        group(29, path=["Kiyosu", "Minakuchi"]),
        29,
        "7.3.1/along-roads",
    ),
    (
        "a path that does not start at the stack",
        group(29, path=["Okazaki", "Kiyosu"]),
        29,
        "7.3.1/along-roads",
    ),
    (
        "one location too far",
        group(50, path=["Ueda", "Saku", "Takasaki", "Oshi"]),
        50,
        "7.3.3/within-allowance",
    ),
    ("a force march without its card", group(28, force_march="date"), 28, "3.3/in-hand"),
    (
        "a force-marched road too long",
        group(28, path=["Edo", "Hakone", "Numazu", "Sunpu", "Hamamatsu", "Okazaki"]),
        28,
        "7.3.3/within-allowance",
    ),
    (
        "walking past an enemy it cannot overrun",
        set_arg(
            41,
            **{
                "from": "Kyoto",
                "leadership": "capital",  # Kyoto's (the record declares its leader at Sawayama)
                "groups": [
                    {
                        "blocks": ["kobayakawa-2", "mori-gun", "kobayakawa-gun"],
                        "path": ["Kyoto", "Minakuchi", "Kuwana", "Kiyosu"],
                    }
                ],
            },
        ),
        41,
        "7.3.2/stop-at-enemy",
    ),
    # 9.3: the Mori box
    (
        "Mori blocks for Tokugawa",
        insert(
            31, {"mori": {"by": "tokugawa", "cards": ["tokugawa"], "blocks": ["mori-3-triangle"]}}
        ),
        31,
        "9.3/ishida-only",
    ),
    (
        "two Mori blocks for one card",
        set_arg(42, blocks=["mori-3-triangle", "mori-3-triangle"]),
        42,
        "9.3/one-per-card",
    ),
    ("the Mori leader first", set_arg(42, blocks=["mori-leader-triangle"]), 42, "9.3/leader-last"),
]


@pytest.mark.parametrize("why,change,number,cites", ILLEGAL, ids=[c[0] for c in ILLEGAL])
def test_illegal_event_cites_its_clause(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    why: str,
    change: Callable[[Events], None],
    number: int,
    cites: str,
) -> None:
    violation = assert_illegal_at(tmp_path, capsys, mutate(WEEKS, change), number, cites)
    assert violation["message"]


END = example("end-of-week-7.yaml")


def test_the_game_is_scored_after_week_7(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, v = judge(tmp_path, capsys, END)
    assert code == 0
    assert v["summary"] == (
        "the game is over after week 7; Tokugawa 13 (5 castles, 3 resources),"
        " Ishida 13 (4 castles, 5 resources): ishida wins"
    )


@pytest.mark.parametrize(
    "result,cites",
    [
        ({"winner": "tokugawa", "tokugawa": 13, "ishida": 13}, "2.2/winner"),
        ({"winner": "ishida", "tokugawa": 14, "ishida": 13}, "2.2/points"),
    ],
)
def test_a_wrong_result_is_illegal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], result: dict[str, Any], cites: str
) -> None:
    record = mutate(END, lambda ev: args(ev, 5).update(result))
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["cites"] == cites


def test_no_event_after_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = mutate(END, lambda ev: ev.append({"movement": {"by": "ishida", "choice": "minimal"}}))
    code, v = judge(tmp_path, capsys, record)
    assert code == 1
    assert v["violations"][0]["message"] == "the game is over: no more events are allowed"
    assert v["violations"][0]["cites"] == "6.1"


def test_no_event_after_a_position_without_callers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A position in a movement phase alone: when the phase ends, nothing follows, and the
    refusal says so (not that the game is over)."""
    record = {
        "game": "sekigahara",
        "position": {"procedure": "movement_phase", "args": {"active": "ishida"}, "state": {}},
        "events": [
            {"movement": {"by": "ishida", "choice": "no_movement"}},
            {"end_movement": {"by": "ishida"}},
            {"movement": {"by": "ishida", "choice": "no_movement"}},
        ],
    }
    first = assert_illegal_at(tmp_path, capsys, record, 3, "7.1")
    assert first["message"] == (
        "the record's position starts in movement phase, which is over, and names nothing"
        " around it (`within:`): no more events can be judged"
    )


def test_one_more_point_wins_for_tokugawa(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = mutate(END, lambda ev: None)
    record["position"]["state"]["resource_holder"]["Takeda"] = "tokugawa"
    record["events"].pop()  # the stated result no longer holds
    code, v = judge(tmp_path, capsys, record)
    assert code == 0
    assert v["summary"].endswith(
        "Tokugawa 14 (5 castles, 4 resources), Ishida 12 (4 castles, 4 resources): tokugawa wins"
        "; next: victory points, step scoring"
    )


def test_a_castle_taken_counts_for_its_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = mutate(END, lambda ev: None)
    record["position"]["state"]["units_at"]["Okazaki"] = {"ishida": ["mori-2"]}
    record["events"].pop()
    code, v = judge(tmp_path, capsys, record)
    assert v["summary"].endswith(
        "Tokugawa 11 (4 castles, 3 resources), Ishida 15 (5 castles, 5 resources): ishida wins"
        "; next: victory points, step scoring"
    )


def test_all_reports_every_illegal_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def two_mistakes(ev: Events) -> None:
        args(ev, 27)["cards"] = []  # limited movement for nothing
        args(ev, 50)["groups"][0]["path"] = ["Ueda", "Saku", "Takasaki", "Oshi"]

    record = mutate(WEEKS, two_mistakes)
    code, v = judge(tmp_path, capsys, record, "--all")
    assert code == 1
    assert [(x["index"], x["cites"]) for x in v["violations"]] == [
        (27, "7.1/movement-cost"),
        (50, "7.3.3/within-allowance"),
    ]
    assert v["judged"] == 60
    code, v = judge(tmp_path, capsys, record)
    assert [x["index"] for x in v["violations"]] == [27] and v["judged"] == 27


def test_violation_json_carries_the_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = mutate(WEEKS, group(50, path=["Ueda", "Saku", "Takasaki", "Oshi"]))
    code, v = judge(tmp_path, capsys, record)
    (x,) = v["violations"]
    assert x["title"] == "Movement distance"
    assert (
        x["message"]
        == "moved 3 locations; allowance 2 = base 1 + highway 0 + leadership 1 + force march 0 - size 0"
    )
    # the decisive values first, each under its name; the calls the condition makes
    assert x["numbers"][:5] == [
        "distance = 3",
        "all_highway = false",
        "leadership = true",
        "force_march = false",
        "largest_group = 2",
    ]
    assert (
        "allowance(all_highway: false, leadership: true, force_march: false, largest_group: 2)"
        " = 2  (7.3.3)"
    ) in x["numbers"]
    # a call inside allowance: in the full trace only
    assert "size_penalty(blocks: 2) = 0  (7.3.5)" not in x["numbers"]
    assert "size_penalty(blocks: 2) = 0  (7.3.5)" in x["trace"]
    assert x["line"] > 0 and x["column"] > 0


def test_text_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    assert main(["check", str(EXAMPLES_DIR / "illegal" / "movement-too-far.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(
        "movement-too-far.yaml:18:5: event 2 (move) is illegal (as the record expects):"
        " 7.3.3/within-allowance (Movement distance)"
    )
    assert (
        out[1]
        == "  moved 3 locations; allowance 2 = base 1 + highway 1 + leadership 1 + force march 0 - size 1"
    )
    assert out[-1] == (
        "  printing gmt-later; overlays in force: 5 clarifications, 38 decisions; relied on: none"
    )
    # a number an overlay's amendment gave says so
    assert main(["check", str(EXAMPLES_DIR / "illegal" / "sixth-card-without-castles.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert (
        "    weekly_card_draw(own_castles: 4, their_castles: 5) = 5"
        "  (6.2 as amended by D-castle-tie)"
    ) in out


OUT_AND_BACK = {
    "game": "sekigahara",
    "position": {
        "procedure": "movement_phase",
        "args": {"active": "ishida"},
        "state": {"units_at": {"Kyoto": {"ishida": ["ukita-2", "ukita-3"]}}},
    },
    "events": [
        {"movement": {"by": "ishida", "choice": "minimal"}},
        # one stack out to Minakuchi and back: the same segment twice
        {
            "move": {
                "by": "ishida",
                "from": "Kyoto",
                "groups": [
                    {"blocks": ["ukita-2", "ukita-3"], "path": ["Kyoto", "Minakuchi", "Kyoto"]}
                ],
            }
        },
    ],
}


def test_printings_differ_on_a_road_used_twice_by_one_stack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, v = judge(tmp_path, capsys, OUT_AND_BACK)
    assert code == 1 and v["violations"][0]["cites"] == "7.3.1/segment-once"
    assert (
        v["violations"][0]["message"]
        == "the road Kyoto-Minakuchi was already used 1 time(s) this movement phase"
    )
    code, v = judge(tmp_path, capsys, OUT_AND_BACK, "--printing", "gmt-2011")
    assert code == 0
    assert v["printing"] == "gmt-2011" and "E-road-once" in v["overlays"]
    # the one rule of 7.3.1 the printing decided here: nothing was picked up, so the pick-up
    # ban the first printing drops would not have refused the move either
    assert "E-road-once" in v["relied"] and "E-pickup" not in v["relied"]


def test_overlays_switched_off_and_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, v = judge(tmp_path, capsys, WEEKS, "--no-overlay", "S-overrun-draw")
    assert code == 0 and "S-overrun-draw" not in v["overlays"] + v["relied"]
    code, v = judge(tmp_path, capsys, WEEKS, "--no-overlay", "D-capitals")
    assert code == 0 and "D-capitals" not in v["relied"]
    code, v = judge(tmp_path, capsys, OUT_AND_BACK, "--overlay", "E-road-once")
    assert code == 0 and v["printing"] == "gmt-later" and "E-road-once" in v["overlays"]


def test_overlays_chosen_by_their_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's own command line: a file's name stands for every overlay it declares."""
    options = ["--printing", "gmt-2011", "--overlay", "savarese-2014"]
    code, v = judge(tmp_path, capsys, WEEKS, *options, "--no-overlay", "D-walk-into-overrun")
    assert code == 0  # four blocks overrun one at Kiyosu under either reading
    assert v["printing"] == "gmt-2011" and "D-walk-into-overrun" not in v["overlays"]
    assert {"S-split", "S-disks", "E-road-once"} <= set(v["overlays"])
    code, v = judge(tmp_path, capsys, WEEKS | {"no_overlays": ["decisions"]})
    assert code == 1 and not [o for o in v["overlays"] if o.startswith("D-")]
    code, v = judge(tmp_path, capsys, WEEKS, "--no-overlay", "savarese")
    assert code == 2
    assert v["errors"][0]["message"] == "unknown overlay 'savarese'"
    assert v["errors"][0]["hint"] == "did you mean 'savarese-2014'?"


ILLEGAL_EXAMPLES = sorted((EXAMPLES_DIR / "illegal").glob("*.yaml"))


@pytest.mark.parametrize("path", ILLEGAL_EXAMPLES, ids=[p.stem for p in ILLEGAL_EXAMPLES])
def test_illegal_example_cites_what_its_header_says(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    from referee.cli import main

    header = path.read_text().splitlines()[0]
    match = re.match(r"# Illegal \(([^)]+)\): ", header)
    assert match, f"{path.name} must open with '# Illegal (clause/label): why'"
    assert main(["check", str(path), "--format", "json"]) == 1
    v = verdict_of(capsys.readouterr().out)
    assert v["violations"][0]["cites"] == match.group(1)


def test_there_is_an_illegal_example_for_each_chapter() -> None:
    cited = {p.read_text().split("(", 1)[1].split(")", 1)[0] for p in ILLEGAL_EXAMPLES}
    chapters = {c.split(".")[0] for c in cited}
    assert {"3", "5", "6", "7", "9"} <= chapters
    assert len(ILLEGAL_EXAMPLES) >= 20


# The rulebook's example of movement: the allowance it states for each stack.
@pytest.mark.parametrize(
    "number,allowance",
    [
        (2, 2),
        (4, 1),
        (5, 2),
        (6, 2),
    ],  # A, C, D, E (B is stopped by the used road, not its allowance)
)
def test_movement_example_allowances(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], number: int, allowance: int
) -> None:
    record = example("movement-example.yaml")

    def one_step_further(ev: Events) -> None:
        path = args(ev, number)["groups"][0]["path"]
        extra = {"Minakuchi": "Kuwana", "Osaka": "Himeji", "Kyoto": "Ayabe", "Tsuruga": "Miyazu"}
        path.append(extra[path[-1]])
        del ev[number:]  # judge that move alone

    code, v = judge(tmp_path, capsys, mutate(record, one_step_further))
    assert code == 1
    (x,) = v["violations"]
    assert x["cites"] == "7.3.3/within-allowance"
    assert f"allowance {allowance} = " in x["message"]


def test_an_exhausted_draw_pile_is_replaced_by_the_discards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """3.3: the first two cards come from the pile, the rest from the shuffled discards."""
    record = {
        "game": "sekigahara",
        "position": {
            "procedure": "movement_phase",
            "args": {"active": "ishida"},
            "state": {
                "hand": {"ishida": ["mori", "ukita", "mori-double"]},
                "draw_pile": {"ishida": ["uesugi", "kobayakawa"]},
                "discards": {"ishida": ["mori-swords", "ukita-swords"]},
            },
        },
        "events": [
            {"movement": {"by": "ishida", "choice": "no_movement"}},
            # three drawn from a pile of two: the pile, then one from the discards (with the
            # three just cycled) shuffled into a new pile; listed in any order (3.3)
            {
                "cycle": {
                    "by": "ishida",
                    "discard": ["mori", "ukita", "mori-double"],
                    "draw": ["ukita-swords", "uesugi", "kobayakawa"],
                }
            },
        ],
    }
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v
    # a card that was never discarded cannot come back from them
    record["events"][1]["cycle"]["draw"] = ["ukita-double", "uesugi", "kobayakawa"]
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["cites"] == "3.3/in-draw-pile"
    # the whole pile is drawn before the reshuffle
    record["events"][1]["cycle"]["draw"] = ["ukita-swords", "mori", "kobayakawa"]
    code, v = judge(tmp_path, capsys, record)
    assert code == 1 and v["violations"][0]["cites"] == "3.3/whole-pile-first"


def test_blocks_already_there_lend_their_numbers_to_an_overrun(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """7.4.2: two stacks of two arrive one after the other; the second completes the 4:1."""
    record = {
        "game": "sekigahara",
        "position": {
            "within": [{"procedure": "game_turn", "step": "first_moves"}],
            "procedure": "movement_phase",
            "args": {"active": "ishida"},
            "state": {
                "first_player": "ishida",
                "hand": {"ishida": ["mori", "ukita"]},
                "units_at": {
                    "Kyoto": {"ishida": ["ukita-2", "ukita-3"]},
                    "Osaka": {"ishida": ["mori-2", "mori-3"]},
                    "Ayabe": {"tokugawa": ["date-2"]},
                },
            },
        },
        "events": [
            {"movement": {"by": "ishida", "choice": "limited", "cards": ["mori"]}},
            {
                "move": {
                    "by": "ishida",
                    "from": "Kyoto",
                    "groups": [{"blocks": ["ukita-2", "ukita-3"], "path": ["Kyoto", "Ayabe"]}],
                }
            },
            {
                "move": {
                    "by": "ishida",
                    "from": "Osaka",
                    "groups": [
                        {"blocks": ["mori-2", "mori-3"], "path": ["Osaka", "Himeji", "Ayabe"]}
                    ],
                }
            },
            {"end_movement": {"by": "ishida"}},
        ],
    }
    code, v = judge(tmp_path, capsys, record)
    assert code == 0, v
    # the Date block is gone: no combat, and Tokugawa's movement phase is next
    assert v["summary"].endswith("next: movement phase, step buying")
    # with only the first stack the Date block stands: the phase cannot end in conflict there
    del record["events"][2]
    code, v = judge(tmp_path, capsys, record)
    assert code == 0 and v["summary"].endswith("next: combat phase, step declaring")


@pytest.mark.parametrize(
    "name,summary",
    [
        (
            "full-game.yaml",
            "the game is over after week 7; Tokugawa 12 (5 castles, 2 resources), Ishida 10 (4 castles, 2 resources): tokugawa wins",
        ),
        ("instant-victory.yaml", "tokugawa wins at once (2.1) in week 3"),
        (
            "end-of-week-7.yaml",
            "the game is over after week 7; Tokugawa 13 (5 castles, 3 resources), Ishida 13 (4 castles, 5 resources): ishida wins",
        ),
    ],
)
def test_finished_games_name_their_winner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, summary: str
) -> None:
    code, v = judge(tmp_path, capsys, example(name))
    assert code == 0, v
    assert v["summary"] == summary


def test_every_legal_example_is_legal(capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    legal = sorted(EXAMPLES_DIR.glob("*.yaml"))
    assert len(legal) >= 7
    assert main(["check", *map(str, legal)]) == 0


def move_from_position(units: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    return {
        "game": "sekigahara",
        "position": {
            "procedure": "movement_phase",
            "args": {"active": "ishida"},
            "state": {"units_at": units},
        },
        "events": [
            {"movement": {"by": "ishida", "choice": "minimal"}},
            {"move": {"by": "ishida", **move}},
        ],
    }


def test_declared_leadership_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    units = {"Osaka": {"ishida": ["ukita-2", "ukita-3"]}}
    move = {
        "from": "Osaka",
        "groups": [{"blocks": ["ukita-2"], "path": ["Osaka", "Kyoto", "Sawayama"]}],
    }
    code, v = judge(tmp_path, capsys, move_from_position(units, {**move, "leadership": "castle"}))
    assert code == 0, v  # Osaka is a gold castle Ishida holds
    code, v = judge(tmp_path, capsys, move_from_position(units, {**move, "leadership": "leader"}))
    assert code == 1
    assert v["violations"][0]["cites"] == "7.3.4/declared-leadership"
    assert (
        v["violations"][0]["message"]
        == "the move claims leader leadership at Osaka, and there is none of that kind there"
    )


def test_seventeen_blocks_cannot_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stack = ["ukita-2"] * 17
    units = {"Kyoto": {"ishida": list(stack)}}  # a copy: one list twice would dump as a YAML alias
    code, v = judge(
        tmp_path,
        capsys,
        move_from_position(
            units, {"from": "Kyoto", "groups": [{"blocks": stack, "path": ["Kyoto", "Osaka"]}]}
        ),
    )
    assert code == 1 and v["violations"][0]["cites"] == "7.3.5/too-big-to-move"
    # sixteen may move, but only with every bonus: 1 + highway + leadership (Kyoto) - 3 = 0 here
    code, v = judge(
        tmp_path,
        capsys,
        move_from_position(
            units, {"from": "Kyoto", "groups": [{"blocks": stack[:16], "path": ["Kyoto", "Osaka"]}]}
        ),
    )
    assert code == 1 and v["violations"][0]["cites"] == "7.3.3/within-allowance"
    assert v["violations"][0]["message"].startswith(
        "moved 1 locations; allowance 0 = base 1 + highway 1 + leadership 1"
    )
