"""A second reading of the pictures (issue 32) as a player uses them: `referee show --format
svg|html` in Chromium, on records other than the full game (sieges, crowded boxes and
stacks, Fierce Battle turns, every example, random games). What broke: a move's path in the
log was not told as a route; a siege being fought drew the defender outside its castle; a
recruitment box was cut mid-name and told whole nowhere; the page cut the panel of a
crowded step; a palisade gone was drawn standing, a unit eliminated not named; the log's
numbers stood by each entry's last line; each step scrolled the window to the log (on a
phone, the board off the screen); a stack put nearer another place than its own had no
line back to its own; a wrapped panel entry was split between columns; the page took the
browser's own Alt+arrow shortcuts; zones of control were drawn over the hexes' names."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.cli import main
from referee.render import svg as draw
from tests.referee_helpers import EXAMPLES
from tests.test_pictures import NS, page_data, run

HOSTILE = Path(__file__).parent / "hostile" / "pictures"
ELLIPSIS = "\u2026"


def texts(root: ET.Element, cls: str) -> list[str]:
    return ["".join(t.itertext()) for t in root.iterfind(f".//s:*[@class='{cls}']", NS)]


def log_texts(capsys: pytest.CaptureFixture[str], record: Path, code: int = 0) -> list[str]:
    data = page_data(run(capsys, str(record), "--format", "html", code=code))
    return [s["log"]["text"] for s in data["steps"]]


# ------------------------------------------------------------ the log in words


def test_a_move_s_path_in_its_groups_reads_as_a_route(capsys: pytest.CaptureFixture[str]) -> None:
    # Sekigahara's moves hold their paths in groups: each told "from A via B to C"
    log = log_texts(capsys, EXAMPLES / "movement-example.yaml")
    assert log[1].startswith(
        "ishida move: from Osaka; groups blocks ukita-2, ukita-3, mori-2, mori-3, "
        "kobayakawa-2, from Osaka via Kyoto to Minakuchi \u2014 \u2713 7.3.3/allowance"
    )
    assert log[2].startswith("ishida move: from Sawayama; groups blocks ukita-gun, from Sawayama")
    assert not any("path Osaka" in line for line in log)


def test_a_flag_reads_as_the_record_writes_it(capsys: pytest.CaptureFixture[str]) -> None:
    log = log_texts(capsys, EXAMPLES / "siege-of-osaka.yaml")
    assert log[0] == "tokugawa declare: at Osaka; inside true \u2014 \u2713 legal"


# ------------------------------------------------------------ stacks read as their place's


def strays(board: ET.Element, layer: ET.Element) -> list[tuple[str | None, str]]:
    """The stacks standing nearer another place than their own with no line leading back
    to their own: (their place, the place they would be read as at)."""
    places = {
        g.get("data-name"): (float(c.get("cx", 0)), float(c.get("cy", 0)))
        for g in board.iterfind(".//s:g[@class='location']", NS)
        if (c := g.find("s:circle", NS)) is not None
    }
    leads = {
        (round(float(line.get("x1", 0))), round(float(line.get("y1", 0))))
        for line in layer.iterfind(".//s:line[@class='leader']", NS)
    }
    out = []
    for g in layer.iterfind(".//s:g[@data-item='unit']", NS):
        rect, own = g.find("s:rect", NS), places.get(g.get("data-location"))
        if rect is None or own is None or (round(own[0]), round(own[1])) in leads:
            continue
        x = float(rect.get("x", 0)) + float(rect.get("width", 0)) / 2
        y = float(rect.get("y", 0)) + float(rect.get("height", 0)) / 2
        near = min(places, key=lambda name: math.dist(places[name], (x, y)))
        if near != g.get("data-location"):
            out.append((g.get("data-location"), str(near)))
    return out


@pytest.mark.parametrize("record", ["full-game.yaml", "retreat-into-a-held-castle.yaml"])
def test_a_stack_put_nearer_another_place_is_led_back_to_its_own(
    capsys: pytest.CaptureFixture[str], record: str
) -> None:
    # a stack put aside (nothing covered) was drawn with no line when it stood nearer
    # another place: Gifu's two Ishida blocks over Kiyosu, read as Kiyosu's (full game,
    # event 12), Kumano's Tokugawa block beside Tanabe
    text = run(capsys, str(EXAMPLES / record), "--format", "html")
    m = re.search(r'<div id="board">(.*?)</div>', text, re.S)
    assert m is not None
    board = ET.fromstring(m.group(1))
    data = page_data(text)
    found = {}
    for step in data["steps"]:
        pieces = "".join(data["pieces"][k] for k in step["layer"])
        layer = ET.fromstring(f'<g xmlns="http://www.w3.org/2000/svg">{pieces}</g>')
        if stray := strays(board, layer):
            found[step["event"]] = stray
    assert found == {}


# ------------------------------------------------------------ every state shown


def test_a_siege_being_fought_draws_the_defender_inside(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the siege's first combat: no state names Ishida besieged yet, but its block is inside
    root = ET.fromstring(
        run(capsys, str(EXAMPLES / "siege-of-osaka.yaml"), "--after", "2", "--format", "svg")
    )
    units = {
        (g.get("data-side"), g.get("class")): g.get("data-count")
        for g in root.iterfind(".//s:g[@data-item='unit']", NS)
    }
    assert units == {("tokugawa", "unit"): "3", ("ishida", "unit inside"): "1"}
    siege = root.find(".//s:g[@class='siege']", NS)
    assert siege is not None and siege.get("data-location") == "Osaka"
    assert texts(root, "panel-row") == [
        "Osaka  T3: ii-4-star, tokugawa-3, tokugawa-2",
        "Osaka  I1 (inside the castle): ukita-2",
    ]
    # before the siege is declared, nobody is inside
    before = ET.fromstring(
        run(capsys, str(EXAMPLES / "siege-of-osaka.yaml"), "--at", "1", "--format", "svg")
    )
    assert before.find(".//s:g[@class='unit inside']", NS) is None


def test_a_display_naming_no_procedure_is_bad_input(
    capsys: pytest.CaptureFixture[str], game_copy: Path
) -> None:
    path = game_copy / "data" / "display.yaml"
    path.write_text(path.read_text().replace("procedure: siege,", "procedure: sieges,"))
    record = str(EXAMPLES / "siege-of-osaka.yaml")
    assert main(["show", record, "--format", "svg", "--spec", str(game_copy)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "'sieges' is no procedure the spec declares" in err
    path.write_text(
        path.read_text().replace("procedure: sieges, at: at", "procedure: siege, at: where")
    )
    assert main(["show", record, "--format", "svg", "--spec", str(game_copy)]) == 2
    assert "'where' is no parameter of procedure siege" in capsys.readouterr().err


def test_a_palisade_gone_is_crossed_out(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # docs/pictures.md: palisades (PAL, crossed out once gone); the state was read, not drawn
    record = tmp_path / "palisade.yaml"
    record.write_text(
        yaml.safe_dump(
            {
                "game": "fierce-battle",
                "position": {
                    "procedure": "fire_phase",
                    "args": {"active": "west", "attack": False},
                    "state": {"palisade_gone": {"0603": True}},
                },
                "events": [{"end_phase": {"by": "west"}}],
            }
        )
    )
    root = ET.fromstring(run(capsys, str(record), "--at", "1", "--format", "svg"))
    gone = root.findall(".//s:path[@class='gone']", NS)
    assert [(g.get("data-location"), "".join(g.itertext())) for g in gone] == [
        ("0603", "0603: palisade gone")
    ]
    # where it stands, nothing is crossed
    first = EXAMPLES / "fierce-battle" / "first-turn.yaml"
    standing = ET.fromstring(run(capsys, str(first), "--at", "1", "--format", "svg"))
    assert standing.findall(".//s:path[@class='gone']", NS) == []


def test_a_unit_lost_at_an_event_is_named_on_the_hex_board(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # as Sekigahara's blocks lost are: the caption and the log name the unit eliminated
    record = EXAMPLES / "fierce-battle" / "out-of-command.yaml"
    root = ET.fromstring(run(capsys, str(record), "--after", "1", "--format", "svg"))
    assert texts(root, "status") == ["lost at this event by east (E): 1: kuroda_ashigaru_1"]
    log = log_texts(capsys, record)
    assert " \u2014 E lost kuroda_ashigaru_1 \u2014 \u2713 9-2/fired" in log[0]
    # a unit that leaves the board by its exit is not lost
    escapes = log_texts(capsys, EXAMPLES / "fierce-battle" / "shimazu-escapes.yaml")
    assert not any(" lost " in line for line in escapes)


RECRUITS = {
    "ishida": [
        "ukita-2",
        "ukita-2",
        "ukita-3",
        "ukita-3",
        "ukita-gun",
        "kobayakawa-2",
        "kobayakawa-3",
        "kobayakawa-3",
        "uesugi-3",
        "uesugi-3",
        "uesugi-gun",
        "mori-2",
        "ishida-leader-square",
        "ukita-cavalry",
    ],
}


def test_a_recruitment_box_is_told_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = tmp_path / "recruits.yaml"
    record.write_text(
        yaml.safe_dump(
            {
                "game": "sekigahara",
                "position": {
                    "procedure": "movement_phase",
                    "args": {"active": "ishida"},
                    "state": {"recruits": RECRUITS, "units_at": {"Kyoto": {"ishida": ["mori-3"]}}},
                },
                "events": [{"end_movement": {"by": "ishida"}}],
            }
        )
    )
    # (the event is out of turn: the picture is of the position before it)
    root = ET.fromstring(run(capsys, str(record), "--at", "1", "--format", "svg", code=1))
    box = root.find(".//s:g[@data-location='Ishida recruitment box']", NS)
    assert box is not None and box.get("data-count") == "14"
    whole = (
        "ukita-2 \u00d72, ukita-3 \u00d72, ukita-gun, kobayakawa-2, kobayakawa-3 \u00d72, "
        "uesugi-3 \u00d72, uesugi-gun, mori-2, ishida-leader-square, ukita-cavalry"
    )
    # the box's title (a list that opens) and the panel under the map tell it whole
    title = box.find("s:title", NS)
    assert title is not None and title.text == f"Ishida recruitment box: 14 block(s): {whole}"
    rows = texts(root, "panel-row")
    assert " ".join(rows[1:]) == f"Ishida recruitment box  14: {whole}"
    # the box itself cuts at a face's end, never inside a name, and counts what it leaves
    shown = [t.text or "" for t in box.iterfind("s:text", NS)][1:]
    assert shown[-1] == f"uesugi-3 \u00d72, {ELLIPSIS} and 4 more"
    faces = set(RECRUITS["ishida"])
    for line in shown:
        for item in line.replace(f"{ELLIPSIS} and 4 more", "").rstrip(", ").split(", "):
            assert item.split(" \u00d7")[0] in faces, item


def test_no_entry_of_the_panel_is_split_between_its_columns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # a unit's line wrapped at the foot of the first column went on at the top of the next
    record = EXAMPLES / "fierce-battle" / "first-turn.yaml"
    root = ET.fromstring(run(capsys, str(record), "--after", "1", "--format", "svg"))
    rows = [
        (float(t.get("x", 0)), float(t.get("y", 0)), "".join(t.itertext()))
        for t in root.iterfind(".//s:text[@class='panel-row']", NS)
    ]
    xs = {x for x, _, _ in rows}
    tops = {x for x in xs if x - 60 not in xs}  # where each column's entries start
    assert len(rows) == 23 and len(tops) == draw.PANEL_COLUMNS == 2
    for (x0, y0, _), (x, y, text) in zip(rows, rows[1:], strict=False):
        if x - 60 in tops:  # a wrapped line: right under the line before, in its column
            assert x0 in (x, x - 60) and y0 == y - draw.ROW, text


def test_the_page_s_panel_holds_its_fullest_step(capsys: pytest.CaptureFixture[str]) -> None:
    # fifty stacks a side: 201 lines of panel; the page's board is as tall as the picture
    # of that step (the page used to keep twelve rows a column and cut the rest)
    record = str(HOSTILE / "crowd.yaml")
    picture = ET.fromstring(run(capsys, record, "--at", "1", "--format", "svg"))
    page = run(capsys, record, "--format", "html")
    board = re.search(r'<svg [^>]*viewBox="([^"]+)"', page)
    assert board is not None
    assert board.group(1) == picture.get("viewBox") == "0 0 3354 7059"


# ------------------------------------------------------------ in the browser


def browser_tests() -> Any:
    """tests/test_pictures_browser.py's helpers, or a skip (its reason) without Playwright."""
    pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')"
    )
    from tests import test_pictures_browser

    if test_pictures_browser.CHROMIUM is None:
        pytest.skip("no Chromium on PATH (apt-get install chromium; .ci/run does)")
    return test_pictures_browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    tb = browser_tests()
    with tb.sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=tb.CHROMIUM, args=tb.FLAGS)
        yield b
        b.close()


def open_at(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], record: Path, *argv: str
) -> tuple[Any, list[str]]:
    tb = browser_tests()
    url = tb.write_page(tmp_path, capsys, record, *argv)
    page, errors, _ = tb.open_page(browser, url, width=1400)
    return page, errors


def test_the_log_s_numbers_and_keys(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page, errors = open_at(browser, tmp_path, capsys, EXAMPLES / "siege-of-osaka.yaml", "--at", "3")
    # each entry a block: its number stands by its first line (an inline button put it by
    # the last, beside the next entry's first)
    shape = page.eval_on_selector_all(
        "#events li",
        "els => els.map(li => [getComputedStyle(li.firstElementChild).display,"
        " li.firstElementChild.getClientRects().length, li.getBoundingClientRect().height"
        " - li.firstElementChild.getBoundingClientRect().height])",
    )
    assert shape and all(d == "block" and rects == 1 and abs(gap) < 1 for d, rects, gap in shape)
    # Alt+Left is the browser's (back a page); the arrow alone steps
    assert page.get_attribute("body", "data-event") == "3"
    page.keyboard.press("Alt+ArrowRight")
    page.keyboard.press("Control+End")
    assert page.get_attribute("body", "data-event") == "3"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("body", "data-event") == "4"
    # the keyboard reaches the log: Tab to an entry, Enter goes there
    page.focus("#events li:nth-child(2) button")
    page.keyboard.press("Enter")
    assert page.get_attribute("body", "data-event") == "2"
    assert page.evaluate("document.activeElement.closest('#events') !== null")
    assert errors == []
    page.close()


def test_stepping_on_a_phone_keeps_the_board_in_view(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the log's current entry is scrolled into view inside the log; the window stays (it
    # was scrolled down to the log at each step, the board off the screen)
    tb = browser_tests()
    url = tb.write_page(tmp_path, capsys, EXAMPLES / "full-game.yaml", "--at", "60")
    page, errors, _ = tb.open_page(browser, url, width=390)
    where = """() => {
      const l = document.getElementById("events").getBoundingClientRect();
      const c = document.querySelector("#events li.current").getBoundingClientRect();
      return [window.scrollY, c.top >= l.top - 0.5 && c.bottom <= l.bottom + 0.5];
    }"""
    assert page.evaluate(where) == [0, True]
    for event in ("61", "62", "63"):
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("body", "data-event") == event
        assert page.evaluate(where) == [0, True]
    assert errors == []
    page.close()


# every hex name a zone outline shown crosses (its segments against the name's box), and
# whether the name is painted over the outline (after it in the document) with a halo
ZONES_CROSS_NAMES = """
() => {
  document.getElementById("zones").click();
  const names = [...document.querySelectorAll("#board text.hex-name")]
    .map((t) => [t, t.getBoundingClientRect()]);
  const crossed = new Map();
  for (const poly of document.querySelectorAll("#board g.zones polygon")) {
    const m = poly.getScreenCTM();
    const pts = [...poly.points].map((p) => [m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f]);
    for (let i = 0; i < pts.length; i++) {
      const [x1, y1] = pts[i], [x2, y2] = pts[(i + 1) % pts.length];
      for (const [t, b] of names) {
        for (let k = 0; k <= 20; k++) {
          const x = x1 + (x2 - x1) * k / 20, y = y1 + (y2 - y1) * k / 20;
          if (x > b.left && x < b.right && y > b.top && y < b.bottom) {
            const over = Boolean(poly.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)
              && t.getAttribute("stroke") === "#ffffff" && t.getAttribute("paint-order") === "stroke";
            crossed.set(t.textContent, (crossed.get(t.textContent) ?? true) && over);
          }
        }
      }
    }
  }
  return [...crossed].sort();
}
"""


def test_zones_of_control_do_not_cover_the_hexes_names(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the zones shown cross the names at the hexes' tops (an outline a little inside each
    # hex); the names are painted over them, each with its halo: drawn under the names, in
    # a slot of the board the page fills at each step (they were over them)
    record = EXAMPLES / "fierce-battle" / "first-turn.yaml"
    page, errors = open_at(browser, tmp_path, capsys, record, "--after", "5")
    crossed = page.evaluate(ZONES_CROSS_NAMES)
    assert len(crossed) >= 20 and all(over for _, over in crossed), crossed
    # a step later, the slot holds that step's zones only
    page.keyboard.press("ArrowRight")
    assert page.locator("#zones-slot > g.zones").count() == 1
    assert page.locator("#step g.zones").count() == 0
    assert errors == []
    page.close()
