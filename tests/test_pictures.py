"""`referee show --format svg|html`: the board drawn from the game's data, the event and its
verdict on it; the replay page's data. Structure is checked by parsing the SVG (the browser
tests are in test_pictures_browser.py)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from referee.compile.spec import Spec
from referee.render import page
from tests.referee_helpers import EXAMPLES, ROOT

NS = {"s": "http://www.w3.org/2000/svg"}
COMBAT = str(EXAMPLES / "combat-example.yaml")
DOC_PICTURE = ROOT / "docs" / "commands" / "show-combat-9.svg"


def run(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> str:
    assert main(["show", *argv]) == code
    out: str = capsys.readouterr().out
    return out


def svg(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> ET.Element:
    return ET.fromstring(run(capsys, *argv, "--format", "svg", code=code))


def units(root: ET.Element) -> dict[tuple[str, str], int]:
    return {
        (g.get("data-location", ""), g.get("data-side", "")): int(g.get("data-count", "0"))
        for g in root.iterfind(".//s:g[@class='unit']", NS)
    }


def texts(root: ET.Element, cls: str) -> list[str]:
    return ["".join(e.itertext()) for e in root.iterfind(f".//*[@class='{cls}']", NS)]


def page_data(text: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="steps">(.*?)</script>', text, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


# ------------------------------------------------------------ the board


def test_the_map_is_drawn_from_the_data(capsys: pytest.CaptureFixture[str], spec: Spec) -> None:
    root = svg(capsys, COMBAT, "--at", "9")
    c = spec.components.collections
    # every location labelled, once, at its coordinates
    labels = texts(root, "label")
    assert sorted(labels) == sorted(loc["name"] for loc in c["locations"])
    kyoto = next(
        e for e in root.iterfind(".//s:g[@class='location']", NS) if e.get("data-name") == "Kyoto"
    )
    circle = kyoto.find("s:circle", NS)
    assert circle is not None and (circle.get("cx"), circle.get("cy")) == ("731", "812")
    # highways solid, roads dashed: one line each segment
    highways = root.findall(".//s:line[@class='highway']", NS)
    roads = root.findall(".//s:line[@class='road']", NS)
    assert len(highways) == sum(1 for s in c["segments"] if s["highway"])
    assert len(roads) == sum(1 for s in c["segments"] if not s["highway"])
    assert all(r.get("stroke-dasharray") for r in roads)
    assert not any(h.get("stroke-dasharray") for h in highways)
    # the boxes, by their printed labels
    boxes = [b.get("data-name") for b in root.iterfind(".//s:g[@class='box']", NS)]
    assert boxes == [b["name"] for b in c["boxes"]]
    # the picture scales: a viewBox, no fixed size
    assert root.get("viewBox", "").startswith("0 0 3354 ") and root.get("width") == "100%"


def test_units_combat_and_caption_before_a_deployment(capsys: pytest.CaptureFixture[str]) -> None:
    root = svg(capsys, COMBAT, "--at", "9")
    assert units(root) == {("Sawayama", "tokugawa"): 6, ("Sawayama", "ishida"): 7}
    combat = root.find(".//s:g[@class='combat']", NS)
    assert combat is not None and combat.get("data-location") == "Sawayama"
    # Impact so far, each side by its letter: Tokugawa 8 before its last deployment
    assert texts(root, "impact") == ["Impact T 8 : I 13"]
    (heading,) = texts(root, "heading")
    assert heading == (f"{COMBAT}: the position before event 9 of 16: deploy by tokugawa (line 39)")
    (verdict,) = root.iterfind(".//s:text[@class='verdict']", NS)
    assert verdict.get("data-verdict") == "legal"
    assert "".join(verdict.itertext()).startswith("\u2713 legal: 8.3.1/impact: tokugawa deploys")
    # the week and step
    assert "week 1" in " ".join(texts(root, "rules"))
    # the faces, in the panel
    rows = texts(root, "panel-row")
    assert rows[0].startswith("Sawayama  T6: maeda-cavalry, tokugawa-3, tokugawa-gun")


def test_castle_control_is_drawn(capsys: pytest.CaptureFixture[str]) -> None:
    root = svg(capsys, COMBAT, "--at", "1")
    held = {
        (g.get("data-location"), g.get("data-side"))
        for g in root.iterfind(".//s:g[@class='holder']", NS)
    }
    assert ("Osaka", "ishida") in held and ("Hakone", "tokugawa") in held
    assert ("Edo", "tokugawa") in held  # a resource location, held from the start


@pytest.mark.parametrize(
    ("name", "broken", "cites"),
    [
        ("road-used-twice", [("Kyoto", "Minakuchi")], "7.3.1/segment-once"),
        ("off-the-road", [("Osaka", "Minakuchi")], "7.3.1/along-roads"),
        # the move went on past Kuwana, where the enemy stood
        ("through-the-enemy", [("Kuwana", "Kiyosu")], "7.3.2/stop-at-enemy"),
    ],
)
def test_the_segment_that_broke_a_rule_is_red(
    capsys: pytest.CaptureFixture[str], name: str, broken: list[tuple[str, str]], cites: str
) -> None:
    root = svg(capsys, str(EXAMPLES / "illegal" / f"{name}.yaml"), code=1)
    bad = [
        (e.get("data-from"), e.get("data-to"))
        for e in root.iterfind(".//s:line[@class='segment broken']", NS)
    ]
    assert bad == broken
    assert all(
        e.get("stroke-dasharray") for e in root.iterfind(".//s:line[@class='segment broken']", NS)
    )
    good = root.findall(".//s:line[@class='segment']", NS)
    assert all(e.get("marker-end") for e in good)
    (verdict,) = root.iterfind(".//s:text[@class='verdict']", NS)
    assert verdict.get("data-verdict") == "illegal"
    assert "".join(verdict.itertext()).startswith(f"\u2717 ILLEGAL: {cites} (")


def test_an_overrun_is_marked(capsys: pytest.CaptureFixture[str]) -> None:
    root = svg(capsys, str(EXAMPLES / "disputes" / "kuwana-overrun.yaml"), "--at", "1")
    marks = [
        (g.get("data-label"), g.get("data-location"))
        for g in root.iterfind(".//s:g[@class='told']", NS)
    ]
    assert marks == [("overrun", "Kuwana")]
    assert [
        (e.get("data-from"), e.get("data-to"))
        for e in root.iterfind(".//s:line[@class='segment']", NS)
    ] == [("Kiyosu", "Kuwana")]


def test_after_an_event_and_at_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    after = svg(capsys, COMBAT, "--after", "14")  # the retreat to Kyoto
    assert units(after) == {("Sawayama", "tokugawa"): 5, ("Kyoto", "ishida"): 5}
    assert texts(after, "heading")[0].startswith(
        f"{COMBAT}: the position after event 14 of 16: retreat by ishida"
    )
    end = svg(capsys, COMBAT)
    assert texts(end, "heading")[0].startswith(f"{COMBAT}: the position after event 16 of 16")


def test_an_event_the_record_lacks_is_a_located_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", COMBAT, "--at", "17", "--format", "svg"]) == 2
    err = capsys.readouterr().err
    assert "--at 17: this record has 16 event(s), numbered 1 to 16" in err


def test_the_documented_picture_is_what_the_command_draws(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    out = run(capsys, "examples/combat-example.yaml", "--at", "9", "--format", "svg")
    assert DOC_PICTURE.read_text() == out, (
        "regenerate: referee show examples/combat-example.yaml --at 9 --format svg"
        " > docs/commands/show-combat-9.svg"
    )


# ------------------------------------------------------------ the replay page


def test_the_page_holds_every_step_and_opens_at_the_one_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = run(capsys, COMBAT, "--at", "9", "--format", "html")
    data = page_data(text)
    assert [s["event"] for s in data["steps"]] == [*range(1, 17), None]
    assert data["start"] == 8 and data["steps"][8]["event"] == 9
    assert data["steps"][8]["told"][0]["cites"] == "8.3.1/impact"
    assert data["steps"][10]["told"][0]["cites"] == "8.2.1/result"
    # no fetch of anything: no URL but the SVG namespace, and a policy that forbids them
    assert "default-src 'none'" in text
    urls = set(re.findall(r"https?://[^\"' )]+", text))
    assert urls == {"http://www.w3.org/2000/svg"}
    # the board is in the page once; each step's layer is made of shared pieces
    assert text.count('<svg xmlns="http://www.w3.org/2000/svg" viewBox=') == 1
    assert all(isinstance(k, int) for s in data["steps"] for k in s["layer"])


def test_the_page_opens_at_the_illegal_event(capsys: pytest.CaptureFixture[str]) -> None:
    text = run(
        capsys, str(EXAMPLES / "illegal" / "road-used-twice.yaml"), "--format", "html", code=1
    )
    data = page_data(text)
    assert data["illegal"] == 3
    assert data["start"] == 2 and data["steps"][2]["cites"] == "7.3.1/segment-once"
    assert [s["verdict"] for s in data["steps"]] == ["legal", "legal", "illegal"]


def test_a_long_record_gives_a_window_of_bounded_size(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    full = str(EXAMPLES / "full-game.yaml")
    whole = run(capsys, full, "--format", "html")
    steps = len(page_data(whole)["steps"])
    assert steps == 148  # 147 events and the end
    per_step = len(whole) / steps
    assert per_step < 12_000  # bytes: at MAX_STEPS steps, a page of at most about 5 MB
    assert page.MAX_STEPS * per_step < 5_000_000
    monkeypatch.setattr(page, "MAX_STEPS", 20)
    data = page_data(run(capsys, full, "--at", "100", "--format", "html"))
    assert len(data["steps"]) == 20 and data["window"] is True
    assert data["steps"][data["start"]]["event"] == 100
    assert data["first"] == data["steps"][0]["event"] == 90


# ------------------------------------------------------------ the display data


def test_a_display_naming_no_state_is_bad_input(
    capsys: pytest.CaptureFixture[str], game_copy: Path
) -> None:
    path = game_copy / "data" / "display.yaml"
    path.write_text(path.read_text().replace("units: units_at", "units: troops_at"))
    code = main(["show", COMBAT, "--at", "1", "--format", "svg", "--spec", str(game_copy)])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "'troops_at' is no state the spec declares" in err


def test_a_side_s_look_is_data(capsys: pytest.CaptureFixture[str], game_copy: Path) -> None:
    path = game_copy / "data" / "display.yaml"
    path.write_text(
        path.read_text().replace("letter: I, pattern: stripes", "letter: Q, pattern: dots")
    )
    assert main(["show", COMBAT, "--at", "9", "--format", "svg", "--spec", str(game_copy)]) == 0
    root = ET.fromstring(capsys.readouterr().out)
    assert texts(root, "impact") == ["Impact T 8 : Q 13"]


# ------------------------------------------------------------ hostile input


HOSTILE_NAME = 'Ku</text><script>alert(1)</script>&"\u202e\u0301\U0001f600</script>'


def hostile_data(tmp_path: Path) -> Path:
    """Component files in which a location's name is markup, quotes and odd unicode."""
    data = tmp_path / "data"
    data.mkdir()
    src = ROOT / "referee" / "games" / "sekigahara" / "data" / "map.yaml"
    doc = yaml.safe_load(src.read_text())
    for loc in doc["locations"]:
        if loc["name"] == "Kumano":
            loc["name"] = HOSTILE_NAME
    for seg in doc["segments"]:
        for end in ("a", "b"):
            if seg[end] == "Kumano":
                seg[end] = HOSTILE_NAME
    (data / "map.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True))
    return data


def hostile_record(tmp_path: Path, blocks: int) -> Path:
    record = {
        "game": "sekigahara",
        "position": {
            "procedure": "movement_phase",
            "args": {"active": "ishida"},
            "step": "moving",
            "vars": {"level": "limited"},
            "state": {"units_at": {"Kyoto": {"ishida": ["ukita-2"] * blocks}}},
        },
        "events": [
            {
                "move": {
                    "by": "ishida",
                    "from": "Kyoto",
                    "groups": [{"blocks": ["ukita-2"], "path": ["Kyoto", "Osaka"]}],
                }
            }
        ],
    }
    path = tmp_path / "<script>x&\u202e<svg onload=x>.yaml"  # a name cannot hold a /
    path.write_text(yaml.safe_dump(record))
    return path


def test_hostile_names_stay_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = hostile_data(tmp_path)
    record = hostile_record(tmp_path, 3)
    out = run(
        capsys,
        str(record),
        "--at",
        "1",
        "--format",
        "svg",
        "--data",
        str(data),
        code=exit_code(capsys, record, "--data", str(data)),
    )
    root = ET.fromstring(out)  # well-formed
    assert not root.findall(".//s:script", NS) and not root.findall(".//script")
    labels = texts(root, "label")
    assert any(label.startswith("Ku</text><script>") for label in labels)
    assert all("\u202e" not in label for label in labels)  # escaped, as \u202e
    heading = texts(root, "heading")[0]
    assert heading.startswith(str(record.parent)) and "\\u202e" in heading
    html = run(
        capsys,
        str(record),
        "--format",
        "html",
        "--data",
        str(data),
        code=exit_code(capsys, record, "--data", str(data)),
    )
    assert html.count("</script>") == 2  # the page's own two script elements, nothing else
    assert html.count("<script") == 2
    steps = page_data(html)["steps"]
    for piece in page_data(html)["pieces"]:
        ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{piece}</svg>')
    assert steps[0]["heading"].startswith(str(record.parent))


def test_a_huge_stack_stays_bounded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "small").mkdir()
    (tmp_path / "huge").mkdir()
    small_record = hostile_record(tmp_path / "small", 3)
    record = hostile_record(tmp_path / "huge", 5_000)
    small = run(
        capsys,
        str(small_record),
        "--at",
        "1",
        "--format",
        "svg",
        code=exit_code(capsys, small_record),
    )
    out = run(capsys, str(record), "--at", "1", "--format", "svg", code=exit_code(capsys, record))
    root = ET.fromstring(out)
    assert units(root)[("Kyoto", "ishida")] == 5_000
    assert len(out) < len(small) + 2_000  # the faces are counted past a few, not listed
    assert any("and 4992 more" in row for row in texts(root, "panel-row"))


def exit_code(capsys: pytest.CaptureFixture[str], record: Path, *more: str) -> int:
    """What `referee show` (text) exits with for the record: the pictures exit alike."""
    code = main(["show", str(record), "-q", *more])
    capsys.readouterr()
    return code
