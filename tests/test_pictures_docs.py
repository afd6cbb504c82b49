"""The pictures of docs/pictures/ (one of each kind: a move, a battle, a siege, an overrun, a
retreat, the end, and a Fierce Battle move on its hex board) are what `referee show` draws, and
each shows what it is there for; Fierce Battle's hex board is drawn from its scenario's data."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from referee.cli import main
from tests.referee_helpers import ROOT

NS = {"s": "http://www.w3.org/2000/svg"}
PICTURES = ROOT / "docs" / "pictures"

# the picture, and the command's arguments that draw it (as docs/pictures.md lists them)
KINDS = {
    "move": ["examples/movement-example.yaml", "--after", "2"],
    "battle": ["examples/combat-example.yaml", "--after", "11"],
    "siege": ["examples/siege-of-osaka.yaml", "--after", "5"],
    "overrun": ["examples/disputes/kuwana-overrun.yaml", "--at", "1"],
    "retreat": ["examples/combat-example.yaml", "--after", "14"],
    "end": ["examples/instant-victory.yaml"],
    "hex-move": ["examples/fierce-battle/first-turn.yaml", "--after", "1"],
}


def draw(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    assert main(["show", *args, "--format", "svg"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_documented_picture_is_what_the_command_draws(
    kind: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    out = draw(capsys, KINDS[kind])
    assert (PICTURES / f"{kind}.svg").read_text() == out, (
        f"regenerate: referee show {' '.join(KINDS[kind])} --format svg > docs/pictures/{kind}.svg"
    )


def _root(kind: str) -> ET.Element:
    return ET.parse(PICTURES / f"{kind}.svg").getroot()


def _all(root: ET.Element, path: str) -> list[ET.Element]:
    return root.findall(path, NS)


def test_each_picture_shows_its_kind() -> None:
    move = _root("move")
    assert [
        (e.get("data-from"), e.get("data-to"))
        for e in _all(move, ".//s:line")
        if e.get("class") == "segment"
    ] == [("Osaka", "Kyoto"), ("Kyoto", "Minakuchi")]
    battle = _all(_root("battle"), ".//s:g[@class='told']")
    assert [(g.get("data-label"), g.get("data-location")) for g in battle] == [
        ("battle", "Sawayama")
    ]
    siege = _all(_root("siege"), ".//s:g[@class='siege']")
    assert [g.get("data-location") for g in siege] == ["Osaka"]
    assert "ishida besieged" in "".join(siege[0].find("s:title", NS).itertext())  # type: ignore[union-attr]
    overrun = _all(_root("overrun"), ".//s:g[@class='told']")
    assert [(g.get("data-label"), g.get("data-location")) for g in overrun] == [
        ("overrun", "Kuwana")
    ]
    retreat = {
        (g.get("data-location"), g.get("data-side")): g.get("data-count")
        for g in _all(_root("retreat"), ".//s:g[@class='unit']")
    }
    assert retreat == {("Sawayama", "tokugawa"): "5", ("Kyoto", "ishida"): "5"}
    end = "".join(_all(_root("end"), ".//s:text[@class='heading']")[0].itertext())
    assert ": the position after event 9 of 9: " in end


def test_fierce_battle_s_hex_board_is_its_scenario_s() -> None:
    root = _root("hex-move")
    assert root.get("data-board") == "hex"
    hexes = {g.get("data-name"): g.get("data-terrain") for g in _all(root, ".//s:g[@class='hex']")}
    assert len(hexes) == 48 and hexes["0404"] == "pond" and hexes["0701"] == "mountain"
    rivers = {
        (e.get("data-from"), e.get("data-to")) for e in _all(root, ".//s:line[@class='hexside']")
    }
    assert rivers == {("0405", "0505"), ("0405", "0506"), ("0406", "0506")}
    marks = {
        "".join(g.find("s:text", NS).itertext()): g.get("data-location")  # type: ignore[union-attr]
        for g in _all(root, ".//s:g[@class='hex-mark']")
    }
    assert marks == {"PAL": "0603", "EXIT": "0106"}
    pieces = {
        g.get("data-name"): (g.get("data-location"), g.get("data-side"))
        for g in _all(root, ".//s:g[@class='unit piece']")
    }
    # the first move, 0203 to 0503, is drawn; the unit stands where it stopped
    assert len(pieces) == 15 and pieces["tokugawa_ashigaru_1"] == ("0503", "east")
    counter = next(
        g
        for g in _all(root, ".//s:g[@class='unit piece']")
        if g.get("data-name") == "tokugawa_ashigaru_1"
    )
    assert [("".join(t.itertext())) for t in counter.findall("s:text", NS)] == [
        "E ashigaru",
        "4-3-4",
    ]
    neutral = [
        g
        for g in _all(root, ".//s:g[@class='unit piece']")
        if g.find("s:rect", NS).get("stroke-dasharray")
    ]  # type: ignore[union-attr]
    assert sorted(g.get("data-name") or "" for g in neutral) == [
        "kobayakawa_ashigaru_1",
        "kobayakawa_taisho",
        "shimazu_ashigaru_1",
    ]
    # the zones of control, hidden until asked for: the East's unit at 0503 stands in the
    # zones of the West's units at 0602, 0603 and 0604
    zones = _all(root, ".//s:g[@class='zones']")
    assert len(zones) == 1 and zones[0].get("display") == "none"
    east = next(g for g in _all(zones[0], "s:g") if g.get("data-side") == "east")
    cells = {p.get("data-location") for p in east.findall("s:polygon", NS)}
    assert "0503" in cells and "0103" not in cells and "0404" not in cells  # a pond: no zone


def test_a_retreat_on_the_hex_board_is_drawn_as_a_path(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # event 5: the West fires, the target retreats one hex; the display names both the
    # move's field and the retreat's as paths
    monkeypatch.chdir(ROOT)
    root = ET.fromstring(draw(capsys, ["examples/fierce-battle/first-turn.yaml", "--at", "5"]))
    segments = [
        (e.get("data-from"), e.get("data-to")) for e in _all(root, ".//s:line[@class='segment']")
    ]
    assert segments == [("0502", "0402")]
