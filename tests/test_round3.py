"""Issue 27, Sekigahara: what records can now say (written in the table notation, judged by the
clause that forbids it), the decisions its verdicts rely on, and chapter 9 under the first
printing. The records of each item, legal and illegal, are the readings r7-round3."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tests.referee_helpers import ROOT, verdict_of

ROUND3 = ROOT / "tests" / "readings" / "r7-round3"

MOVING = """game: sekigahara
position:
  procedure: movement_phase
  args: {active: ishida}
  state:
    hand:
      ishida: [ukita, mori, uesugi]
    units_at:
      Himeji: {ishida: [ukita-2, ukita-3, mori-2, mori-3]}
I movement minimal
"""
LEADER = """game: sekigahara
position:
  procedure: movement_phase
  args: {active: ishida}
  state:
    units_at:
      Himeji: {ishida: [ukita-leader-square, ukita-cavalry]}
I movement minimal
"""
BATTLE = """game: sekigahara
position:
  procedure: combat_phase
  args: {active: ishida}
  state:
    hand:
      ishida: [ukita, mori]
      tokugawa: [tokugawa, date]
    units_at:
      Sawayama: {ishida: [ukita-2, ukita-3, mori-2], tokugawa: [tokugawa-3, date-2]}
I declare Sawayama
I deploy ukita-2 ukita
T deploy tokugawa-3 tokugawa
I finish
T finish
I losses ukita-2
"""
CHALLENGE = """game: sekigahara
position:
  procedure: combat_phase
  args: {active: ishida}
  state:
    hand:
      ishida: [ukita-double, uesugi, mori]
      tokugawa: [maeda-swords, tokugawa, tokugawa-loyalty]
    units_at:
      Sawayama:
        ishida: [mori-leader-triangle, ukita-2, ukita-2-square, uesugi-gun]
        tokugawa: [maeda-cavalry, tokugawa-3, date-2]
I declare Sawayama
I deploy mori-leader-triangle
T deploy maeda-cavalry maeda-swords
I deploy ukita-2,ukita-2-square ukita-double
T deploy tokugawa-3 tokugawa
I deploy uesugi-gun uesugi
"""
CASTLE = """game: sekigahara
position:
  procedure: combat_phase
  args: {active: tokugawa}
  state:
    castle_owner: {Gifu: ishida}
    units_at:
      Gifu: {ishida: [ukita-2, ukita-3], tokugawa: [tokugawa-3, date-2]}
"""
# Ishida, beaten at Kuwana, retreats into Anotsu, whose castle Tokugawa holds with two blocks:
# the combat the retreat begins is Tokugawa's to declare inside or out (8.8.5, 8.9.2).
RETREAT = """game: sekigahara
position:
  procedure: combat_phase
  args: {active: tokugawa}
  state:
    hand:
      tokugawa: [tokugawa, date]
      ishida: [ukita, mori]
    came_from:
      Kuwana: {tokugawa: [Kiyosu, Minakuchi]}
    units_at:
      Anotsu: {tokugawa: [maeda-2, maeda-3]}
      Kuwana: {ishida: [ukita-2, mori-2, uesugi-3], tokugawa: [tokugawa-3, tokugawa-2]}
T declare Kuwana
T deploy tokugawa-3 tokugawa
I deploy ukita-2 ukita
I finish
T finish
I losses ukita-2
I retreat Anotsu
T replenish tokugawa
I replenish ukita
"""
SETUP = """game: sekigahara
T deal tokugawa*2,fukushima,maeda,date
I deal mori*2,ukita,kobayakawa,uesugi
setup: printed
"""

# What a player did at the table, in the notation: the line, and what the referee says of it
# (the clause and label, at that event; "" for legal).
SAID = [
    (
        "a force march for groups that move together",
        MOVING + "I move Himeji ukita-2,ukita-3 Himeji,Ayabe,Miyazu fm:mori"
        " | mori-2,mori-3 Himeji,Ayabe,Miyazu\n",
        "",
    ),
    (
        "two force marches for blocks that move together",
        MOVING + "I move Himeji ukita-2,ukita-3 Himeji,Ayabe,Miyazu fm:mori"
        " | mori-2,mori-3 Himeji,Ayabe,Miyazu fm:uesugi\n",
        "7.3.3/one-force-march",
    ),
    (
        "a leader's bonus used undeclared",
        LEADER + "I move Himeji ukita-leader-square,ukita-cavalry Himeji,Ayabe,Kyoto\n",
        "7.3.4/leader-declared",
    ),
    (
        "the leader declared",
        LEADER + "I move Himeji ukita-leader-square,ukita-cavalry Himeji,Ayabe,Kyoto"
        " leadership:leader\n",
        "",
    ),
    (
        "a challenge against an earlier deployment",
        CHALLENGE + "T challenge tokugawa-loyalty against:ukita-2,ukita-2-square\n",
        "8.6.1/right-after",
    ),
    (
        "a challenge against the deployment just made",
        CHALLENGE + "T challenge tokugawa-loyalty against:uesugi-gun\n",
        "",
    ),
    (
        "a retreat split in two",
        BATTLE + "I retreat Kyoto elsewhere:(mori-2 Gifu)\n",
        "8.8.1/one-destination",
    ),
    (
        "the attacker into the Mori box",
        BATTLE + 'I retreat ib:"Mori box"\n',
        "8.8.2/never-to-a-box",
    ),
    ("a retreat together", BATTLE + "I retreat Kyoto\n", ""),
    ("one block inside, one out", CASTLE + "T declare Gifu ic:ukita-2\n", "8.9.2/all-or-none"),
    ("the attacker inside", CASTLE + "T declare Gifu ic:tokugawa-3,date-2\n", "8.9.1/owner-only"),
    ("the owner's force inside", CASTLE + "T declare Gifu ic:ukita-2,ukita-3\n", ""),
    # the same, in a combat a retreat began
    ("one block inside after a retreat", RETREAT + "T stance ic:maeda-2\n", "8.9.2/all-or-none"),
    ("the retreating side inside", RETREAT + "T stance ic:mori-2\n", "8.9.1/owner-only"),
    ("the owner's force inside after a retreat", RETREAT + "T stance ic:maeda-2,maeda-3\n", ""),
    (
        "drawn before naming",
        SETUP + "T place_random Anotsu maeda-3 nf:false\n",
        "5.2.2/named-first",
    ),
    ("named, then drawn", SETUP + "T place_random Anotsu maeda-3\n", ""),
]


def check(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *options: str) -> Any:
    path = tmp_path / "game.rec"
    path.write_text(text)
    code = main(["check", str(path), "--format", "json", *options])
    v = verdict_of(capsys.readouterr().out)
    assert code in (0, 1), v
    return v


@pytest.mark.parametrize("what,text,cites", SAID, ids=[s[0] for s in SAID])
def test_what_a_record_can_say_is_judged_by_its_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, text: str, cites: str
) -> None:
    v = check(tmp_path, capsys, text)
    if not cites:
        assert v["legal"], v["violations"]
        return
    first = v["violations"][0]
    # the last event, the one said
    assert (first["cites"], first["index"]) == (cites, v["events"]), first["message"]


def judged(capsys: pytest.CaptureFixture[str], name: str, *options: str) -> Any:
    code = main(["check", str(ROUND3 / name), "--format", "json", *options])
    v = verdict_of(capsys.readouterr().out)
    assert code == (0 if v["legal"] else 1)
    return v


def test_the_decisions_are_named_where_the_verdicts_rely_on_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the second group marches on the first's card: D-march-together decides it
    assert "D-march-together" in judged(capsys, "01-force-march-serves-twin-groups.yaml")["relied"]
    v = judged(capsys, "04-two-force-marches-for-one-group.yaml")
    assert "D-march-together" in v["relied"]
    assert "2 force marches for them ([mori, uesugi])" in v["violations"][0]["message"]
    # a move that needs no leader relies on no reading of 7.3.4's declaration
    assert "D-leader-declared" in judged(capsys, "22-leader-used-undeclared.yaml")["relied"]
    assert "D-leader-declared" not in judged(capsys, "23-leader-declared.yaml")["relied"]
    assert (
        "D-leader-declared" not in judged(capsys, "18-block-beside-the-muster-moves.yaml")["relied"]
    )
    # chapter 9 under the first printing names the decision that reads it, and a verdict
    # that applies no rule of chapter 9 does not
    for name in ("06-2011-hideyori-before-the-blocks.yaml", "08-2011-mori-sacrifice.yaml"):
        assert "D-2011-chapter-9" in judged(capsys, name)["relied"]
    for name in ("03-groups-that-part-march-apart.yaml", "14-double-turns-though-refutable.yaml"):
        v = judged(capsys, name, "--printing", "gmt-2011")
        assert not v["legal"] and "D-2011-chapter-9" not in v["relied"]
    v = judged(capsys, "../p15/07-mori-join-then-move.yaml", "--printing", "gmt-2011")
    assert v["violations"][0]["cites"] == "9.3/not-on-arrival-turn"
    assert "D-2011-chapter-9" in v["relied"]


def test_the_clause_list_and_the_verdicts_agree_on_chapter_9_in_2011(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["explain", "gmt-2011", "--format", "json"]) == 0
    out = verdict_of(capsys.readouterr().out)
    assert out["clauses_not_carried"] == []
    assert "D-2011-chapter-9" in [o["id"] for o in out["overlays"]]


def test_the_mori_arrivals_are_free_again_next_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Mori box emptied into Osaka in turn A stays there for Ishida's turn-A movement, and
    moves in turn B: the marks of arrival last a turn (6.4's turn begins afresh)."""
    text = (ROUND3 / "05-mori-defenders-stay-others-move.yaml").read_text()
    text = text.replace(
        "        - {blocks: [mori-2], path: [Osaka, Kyoto]}\n"
        "    expect:\n"
        "      units_at(Kyoto, ishida): [mori-2]\n",
        "        - {blocks: [mori-2], path: [Osaka, Kyoto]}\n"
        "  - end_movement: {by: ishida}\n"
        "  - movement: {by: tokugawa, choice: minimal}\n"
        "  - end_movement: {by: tokugawa}\n"
        "  - movement: {by: ishida, choice: minimal}\n"
        "  - move:\n"
        "      by: ishida\n"
        "      from: Osaka\n"
        "      groups: [{blocks: [mori-3-triangle], path: [Osaka, Wakayama]}]\n"
        "    expect:\n"
        "      current_turn: B\n"
        "      units_at(Wakayama, ishida): [mori-3-triangle]\n",
    )
    assert "current_turn: B" in text
    path = tmp_path / "r.yaml"
    path.write_text(text)
    assert main(["check", str(path), "--format", "json"]) == 0, capsys.readouterr().out
