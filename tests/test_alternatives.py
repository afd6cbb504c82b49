"""What the actor of a refused event could have done instead (`alternatives` in the spec,
referee/run/alternatives.py): the legal alternatives of records in examples/illegal/,
worked out from the rulebook and the map, exactly."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from referee.run import alternatives
from tests.referee_helpers import EXAMPLES, ROOT, judge

ILLEGAL = EXAMPLES / "illegal"
MAP = yaml.safe_load((ROOT / "referee" / "games" / "sekigahara" / "data" / "map.yaml").read_text())


def neighbours(place: str) -> list[str]:
    """The map's road neighbours of a location, read from map.yaml."""
    return [s["b"] for s in MAP["segments"] if s["a"] == place] + [
        s["a"] for s in MAP["segments"] if s["b"] == place
    ]


def highway(a: str, b: str) -> bool:
    return any({s["a"], s["b"]} == {a, b} and s["highway"] is not None for s in MAP["segments"])


def record(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ILLEGAL / name).read_text())
    return data


def refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rec: dict[str, Any], *options: str
) -> dict[str, Any]:
    code, v = judge(tmp_path, capsys, rec, *options)
    assert code == 1, v
    first: dict[str, Any] = v["violations"][0]
    return first


def texts(violation: dict[str, Any]) -> list[str]:
    return [a["text"] for a in violation["alternatives"]]


def assert_each_is_legal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rec: dict[str, Any], v: dict[str, Any]
) -> None:
    """Every alternative offered, written into the record in place of the refused event,
    is judged legal there."""
    index = v["index"]
    ((action, given),) = ((k, x) for k, x in rec["events"][index - 1].items() if k != "expect")
    for alt in v["alternatives"]:
        changed = copy.deepcopy(rec)
        changed["events"] = changed["events"][: index - 1] + [
            {action: {"by": given["by"], **alt["args"]}}
        ]
        code, verdict = judge(tmp_path, capsys, changed)
        assert code == 0, (alt["text"], verdict["violations"])


def test_a_move_too_far_offers_every_place_the_stack_could_reach(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Five blocks leave Osaka, which they hold (leadership): allowance 1 + 1 (highway) + 1
    (leadership) - 1 (five blocks) = 2 along highways only, else 1 (7.3.3, 7.3.5). From
    Osaka: Kyoto, Himeji and Wakayama one step away; two steps only along highways, through
    Kyoto (the only highway out of Osaka) to Minakuchi (Tokaido) and Sawayama (Nakasendo);
    Ayabe from Kyoto and Tanabe from Wakayama are off the highways."""
    rec = record("movement-too-far.yaml")
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "7.3.3/within-allowance"
    assert texts(v) == [
        "Kyoto by [Osaka, Kyoto]",
        "Wakayama by [Osaka, Wakayama]",
        "Himeji by [Osaka, Himeji]",
        "Minakuchi by [Osaka, Kyoto, Minakuchi]",
        "Sawayama by [Osaka, Kyoto, Sawayama]",
    ]
    # the same, from the map: one step anywhere, two only along highways
    one = [[n] for n in neighbours("Osaka")]
    two = [[a, b] for a in neighbours("Osaka") for b in neighbours(a) if b != "Osaka"]
    legal = one + [p for p in two if highway("Osaka", p[0]) and highway(*p)]
    assert sorted(t.split(" by ")[0] for t in texts(v)) == sorted(p[-1] for p in legal)
    # every path of one or two steps was tried: the most this stack could move is two
    assert v["alternatives_note"] == f"5 legal of {len(one) + len(two)} tried"
    moving = ["ukita-2", "ukita-3", "mori-2", "mori-3", "kobayakawa-2"]
    assert v["alternatives"][0]["args"] == {
        "from": "Osaka",
        "groups": [{"blocks": moving, "path": ["Osaka", "Kyoto"]}],
    }
    assert all(a["changing"] == ["groups"] and a["left_out"] == [] for a in v["alternatives"])
    assert_each_is_legal(tmp_path, capsys, rec, v)


def test_the_text_verdict_says_what_could_have_been_done(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", str(ILLEGAL / "movement-too-far.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index("  could have (5 legal of 8 tried):")
    assert out[at + 1] == (
        "    changing groups: Kyoto by [Osaka, Kyoto]; Wakayama by [Osaka, Wakayama];"
        " Himeji by [Osaka, Himeji]; Minakuchi by [Osaka, Kyoto, Minakuchi];"
        " Sawayama by [Osaka, Kyoto, Sawayama]"
    )
    assert out[at + 2].startswith("  before that event: ")
    assert out[at - 1] == (  # under the numbers
        "    allowance(all_highway: true, leadership: true, force_march: false, largest_group: 5)"
        " = 2  (7.3.3)"
    )


def test_with_all_the_alternatives_are_those_of_the_position_before_the_event(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--all applies the refused move's effects (the stack stands at Kuwana afterwards); the
    alternatives are still tried from Osaka, before them."""
    rec = record("movement-too-far.yaml")
    alone = refused(tmp_path, capsys, rec)
    rec["events"].append(
        {
            "move": {
                "by": "ishida",
                "from": "Kuwana",
                "groups": [{"blocks": ["ukita-2"], "path": ["Kuwana", "Minakuchi"]}],
            }
        }
    )
    code, v = judge(tmp_path, capsys, rec, "--all")
    assert code == 1
    first, second, third = v["violations"]
    assert first["alternatives"] == alone["alternatives"]
    assert first["alternatives_note"] == alone["alternatives_note"]
    # the blocks moved to Kuwana: they cannot move again (7.3.1), wherever they might go
    assert (second["index"], second["cites"]) == (3, "7.3.1/available")
    assert second["alternatives"] == []
    assert second["alternatives_note"].startswith("0 legal of ")
    # the event's other broken condition: the alternatives are said once, with the first
    assert (third["index"], third["cites"]) == (3, "7.3.1/segment-once")
    assert (third["alternatives"], third["alternatives_note"]) == ([], "")


def test_the_candidates_tried_are_bounded_and_the_verdict_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(alternatives, "MAX_TRIED", 3)
    v = refused(tmp_path, capsys, record("movement-too-far.yaml"))
    # the first three the spec lists are the one-step moves, all legal
    assert texts(v) == [
        "Kyoto by [Osaka, Kyoto]",
        "Wakayama by [Osaka, Wakayama]",
        "Himeji by [Osaka, Himeji]",
    ]
    assert v["alternatives_note"] == "3 legal of the first 3 tried; the spec lists 8"


def test_a_card_that_shows_another_mon_offers_the_cards_and_blocks_that_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.2.2: the Date card cannot deploy tokugawa-3. Of Tokugawa's hand (date, tokugawa,
    maeda, fukushima-swords) only the Tokugawa card shows its mon, and a non-leader never
    deploys without a card (8.2.4); the Date card deploys date-3, and the Ii block, which
    takes any card."""
    rec = record("deploy-foreign-mon.yaml")
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "8.2.2/matching-mon"
    by_change = {(tuple(a["changing"]), a["text"]) for a in v["alternatives"]}
    assert by_change == {
        (("card",), "tokugawa"),
        (("blocks",), "[date-3]"),
        (("blocks",), "[ii-4-star]"),
    }
    assert v["alternatives"][0]["args"] == {"blocks": ["tokugawa-3"], "card": "tokugawa"}
    # tried: the three other cards, no card at all, and the two other undeployed blocks
    assert v["alternatives_note"] == "3 legal of 6 tried"
    assert_each_is_legal(tmp_path, capsys, rec, v)
    assert main(["check", str(ILLEGAL / "deploy-foreign-mon.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index("  could have (3 legal of 6 tried):")
    assert out[at + 1 : at + 3] == [
        "    changing card: tokugawa",
        "    changing blocks: [date-3], [ii-4-star]",
    ]


def test_a_retreat_to_nowhere_offers_every_way_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ishida defended Gifu and lost; two blocks stay in the castle and uesugi-3 must go
    somewhere (8.8.4). A defender retreats where no enemy stands and whence none came
    (8.8.3): Tokugawa was at Gifu from the start, so every road out of Gifu will do."""
    rec = record("rest-retreat-nowhere.yaml")
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "8.8.4/rest-retreat"
    assert sorted(neighbours("Gifu")) == ["Iwamura", "Kiyosu", "Sawayama"]
    assert sorted(texts(v)) == sorted(neighbours("Gifu"))
    assert all(a["args"]["into_castle"] == ["mori-2", "mori-3"] for a in v["alternatives"])
    assert v["alternatives_note"] == "3 legal of 3 tried"
    assert_each_is_legal(tmp_path, capsys, rec, v)


def test_losses_from_outside_the_castle_offer_the_block_inside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A siege of Osaka: 7 Impact (ii-4-star 4, tokugawa-3 3) take one loss from inside
    (8.9.4). Ishida has ukita-2 inside, and Hideyori's disk, which goes last (9.1)."""
    rec = record("siege-loss-from-outside.yaml")
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "8.9.4/from-the-castle"
    assert [a["args"] for a in v["alternatives"]] == [{"blocks": ["ukita-2"]}]
    assert v["alternatives_note"] == "1 legal of 2 tried"  # the disk was tried, and refused
    assert_each_is_legal(tmp_path, capsys, rec, v)


def test_losses_out_of_order_offer_the_deployed_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The battle of rest-retreat-nowhere.yaml: Tokugawa's 6 Impact (tokugawa-3 and date-3)
    take nothing by themselves; Ishida lost, so it loses one block (8.7.1), and a deployed
    block goes before undeployed ones (8.7.2): ukita-2, the only one it deployed."""
    rec = record("rest-retreat-nowhere.yaml")
    rec["events"][6] = {"losses": {"by": "ishida", "blocks": ["mori-2"]}}
    v = refused(tmp_path, capsys, rec)
    assert (v["index"], v["cites"]) == (7, "8.7.2/loss-order")
    assert [a["args"] for a in v["alternatives"]] == [{"blocks": ["ukita-2"]}]
    # the set in order, then its block changed for each other (mori-2 is the refused event)
    assert v["alternatives_note"] == "1 legal of 3 tried"
    assert_each_is_legal(tmp_path, capsys, rec, v)


def test_a_muster_at_a_foreign_mon_offers_the_places_it_could_go(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Option A shows mori-3 at a location with the Mori mon: of Ishida's (gold) recruitment
    locations, only Himeji has it. Option B takes one block unseen to any gold recruitment
    location free of the enemy: Aizu, Himeji or Osaka (7.2)."""
    gold = [
        p["name"]
        for p in MAP["locations"]
        if any(r["colour"] == "gold" for r in p.get("recruitment") or [])
    ]
    mori = [
        p["name"]
        for p in MAP["locations"]
        if any(r == {"clan": "Mori", "colour": "gold"} for r in p.get("recruitment") or [])
    ]
    assert (sorted(gold), mori) == (["Aizu", "Himeji", "Osaka"], ["Himeji"])
    rec = record("muster-wrong-mon.yaml")
    v = refused(tmp_path, capsys, rec)
    shown = {(a["args"]["option"], a["args"]["to"]) for a in v["alternatives"]}
    assert shown == {("A", t) for t in mori} | {("B", t) for t in gold}
    assert_each_is_legal(tmp_path, capsys, rec, v)


def test_inside_a_castle_with_three_blocks_offers_the_same_declaration_without_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """8.9.2: three blocks cannot stay inside; the only combat to declare is the same one,
    outside. The alternative leaves `inside` out, so the text says so."""
    rec = record("three-inside-a-castle.yaml")
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "8.9.2/more-than-two-outside"
    (alt,) = v["alternatives"]
    assert (alt["changing"], alt["left_out"], alt["text"]) == ([], ["inside"], "the rest as given")
    assert main(["check", str(ILLEGAL / "three-inside-a-castle.yaml")]) == 1
    assert "    without inside: the rest as given" in capsys.readouterr().out.splitlines()


def test_no_legal_alternative_is_said_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """7.3.1 (D-stack-once): the blocks Osaka's stack left behind cannot move at all this
    phase, wherever they would go."""
    v = refused(tmp_path, capsys, record("stack-moved-twice.yaml"))
    assert v["cites"] == "7.3.1/one-move-a-stack"
    assert v["alternatives"] == []
    assert v["alternatives_note"].startswith("0 legal of ")
    assert main(["check", str(ILLEGAL / "stack-moved-twice.yaml")]) == 1
    out = capsys.readouterr().out
    assert "  could have: no alternative the spec lists is legal (0 legal of " in out


def test_an_action_without_alternatives_offers_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cycle` lists no alternatives in the spec: the verdict says nothing of them."""
    v = refused(tmp_path, capsys, record("cycle-twice.yaml"))
    assert v["cites"] == "7.1/cycle-once"
    assert (v["alternatives"], v["alternatives_note"]) == ([], "")
    assert main(["check", str(ILLEGAL / "cycle-twice.yaml")]) == 1
    assert "could have" not in capsys.readouterr().out


def test_an_event_out_of_sequence_offers_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not allowed at all (6.4, out of turn): the message names what is allowed."""
    v = refused(tmp_path, capsys, record("out-of-turn.yaml"))
    assert v["cites"] == "6.4"
    assert (v["alternatives"], v["alternatives_note"]) == ([], "")


def test_alternatives_naming_no_argument_are_a_spec_error(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        'game g "G"\nprinting p "P" base\n'
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n'
        "      allow go(n: int) alternatives [{m: n + 1}]\n"
        "    end\n  end\nend\n"
    )
    game = mini_game(text)
    assert main(["spec", "check", "--spec", str(game)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith(":6:42: unknown argument of go 'm' [clause 1.1]")


def test_alternatives_are_a_list(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        'game g "G"\nprinting p "P" base\n'
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n'
        "      allow go(n: int) alternatives n + 1\n"
        "    end\n  end\nend\n"
    )
    game = mini_game(text)
    assert main(["spec", "check", "--spec", str(game)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].endswith(":6:37: alternatives are a list, not int [clause 1.1]")


def test_an_action_with_alternatives_cannot_name_a_parameter_shown(
    mini_game: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        'game g "G"\nprinting p "P" base\n'
        'clause 1.1 "One"\n  procedure p "P"\n    step a\n'
        '      allow go(shown: int) alternatives [{shown: "one"}]\n'
        "    end\n  end\nend\n"
    )
    game = mini_game(text)
    assert main(["spec", "check", "--spec", str(game)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "an action with alternatives cannot have a parameter named 'shown'" in err[0]


# ------------------------------------------------- issue 30: suggestions that do not mislead


def test_a_wrong_impact_is_answered_with_the_right_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Mori gun with the Mori swords card scores 6 (mon 1, +1 for the Mori leader before
    it, 8.3.3, +4 special attack, 8.4.1); the record says 5 with a bonus of 0. The first
    alternative is the same deployment with the numbers the rules count; an alternative
    card is offered with its own numbers (the plain Mori card: no special attack, 2)."""
    rec = record("impact-bonus-forgotten.yaml")
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "8.3.3/bonus-as-recorded"
    right, other = v["alternatives"]
    assert right["args"] == {
        "blocks": ["mori-gun"],
        "card": "mori-swords",
        "impact": 6,
        "mon": 1,
        "daimyo_bonus": 1,
        "special_bonus": 4,
    }
    assert (right["changing"], right["left_out"], right["text"]) == (
        ["impact", "daimyo_bonus"],
        [],
        "impact 6 daimyo_bonus 1",
    )
    assert other["args"] == {**right["args"], "card": "mori", "impact": 2, "special_bonus": 0}
    # tried: the event with its numbers left out, then the spec's four (other cards, blocks)
    assert v["alternatives_note"] == "2 legal of 6 tried"
    assert_each_is_legal(tmp_path, capsys, rec, v)
    assert main(["check", str(ILLEGAL / "impact-bonus-forgotten.yaml")]) == 1
    out = capsys.readouterr().out.splitlines()
    at = out.index("  could have (2 legal of 6 tried):")
    assert out[at + 1] == "    changing impact, daimyo_bonus: impact 6 daimyo_bonus 1"


def test_an_impact_alone_wrong_names_the_impact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = record("impact-bonus-forgotten.yaml")
    rec["events"][-1]["deploy"] = {
        "by": "ishida",
        "card": "mori-swords",
        "blocks": ["mori-gun"],
        "impact": 7,
    }
    rec["events"][-1]["expect"] = {"illegal": "8.3.1/impact-as-recorded"}
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "8.3.1/impact-as-recorded"
    first = v["alternatives"][0]
    assert first["args"] == {"blocks": ["mori-gun"], "card": "mori-swords", "impact": 6}
    assert (first["changing"], first["text"]) == (["impact"], "6")
    assert_each_is_legal(tmp_path, capsys, rec, v)


THREE_INTO_THE_CASTLE = ROOT / "tests" / "readings" / "r8-ch8" / "37-three-into-the-castle.yaml"


def test_when_no_listed_alternative_is_legal_a_variant_is_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ishida, beaten at Gifu, leaves three blocks in the castle, which takes two (8.8.4).
    The spec lists the roads out with the same three inside: none is legal. Leaving two of
    them inside and retreating the third is: to Iwamura or Sawayama, not to Kiyosu, whence
    Tokugawa came (8.8.3)."""
    rec: dict[str, Any] = yaml.safe_load(THREE_INTO_THE_CASTLE.read_text())
    v = refused(tmp_path, capsys, rec)
    assert v["cites"] == "8.8.4/castle-refuge"
    assert sorted(neighbours("Gifu")) == ["Iwamura", "Kiyosu", "Sawayama"]
    inside = ["ukita-3", "mori-3", "mori-2"]
    pairs = [[b for b in inside if b != left] for left in inside]
    assert [a["args"] for a in v["alternatives"]] == [
        {"to": to, "into_castle": pair} for to in ("Iwamura", "Sawayama") for pair in pairs
    ]
    assert {tuple(a["changing"]) for a in v["alternatives"]} == {("to", "into_castle")}
    # three listed (each road out, the three inside), then each of them and the event itself
    # with one block fewer inside: 4 x 3
    assert v["alternatives_note"] == (
        "0 legal of 3 tried, and 6 of 12 variants of them (a list argument one item shorter)"
    )
    assert_each_is_legal(tmp_path, capsys, rec, v)
    assert main(["check", str(THREE_INTO_THE_CASTLE)]) == 1
    out = capsys.readouterr().out
    assert (
        "  could have (0 legal of 3 tried, and 6 of 12 variants of them"
        " (a list argument one item shorter)):\n"
        "    changing to, into_castle: to Iwamura into_castle [mori-3, mori-2];"
    ) in out


def test_when_nothing_tried_is_legal_the_verdict_does_not_say_nothing_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v = refused(tmp_path, capsys, record("stack-moved-twice.yaml"))
    assert v["alternatives"] == []
    # the 16 moves listed, and their one variant: no group at all
    assert v["alternatives_note"] == (
        "0 legal of 16 tried, and 0 of 1 variants of them (a list argument one item shorter)"
    )
    assert main(["check", str(ILLEGAL / "stack-moved-twice.yaml")]) == 1
    assert (
        "  could have: no alternative the spec lists is legal (0 legal of 16 tried, and 0 of 1"
        " variants of them (a list argument one item shorter)); another event may be\n"
    ) in capsys.readouterr().out


def test_the_variants_tried_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(alternatives, "MAX_VARIANTS", 2)
    rec: dict[str, Any] = yaml.safe_load(THREE_INTO_THE_CASTLE.read_text())
    v = refused(tmp_path, capsys, rec)
    # the event itself with one block fewer inside and the rest to nowhere: refused (8.8.4)
    assert v["alternatives"] == []
    assert v["alternatives_note"].endswith(
        ", and 0 of 2 variants of them (a list argument one item shorter)"
    )
