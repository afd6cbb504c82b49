"""`referee show`: the position at an event of a record, replayed as `check` replays it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from tests.referee_helpers import EXAMPLES, example, output

WEEKS = str(EXAMPLES / "weeks-1-2.yaml")
COMBAT = str(EXAMPLES / "combat-example.yaml")
HELD_CASTLE = str(EXAMPLES / "illegal" / "through-a-held-castle.yaml")

EDO_BEFORE_THE_MARCH = [
    "tokugawa-leader-square",
    "tokugawa-3-square",
    "tokugawa-3-square",
    "tokugawa-gun-square",
    "tokugawa-2",
    "tokugawa-cavalry",
]
MARCHERS = ["tokugawa-leader-square", "tokugawa-3-square", "tokugawa-gun-square"]


def show(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> dict[str, Any]:
    assert main(["show", *argv, "--format", "json"]) == code
    out: dict[str, Any] = output(capsys.readouterr().out)
    return out


def text(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> list[str]:
    assert main(["show", *argv]) == code
    return capsys.readouterr().out.splitlines()


def value(pos: dict[str, Any], name: str) -> Any:
    return pos["state"][name]["value"]


# ------------------------------------------------------------ before and after an event


def test_before_and_after_a_force_march(capsys: pytest.CaptureFixture[str]) -> None:
    # event 28: the Edo stack marches to Hamamatsu, a force march paid with a card
    before = show(capsys, WEEKS, "--at", "28")
    after = show(capsys, WEEKS, "--after", "28")
    assert (before["at"], before["after"]) == (28, 27)
    assert (after["at"], after["after"]) == (29, 28)
    assert before["event"] == {
        "index": 28,
        "action": "move",
        "by": "tokugawa",
        "line": 39,
        "column": 5,
        "position": "before",
    }
    assert after["event"]["position"] == "after"
    units_before, units_after = value(before, "units_at"), value(after, "units_at")
    assert units_before["Edo"] == {"tokugawa": EDO_BEFORE_THE_MARCH}
    assert "Hamamatsu" not in units_before
    assert units_after["Edo"] == {
        "tokugawa": ["tokugawa-3-square", "tokugawa-2", "tokugawa-cavalry"]
    }
    assert units_after["Hamamatsu"] == {"tokugawa": MARCHERS}
    # the force march's card left the hand
    assert value(before, "hand")["tokugawa"] == ["tokugawa", "tokugawa", "fukushima"]
    assert value(after, "hand")["tokugawa"] == ["tokugawa", "fukushima"]
    # what only the move wrote: its road, where the marchers came from
    assert "moved_at" not in before["state"] and "moved_at" in before["defaults"]
    assert value(after, "moved_at") == {"Hamamatsu": {"tokugawa": MARCHERS}}
    assert value(after, "came_from") == {"Hamamatsu": {"tokugawa": ["Sunpu"]}}


def test_where_the_rules_stand(capsys: pytest.CaptureFixture[str]) -> None:
    pos = show(capsys, WEEKS, "--at", "28")
    assert pos["summary"] == "week 1"
    assert [(f["procedure"], f["step"], f["args"]) for f in pos["frames"]] == [
        ("campaign", "campaigning", {}),
        ("week_cycle", "turn_a", {}),
        ("game_turn", "first_moves", {}),
        ("movement_phase", "moving", {"active": "tokugawa"}),
    ]
    assert pos["frames"][-1]["title"] == "Movement phase"
    assert pos["state"]["units_at"]["clause"] == "4.1"
    assert pos["state"]["units_at"]["params"] == ["l", "s"]


def test_the_end_of_the_record(capsys: pytest.CaptureFixture[str]) -> None:
    pos = show(capsys, WEEKS)
    assert (pos["at"], pos["after"], pos["events"], pos["illegal"]) == (None, 60, 60, None)
    assert pos["event"]["index"] == 60 and pos["event"]["position"] == "after"
    assert pos["summary"] == "week 3"
    assert value(pos, "week") == 3
    # the capitals held from the start (D-capitals), and the places claimed since
    assert value(pos, "resource_holder") == {
        "Edo": "tokugawa",
        "Kuwana": "tokugawa",
        "Kyoto": "ishida",
        "Shirakawa": "ishida",
    }
    # a castle's owner, worked out from the map from the start, is shown for every castle
    assert value(pos, "castle_owner") == {
        "Aizu": "ishida",
        "Anotsu": "tokugawa",
        "Gifu": "ishida",
        "Hakone": "tokugawa",
        "Kanazawa": "tokugawa",
        "Miyazu": "tokugawa",
        "Okazaki": "tokugawa",
        "Osaka": "ishida",
        "Ueda": "ishida",
    }
    # the overrun at Kiyosu (event 41) sent a block to the lost
    assert value(pos, "lost") == {"tokugawa": ["fukushima-2"]}
    assert value(pos, "mori_box") == ["mori-3-triangle"] * 3 + ["mori-leader-triangle"]
    assert value(pos, "road_uses") == {"{a: Okazaki, b: Hamamatsu, highway: Tokaido}": 1}
    assert value(pos, "road_stacks") == {"{a: Okazaki, b: Hamamatsu, highway: Tokaido}": 1}
    # every state is shown or counted at its default, in clause order
    names = list(pos["state"])
    clauses = [pos["state"][n]["clause"] for n in names]
    assert names[:3] == ["hand", "draw_pile", "discards"] and clauses[:3] == ["3.3"] * 3
    assert len(names) + len(pos["defaults"]) == 48
    assert "impact" in pos["defaults"]


def test_keys_in_the_order_the_data_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    pos = show(capsys, WEEKS, "--after", "28")
    assert list(value(pos, "units_at")) == [
        "Aizu",
        "Anotsu",
        "Edo",
        "Gifu",
        "Hakone",
        "Hamamatsu",
        "Kanazawa",
        "Kiyosu",
        "Kyoto",
        "Miyazu",
        "Osaka",
        "Sendai",
        "Ueda",
    ]
    assert list(value(pos, "hand")) == ["tokugawa", "ishida"]


def test_the_impact_track_during_a_battle(capsys: pytest.CaptureFixture[str]) -> None:
    # after the eighth deployment (event 9) the Impact stands at 13 each, as the rulebook's
    # example says; the track is at its default before the battle is declared
    during = show(capsys, COMBAT, "--after", "9")
    assert value(during, "impact") == {"tokugawa": 13, "ishida": 13}
    assert value(during, "played") == {
        "tokugawa": ["maeda-swords", "tokugawa", "tokugawa", "tokugawa"],
        "ishida": ["ukita-double", "uesugi", "mori-swords"],
    }
    assert [f["procedure"] for f in during["frames"]] == ["combat_phase", "battle"]
    assert during["frames"][1]["args"] == {
        "at": "Sawayama",
        "attacker": "ishida",
        "defender": "tokugawa",
    }
    assert "impact" in show(capsys, COMBAT, "--at", "1")["defaults"]


def test_a_position_record_shows_its_position_at_the_first_event(
    capsys: pytest.CaptureFixture[str],
) -> None:
    given = example("combat-example.yaml")["position"]["state"]
    pos = show(capsys, COMBAT, "--at", "1")
    assert value(pos, "hand") == given["hand"]
    assert value(pos, "units_at") == {
        "Sawayama": {"tokugawa": given["units_at"]["Sawayama"]["tokugawa"]}
        | {"ishida": given["units_at"]["Sawayama"]["ishida"]}
    }
    assert set(pos["state"]) == {
        "hand",
        "units_at",
        # worked out by the rules for each castle, capital and deck from the start
        "castle_owner",
        "disk_standing",
        "draw_pile",
        "resource_holder",
    }
    assert [(f["procedure"], f["step"]) for f in pos["frames"]] == [("combat_phase", "declaring")]


# ------------------------------------------------------------ an illegal event


def test_stops_before_an_illegal_event(capsys: pytest.CaptureFixture[str]) -> None:
    pos = show(capsys, HELD_CASTLE, code=1)
    assert pos["illegal"]["cites"] == "7.4.3/castle-holders-immune"
    assert pos["illegal"]["index"] == 2
    assert (pos["at"], pos["after"]) == (2, 1)
    # the move's first steps are undone: the stack is still where it started
    assert value(pos, "units_at") == {
        "Hakone": {"tokugawa": ["date-gun"]},
        "Numazu": {"ishida": ["ukita-2", "ukita-3", "mori-2", "mori-3", "ukita-leader-square"]},
    }
    assert "road_uses" in pos["defaults"] and "moved_at" in pos["defaults"]
    # the same position as before that event, asked for directly
    at = show(capsys, HELD_CASTLE, "--at", "2")
    assert at["illegal"] is None and at["state"] == pos["state"]


def test_an_illegal_event_before_the_one_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    pos = show(capsys, HELD_CASTLE, "--after", "2", code=1)
    assert pos["asked"] == "--after 2" and pos["after"] == 1
    lines = text(capsys, HELD_CASTLE, "--after", "2", code=1)
    assert lines[0] == f"{HELD_CASTLE}: the position before event 2 of 2"
    assert lines[2] == (
        "  --after 2: event 2 is illegal, so the position shown is before it:"
        " 7.4.3/castle-holders-immune (Overruns and castles)"
    )


# ------------------------------------------------------------ text


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    lines = text(capsys, WEEKS, "--after", "28")
    assert lines[:8] == [
        f"{WEEKS}: the position after event 28 of 60",
        "  event 28: move by tokugawa, line 39",
        "  rules: week 1",
        "    The campaign, step campaigning",
        "    The week, step turn_a",
        "    The turn, step first_moves",
        "    Movement phase (active: tokugawa), step moving",
        "  printing gmt-later; overlays in force: 5 clarifications, 38 decisions",
    ]
    units = lines.index("  units_at (4.1 Locations in general)")
    assert lines[units + 1 : units + 7] == [
        "    Aizu       ishida (4): [uesugi-3-circle, uesugi-gun-circle, uesugi-leader-circle,",
        "                            uesugi-cavalry]",
        "    Anotsu     tokugawa: [maeda-3]",
        "    Edo        tokugawa (3): [tokugawa-3-square, tokugawa-2, tokugawa-cavalry]",
        "    Gifu       ishida (2): [mori-2, ukita-3]",
        "    Hakone     tokugawa: [date-gun]",
    ]
    osaka = next(i for i, line in enumerate(lines) if line.startswith("    Osaka"))
    # a long list wraps between its faces, under its first face
    assert lines[osaka : osaka + 3] == [
        "    Osaka      ishida (8): [ishida-leader-square, kobayakawa-3-square,"
        " kobayakawa-leader-square,",
        "                            mori-cavalry-square, ukita-2-square, ukita-leader-square,"
        " ukita-cavalry,",
        "                            kobayakawa-gun]",
    ]
    assert "  first_player (6.4 Turns A and B): tokugawa" in lines
    assert any(line.startswith("33 state(s) at their starting values:") for line in lines)
    assert all(len(line) <= 100 for line in lines)


def test_text_of_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    lines = text(capsys, str(EXAMPLES / "instant-victory.yaml"))
    assert lines[2:4] == [
        "  rules: tokugawa wins at once (2.1) in week 3",
        "    no procedure runs: the game is over (2.1)",
    ]
    assert "  instant_victor (2.1 Instant victory): tokugawa" in lines


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("flag", "n"), [("--at", "61"), ("--after", "61"), ("--at", "0"), ("--after", "-1")]
)
def test_an_event_the_record_does_not_have(
    capsys: pytest.CaptureFixture[str], flag: str, n: str
) -> None:
    assert main(["show", WEEKS, flag, n]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        f"{WEEKS}:9:3: {flag} {n}: this record has 60 event(s), numbered 1 to 60"
    )
    assert f"hint: {flag} takes a number from 1 to 60" in err


def test_an_event_number_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = show(capsys, WEEKS, "--at", "100", code=2)
    assert out["ok"] is False
    assert out["errors"][0]["message"] == "--at 100: this record has 60 event(s), numbered 1 to 60"


def test_no_events_to_number(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = example("combat-example.yaml") | {"events": []}
    path = tmp_path / "empty.yaml"
    path.write_text(yaml.safe_dump(record, sort_keys=False))
    assert main(["show", str(path), "--at", "1"]) == 2
    err = capsys.readouterr().err
    assert "--at 1: this record has no events" in err
    assert "hint: leave out --at to see the position it starts from" in err
    pos = show(capsys, str(path))
    assert (pos["event"], pos["at"], pos["after"]) == (None, None, 0)
    assert set(pos["state"]) == {
        "hand",
        "units_at",
        # worked out by the rules for each castle, capital and deck from the start
        "castle_owner",
        "disk_standing",
        "draw_pile",
        "resource_holder",
    }


def test_at_and_after_together(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["show", WEEKS, "--at", "3", "--after", "4"])
    assert exc.value.code == 2
    assert "argument --after: not allowed with argument --at" in capsys.readouterr().err


def test_the_overlays_chosen_apply(capsys: pytest.CaptureFixture[str]) -> None:
    pos = show(capsys, HELD_CASTLE, "--at", "1", "--no-overlay", "decisions")
    assert not [o for o in pos["overlays"] if o.startswith("D-")]
    assert main(["show", WEEKS, "--overlay", "no-such-overlay"]) == 2
    assert "unknown overlay 'no-such-overlay'" in capsys.readouterr().err
