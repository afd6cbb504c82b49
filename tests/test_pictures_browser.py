"""The replay page in a real browser: headless Chromium (Debian's package, /usr/bin/chromium)
driven by Playwright, one browser for every test here (they are slow: run them with `nice`).
The DOM shows the right units and verdict at chosen steps; a button click and an arrow key
step; the page fetches nothing; a narrow screen still shows it all; no text covers another
at any step of the full game; Fierce Battle's hex board, its zones and its log."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from tests.referee_helpers import EXAMPLES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')"
)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on PATH (apt-get install chromium; .ci/run does)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Playwright gives each launch a fresh profile of its own (a --user-data-dir)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def write_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], record: Path, *argv: str, code: int = 0
) -> str:
    assert main(["show", str(record), "--format", "html", *argv]) == code
    out = tmp_path / "page.html"
    out.write_text(capsys.readouterr().out)
    return out.as_uri()


def open_page(browser: Any, url: str, width: int = 1400) -> tuple[Any, list[str], list[str]]:
    page = browser.new_page(viewport={"width": width, "height": 1000})
    errors: list[str] = []
    requests: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    return page, errors, requests


def units(page: Any) -> dict[tuple[str, str], int]:
    found = page.eval_on_selector_all(
        "#step g.unit",
        "els => els.map(e => [e.dataset.location, e.dataset.side, Number(e.dataset.count)])",
    )
    return {(loc, side): n for loc, side, n in found}


def test_stepping_through_a_combat(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = write_page(tmp_path, capsys, EXAMPLES / "combat-example.yaml", "--at", "9")
    page, errors, requests = open_page(browser, url)
    # opened at event 9: the units at Sawayama, the Impact so far, the verdict and its clause
    assert page.inner_text("#heading").endswith(
        "before event 9 of 16: deploy by tokugawa (line 39)"
    )
    assert units(page) == {("Sawayama", "tokugawa"): 6, ("Sawayama", "ishida"): 7}
    assert page.text_content("#step .impact") == "Impact T 8 : I 13"
    assert page.inner_text("#verdict-word") == "\u2713 legal"
    assert page.inner_text("#told").startswith("8.3.1/impact: tokugawa deploys [tokugawa-3-square]")
    assert page.inner_text("#where") == "step 9 of 17"
    # the next button: event 10, where the Impact stands at 13 all
    page.click("#next")
    assert page.get_attribute("body", "data-event") == "10"
    assert page.text_content("#step .impact") == "Impact T 13 : I 13"
    # the right arrow, three times: event 13, Tokugawa's losses, after Ishida lost two blocks
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert page.get_attribute("body", "data-event") == "13"
    assert units(page) == {("Sawayama", "tokugawa"): 6, ("Sawayama", "ishida"): 5}
    # the left arrow steps back; End goes to the end: Ishida retreated to Kyoto
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("body", "data-event") == "12"
    page.keyboard.press("End")
    assert page.inner_text("#heading").endswith("the end of the record, after event 16")
    assert units(page) == {("Sawayama", "tokugawa"): 5, ("Kyoto", "ishida"): 5}
    # clicking an event in the list goes there
    page.click("#events li:nth-child(11) button")
    assert page.inner_text("#told").startswith("8.2.1/result: battle at Sawayama")
    assert errors == []
    assert [u for u in requests if not u.startswith("file:")] == []
    page.close()


def test_the_illegal_event_is_highlighted_and_jumped_to(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = write_page(tmp_path, capsys, EXAMPLES / "illegal" / "road-used-twice.yaml", code=1)
    page, errors, _ = open_page(browser, url)
    assert page.get_attribute("body", "data-event") == "3"
    assert page.inner_text("#verdict-word") == "\u2717 ILLEGAL"
    assert page.inner_text("#cites") == "7.3.1/segment-once"
    assert "Kyoto-Minakuchi was already used" in page.inner_text("#message")
    assert page.get_attribute("#verdict", "class") == "illegal"
    assert page.eval_on_selector_all(
        "#step line.broken", "els => els.map(e => [e.dataset.from, e.dataset.to])"
    ) == [["Kyoto", "Minakuchi"]]
    current = page.locator("#events li.current")
    assert current.get_attribute("class") == "illegal current"
    page.keyboard.press("Home")
    assert page.inner_text("#verdict-word") == "\u2713 legal"
    assert page.locator("#step line.broken").count() == 0
    assert errors == []
    page.close()


def test_readable_on_a_phone(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = write_page(tmp_path, capsys, EXAMPLES / "combat-example.yaml", "--at", "9")
    page, errors, _ = open_page(browser, url, width=390)
    # the page is no wider than the screen, the controls wrap below; the board keeps its
    # labels legible (at least 9 px high) and pans sideways in a frame of its own
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    frame = page.locator("#board").bounding_box()
    assert frame is not None and frame["width"] <= 390
    board = page.locator("#board svg").bounding_box()
    assert board is not None and board["width"] >= 900
    assert page.evaluate("(b => b.scrollWidth > b.clientWidth)(document.getElementById('board'))")
    label = page.evaluate(
        "Math.min(...[...document.querySelectorAll('#board svg text')]"
        ".filter(t => /^[A-Z][a-z]+$/.test(t.textContent))"
        ".map(t => t.getBoundingClientRect().height))"
    )
    assert label >= 9, label
    assert page.locator("#next").is_visible()
    shot = tmp_path / "phone.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000  # a picture was drawn
    assert errors == []
    page.close()


def test_the_svg_opens_in_the_browser(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["show", str(EXAMPLES / "combat-example.yaml"), "--at", "9", "--format", "svg"]) == 0
    )
    path = tmp_path / "board.svg"
    path.write_text(capsys.readouterr().out)
    page, errors, _ = open_page(browser, path.as_uri())
    # parsed as SVG (an XML error would show Chromium's error page instead)
    assert page.evaluate("document.documentElement.namespaceURI") == "http://www.w3.org/2000/svg"
    labels = page.eval_on_selector_all("text.label", "els => els.length")
    assert labels == 51
    assert errors == []
    page.close()


def test_every_event_number_of_the_list_shows(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # numbers of two and three digits: the list's margin holds the widest ("147.")
    url = write_page(tmp_path, capsys, EXAMPLES / "full-game.yaml", "--at", "140")
    page, errors, _ = open_page(browser, url, width=390)
    room, needed = page.evaluate(
        """() => {
          const ol = document.getElementById("events");
          const probe = document.createElement("span");
          probe.textContent = "147. ";
          probe.style.font = getComputedStyle(ol).font;
          document.body.appendChild(probe);
          return [parseFloat(getComputedStyle(ol).paddingLeft), probe.offsetWidth];
        }"""
    )
    assert room >= needed
    assert errors == []
    page.close()


# the boxes of every text and marker of the board as the browser lays them out, and the
# pairs that overlap (by more than half a pixel): a text over a text, or over a marker not
# its own (a stack's count on its stack, a mark's letter on its mark, are their own)
COVERED = """
(i) => {
  const slider = document.getElementById("slider");
  slider.value = String(i);
  slider.dispatchEvent(new Event("input"));
  const svg = document.querySelector("#board svg");
  const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim());
  const markers = [...svg.querySelectorAll(
    "g.unit > rect, g.unit > path, g.mark > :first-child, g.holder > circle, " +
    "g.combat > rect, g.location > circle")];
  const box = (e) => e.getBoundingClientRect();
  const item = (e) => e.closest("[data-item]");
  const name = (e) => e.tagName === "text" ? JSON.stringify(e.textContent.slice(0, 40))
    : e.tagName + "(" + ((e.closest("[data-location]") || e.closest("[data-name]") || e)
        .getAttribute("data-location") || e.closest("[data-name]")?.getAttribute("data-name") || "") + ")";
  const hit = (A, B) => {
    const t = 0.5;
    return A.left + t < B.right && B.left + t < A.right && A.top + t < B.bottom && B.top + t < A.bottom;
  };
  // each element's box and item found once (the layout does not change while it is read),
  // not once for each pair
  const T = texts.map((e) => [e, box(e), item(e)]);
  const M = markers.map((e) => [e, box(e), item(e)]);
  const found = [];
  for (let x = 0; x < T.length; x++) {
    const [a, A, ia] = T[x];
    for (let y = x + 1; y < T.length; y++) {
      const [b, B, ib] = T[y];
      if (ia && ia === ib) continue;
      if (hit(A, B)) found.push(name(a) + " / " + name(b));
    }
    for (const [m, B, im] of M) {
      if (ia && ia === im) continue;
      if (hit(A, B)) found.push(name(a) + " / " + name(m));
    }
  }
  return [document.body.dataset.event, found];
}
"""


def covered(page: Any, steps: int) -> dict[str, list[str]]:
    out = {}
    for i in range(steps):
        event, found = page.evaluate(COVERED, i)
        if found:
            out[event or "end"] = found
    return out


def test_no_text_of_the_full_game_is_covered(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (the measure of the issue: nothing covered at any step of the full game)
    url = write_page(tmp_path, capsys, EXAMPLES / "full-game.yaml")
    page, errors, _ = open_page(browser, url, width=1400)
    steps = page.evaluate("JSON.parse(document.getElementById('steps').textContent).steps.length")
    assert steps == 148
    found = covered(page, steps)
    assert found == {}, (
        f"{sum(map(len, found.values()))} covered at {len(found)} step(s): "
        + "; ".join(f"{k}: {v[:4]}" for k, v in list(found.items())[:6])
    )
    assert errors == []
    page.close()


def test_fierce_battle_s_page_draws_its_hex_board(
    browser: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = write_page(tmp_path, capsys, EXAMPLES / "fierce-battle" / "first-turn.yaml")
    page, errors, requests = open_page(browser, url, width=1400)
    assert page.get_attribute("#board svg", "data-board") == "hex"
    assert page.locator("#board svg g.hex").count() == 48
    # the units at the start, each on its own: fifteen counters, none covering a text
    assert page.locator("#step g.unit.piece").count() == 15
    steps = page.evaluate("JSON.parse(document.getElementById('steps').textContent).steps.length")
    assert covered(page, steps) == {}
    # zones of control on request: hidden, then shown by the switch, and by the Z key
    page.keyboard.press("Home")
    zone = page.locator("#zones-slot g.zones g.zone").first  # under the hexes' names
    assert not zone.is_visible()
    page.check("#zones")
    assert zone.is_visible()
    page.keyboard.press("z")
    assert not zone.is_visible()
    # the log: each event in words, filtered by side and by kind; a click jumps to it
    first = page.inner_text("#events li:nth-child(1) button")
    assert first.startswith("east move: unit tokugawa_ashigaru_1; from 0203 via 0303, 0403 to 0503")
    assert "\u2713 7-2-1/moved" in first
    fire = page.inner_text("#events li:nth-child(5) button")
    assert fire.startswith("west fire: firers ishida_teppo_1; target tokugawa_teppo_1;")
    assert "retreat from 0502 to 0402" in fire
    page.select_option("#by-side", "west")
    shown = page.eval_on_selector_all(
        "#events li:not([hidden])", "els => els.map(e => e.dataset.by)"
    )
    assert shown and set(shown) == {"west"}
    page.select_option("#by-kind", "fire")
    assert page.inner_text("#shown-count") == "1 of 14 shown"
    page.click("#events li:not([hidden]) button")
    assert page.get_attribute("body", "data-event") == "5"
    assert errors == []
    assert [u for u in requests if not u.startswith("file:")] == []
    page.close()
