"""A second reading of `referee show --format svg|html`: the caption's band holds what it
shows and says when it cuts; labels and stacks stay on the board; a location's marks do not
cover each other; a map place off the board, and hostile records (tests/hostile/pictures/),
are located errors; hostile data text stays text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from referee.cli import main
from referee.render import svg as draw
from referee.render import svg_step
from tests.referee_helpers import EXAMPLES, ROOT
from tests.test_pictures import NS, page_data, run

HOSTILE = Path(__file__).parent / "hostile" / "pictures"
MAP = ROOT / "referee" / "games" / "sekigahara" / "data" / "map.yaml"
ELLIPSIS = "\u2026"


def verdict_bottom(root: ET.Element) -> float:
    rect = root.find(".//s:g[@class='verdict-box']/s:rect", NS)
    assert rect is not None
    return float(rect.get("y", "0")) + float(rect.get("height", "0"))


def lines(root: ET.Element, cls: str) -> list[str]:
    found = root.findall(f".//s:*[@class='{cls}']", NS)
    if cls == "verdict":
        return ["".join(t.itertext()) for t in found[0].iterfind("s:tspan", NS)]
    return ["".join(t.itertext()) for t in found]


# ------------------------------------------------------------ the caption


def test_a_long_legal_verdict_is_cut_visibly_inside_its_band(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # two groups moved: the outcomes take four lines; the procedures two
    root = ET.fromstring(
        run(capsys, str(EXAMPLES / "weeks-1-2.yaml"), "--at", "34", "--format", "svg")
    )
    assert verdict_bottom(root) <= draw.HEADER  # the box stays above the map
    verdict = lines(root, "verdict")
    assert len(verdict) == 2 and verdict[-1].endswith(ELLIPSIS)
    assert lines(root, "rules")[-1] == "step moving"  # the procedures in full, on two lines
    # the whole verdict is the box's title (a tooltip), its second outcome included
    title = root.find(".//s:g[@class='verdict-box']/s:title", NS)
    assert title is not None and "[kobayakawa-gun] from Osaka to Kyoto" in (title.text or "")


def test_no_caption_of_a_record_covers_the_map(capsys: pytest.CaptureFixture[str]) -> None:
    # every step of the first two weeks, as the page holds them (each caption one piece)
    data = page_data(run(capsys, str(EXAMPLES / "weeks-1-2.yaml"), "--format", "html"))
    boxes = 0
    for piece in data["pieces"]:
        root = ET.fromstring(f'<svg xmlns="{NS["s"]}">{piece}</svg>')
        if root.find(".//s:g[@class='verdict-box']", NS) is not None:
            boxes += 1
            assert verdict_bottom(root) <= draw.HEADER
    assert boxes == len(data["steps"]) - 1  # every event's verdict; the end has none


def test_an_illegal_verdict_keeps_three_lines(capsys: pytest.CaptureFixture[str]) -> None:
    root = ET.fromstring(
        run(
            capsys,
            str(EXAMPLES / "illegal" / "movement-too-far.yaml"),
            "--format",
            "svg",
            code=1,
        )
    )
    assert verdict_bottom(root) <= draw.HEADER
    assert "".join(lines(root, "verdict")).startswith("\u2717 ILLEGAL: 7.3.3/within-allowance")
    assert not any(line.endswith(ELLIPSIS) for line in lines(root, "verdict"))


def test_fit_cuts_with_an_ellipsis_and_only_when_it_must() -> None:
    assert svg_step._fit(["a", "b"], 2) == ["a", "b"]
    assert svg_step._fit(["a", "b", "c"], 2) == ["a", "b \u2026"]
    cut = svg_step._fit(["x" * 130, "y"], 1)
    assert len(cut[0]) == 130 and cut[0].endswith(" \u2026")


# ------------------------------------------------------------ on the board


def test_labels_and_stacks_at_the_edge_stay_on_the_board(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = ET.fromstring(run(capsys, str(HOSTILE / "sendai-stack.yaml"), "--format", "svg"))
    width = float(root.get("viewBox", "").split()[2])
    for label in root.iterfind(".//s:text[@class='label']", NS):
        x, text, anchor = float(label.get("x", "0")), label.text or "", label.get("text-anchor")
        half = 0.35 * 36 * len(text)
        left, right = {"middle": (x - half, x + half), "end": (x - 2 * half, x)}.get(
            anchor or "", (x, x + 2 * half)
        )
        assert left >= 0 and right <= width, text
    sendai = [
        g.find("s:rect", NS)
        for g in root.iterfind(".//s:g[@class='unit']", NS)
        if g.get("data-location") == "Sendai"
    ]
    assert len(sendai) == 2  # both sides' blocks, side by side, inside the board
    for rect in sendai:
        assert rect is not None
        assert float(rect.get("x", "0")) + float(rect.get("width", "0")) <= width


def test_a_location_s_marks_do_not_cover_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    root = ET.fromstring(run(capsys, str(EXAMPLES / "combat-example.yaml"), "--format", "svg"))
    edo = root.find(".//s:g[@data-name='Edo']", NS)
    assert edo is not None
    spans = []  # each mark's horizontal extent: the capital's star, the resource's diamond
    for shape in edo.iterfind(".//s:polygon", NS):
        xs = [float(p.split(",")[0]) for p in (shape.get("points") or "").split()]
        spans.append((min(xs), max(xs)))
    assert len(spans) == 2
    (_, right), (left, _) = sorted(spans)
    assert right <= left


def test_a_place_off_the_board_is_a_located_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = yaml.safe_load(MAP.read_text())
    for loc in doc["locations"]:
        if loc["name"] == "Kumano":
            loc["xy"] = [10**30, 400]
    (tmp_path / "map.yaml").write_text(yaml.safe_dump(doc))
    for fmt in ("svg", "html"):
        code = main(
            ["show", str(EXAMPLES / "combat-example.yaml"), "--format", fmt]
            + ["--data", str(tmp_path)]
        )
        out, err = capsys.readouterr()
        assert code == 2 and out == ""
        assert re.match(rf"{re.escape(str(tmp_path / 'map.yaml'))}:\d+:\d+: Kumano at \[", err)
        assert "lies outside the board (3354 by 2115)" in err
        assert "Traceback" not in err


# ------------------------------------------------------------ hostile input


@pytest.mark.parametrize(
    ("name", "where", "says"),
    [
        ("path-markup.yaml", ":17:25: ", "unknown location '</script><script>alert(1)</script>'"),
        ("faces-markup.yaml", ":9:33: ", "unknown face '</script><img src=x onerror=alert(1)>'"),
        ("side-markup.yaml", ":12:11: ", "unknown side '</script><svg onload=alert(1)>\\u202e'"),
    ],
)
@pytest.mark.parametrize("fmt", ["svg", "html"])
def test_a_record_of_markup_is_bad_input_located(
    capsys: pytest.CaptureFixture[str], name: str, where: str, says: str, fmt: str
) -> None:
    record = HOSTILE / name
    assert main(["show", str(record), "--format", fmt]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing drawn
    assert err.startswith(f"{record}{where}") and says in err.splitlines()[0]
    assert "\u202e" not in err and "Traceback" not in err


EVIL = "</script><script>alert(1)</script>]]><img src=x onerror=alert(2)>\"'\u202e\u2066&amp;\x07"


def test_hostile_box_labels_and_highway_names_stay_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = yaml.safe_load(MAP.read_text())
    for box in doc["boxes"]:
        box["label"] = EVIL * 2_000
    for seg in doc["segments"]:
        if seg["highway"] == "Tokaido":
            seg["highway"] = EVIL[:80]
    (tmp_path / "map.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True))
    data = ["--data", str(tmp_path)]
    text = run(capsys, str(EXAMPLES / "combat-example.yaml"), "--at", "9", "--format", "svg", *data)
    assert len(text) < 60_000  # the labels clipped
    root = ET.fromstring(text)  # well-formed
    assert not root.findall(".//s:script", NS) and not root.findall(".//s:image", NS)
    labels = [t for t in root.iterfind(".//s:g[@class='box']/s:text", NS)]
    assert len(labels) == 3
    for label in labels:
        assert (label.text or "").startswith("</script><script>alert(1)")
        assert "\u202e" not in (label.text or "") and len(label.text or "") < 100
    page = run(capsys, str(EXAMPLES / "combat-example.yaml"), "--format", "html", *data)
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<img" not in page and "\u202e" not in page


def test_the_page_exits_1_for_an_illegal_event_past_the_step_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the page replays the whole record (docs/commands/show.md, exit codes)
    record = str(EXAMPLES / "illegal" / "road-used-twice.yaml")
    run(capsys, record, "--at", "1", "--format", "svg", code=0)
    data = page_data(run(capsys, record, "--at", "1", "--format", "html", code=1))
    assert data["start"] == 0 and data["illegal"] == 3


def test_a_combat_is_drawn_while_it_is_fought_and_not_after(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def combats(*argv: str) -> list[str]:
        root = ET.fromstring(run(capsys, str(EXAMPLES / "combat-example.yaml"), *argv))
        return [g.get("data-location", "") for g in root.iterfind(".//s:g[@class='combat']", NS)]

    assert combats("--at", "14", "--format", "svg") == ["Sawayama"]  # the retreat, in battle
    # the battle resolved, Ishida retreated: the cards are replenished, no combat is fought
    assert combats("--at", "15", "--format", "svg") == []
    assert combats("--format", "svg") == []


def test_a_crowded_board_stays_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    # fifty blocks a side at fifty locations: every stack drawn, counted; the panel lists
    # every stack (it grows to hold them: nothing is cut); the faces are counted past eight
    record = str(HOSTILE / "crowd.yaml")
    text = run(capsys, record, "--format", "svg")
    assert len(text) < 150_000
    root = ET.fromstring(text)
    stacks = {
        (g.get("data-location"), g.get("data-side")): g.get("data-count")
        for g in root.iterfind(".//s:g[@class='unit']", NS)
    }
    assert len(stacks) == 101  # 50 places, two sides each, and the two blocks left at Kyoto
    assert stacks[("Osaka", "ishida")] == "51" and stacks[("Kyoto", "ishida")] == "2"
    rows = lines(root, "panel-row")
    assert len(rows) == 201 and not any("more lines" in r for r in rows)
    assert rows[0].startswith("Aizu  T50: date-2,") and rows[-1].endswith("and 42 more")
    page = run(capsys, record, "--format", "html")
    assert len(page) < 300_000 and page.count("<script") == 2
