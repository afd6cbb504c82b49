"""Rules that hold at any moment (issue: "right in every situation"): each standing rule fires
from every path that reaches it, and the combat a retreat begins is treated as declared combat.
Each case is a legal record and the illegal one beside it, citing the clause."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from tests.referee_helpers import deploy, judge, move

WEEK = [{"procedure": "game_turn", "step": "first_moves"}]
FIGHTS = [{"procedure": "game_turn", "step": "first_fights"}]


def record(
    procedure: str, active: str, state: dict[str, Any], events: list[Any], **position: Any
) -> dict[str, Any]:
    return {
        "game": "sekigahara",
        "position": {
            "procedure": procedure,
            "args": {"active": active},
            "state": state,
            **position,
        },
        "events": events,
    }


def legal(tmp: Path, capsys: pytest.CaptureFixture[str], rec: dict[str, Any], *opts: str) -> Any:
    code, v = judge(tmp, capsys, rec, *opts)
    assert code == 0, v.get("violations") or v.get("errors")
    return v


def illegal(
    tmp: Path, capsys: pytest.CaptureFixture[str], rec: dict[str, Any], index: int, cites: str
) -> Any:
    code, v = judge(tmp, capsys, rec)
    assert code == 1, v
    first = v["violations"][0]
    assert (first["index"], first["cites"]) == (index, cites), first["message"]
    return first


def plus(rec: dict[str, Any], *events: Any) -> dict[str, Any]:
    out = copy.deepcopy(rec)
    out["events"] += list(events)
    return out


# ------------------------------------------------------------------ 2.1, from every path (with 7.4.2, 9.3)

ISHIDA_OVERRUN_IN_MOVEMENT = record(
    "movement_phase",
    "tokugawa",
    {
        "first_player": "tokugawa",
        "units_at": {
            "Kuwana": {"tokugawa": ["tokugawa-2", "tokugawa-3", "date-2", "date-3"]},
            "Minakuchi": {"ishida": ["ishida-leader-square"]},
        },
    },
    [
        {"movement": {"by": "tokugawa", "choice": "minimal"}},
        move(
            "tokugawa",
            "Kuwana",
            (["tokugawa-2", "tokugawa-3", "date-2", "date-3"], ["Kuwana", "Minakuchi"]),
        ),
    ],
    within=WEEK,
)

# Ishida attacks Tokugawa at Sawayama and wins 3-0; Ieyasu, alone after the loss, has nowhere
# safe to go (8.8.3: Ishida came from Kyoto, and holds Gifu and Tsuruga) and retreats into Gifu.
IEYASU_RETREATS = record(
    "combat_phase",
    "ishida",
    {
        "hand": {"ishida": ["ukita"], "tokugawa": []},
        "came_from": {"Sawayama": {"ishida": ["Kyoto"]}},
        "units_at": {
            "Sawayama": {"ishida": ["ukita-3"], "tokugawa": ["tokugawa-leader-square", "date-2"]},
            "Gifu": {"ishida": ["mori-2", "mori-3", "kobayakawa-2", "kobayakawa-3"]},
            "Tsuruga": {"ishida": ["uesugi-3"]},
        },
    },
    [
        {"declare": {"by": "ishida", "at": "Sawayama"}},
        deploy("ishida", ["ukita-3"], "ukita"),
        {"finish": {"by": "tokugawa"}},
        {"finish": {"by": "ishida"}},
        {"losses": {"by": "tokugawa", "blocks": ["date-2"]}},
        {"retreat": {"by": "tokugawa", "to": "Gifu"}},
    ],
    within=FIGHTS,
)

# Ieyasu stands at Osaka beside three Ishida blocks (a fight to come); one Mori block arrives.
IEYASU_AND_THE_MORI = record(
    "movement_phase",
    "ishida",
    {
        "first_player": "ishida",
        "hand": {"ishida": ["mori"]},
        "mori_box": ["mori-3-triangle", "mori-leader-triangle"],
        "units_at": {
            "Osaka": {
                "ishida": ["ukita-2", "ukita-3", "mori-2"],
                "tokugawa": ["tokugawa-leader-square"],
            }
        },
    },
    [
        {"movement": {"by": "ishida", "choice": "no_movement"}},
        {"mori": {"by": "ishida", "cards": ["mori"], "blocks": ["mori-3-triangle"]}},
    ],
    within=WEEK,
)


@pytest.mark.parametrize(
    "rec,winner",
    [
        (ISHIDA_OVERRUN_IN_MOVEMENT, "tokugawa"),  # an overrun in the movement phase
        (IEYASU_RETREATS, "ishida"),  # an overrun after a retreat
        (IEYASU_AND_THE_MORI, "ishida"),  # an overrun when a Mori block arrives
    ],
    ids=["movement", "retreat", "mori-arrival"],
)
def test_an_instant_win_from_every_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rec: dict[str, Any], winner: str
) -> None:
    v = legal(tmp_path, capsys, rec)
    assert v["summary"] == f"{winner} wins at once (2.1) in week 1"
    # what happened: the overrun, then the win, and nothing after it
    rules = [h["rule"] for h in v["happened"] if not h["rule"].endswith("/ownership")]
    assert rules[-2:] == ["7.4.2/overrun", "2.1/at-once"]
    assert v["happened"][-1]["index"] == len(rec["events"])
    after = plus(rec, {"end_movement": {"by": "ishida"}})
    first = illegal(tmp_path, capsys, after, len(rec["events"]) + 1, "2.1")
    assert first["message"] == "the game is over (2.1): no more events are allowed"


# ------------------------------------------------------------------ 7.4.1, 7.4.2, 8.10: overruns


def test_two_lone_overruns_in_one_move_draw_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.10 with S-overrun-draw: a card for every two blocks lost in *that* overrun. Four blocks
    overrun one at Minakuchi and one at Kuwana: two overruns of one, no card."""
    rec = record(
        "movement_phase",
        "ishida",
        {
            "hand": {"ishida": ["mori"]},
            "units_at": {
                "Kyoto": {"ishida": ["ishida-leader-square", "ukita-3", "mori-2", "mori-3"]},
                "Minakuchi": {"tokugawa": ["date-2"]},
                "Kuwana": {"tokugawa": ["date-3"]},
            },
        },
        [
            {"movement": {"by": "ishida", "choice": "minimal"}},
            move(
                "ishida",
                "Kyoto",
                (
                    ["ishida-leader-square", "ukita-3", "mori-2", "mori-3"],
                    ["Kyoto", "Minakuchi", "Kuwana"],
                ),
            ),
            {"end_movement": {"by": "ishida"}},
        ],
    )
    v = legal(tmp_path, capsys, rec)
    # a lone block's overrun draws nothing under either reading (the base text gives an
    # overrun no draw; the clarification 1 // 2): a verdict relies on an overlay only where
    # it decides something, so not on this one
    assert "S-overrun-draw" not in v["relied"]
    summed = copy.deepcopy(rec)
    summed["events"][2] = {"replenish": {"by": "tokugawa", "cards": ["tokugawa"]}}
    illegal(tmp_path, capsys, summed, 3, "8.10")


def retreat_into_eight(tokugawa_draws: list[str]) -> dict[str, Any]:
    """Tokugawa, beaten at Sawayama with two blocks left, can only retreat into Gifu, where
    eight Ishida blocks overrun them: Tokugawa lost two blocks in that overrun and draws one."""
    rec = copy.deepcopy(IEYASU_RETREATS)
    units = rec["position"]["state"]["units_at"]
    units["Sawayama"]["tokugawa"] = ["tokugawa-3", "date-2", "date-3"]
    units["Gifu"]["ishida"] += ["mori-2", "mori-gun", "ukita-2", "ukita-gun"]
    rec["events"][-1] = {"retreat": {"by": "tokugawa", "to": "Gifu"}}
    rec["events"] += [
        {"replenish": {"by": "tokugawa", "cards": tokugawa_draws}},  # the overrun's draw
        {"replenish": {"by": "ishida", "cards": ["ukita"]}},  # the battle's: the card played
    ]
    return rec


def test_an_overrun_a_retreat_causes_draws_its_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v = legal(tmp_path, capsys, retreat_into_eight(["tokugawa"]))
    assert v["summary"].startswith("week 1")
    first = illegal(
        tmp_path, capsys, retreat_into_eight(["tokugawa", "date"]), 7, "8.10/overrun-draw"
    )
    assert "destroyed 2 block(s)" in first["message"]


def test_a_muster_overruns_like_a_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """7.4.1 names mustering among the causes: four blocks mustered beside a fight at Himeji;
    the overrun is 7.4.2's standing rule, as for a move."""
    rec = record(
        "movement_phase",
        "ishida",
        {
            "recruits": {"ishida": ["ukita-2", "ukita-3", "ukita-gun"]},
            "units_at": {"Himeji": {"ishida": ["mori-2"], "tokugawa": ["tokugawa-2"]}},
        },
        [
            {"movement": {"by": "ishida", "choice": "minimal"}},
            {
                "muster": {
                    "by": "ishida",
                    "option": "A",
                    "to": "Himeji",
                    "blocks": ["ukita-2", "ukita-3", "ukita-gun"],
                }
            },
            {"end_movement": {"by": "ishida"}},
        ],
    )
    legal(tmp_path, capsys, rec)
    # one block short of four to one: no overrun, and the fight is still to come
    short = copy.deepcopy(rec)
    short["events"][1]["muster"]["blocks"] = ["ukita-2", "ukita-3"]
    short["position"]["within"] = WEEK
    short["position"]["state"]["first_player"] = "ishida"
    short["events"].append({"movement": {"by": "tokugawa", "choice": "minimal"}})
    illegal(tmp_path, capsys, short, 4, "8.1")


# ------------------------------------------------------------------ 8.8.5: combat a retreat begins (8.1, 8.9.1, 8.9.2, 9.1)

# Tokugawa attacks Ishida at Kyoto and loses; its two blocks go back to Osaka, where they came
# from (8.8.2) and where Ishida has only the Hideyori disk: a siege, Tokugawa attacking.
INTO_OSAKA = record(
    "combat_phase",
    "tokugawa",
    {
        "hand": {"ishida": ["ukita"], "tokugawa": ["date", "tokugawa"]},
        "came_from": {"Kyoto": {"tokugawa": ["Osaka"]}},
        "units_at": {
            "Kyoto": {"ishida": ["ukita-3"], "tokugawa": ["ii-4-star", "tokugawa-3", "date-2"]}
        },
    },
    [
        {"declare": {"by": "tokugawa", "at": "Kyoto"}},
        deploy("tokugawa", ["date-2"], "date"),
        deploy("ishida", ["ukita-3"], "ukita"),
        {"finish": {"by": "tokugawa"}},
        {"finish": {"by": "ishida"}},
        {"losses": {"by": "tokugawa", "blocks": ["date-2"]}},
        {"retreat": {"by": "tokugawa", "to": "Osaka"}},
        {"replenish": {"by": "tokugawa", "cards": ["date"]}},
        {"replenish": {"by": "ishida", "cards": ["ukita"]}},
        # the siege of Osaka the retreat began: 4 + 3 = 7 Impact, one loss: Hideyori
        deploy("tokugawa", ["ii-4-star"], "date"),
        deploy("tokugawa", ["tokugawa-3"], "tokugawa"),
        {"finish": {"by": "tokugawa"}},
        {"losses": {"by": "ishida", "blocks": [], "disk": True}},
    ],
    within=FIGHTS,
)


def test_a_retreat_into_a_lone_disk_is_a_siege_where_it_falls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v = legal(tmp_path, capsys, INTO_OSAKA)
    assert v["summary"] == "tokugawa wins at once (2.1) in week 1"
    # a siege: the defender plays no card and deploys nothing (8.9.4)
    answered = copy.deepcopy(INTO_OSAKA)
    answered["events"][9] = deploy("ishida", ["ukita-3"], "ukita")
    illegal(tmp_path, capsys, answered, 10, "8.9.4/attacker-deploys")


def ishida_wins_at_kyoto(
    ishida: list[str], tokugawa: list[str], to: str, more: dict[str, Any], hand: list[str]
) -> dict[str, Any]:
    """In Ishida's combat phase, Ishida (come from Sawayama) beats Tokugawa 3-0 at Kyoto with
    its Ukita 3; Tokugawa loses its Date 2 and retreats to ``to``; Ishida draws its card."""
    return record(
        "combat_phase",
        "ishida",
        {
            "hand": {"ishida": ["ukita"], "tokugawa": hand},
            "came_from": {"Kyoto": {"ishida": ["Sawayama"]}},
            "units_at": {"Kyoto": {"ishida": ishida, "tokugawa": tokugawa}, **more},
        },
        [
            {"declare": {"by": "ishida", "at": "Kyoto"}},
            deploy("ishida", ["ukita-3"], "ukita"),
            {"finish": {"by": "tokugawa"}},
            {"finish": {"by": "ishida"}},
            {"losses": {"by": "tokugawa", "blocks": ["date-2"]}},
            {"retreat": {"by": "tokugawa", "to": to}},
            {"replenish": {"by": "ishida", "cards": ["ukita"]}},
        ],
    )


def test_in_its_own_phase_a_side_holding_the_castle_fights_nobody(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.9.2, last paragraph, however combat begins: in Ishida's combat phase, Tokugawa
    blocks retreating into Osaka, held by the Hideyori disk alone, start no combat."""
    rec = ishida_wins_at_kyoto(
        ["ukita-3"],
        ["ii-4-star", "date-2"],
        "Osaka",
        {"Minakuchi": {"ishida": ["mori-2"]}, "Ayabe": {"ishida": ["mori-3"]}},
        [],
    )
    v = legal(tmp_path, capsys, rec)
    assert v["summary"] == "week 1"  # the phase is over: no siege now, one is due next phase
    rec["events"].append(deploy("tokugawa", ["ii-4-star"], "date"))
    illegal(tmp_path, capsys, rec, 8, "8.1")


def test_the_location_a_retreat_fought_over_is_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After the combat the retreat began at Osaka, no second combat is declared there."""
    rec = copy.deepcopy(INTO_OSAKA)
    rec["events"][10:] = [
        {"finish": {"by": "tokugawa"}},  # 4 Impact: nothing lost, the siege goes on
        {"replenish": {"by": "tokugawa", "cards": ["date"]}},
        {"declare": {"by": "tokugawa", "at": "Osaka"}},
    ]
    rec["position"].pop("within")
    # a fight still to come elsewhere keeps the combat phase going
    rec["position"]["state"]["units_at"]["Himeji"] = {
        "ishida": ["kobayakawa-2"],
        "tokugawa": ["maeda-2"],
    }
    first = illegal(tmp_path, capsys, rec, 13, "8.1/in-conflict")
    assert "Osaka holds no conflict still to be resolved" in first["message"]


def test_the_owner_chooses_inside_in_a_combat_a_retreat_begins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With one block in Osaka castle, Ishida chooses: inside, a siege (8.9.1, 8.9.2)."""
    rec = copy.deepcopy(INTO_OSAKA)
    rec["position"]["state"]["units_at"]["Osaka"] = {"ishida": ["uesugi-3"]}
    rec["events"][9:] = [
        {"stance": {"by": "ishida", "inside": True}},
        deploy("tokugawa", ["ii-4-star"], "date"),
        deploy("tokugawa", ["tokugawa-3"], "tokugawa"),
        {"finish": {"by": "tokugawa"}},
        {"losses": {"by": "ishida", "blocks": ["uesugi-3"]}},
    ]
    v = legal(tmp_path, capsys, rec)
    assert v["summary"].startswith("week 1")
    by_the_attacker = copy.deepcopy(rec)
    by_the_attacker["events"][9] = {"stance": {"by": "tokugawa", "inside": True}}
    first = illegal(tmp_path, capsys, by_the_attacker, 10, "8.9.2")
    assert "ishida's turn" in first["message"]
    # deploying before the owner has chosen: the choice is due (8.9.2)
    early = copy.deepcopy(rec)
    del early["events"][9]
    illegal(tmp_path, capsys, early, 10, "8.9.2")


def test_a_retreat_joining_a_siege_already_fought_starts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.8.5: Tokugawa besieges Ishida in Osaka and that siege was fought this phase; beaten at
    Kyoto, Tokugawa retreats to Osaka: the blocks join the besiegers, and nothing is fought."""
    rec = copy.deepcopy(INTO_OSAKA)
    st = rec["position"]["state"]
    st["units_at"]["Osaka"] = {"ishida": ["uesugi-3"], "tokugawa": ["maeda-2"]}
    st["besieged_at"] = {"Osaka": "ishida"}
    rec["position"].pop("within")
    rec["events"][:0] = [
        {"declare": {"by": "tokugawa", "at": "Osaka", "inside": True}},
        {"finish": {"by": "tokugawa"}},  # no Impact: nothing lost, the siege goes on
    ]
    rec["events"][11:] = []
    v = legal(tmp_path, capsys, rec)
    assert v["summary"] == "week 1"  # the combat phase is over: nothing is fought at Osaka


def test_a_defender_beaten_by_a_retreat_may_not_retreat_where_it_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.8.3 with where the enemy entered recorded for retreats too: Tokugawa, retreating into
    Minakuchi, attacks the Ishida block there and loses; Ishida may not retreat to Kyoto, the
    way the attacker came, while Kuwana is free."""
    rec = ishida_wins_at_kyoto(
        ["ukita-3", "ukita-2"],
        ["date-2", "date-3"],
        "Minakuchi",
        {
            "Minakuchi": {"ishida": ["kobayakawa-2", "uesugi-3"]},
            "Osaka": {"ishida": ["mori-2"]},
            "Ayabe": {"ishida": ["mori-3"]},
        },
        ["date"],
    )
    rec["events"] += [
        # the battle the retreat began: Tokugawa attacks (D-attacker-role) and wins 3-0
        deploy("tokugawa", ["date-3"], "date"),
        {"finish": {"by": "ishida"}},
        {"finish": {"by": "tokugawa"}},
        {"losses": {"by": "ishida", "blocks": ["uesugi-3"]}},
        {"retreat": {"by": "ishida", "to": "Kuwana"}},
    ]
    legal(tmp_path, capsys, rec)
    rec["events"][-1] = {"retreat": {"by": "ishida", "to": "Kyoto"}}
    first = illegal(tmp_path, capsys, rec, 12, "8.8.3/away-from-the-enemy")
    assert "[Kuwana]" in first["message"]


# ------------------------------------------------------------------ declared once, fired from everywhere


def test_each_standing_rule_fires_from_several_procedures() -> None:
    """Each rule that holds at any moment is declared once (a `whenever`) and fires from
    different procedures: the actions of the events that set it off, over the examples, the
    readers' records and the records above. Some 800 records: each judged in this process by
    the API (the verdict `referee check` prints, without a command line, a YAML file written
    and read again and a JSON output each), the files read by libyaml."""
    import yaml

    import referee
    from tests.referee_helpers import EXAMPLES

    root = EXAMPLES.parent
    records: list[dict[str, Any]] = [
        yaml.load(p.read_text(), Loader=yaml.CSafeLoader)
        for p in sorted(EXAMPLES.glob("*.yaml"))
        + sorted((root / "tests" / "readings").rglob("*.yaml"))
    ]
    records += [ISHIDA_OVERRUN_IN_MOVEMENT, IEYASU_RETREATS, IEYASU_AND_THE_MORI, INTO_OSAKA]
    records.append(retreat_into_eight(["tokugawa"]))
    actions: dict[str, set[str]] = {}
    for rec in records:
        try:
            fired = referee.check(rec).fired
        except referee.RecordError:  # bad input (exit 2): a reading of a refused record
            continue
        for h in fired:
            if h.event:
                (action,) = (k for k in rec["events"][h.event - 1] if k != "expect")
                actions.setdefault(h.rule, set()).add(action)
    assert actions["2.1/at-once"] >= {"move", "retreat", "mori", "losses"}
    assert actions["7.4.2/overrun"] >= {"move", "retreat", "mori", "muster", "declare"}
    # a combat a retreat begins starts once the battle's draws are done (8.10): the last draw
    # sets the Mori box off
    assert actions["9.3/join-the-defence"] >= {"declare", "replenish"}
    assert actions["4.3/ownership"] >= {"move", "losses"}  # a move in, a siege won
    assert len(actions["8.9.6/siege-ends"]) >= 2, actions["8.9.6/siege-ends"]
