"""A step of a replay drawn as SVG over the board (svg.py): its caption, who controls what,
the event (a path, a combat, an outcome), the units by location and side (a castle's
besieged units apart, a siege drawn as one), the off-map boxes' units and the panel of
units. Each stack, note and Impact is put where it covers no text or mark of the board's
plan (plan.py) nor anything this step drew before it."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

from referee.render import hexmap, layout
from referee.render import plan as planned
from referee.render.display import Display, Place
from referee.render.layout import Boxes, clean, text_box, text_width
from referee.render.steps import Replay, Step
from referee.render.svg import (
    FACES_SHOWN,
    HEADER,
    LINE,
    PANEL_COLUMNS,
    PATH_BLUE,
    RED,
    ROW,
    _block,
    _el,
    _outlined,
    _pattern_id,
    _title,
    board,
    mark_letter,
    panel_top,
)

STACK_W, STACK_H, STACK_GAP = 110, 52, 10
WALL = 12  # the battlements over a stack inside a castle
NOTE_SIZE = 36


def seen_by(step: Step, view: str | None) -> Step:
    """A step as the seat ``view`` sees it. The hook of a seat's view (`--view SIDE`, with
    the hidden-information issue): the other sides' blocks would be drawn face-down, with
    their counts. Until then every side's are drawn (``view`` changes nothing)."""
    return step


def step_layer(display: Display, replay: Replay, step: Step) -> ET.Element:
    """What changes from step to step: caption, control, the event, units, boxes, panel."""
    layer = ET.Element("g", {"id": "step"})
    _caption(layer, display, replay, step)
    taken = planned.plan(display).taken.copy()
    groups = [_el(layer, "g", transform=f"translate(0 {HEADER})") for _ in range(4)]
    if display.hexes is not None:
        hexmap.draw_zones(groups[0], display, step.zones, _el, _title)
        hexmap.draw_gone(groups[1], display, step.state, _el, _title)
        hexmap.draw_pieces(groups[2], display, step.pieces, taken, _el, _outlined, _title)
    else:
        _control(groups[0], display, step)
        _units(groups[2], display, step, taken)
    _event(groups[1], display, step, taken)
    _box_units(groups[3], display, step)
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
            f"{replay.file}: the position the record starts from"
            + ("" if replay.events else " (it has no events)")
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


def status_line(display: Display, step: Step) -> str:
    """Cards in hand (a count each side), and the units lost at this event."""
    parts = []
    hands = _state(step, display.hands)
    if display.hands:
        counts = [
            f"{look.letter} {len(hands.get(side) or []) if isinstance(hands, dict) else 0}"
            for side, look in display.sides.items()
        ]
        parts.append("cards in hand: " + ", ".join(counts))
    for side, faces in step.lost_here.items():
        look = display.sides.get(side)
        who = f"{side} ({look.letter})" if look else side
        parts.append(f"lost at this event by {who}: {len(faces)}: {_faces(faces)}")
    return " \u00b7 ".join(parts)


CAPTION_WIDTH = 2400  # a board narrower than this has its caption drawn smaller
CHAR = 24.6  # the mean advance of a caption's character at 36 px (what LINE holds on 3354)


def _caption(layer: ET.Element, display: Display, replay: Replay, step: Step) -> None:
    cap = _el(layer, "g", class_="caption")
    k = min(1.0, display.width / CAPTION_WIDTH)
    chars = min(LINE, int((display.width - 60) / (CHAR * k)))
    head = clean(heading(replay, step), 300)
    size = 44 * k
    while size > 22 and text_width(head, size, bold=True) > display.width - 60:
        size -= 1
    _el(cap, "text", head, x=30, y=56, font_size=round(size), font_weight="bold", class_="heading")
    where = " \u00b7 ".join([s for s in [step.summary, *step.frames] if s])
    verdict = clean(verdict_line(step), 600)
    illegal = step.verdict == "illegal"
    # the band holds six lines under the heading: the state of play (hands, losses) one,
    # the verdict up to three (two for a legal one, whose outcomes the page lists in
    # full), the procedures what is left
    lines = _fit(_wrap(verdict, chars), 3 if illegal else 2, chars) if verdict else []
    y = 110.0
    step_y = 46 * k
    for line in _fit(_wrap(clean(where, 400), chars), 2 if len(lines) < 3 else 1, chars):
        _el(cap, "text", line, x=30, y=round(y), font_size=round(36 * k), class_="rules")
        y += step_y
    status = status_line(display, step)
    if status:
        (line,) = _fit(_wrap(clean(status, 600), chars), 1, chars)
        _el(cap, "text", line, x=30, y=round(y), font_size=round(36 * k), class_="status")
        y += step_y
    if not verdict:
        return
    y += 10 * k
    box = _el(cap, "g", class_="verdict-box")
    _title(box, verdict)  # the whole verdict, where the box shows part of it
    _el(
        box,
        "rect",
        x=20,
        y=round(y - 36 * k),
        width=display.width - 40,
        height=round(48 * k * len(lines) + 10),
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
        y=round(y),
        font_size=round(38 * k),
        class_="verdict",
        data_verdict=step.verdict,
        fill="#7f0000" if illegal else "#1b4d1f",
    )
    for i, line in enumerate(lines):
        _el(t, "tspan", line, x=40, dy=0 if i == 0 else round(48 * k))


def _state(step: Step, name: str) -> Any:
    return step.state.get(name) if name else None


def _control(g: ET.Element, display: Display, step: Step) -> None:
    g.set("class", "control")
    plan = planned.plan(display)
    for p in display.places.values():
        for mark, x, y in plan.marks[p.name]:
            if mark.standing:
                standing = _state(step, mark.standing) or {}
                if not standing.get(p.name):  # gone: crossed out
                    gone = _el(g, "path", class_="gone", data_location=clean(p.name))
                    gone.set(
                        "d",
                        f"M{x - 24},{y - 24} L{x + 24},{y + 24} "
                        f"M{x + 24},{y - 24} L{x - 24},{y + 24}",
                    )
                    gone.set("stroke", "#000000")
                    gone.set("stroke-width", "7")
                    _title(gone, f"{p.name}: {mark.title} gone")
            if mark.holder:
                side = (_state(step, mark.holder) or {}).get(p.name)
                look = display.sides.get(side) if isinstance(side, str) else None
                if look is None:
                    continue
                badge = _el(
                    g,
                    "g",
                    class_="holder",
                    data_location=clean(p.name),
                    data_side=clean(side),
                    data_item="holder",
                )
                r, cy = planned.BADGE_R, y + planned.BADGE_DY
                _el(
                    badge,
                    "circle",
                    cx=x,
                    cy=cy,
                    r=r,
                    fill=f"url(#{_pattern_id(display, look.name)})",
                    stroke="#000000",
                    stroke_width=3,
                )
                mark_letter(badge, look.letter, x, cy + 11)
                _title(badge, f"{p.name}: {mark.title} held by {side}")


def besieged_side(display: Display, step: Step, place: str) -> Any:
    """The side besieged at a place: as the state says, or the side inside in a siege being
    fought there (the combat that puts it inside, before the state names it)."""
    side = (_state(step, display.besieged) or {}).get(place)
    if side is None and display.fought is not None:
        proc, at, inside = display.fought
        for name, args in step.running:
            if name == proc and args.get(at) == place and args.get(inside) in display.sides:
                side = args[inside]
    return side


def stacks_at(display: Display, step: Step, place: str, by_side: dict[str, Any]) -> list[Any]:
    """A location's stacks: (side, faces, inside) for each side there, a besieged side's
    units inside the castle apart from those of it outside (all of them, when the state of
    those inside names none: as the spec's garrison reads, those there now)."""
    besieged = besieged_side(display, step, place)
    inside = (_state(step, display.inside) or {}).get(place) or []
    out = []
    for side, faces in by_side.items():
        if not isinstance(faces, list) or not faces:
            continue
        if side == besieged and (not isinstance(inside, list) or not inside):
            out.append((side, faces, True))  # no garrison named: every block there is inside
        elif side == besieged and isinstance(inside, list) and inside:
            left = Counter(str(f) for f in inside)
            outside = []
            for f in faces:
                if left[str(f)] > 0:
                    left[str(f)] -= 1
                else:
                    outside.append(f)
            out.append((side, [f for f in faces if f not in outside] or inside, True))
            if outside:
                out.append((side, outside, False))
        else:
            out.append((side, faces, False))
    return out


def _units(g: ET.Element, display: Display, step: Step, taken: Boxes) -> None:
    units = _state(step, display.units) or {}
    g.set("class", "units")
    for place, by_side in units.items():
        p = display.places.get(place)
        if p is None or not isinstance(by_side, dict):
            continue
        stacks = stacks_at(display, step, place, by_side)
        if not stacks:
            continue
        width = (STACK_W + STACK_GAP) * len(stacks) - STACK_GAP
        top = p.y - planned.RADIUS - 8 - STACK_H - WALL
        whole = (p.x - width / 2, top, p.x + width / 2, top + STACK_H + WALL)
        w, h = width, STACK_H + WALL
        first = [(0.0, 0.0), (w / 2 + 30, 20.0)] + [
            (dx, dy + planned.RADIUS + 8 + h / 2) for dx, dy in layout.around(w, h, 34)
        ]
        spot = layout.put(taken, [whole], (p.x, p.y), first)
        left, y = whole[0] + spot.dx, top + spot.dy + WALL
        besieged = besieged_side(display, step, place)
        siege = besieged is not None or any(inside for _, _, inside in stacks)
        parent = g
        if siege:
            parent = _el(g, "g", class_="siege", data_location=clean(place))
            held = "" if any(inside for _, _, inside in stacks) else " (no block inside)"
            _title(parent, f"siege of {place}: {besieged} besieged{held}")
            _el(
                parent,
                "rect",
                x=left - 6,
                y=y - WALL - 6,
                width=width + 12,
                height=STACK_H + WALL + 12,
                rx=10,
                fill="none",
                stroke="#5d1010",
                stroke_width=4,
                stroke_dasharray="10 6",
            )
        line = _led(display, place, spot, whole, len(stacks))
        if line:
            _leader(parent, line)
        for i, (side, faces, inside) in enumerate(stacks):
            look = display.sides.get(side)
            x = left + (STACK_W + STACK_GAP) * i
            u = _el(
                parent,
                "g",
                class_="unit inside" if inside else "unit",
                data_location=clean(place),
                data_side=clean(side),
                data_count=len(faces),
                data_item="unit",
            )
            if inside:
                _battlements(u, x, y)
            _block(u, display, look, x, y, f"{clean(look.letter if look else side, 2)}{len(faces)}")
            where = " inside the castle (besieged)" if inside else ""
            _title(u, f"{place}: {side}, {len(faces)} block(s){where}: {_faces(faces)}")


def _battlements(g: ET.Element, x: float, y: float) -> None:
    """A castle's wall over a stack: its units are inside."""
    s = STACK_W / 5
    d = f"M{x},{y + 4} v{-WALL - 4}"
    for i in range(5):
        d += f" h{s:.1f}" + (f" v{WALL if i % 2 == 0 else -WALL}" if i < 4 else "")
    d += f" V{y + 4} Z"
    _el(g, "path", d=d, fill="#ffffff", stroke="#000000", stroke_width=4, class_="wall")


def _led(
    display: Display, place: str, spot: layout.Spot, whole: layout.Box, n: int
) -> tuple[float, float, float, float] | None:
    """The line back to ``place`` from its ``n`` stacks put at ``spot``: the layout's, or
    one where a stack stands nearer another place than its own (read as that place's)."""
    if spot.leader is not None:
        return spot.leader
    box = layout.shift(whole, spot.dx, spot.dy)
    p = display.places[place]
    y = (box[1] + WALL + box[3]) / 2  # the blocks' middle (the wall above left out)
    for i in range(n):
        centre = (box[0] + (STACK_W + STACK_GAP) * i + STACK_W / 2, y)
        own = math.dist((p.x, p.y), centre)
        if any(math.dist((q.x, q.y), centre) < own for q in display.places.values() if q is not p):
            return layout.leader((p.x, p.y), box)
    return None


def _leader(g: ET.Element, line: tuple[float, float, float, float]) -> None:
    x1, y1, x2, y2 = line
    _el(g, "line", x1=x1, y1=y1, x2=x2, y2=y2, stroke="#333333", stroke_width=3, class_="leader")


def _faces(faces: list[Any]) -> str:
    shown_ = ", ".join(clean(f, 40) for f in faces[:FACES_SHOWN])
    more = len(faces) - FACES_SHOWN
    return shown_ + (f", and {more} more" if more > 0 else "")


BOX_SIZE = 32
BOX_LINE = 38


def _box_units(g: ET.Element, display: Display, step: Step) -> None:
    g.set("class", "box-units")
    for b in display.boxes:
        value = _state(step, b.state)
        if b.side and isinstance(value, dict):
            value = value.get(b.side)
        if not isinstance(value, list) or not value:
            continue
        look = display.sides.get(b.side) if b.side else None
        u = _el(
            g,
            "g",
            class_="unit",
            data_location=clean(b.name),
            data_side=clean(b.side),
            data_count=len(value),
            data_item="box",
        )
        _block(u, display, look, b.x + 20, b.y + 70, f"{len(value)}", fill=b.colour)
        # the faces, repeats counted, wrapped to the box; what does not fit is counted
        x0 = b.x + 150
        room = (b.x + b.width - 16) - x0
        most = max(1, int((b.y + b.height - 10 - (b.y + 100 - BOX_SIZE)) // BOX_LINE))
        lines = _fit_width(_counted(value), room, most)
        for i, line in enumerate(lines):
            _el(u, "text", line, x=x0, y=b.y + 100 + BOX_LINE * i, font_size=BOX_SIZE)
        _title(u, f"{b.name}: {len(value)} block(s): {_runs(value)}")


def _counted(faces: list[Any]) -> list[str]:
    """Faces in order of first appearance, each with its count when it repeats."""
    counts = Counter(clean(f, 40) for f in faces[:1000])
    return [f"{f} \u00d7{n}" if n > 1 else f for f, n in counts.items()]


RUNS_SHOWN = 60  # faces of a box told (each with its count): more than a game has


def _runs(faces: list[Any]) -> str:
    """A box's faces whole, repeats counted (bounded for a hostile record)."""
    runs = _counted(faces)
    more = len(runs) - RUNS_SHOWN
    return ", ".join(runs[:RUNS_SHOWN]) + (f", and {more} more" if more > 0 else "")


def _fit_width(items: list[str], room: float, most: int) -> list[str]:
    """``items`` joined by commas in lines no wider than ``room`` at the box's size; past
    ``most`` lines, the last says how many were left out."""
    lines: list[str] = []
    line = ""
    for i, item in enumerate(items):
        candidate = f"{line}, {item}" if line else item
        if line and text_width(candidate + ",", BOX_SIZE) > room:
            lines.append(line + ",")
            line = item
        else:
            line = candidate
        if len(lines) == most:
            # whole items only: the last line loses items until the count fits after it
            kept = lines[-1].rstrip(",").split(", ")
            left = len(items) - i
            while len(kept) > 1 and (
                text_width(f"{', '.join(kept)}, \u2026 and {left} more", BOX_SIZE) > room
            ):
                kept.pop()
                left += 1
            last, tail = ", ".join(kept), f"\u2026 and {left} more"
            while last and text_width(f"{last}, {tail}", BOX_SIZE) > room:
                last = last[:-1]  # one long name: cut, the ellipsis says so
            lines[-1] = f"{last}, {tail}" if last else tail
            return lines
    lines.append(line)
    return lines


def _event(g: ET.Element, display: Display, step: Step, taken: Boxes) -> None:
    g.set("class", "event")
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
                g,
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
                _note(g, taken, "\u2717", ((a.x + b.x) / 2, (a.y + b.y) / 2), RED, 64, "cross")
            else:
                seg.set("marker-end", "url(#arrow)")
            _title(seg, f"{a.name} - {b.name}" + (": breaks the rule" if broke else ""))
    if step.verdict == "illegal" and not drew_path:
        for name in named:
            p: Place = display.places[name]
            ring = _el(
                g,
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
    _combat(g, display, step, taken)
    for t in display.told:
        for told in step.told:
            if told["cites"] != t.cites:
                continue
            at = told["values"].get(t.at)
            found = display.places.get(at) if isinstance(at, str) else None
            if found is None:
                continue
            p = found
            m = _el(
                g,
                "g",
                class_="told",
                data_label=clean(t.label),
                data_location=clean(at),
                data_item="told",
            )
            _el(
                m,
                "path",
                d=f"M{p.x - 50},{p.y - 50} L{p.x + 50},{p.y + 50} "
                f"M{p.x + 50},{p.y - 50} L{p.x - 50},{p.y + 50}",
                stroke="#6a1b9a",
                stroke_width=12,
            )
            _note(m, taken, clean(t.label), (p.x, p.y), "#4a148c", NOTE_SIZE, "told-label")
            _title(m, told["text"])


def _note(
    g: ET.Element,
    taken: Boxes,
    text: str,
    near: tuple[float, float],
    colour: str,
    size: int,
    cls: str,
) -> None:
    """A word drawn near a point, where it covers nothing."""
    box = text_box(text, near[0], near[1], size, "middle", bold=True)
    h = box[3] - box[1]
    cy = (box[1] + box[3]) / 2
    w = box[2] - box[0]
    first = [(0.0, near[1] - cy)] + [(dx, dy + near[1] - cy) for dx, dy in layout.around(w, h, 56)]
    spot = layout.put(taken, [box], near, first)
    if spot.leader:
        _leader(g, spot.leader)
    _outlined(
        g,
        text,
        x=near[0] + spot.dx,
        y=near[1] + spot.dy,
        size=size,
        fill=colour,
        halo="#ffffff",
        width=8,
        class_=cls,
    )


def _combat(g: ET.Element, display: Display, step: Step, taken: Boxes) -> None:
    at = next((v for s in display.combat_at if isinstance(v := _state(step, s), str)), None)
    p = display.places.get(at) if at else None
    if p is None:
        return
    impact = _state(step, display.impact) or {}
    parts = []
    for side, look in display.sides.items():
        parts.append(f"{look.letter} {impact.get(side, 0) if isinstance(impact, dict) else 0}")
    c = _el(g, "g", class_="combat", data_location=clean(at), data_item="combat")
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
    size = 40
    w = text_width(clean(text), size, bold=True) + 40
    h = 60.0
    box = (p.x - w / 2, p.y - 225, p.x + w / 2, p.y - 225 + h)
    first = [(0.0, 0.0), (0.0, 390.0)] + [
        (dx, dy + 225 - h / 2) for dx, dy in layout.around(w, h, 160)
    ]
    spot = layout.put(taken, [box], (p.x, p.y), first)
    if spot.leader:
        _leader(c, spot.leader)
    _el(
        c,
        "rect",
        x=box[0] + spot.dx,
        y=box[1] + spot.dy,
        width=w,
        height=h,
        rx=10,
        fill="#ffffff",
        stroke="#b71c1c",
        stroke_width=4,
    )
    _el(
        c,
        "text",
        clean(text),
        x=p.x + spot.dx,
        y=box[1] + spot.dy + 43,
        font_size=size,
        font_weight="bold",
        text_anchor="middle",
        fill="#7f0000",
        class_="impact",
    )
    _title(c, f"combat at {at}: {text}")


def _paths(args: Any, keys: tuple[str, ...], depth: int = 0) -> list[list[str]]:
    """Every list of names under one of ``keys`` in an event's arguments, at any depth."""
    found: list[list[str]] = []
    if depth > 8 or not keys:
        return found
    if isinstance(args, dict):
        for k, v in args.items():
            if k in keys and isinstance(v, list) and all(isinstance(x, str) for x in v):
                found.append(v)
            else:
                found += _paths(v, keys, depth + 1)
    elif isinstance(args, list):
        for v in args[:100]:
            found += _paths(v, keys, depth + 1)
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


def panel_lines(display: Display, step: Step) -> list[tuple[int, str]]:
    """The units panel's lines (indent, text): each location's stacks with their faces."""
    rows: list[str] = hexmap.panel_rows(display, step.pieces)
    units = _state(step, display.units) or {}
    for place, by_side in units.items():
        if not isinstance(by_side, dict):
            continue
        for side, faces, inside in stacks_at(display, step, place, by_side):
            look = display.sides.get(side)
            letter = look.letter if look else side
            where = " (inside the castle)" if inside else ""
            rows.append(f"{place}  {letter}{len(faces)}{where}: {_faces(faces)}")
    chars = display.width // PANEL_COLUMNS // 19
    kept = {row: 3 for row in rows}
    # the off-map boxes whole, repeats counted (their boxes on the board may cut them)
    for b in display.boxes:
        value = _state(step, b.state)
        if b.side and isinstance(value, dict):
            value = value.get(b.side)
        if isinstance(value, list) and value:
            row = f"{b.name}  {len(value)}: {_runs(value)}"
            rows.append(row)
            kept[row] = 8
    lines: list[tuple[int, str]] = []
    for row in rows:
        wrapped = _wrap(clean(row, kept[row] * chars), chars - 4)
        lines += [(0, wrapped[0]), *((60, w) for w in wrapped[1:])]
    return lines


def _panel(layer: ET.Element, display: Display, step: Step) -> None:
    top = panel_top(display)
    panel = _el(layer, "g", class_="panel")
    _el(
        panel,
        "text",
        "Units by hex (side's letter, name: kind and values)"
        if display.hexes is not None
        else "Units by location (letter, number of blocks: faces)",
        x=30,
        y=top + 52,
        font_size=34,
        font_weight="bold",
    )
    width = display.width // PANEL_COLUMNS
    for col, lines in enumerate(_columns(panel_lines(display, step))):
        for r, (indent, line) in enumerate(lines):
            _el(
                panel,
                "text",
                line,
                x=30 + indent + col * width,
                y=top + 100 + r * ROW,
                font_size=32,
                class_="panel-row",
            )


def _columns(lines: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """The panel's lines in columns of about equal length, each entry (its first line and
    those wrapped under it) whole in one column."""
    target = max(1, -(-len(lines) // PANEL_COLUMNS))
    cols: list[list[tuple[int, str]]] = [[]]
    for line in lines:
        if len(cols[-1]) >= target and line[0] == 0 and len(cols) < PANEL_COLUMNS:
            cols.append([])
        cols[-1].append(line)
    return cols


def panel_rows(display: Display, step: Step) -> int:
    return max(len(c) for c in _columns(panel_lines(display, step)))


def picture(display: Display, replay: Replay, step: Step) -> ET.Element:
    return board(display, step_layer(display, replay, step), panel_rows(display, step))
