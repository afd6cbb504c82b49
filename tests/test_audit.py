"""The audited defects of the rules (issue: "right in every situation", part 3): for each, the
legal record and the illegal one, citing the clause that decides it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.referee_helpers import deploy, example, judge, move
from tests.test_standing import IEYASU_RETREATS, illegal, legal, record

COMBAT = example("combat-example.yaml")


def moving(state: dict[str, Any], *moves: Any, choice: str = "minimal") -> dict[str, Any]:
    return record(
        "movement_phase",
        "ishida",
        state,
        [{"movement": {"by": "ishida", "choice": choice}}, *moves],
    )


# ------------------------------------------------------------------ 8.4.2


@pytest.mark.parametrize(
    "blocks", [["ukita-2", "ishida-leader-square"], ["ishida-leader-square", "ukita-2"]]
)
def test_a_double_on_the_ishida_block_deploys_it_alone_in_either_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blocks: list[str]
) -> None:
    rec = record(
        "combat_phase",
        "ishida",
        {
            "hand": {"ishida": ["ukita-double"]},
            "units_at": {
                "Sawayama": {"ishida": ["ishida-leader-square", "ukita-2"], "tokugawa": ["date-2"]}
            },
        },
        [{"declare": {"by": "ishida", "at": "Sawayama"}}, deploy("ishida", blocks, "ukita-double")],
    )
    first = illegal(tmp_path, capsys, rec, 2, "8.4.2/double-count")
    assert "it can deploy 1" in first["message"]
    rec["events"][1] = deploy("ishida", ["ishida-leader-square"], "ukita-double")
    legal(tmp_path, capsys, rec)


# ------------------------------------------------------------------ 7.3.5

EIGHT = [
    "ukita-2",
    "ukita-3",
    "mori-2",
    "mori-3",
    "kobayakawa-2",
    "kobayakawa-3",
    "uesugi-3",
    "ukita-gun",
]


def test_groups_that_part_at_the_origin_never_travelled_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Eight blocks leave Sawayama by two highways, four and four: each group has the penalty
    of four (none) and moves two; had they gone together to Gifu first, eight would move one."""
    parted = moving(
        {"units_at": {"Sawayama": {"ishida": list(EIGHT)}}},
        move(
            "ishida",
            "Sawayama",
            (EIGHT[:4], ["Sawayama", "Kyoto", "Minakuchi"]),
            (EIGHT[4:], ["Sawayama", "Gifu", "Iwamura"]),
        ),
    )
    legal(tmp_path, capsys, parted)
    together = moving(
        {"units_at": {"Sawayama": {"ishida": list(EIGHT)}}},
        move(
            "ishida",
            "Sawayama",
            (EIGHT[:4], ["Sawayama", "Gifu", "Iwamura"]),
            (EIGHT[4:], ["Sawayama", "Gifu"]),
        ),
    )
    first = illegal(tmp_path, capsys, together, 2, "7.3.3/within-allowance")
    assert "- size 1" in first["message"]


def test_seventeen_leaving_as_nine_and_eight_can_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seventeen = ["ishida-leader-square"] + EIGHT + EIGHT
    rec = moving(
        {"units_at": {"Kyoto": {"ishida": list(seventeen)}}},
        move(
            "ishida",
            "Kyoto",
            (seventeen[:9], ["Kyoto", "Minakuchi"]),
            (seventeen[9:], ["Kyoto", "Sawayama"]),
        ),
    )
    legal(tmp_path, capsys, rec)
    whole = moving(
        {"units_at": {"Kyoto": {"ishida": list(seventeen)}}},
        move("ishida", "Kyoto", (list(seventeen), ["Kyoto", "Minakuchi"])),
    )
    illegal(tmp_path, capsys, whole, 2, "7.3.5/too-big-to-move")


@pytest.mark.parametrize("options", [(), ("--no-overlay", "S-split")], ids=["S-split", "base"])
def test_a_block_keeps_the_penalty_of_the_largest_group_it_moved_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: tuple[str, ...]
) -> None:
    """Every printing's 7.3.5: five leave Osaka, four stop at Kyoto and the leader goes on; it
    keeps the penalty of the five it travelled with, so it cannot reach Kuwana."""
    five = ["ukita-leader-square", "ukita-2", "ukita-3", "mori-2", "mori-3"]
    rec = moving(
        {"units_at": {"Osaka": {"ishida": five}}},
        move(
            "ishida",
            "Osaka",
            (five[1:], ["Osaka", "Kyoto"]),
            (five[:1], ["Osaka", "Kyoto", "Minakuchi", "Kuwana"]),
        ),
    )
    code, v = judge(tmp_path, capsys, rec, *options)
    assert code == 1 and v["violations"][0]["cites"] == "7.3.3/within-allowance"
    assert "size 1" in v["violations"][0]["message"]


# ------------------------------------------------------------------ citing the right clause


def test_a_reinforcement_in_week_1_cites_6_2_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = example("weeks-1-2.yaml")
    rec["events"].insert(
        23, {"reinforce": {"by": "tokugawa", "discard": [], "cards": [], "blocks": []}}
    )
    first = illegal(tmp_path, capsys, rec, 24, "6.2")
    assert "reinforcement_held(week: 1) = false" in first["message"]


def test_a_winner_recording_a_loss_cites_8_7_1_with_its_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = copy.deepcopy(IEYASU_RETREATS)
    rec["events"][4:4] = [{"losses": {"by": "ishida", "blocks": ["ukita-3"]}}]
    first = illegal(tmp_path, capsys, rec, 5, "8.7.1/loss-count")
    assert first["message"] == "1 loss(es) taken; 0 are due"
    assert (
        "losses_due(impact_received: 0, lost_battle: false, present: 1) = 0  (8.7.1)"
        in (first["numbers"])
    )


def test_a_draw_for_a_lost_disk_gives_the_true_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """9.2 with 8.10: the Sanada disk takes the siege's loss; a disk lost draws no card."""
    rec = record(
        "combat_phase",
        "tokugawa",
        {
            "hand": {"tokugawa": ["date", "tokugawa"]},
            "units_at": {"Ueda": {"ishida": ["uesugi-3"], "tokugawa": ["ii-4-star", "tokugawa-3"]}},
        },
        [
            {"declare": {"by": "tokugawa", "at": "Ueda", "inside": True}},
            deploy("tokugawa", ["ii-4-star"], "date"),
            deploy("tokugawa", ["tokugawa-3"], "tokugawa"),
            {"finish": {"by": "tokugawa"}},
            {"losses": {"by": "ishida", "blocks": [], "disk": True}},
            {"replenish": {"by": "tokugawa", "cards": ["date", "tokugawa"]}},
        ],
    )
    legal(tmp_path, capsys, rec)
    rec["events"].insert(5, {"replenish": {"by": "ishida", "cards": ["ukita"]}})
    first = illegal(tmp_path, capsys, rec, 6, "8.10/redraw")
    assert first["message"] == "ishida draws 1 card(s) after the combat; 0 are due"


def test_a_skipped_loss_cites_8_7_1_and_a_skipped_retreat_8_8_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    losses = next(i for i, e in enumerate(COMBAT["events"]) if "losses" in e)
    skipped = copy.deepcopy(COMBAT)
    del skipped["events"][losses : losses + 2]
    illegal(tmp_path, capsys, skipped, losses + 1, "8.7.1")
    retreat = next(i for i, e in enumerate(COMBAT["events"]) if "retreat" in e)
    skipped = copy.deepcopy(COMBAT)
    del skipped["events"][retreat]
    illegal(tmp_path, capsys, skipped, retreat + 1, "8.8.1")


def test_a_mori_block_moving_on_its_arrival_turn_cites_9_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = moving(
        {
            "hand": {"ishida": ["mori", "ukita"]},
            "mori_box": ["mori-3-triangle", "mori-leader-triangle"],
            "units_at": {"Osaka": {"ishida": ["mori-3-triangle"]}},
        },
        {"mori": {"by": "ishida", "cards": ["mori"], "blocks": ["mori-3-triangle"]}},
        move("ishida", "Osaka", (["mori-3-triangle"], ["Osaka", "Kyoto"])),
        choice="limited",
    )
    rec["events"][0]["movement"]["cards"] = ["ukita"]
    legal(tmp_path, capsys, rec)  # the one already there moves: blocks of a face are alike
    rec["events"][2] = move("ishida", "Osaka", (["mori-3-triangle"] * 2, ["Osaka", "Kyoto"]))
    illegal(tmp_path, capsys, rec, 3, "9.3/not-on-arrival-turn")


def test_an_out_of_sequence_event_below_a_waiting_procedure_is_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the hostile reading: explaining why a step of a procedure further down is not
    due read that step's second end condition in the wrong procedure (an internal error)."""
    rec = record(
        "movement_phase",
        "tokugawa",
        {"week": 3},
        [{"reinforce": {"by": "tokugawa", "discard": [], "cards": [], "blocks": []}}],
        within=[
            {"procedure": "campaign", "step": "campaigning"},
            {"procedure": "week_cycle", "step": "turn_a"},
            {"procedure": "game_turn", "step": "first_moves"},
        ],
    )
    rec["events"].insert(0, {"movement": {"by": "tokugawa", "choice": "minimal"}})
    first = illegal(tmp_path, capsys, rec, 2, "7.1")
    assert "'reinforce' is not allowed now" in first["message"]
    weeks = example("weeks-1-2.yaml")
    weeks["events"].insert(
        50, {"reinforce": {"by": "tokugawa", "discard": [], "cards": [], "blocks": []}}
    )
    first = illegal(tmp_path, capsys, weeks, 51, "6.2")
    assert "`size(reinforced) == 2` holds" in first["message"]
