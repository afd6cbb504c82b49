"""A step of a replay drawn as SVG over the board (svg.py): its caption, the units by location
and side, who controls what, the event (a path, a combat, an outcome) and the panel of
units."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from referee.render.display import Display
from referee.render.steps import Replay, Step
from referee.render.svg import (
    FACES_SHOWN,
    HEADER,
    LINE,
    MARK_STEP,
    PANEL_COLUMNS,
    PANEL_ROWS,
    PATH_BLUE,
    RED,
    ROW,
    _block,
    _el,
    _marks_of,
    _outlined,
    _pattern_id,
    _title,
    board,
    clean,
)


def step_layer(display: Display, replay: Replay, step: Step) -> ET.Element:
    """What changes from step to step: caption, units, control, the event, the panel."""
    layer = ET.Element("g", {"id": "step"})
    _caption(layer, display, replay, step)
    for part in (_control, _event, _units, _box_units):
        part(_el(layer, "g", transform=f"translate(0 {HEADER})"), display, step)
    _panel(layer, display, step)
    return layer


def _wrap(text: str, width: int = LINE) -> list[str]:
    words, lines, line = text.split(" "), [], ""
    for w in words:
        if line and len(line) + 1 + len(w) > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}" if line else w
    lines.append(line)
    return [line[:width] for line in lines]


def _fit(lines: list[str], most: int, width: int = LINE) -> list[str]:
    """At most ``most`` lines; when some are left out, the last kept ends with an ellipsis
    (a cut is never silent)."""
    if len(lines) <= most:
        return lines
    kept = lines[:most]
    kept[-1] = kept[-1][: width - 2].rstrip() + " \u2026"
    return kept


def heading(replay: Replay, step: Step) -> str:
    ev = step.event
    if ev is None:
        return (
            f"{replay.file}: the position the record starts from (it has no events)"
            if step.position == "start"
            else f"{replay.file}: the end of the record, after event {replay.events}"
        )
    by = f" by {ev['by']}" if ev["by"] is not None else ""
    return (
        f"{replay.file}: the position {step.position} event {ev['index']} of "
        f"{replay.events}: {ev['action']}{by} (line {ev['line']})"
    )


def verdict_line(step: Step) -> str:
    if step.verdict == "illegal" and step.violation:
        v = step.violation
        title = f" ({v['title']})" if v["title"] else ""
        return f"\u2717 ILLEGAL: {v['cites']}{title}: {v['message']}"
    if step.verdict == "legal":
        said = "; ".join(f"{t['cites']}: {t['text']}" for t in step.told[:2])
        more = len(step.told) - 2 + step.told_left_out
        tail = f"; and {more} more" if more > 0 else ""
        return "\u2713 legal" + (f": {said}{tail}" if said else "")
    return ""


def _caption(layer: ET.Element, display: Display, replay: Replay, step: Step) -> None:
    cap = _el(layer, "g", class_="caption")
    _el(
        cap,
        "text",
        clean(heading(replay, step), 300),
        x=30,
        y=56,
        font_size=44,
        font_weight="bold",
        class_="heading",
    )
    where = " \u00b7 ".join([s for s in [step.summary, *step.frames] if s])
    verdict = clean(verdict_line(step), 600)
    illegal = step.verdict == "illegal"
    # the band holds five lines under the heading: the verdict takes up to three (two for
    # a legal one, whose outcomes the page lists in full), the procedures what is left
    lines = _fit(_wrap(verdict), 3 if illegal else 2) if verdict else []
    y = 110
    for line in _fit(_wrap(clean(where, 400)), 2 if len(lines) < 3 else 1):
        _el(cap, "text", line, x=30, y=y, font_size=36, class_="rules")
        y += 46
    if not verdict:
        return
    box = _el(cap, "g", class_="verdict-box")
    _title(box, verdict)  # the whole verdict, where the box shows part of it
    _el(
        box,
        "rect",
        x=20,
        y=y - 36,
        width=display.width - 40,
        height=48 * len(lines) + 10,
        fill="#fde8e8" if illegal else "#e8f3e8",
        stroke=RED if illegal else "#2e7d32",
        stroke_width=4,
        stroke_dasharray="14 8" if illegal else "none",
        rx=8,
    )
    t = _el(
        box,
        "text",
        None,
        x=40,
        y=y,
        font_size=38,
        class_="verdict",
        data_verdict=step.verdict,
        fill="#7f0000" if illegal else "#1b4d1f",
    )
    for i, line in enumerate(lines):
        _el(t, "tspan", line, x=40, dy=0 if i == 0 else 48)


def _state(step: Step, name: str) -> Any:
    return step.state.get(name) if name else None


def _control(g: ET.Element, display: Display, step: Step) -> None:
    g.set("class", "control")
    ctl = g
    for p in display.places.values():
        for i, mark in enumerate(_marks_of(display, p)):
            x, y = p.x + 44 + MARK_STEP * i, p.y - 20
            if mark.standing:
                standing = _state(step, mark.standing) or {}
                if not standing.get(p.name):  # gone: crossed out
                    _el(
                        ctl,
                        "path",
                        d=f"M{x - 22},{y - 22} L{x + 22},{y + 22} "
                        f"M{x + 22},{y - 22} L{x - 22},{y + 22}",
                        stroke="#000000",
                        stroke_width=6,
                    )
            if mark.holder:
                side = (_state(step, mark.holder) or {}).get(p.name)
                look = display.sides.get(side) if isinstance(side, str) else None
                if look is not None:
                    badge = _el(
                        ctl,
                        "g",
                        class_="holder",
                        data_location=clean(p.name),
                        data_side=clean(side),
                    )
                    _el(
                        badge,
                        "circle",
                        cx=x,
                        cy=y + 40,
                        r=17,
                        fill=f"url(#{_pattern_id(display, look.name)})",
                        stroke="#000000",
                        stroke_width=3,
                    )
                    _outlined(
                        badge,
                        clean(look.letter, 2),
                        x=x,
                        y=y + 50,
                        size=26,
                        fill="#ffffff",
                        halo="#000000",
                        width=4,
                    )
                    _title(badge, f"{p.name}: {mark.title} held by {side}")


def _units(g: ET.Element, display: Display, step: Step) -> None:
    units = _state(step, display.units) or {}
    g.set("class", "units")
    layer = g
    for place, by_side in units.items():
        p = display.places.get(place)
        if p is None or not isinstance(by_side, dict):
            continue
        present = [(s, f) for s, f in by_side.items() if isinstance(f, list) and f]
        width = 120 * len(present)
        # centred over the place, and kept on the board near its edges
        left = max(0, min(p.x - width / 2, display.width - width))
        for i, (side, faces) in enumerate(present):
            look = display.sides.get(side)
            x, y = left + 120 * i + 5, p.y - 100
            u = _el(
                layer,
                "g",
                class_="unit",
                data_location=clean(place),
                data_side=clean(side),
                data_count=len(faces),
            )
            _block(u, display, look, x, y, f"{clean(look.letter if look else side, 2)}{len(faces)}")
            _title(u, f"{place}: {side}, {len(faces)} block(s): {_faces(faces)}")


def _faces(faces: list[Any]) -> str:
    shown_ = ", ".join(clean(f, 40) for f in faces[:FACES_SHOWN])
    more = len(faces) - FACES_SHOWN
    return shown_ + (f", and {more} more" if more > 0 else "")


def _box_units(g: ET.Element, display: Display, step: Step) -> None:
    g.set("class", "box-units")
    layer = g
    for b in display.boxes:
        value = _state(step, b.state)
        if b.side and isinstance(value, dict):
            value = value.get(b.side)
        if not isinstance(value, list) or not value:
            continue
        look = display.sides.get(b.side) if b.side else None
        u = _el(
            layer,
            "g",
            class_="unit",
            data_location=clean(b.name),
            data_side=clean(b.side),
            data_count=len(value),
        )
        _block(u, display, look, b.x + 20, b.y + 70, f"{len(value)}", fill=b.colour)
        lines = _fit(_wrap(_faces(value), 40), 3, 40)
        for i, line in enumerate(lines):
            _el(u, "text", line, x=b.x + 150, y=b.y + 100 + 40 * i, font_size=28)
        _title(u, f"{b.name}: {len(value)} block(s): {_faces(value)}")


def _event(g: ET.Element, display: Display, step: Step) -> None:
    g.set("class", "event")
    layer = g
    ev = step.event
    if ev is None:
        return
    named = _named(display, step)
    drew_path = False
    for path in _paths(ev["args"], display.path):
        pts = [display.places[n] for n in path if n in display.places]
        if len(pts) < 2:
            continue
        drew_path = True
        bad = _bad_segments(path, named) if step.verdict == "illegal" else set()
        for i in range(len(pts) - 1):
            a, b = pts[i], pts[i + 1]
            broke = i in bad
            seg = _el(
                layer,
                "line",
                x1=a.x,
                y1=a.y,
                x2=b.x,
                y2=b.y,
                stroke=RED if broke else PATH_BLUE,
                stroke_width=18 if broke else 14,
                stroke_linecap="round",
                class_="segment broken" if broke else "segment",
                data_from=clean(a.name),
                data_to=clean(b.name),
            )
            if broke:
                seg.set("stroke-dasharray", "34 16")
                _outlined(
                    layer,
                    "\u2717",
                    x=(a.x + b.x) / 2,
                    y=(a.y + b.y) / 2 + 20,
                    size=64,
                    fill=RED,
                    halo="#ffffff",
                    width=8,
                )
            else:
                seg.set("marker-end", "url(#arrow)")
            _title(seg, f"{a.name} - {b.name}" + (": breaks the rule" if broke else ""))
    if step.verdict == "illegal" and not drew_path:
        for name in named:
            p = display.places[name]
            ring = _el(
                layer,
                "circle",
                cx=p.x,
                cy=p.y,
                r=70,
                fill="none",
                stroke=RED,
                stroke_width=10,
                stroke_dasharray="20 10",
                class_="named",
            )
            _title(ring, f"{name}: named by the rule broken")
    _combat(layer, display, step)
    for t in display.told:
        for told in step.told:
            if told["cites"] != t.cites:
                continue
            at = told["values"].get(t.at)
            there = display.places.get(at) if isinstance(at, str) else None
            if there is None:
                continue
            p = there
            m = _el(layer, "g", class_="told", data_label=clean(t.label), data_location=clean(at))
            _el(
                m,
                "path",
                d=f"M{p.x - 50},{p.y - 50} L{p.x + 50},{p.y + 50} "
                f"M{p.x + 50},{p.y - 50} L{p.x - 50},{p.y + 50}",
                stroke="#6a1b9a",
                stroke_width=12,
            )
            _outlined(
                m,
                clean(t.label),
                x=p.x,
                y=p.y + 110,
                size=40,
                fill="#4a148c",
                halo="#ffffff",
                width=8,
            )
            _title(m, told["text"])


def _combat(layer: ET.Element, display: Display, step: Step) -> None:
    at = next((v for s in display.combat_at if isinstance(v := _state(step, s), str)), None)
    p = display.places.get(at) if at else None
    if p is None:
        return
    impact = _state(step, display.impact) or {}
    parts = []
    for side, look in display.sides.items():
        parts.append(f"{look.letter} {impact.get(side, 0) if isinstance(impact, dict) else 0}")
    c = _el(layer, "g", class_="combat", data_location=clean(at))
    _el(
        c,
        "circle",
        cx=p.x,
        cy=p.y,
        r=150,
        fill="none",
        stroke="#b71c1c",
        stroke_width=10,
        stroke_dasharray="6 10",
    )
    text = "Impact " + " : ".join(parts)
    _el(
        c,
        "rect",
        x=p.x - 230,
        y=p.y - 225,
        width=460,
        height=60,
        rx=10,
        fill="#ffffff",
        stroke="#b71c1c",
        stroke_width=4,
    )
    _el(
        c,
        "text",
        clean(text),
        x=p.x,
        y=p.y - 182,
        font_size=40,
        font_weight="bold",
        text_anchor="middle",
        fill="#7f0000",
        class_="impact",
    )
    _title(c, f"combat at {at}: {text}")


def _paths(args: Any, key: str, depth: int = 0) -> list[list[str]]:
    """Every list of names under ``key`` in an event's arguments, at any depth."""
    found: list[list[str]] = []
    if depth > 8 or not key:
        return found
    if isinstance(args, dict):
        for k, v in args.items():
            if k == key and isinstance(v, list) and all(isinstance(x, str) for x in v):
                found.append(v)
            else:
                found += _paths(v, key, depth + 1)
    elif isinstance(args, list):
        for v in args[:100]:
            found += _paths(v, key, depth + 1)
    return found[:100]


def _named(display: Display, step: Step) -> list[str]:
    """The places the violation's message and numbers name, in the order they name them."""
    v = step.violation
    if not v:
        return []
    text = " ".join([v["message"], *v.get("numbers", [])])
    found: dict[str, int] = {}
    for name in display.places:
        m = re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text)
        if m:
            found[name] = m.start()
    return sorted(found, key=found.__getitem__)


def _bad_segments(path: list[str], named: list[str]) -> set[int]:
    """The segments of a path a violation is about: those both of whose ends it names; if
    it names one place of the path (past the start), the segments after it (the move went
    on past it); otherwise every segment."""
    both = {i for i in range(len(path) - 1) if path[i] in named and path[i + 1] in named}
    if both and len(both) < len(path) - 1:
        return both
    on = [i for i, n in enumerate(path) if n in named and i > 0]
    if len(on) == 1 and on[0] < len(path) - 1:
        return set(range(on[0], len(path) - 1))
    return both or set(range(len(path) - 1))


def _panel(layer: ET.Element, display: Display, step: Step) -> None:
    top = HEADER + display.height
    panel = _el(layer, "g", class_="panel")
    _el(
        panel,
        "text",
        "Units by location (letter, number of blocks: faces)",
        x=30,
        y=top + 52,
        font_size=34,
        font_weight="bold",
    )
    rows: list[str] = []
    units = _state(step, display.units) or {}
    for place, by_side in units.items():
        if not isinstance(by_side, dict):
            continue
        for side, faces in by_side.items():
            if isinstance(faces, list) and faces:
                look = display.sides.get(side)
                letter = look.letter if look else side
                rows.append(f"{place}  {letter}{len(faces)}: {_faces(faces)}")
    width = display.width // PANEL_COLUMNS
    chars = width // 16
    lines: list[tuple[int, str]] = []  # indent, text
    for row in rows:
        wrapped = _wrap(clean(row, 3 * chars), chars - 4)
        lines += [(0, wrapped[0]), *((60, w) for w in wrapped[1:])]
    room = PANEL_COLUMNS * PANEL_ROWS
    if len(lines) > room:
        lines = lines[: room - 1] + [(0, f"... and {len(lines) - room + 1} more lines")]
    for i, (indent, line) in enumerate(lines):
        col, r = divmod(i, PANEL_ROWS)
        _el(
            panel,
            "text",
            line,
            x=30 + indent + col * width,
            y=top + 100 + r * ROW,
            font_size=28,
            class_="panel-row",
        )


def picture(display: Display, replay: Replay, step: Step) -> ET.Element:
    return board(display, step_layer(display, replay, step))
