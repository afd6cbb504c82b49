"""The replay page: one self-contained HTML file (no network, no server) that steps through
a record. The board's SVG is in the page once; each step's layer (caption, units, the event
drawn) is embedded as JSON data with its verdict, clause and outcomes, and a small inline
script swaps the layer in. The JSON is written with every ``<``, ``>`` and ``&`` as a
``\\u`` escape, so that no text of the record can close the script element it sits in.

Size: a page holds at most MAX_STEPS steps, a window of the record around the step it opens
at; each step's layer is bounded (names and faces clipped, faces and outcomes counted past
a few), so that a record of any length gives a page of bounded size.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from referee.compile.spec import Spec
from referee.records.record import Source
from referee.render import log, svg, svg_step
from referee.render.display import load_display
from referee.render.layout import clean
from referee.render.steps import Replay, Step, replay_steps
from referee.resolve.overlays import Choice

MAX_STEPS = 400  # steps one page holds; a longer record gives a window around the focus


def replay_page(
    spec: Spec,
    path: Source,
    choice: Choice,
    at: int | None,
    after: int | None,
    view: str | None = None,
) -> tuple[str, Replay]:
    focus = at if at is not None else after + 1 if after is not None else None
    half = MAX_STEPS // 2

    def keep(i: int, n: int) -> bool:
        if focus is None:
            return True  # the window is cut when the replay is done
        lo = max(1, min(focus - half, n + 2 - MAX_STEPS))
        return lo <= i < lo + MAX_STEPS

    asked = ("--at", at) if at is not None else ("--after", after) if after is not None else None
    replay = replay_steps(spec, path, choice, keep, asked=asked)
    replay.steps = [svg_step.seen_by(s, view) for s in replay.steps]
    steps = replay.steps
    if focus is None and len(steps) > MAX_STEPS:
        # opened at the illegal event (the last step) or at the start
        cut = len(steps) - MAX_STEPS if replay.illegal is not None else 0
        steps = steps[cut : cut + MAX_STEPS]
        replay.first += cut
        replay.steps = steps
    if focus is not None:
        start = focus - replay.first
    elif replay.illegal is not None:
        start = len(steps) - 1
    else:
        start = 0
    start = max(0, min(start, len(steps) - 1))
    display = load_display(spec, replay.sides)
    total = replay.illegal if replay.illegal is not None else replay.events + 1
    data: dict[str, Any] = {
        "file": clean(replay.file, 200),
        "events": replay.events,
        "first": replay.first,
        "start": start,
        "illegal": replay.illegal,
        "window": len(steps) < total,
    }
    pieces: dict[str, int] = {}
    data["steps"] = [
        {
            **_entry(display, replay, s, pieces),
            "log": log.entry(display, s, steps[i + 1].state if i + 1 < len(steps) else None),
        }
        for i, s in enumerate(steps)
    ]
    data["sides"] = [
        {"side": clean(side, 40), "letter": clean(look.letter, 4)}
        for side, look in display.sides.items()
    ]
    data["pieces"] = list(pieces)
    # the panel under the map as tall as the fullest step's needs: no step's list is cut
    rows = max((svg_step.panel_rows(display, s) for s in steps), default=0)
    board = svg.to_text(svg.board(display, rows=rows))
    return _page(data, board, replay.file), replay


def _entry(display: Any, replay: Replay, step: Step, pieces: dict[str, int]) -> dict[str, Any]:
    ev = step.event
    v = step.violation or {}
    return {
        "event": ev["index"] if ev else None,
        "label": _label(step),
        "heading": clean(svg_step.heading(replay, step), 300),
        "rules": [clean(x, 300) for x in [step.summary, *step.frames] if x],
        "verdict": step.verdict,
        "cites": v.get("cites", ""),
        "title": clean(v.get("title", ""), 200),
        "message": clean(v.get("message", ""), 600),
        "told": [
            {"cites": clean(t["cites"], 100), "text": clean(t["text"], 600)} for t in step.told
        ],
        "told_left_out": step.told_left_out,
        # the step's layer as pieces (caption, control, event, units, boxes, panel), each
        # kept once in the page however many steps share it
        "layer": [
            pieces.setdefault(svg.to_text(part), len(pieces))
            for part in svg_step.step_layer(display, replay, step)
        ],
    }


def _label(step: Step) -> str:
    ev = step.event
    if ev is None:
        return "start" if step.position == "start" else "end"
    by = f" by {ev['by']}" if ev["by"] is not None else ""
    return clean(f"{ev['action']}{by}", 120)


def script_json(data: Any) -> str:
    """JSON that can sit inside a <script> element: no ``<``, ``>`` or ``&`` as such."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _page(data: Any, board: str, file: str) -> str:
    parts = {
        "TITLE": html.escape(clean(f"Replay of {file}", 200)),
        "BOARD": board,
        "DATA": script_json(data),
        "SCRIPT": SCRIPT,
    }
    # one pass: what is put in is never looked at again
    return re.sub(r"@(TITLE|BOARD|DATA|SCRIPT)@", lambda m: parts[m.group(1)], PAGE)


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>@TITLE@</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; color: #111; background: #fff; }
  main { display: flex; flex-wrap: wrap; gap: 1rem; padding: 0.5rem; }
  #board { flex: 3 1 36rem; min-width: 0; }
  #board svg { width: 100%; height: auto; display: block; }
  body.zones #board g.zones { display: inline; }
  aside { flex: 1 1 20rem; min-width: 0; }
  h1 { font-size: 1.1rem; margin: 0.5rem; overflow-wrap: anywhere; }
  .controls { display: flex; gap: 0.4rem; align-items: center; flex-wrap: wrap; }
  .controls button { font-size: 1.1rem; min-width: 2.6rem; min-height: 2.6rem; }
  #slider { flex: 1 1 8rem; }
  #verdict { padding: 0.5rem; border: 3px solid #2e7d32; margin: 0.5rem 0;
             overflow-wrap: anywhere; }
  #verdict.illegal { border: 3px dashed #c62828; background: #fde8e8; }
  #verdict.none { border-color: #999; }
  #told li, #events li { overflow-wrap: anywhere; }
  #events { max-height: 40vh; overflow-y: auto; padding-left: 4.5ch; position: relative; }
  #events li.current { font-weight: bold; outline: 2px solid #1f4e9e; }
  #events li.illegal { color: #7f0000; }
  /* a block: the event's number stands by its first line, not its last */
  #events button { all: unset; display: block; cursor: pointer; }
  #events button:focus-visible { outline: 3px solid #1f4e9e; }
  #events .kind { font-weight: bold; }
  .filters { display: flex; gap: 0.6rem; flex-wrap: wrap; margin: 0.3rem 0; }
  .filters select, .filters label { font-size: 1rem; }
  .cites { font-family: ui-monospace, monospace; }
  @media (max-width: 40rem) {
    main { padding: 0; } aside { padding: 0 0.5rem; }
    /* a phone: the board keeps its labels legible and pans sideways in its own frame */
    #board { overflow-x: auto; -webkit-overflow-scrolling: touch; }
    #board svg { width: 60rem; max-width: none; }
  }
</style>
</head>
<body>
<h1 id="heading"></h1>
<main>
<div id="board">@BOARD@</div>
<aside>
  <div class="controls" role="group" aria-label="step">
    <button id="first" type="button" title="first step (Home)">&laquo; first</button>
    <button id="prev" type="button" title="previous step (left arrow)">&#x25C0; back</button>
    <button id="next" type="button" title="next step (right arrow)">next &#x25B6;</button>
    <button id="last" type="button" title="last step (End)">last &raquo;</button>
    <input id="slider" type="range" min="0" value="0" aria-label="step">
    <span id="where" aria-live="polite"></span>
  </div>
  <label id="zones-switch" hidden><input type="checkbox" id="zones">
    show zones of control (Z)</label>
  <div id="verdict" aria-live="polite">
    <div><strong id="verdict-word"></strong> <span id="cites" class="cites"></span>
      <span id="clause-title"></span></div>
    <div id="message"></div>
  </div>
  <div id="rules"></div>
  <h2>What the rules told</h2>
  <ul id="told"></ul>
  <h2>Events</h2>
  <div class="filters" role="group" aria-label="filter the events">
    <label>side <select id="by-side"><option value="">every side</option></select></label>
    <label>kind <select id="by-kind"><option value="">every kind</option></select></label>
    <span id="shown-count" aria-live="polite"></span>
  </div>
  <p id="window-note"></p>
  <ol id="events"></ol>
</aside>
</main>
<script type="application/json" id="steps">@DATA@</script>
<script>@SCRIPT@</script>
</body>
</html>
"""

SCRIPT = """
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("steps").textContent);
  const steps = data.steps;
  const svgNS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const slider = $("slider");
  slider.max = String(steps.length - 1);
  let current = -1;
  const items = [];
  steps.forEach((s, i) => {
    const li = document.createElement("li");
    if (s.event !== null) li.value = s.event;
    else li.style.listStyleType = "none";
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = s.log.text;
    b.title = s.heading;
    b.addEventListener("click", () => go(i));
    li.appendChild(b);
    li.dataset.by = s.log.by;
    li.dataset.kind = s.log.kind;
    if (s.verdict === "illegal") li.classList.add("illegal");
    $("events").appendChild(li);
    items.push(li);
  });
  // the filters: by side, by kind of event (the actions the record holds)
  const bySide = $("by-side"), byKind = $("by-kind");
  data.sides.forEach((d) => bySide.add(new Option(d.side + " (" + d.letter + ")", d.side)));
  [...new Set(steps.map((s) => s.log.kind).filter((k) => k))].sort()
    .forEach((k) => byKind.add(new Option(k, k)));
  function filter() {
    let n = 0;
    items.forEach((li) => {
      const hide = (bySide.value && li.dataset.by !== bySide.value) ||
        (byKind.value && li.dataset.kind !== byKind.value);
      li.hidden = Boolean(hide);
      if (!hide) n += 1;
    });
    $("shown-count").textContent = n + " of " + items.length + " shown";
  }
  bySide.addEventListener("change", filter);
  byKind.addEventListener("change", filter);
  // room for the widest event number in the list's margin ("147." or "199999.")
  $("events").style.paddingLeft =
    (String(data.first + steps.length).length + 2.5) + "ch";
  if (data.window) {
    $("window-note").textContent = "This page holds " + steps.length + " of the record's " +
      data.events + " events (a window around the step it opens at).";
  }
  function layer(parts) {
    const text = parts.map((k) => data.pieces[k]).join("");
    const doc = new DOMParser().parseFromString(
      '<svg xmlns="' + svgNS + '">' + text + "</svg>", "image/svg+xml");
    const g = document.createElementNS(svgNS, "g");
    if (doc.getElementsByTagName("parsererror").length) return g;
    for (const child of Array.from(doc.documentElement.children)) {
      g.appendChild(document.importNode(child, true));
    }
    return g;
  }
  function go(i) {
    i = Math.max(0, Math.min(steps.length - 1, i));
    if (i === current) return;
    current = i;
    const s = steps[i];
    const old = document.getElementById("step");
    const fresh = layer(s.layer);
    fresh.id = "step";
    // a hex board's zones of control go in their slot, under the hexes' names
    const slot = document.getElementById("zones-slot");
    const zoneLayer = fresh.querySelector(":scope > g.zones");
    if (slot) slot.replaceChildren(...(zoneLayer ? [zoneLayer] : []));
    old.replaceWith(fresh);
    $("heading").textContent = s.heading;
    const v = $("verdict");
    v.className = s.verdict || "none";
    v.dataset.verdict = s.verdict;
    $("verdict-word").textContent = s.verdict === "illegal" ? "\\u2717 ILLEGAL" :
      s.verdict === "legal" ? "\\u2713 legal" : "no event";
    $("cites").textContent = s.cites;
    $("clause-title").textContent = s.title ? "(" + s.title + ")" : "";
    $("message").textContent = s.message;
    $("rules").textContent = s.rules.join(" \\u00b7 ");
    const told = $("told");
    told.replaceChildren();
    s.told.forEach((t) => {
      const li = document.createElement("li");
      const c = document.createElement("span");
      c.className = "cites";
      c.textContent = t.cites;
      li.append(c, ": " + t.text);
      told.appendChild(li);
    });
    if (s.told_left_out) {
      const li = document.createElement("li");
      li.textContent = "and " + s.told_left_out + " more";
      told.appendChild(li);
    }
    if (!s.told.length) {
      const li = document.createElement("li");
      li.textContent = s.verdict === "legal" ? "nothing" : "\\u2014";
      told.appendChild(li);
    }
    slider.value = String(i);
    $("where").textContent = "step " + (i + 1) + " of " + steps.length;
    items.forEach((li, k) => li.classList.toggle("current", k === i));
    // the current entry shown in the log's own scroll box; the window stays where the
    // player put it (scrollIntoView scrolled it too, taking the board off a phone's screen)
    const list = $("events"), li = items[i];
    if (li.offsetTop < list.scrollTop) list.scrollTop = li.offsetTop;
    else if (li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = li.offsetTop + li.offsetHeight - list.clientHeight;
    }
    document.body.dataset.step = String(i);
    document.body.dataset.event = s.event === null ? "" : String(s.event);
  }
  // zones of control, on request (a hex board's display data names them)
  if (document.querySelector("#board svg[data-zones]")) $("zones-switch").hidden = false;
  const zones = $("zones");
  zones.addEventListener("change", () => document.body.classList.toggle("zones", zones.checked));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(current - 1));
  $("next").addEventListener("click", () => go(current + 1));
  $("last").addEventListener("click", () => go(steps.length - 1));
  slider.addEventListener("input", () => go(Number(slider.value)));
  document.addEventListener("keydown", (e) => {
    if (e.target === slider || e.target.tagName === "SELECT") return;
    // the browser's own shortcuts (Alt+Left goes back a page, Ctrl+End...) stay its own
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "ArrowRight") { go(current + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(current - 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(steps.length - 1); e.preventDefault(); }
    else if ((e.key === "z" || e.key === "Z") && !$("zones-switch").hidden) {
      zones.checked = !zones.checked;
      zones.dispatchEvent(new Event("change"));
    }
  });
  go(data.start);
})();
"""
