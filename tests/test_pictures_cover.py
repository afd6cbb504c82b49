"""Nothing covered, measured in a real browser (headless Chromium, as in
test_pictures_browser.py): at every step of the full example game, no text of the board
covers another text, a stack, a mark or a location; every text stays at least 9 px high on a
phone's screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.referee_helpers import EXAMPLES
from tests.test_pictures_browser import browser, open_page, write_page

__all__ = ["browser"]

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
  const hit = (a, b) => {
    const A = box(a), B = box(b), t = 0.5;
    return A.left + t < B.right && B.left + t < A.right && A.top + t < B.bottom && B.top + t < A.bottom;
  };
  const found = [];
  const tb = texts.map(box);
  for (let x = 0; x < texts.length; x++) {
    for (let y = x + 1; y < texts.length; y++) {
      const a = texts[x], b = texts[y];
      if (item(a) && item(a) === item(b)) continue;
      if (hit(a, b)) found.push(name(a) + " / " + name(b));
    }
    for (const m of markers) {
      const a = texts[x];
      if (item(a) && item(a) === item(m)) continue;
      if (hit(a, m)) found.push(name(a) + " / " + name(m));
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
    url = write_page(tmp_path, capsys, EXAMPLES / "full-game.yaml")
    page, errors, _ = open_page(browser, url, width=1400)
    steps = page.evaluate("JSON.parse(document.getElementById('steps').textContent).steps.length")
    assert steps == 148
    found = covered(page, steps)
    assert found == {}, f"{sum(map(len, found.values()))} covered at {len(found)} step(s): " + "; ".join(
        f"{k}: {v[:4]}" for k, v in list(found.items())[:6]
    )
    assert errors == []
    page.close()
