"""The board as SVG, drawn from the game's data and a step of a replay.

Two layers: the board (locations at their coordinates, labelled; highways solid and roads
dashed; the printed marks of each location; the off-map boxes; a legend), the same at every
step; and the step (its caption, the units by location and side, who controls what, the
event drawn: a path with the segment that broke a rule in red and dashed, a combat with
each side's Impact, an outcome such as an overrun marked at its location; and a panel
listing each location's units). Everything taken from a record or the data is escaped by
ElementTree and clipped; nothing names a game.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from typing import Any

from referee.render.display import Display, Place, SideLook
from referee.render.steps import Replay, Step
from referee.text import shown

SVG_NS = "http://www.w3.org/2000/svg"
HEADER = 300  # the caption band above the map
ROW = 40  # a line of the units panel
PANEL_COLUMNS = 2
PANEL_ROWS = 12  # lines of each column: what does not fit is counted
FACES_SHOWN = 8  # faces listed for one side at one place, the rest counted
LABEL = 60  # characters of a name drawn on the board
LINE = 130  # characters of a caption line
MARK_STEP = 54  # between the centres of two marks of a location (a star is 52 wide)
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
RED = "#c62828"
PATH_BLUE = "#1f4e9e"

# characters XML 1.0 cannot hold at all, besides what ``shown`` escapes
_NOT_XML = re.compile("[\ufffe\uffff]")


def clean(text: Any, limit: int = LABEL) -> str:
    """Text from a record or the data as drawn: clipped, controls escaped, XML-safe."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", shown(str(text), limit))


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    e = ET.SubElement(
        parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attrs.items()}
    )
    if text is not None:
        e.text = text
    return e


def _outlined(
    parent: ET.Element,
    text: str,
    *,
    x: float,
    y: float,
    size: int,
    fill: str,
    halo: str,
    width: int,
    anchor: str = "middle",
    **extra: Any,
) -> ET.Element:
    """Bold text with a halo drawn under it (a stroke painted first): readable on any
    background, in colour or grey."""
    return _el(
        parent,
        "text",
        text,
        x=x,
        y=y,
        font_size=size,
        font_weight="bold",
        text_anchor=anchor,
        fill=fill,
        stroke=halo,
        stroke_width=width,
        paint_order="stroke",
        **extra,
    )


def _title(parent: ET.Element, text: str) -> None:
    _el(parent, "title", clean(text, 600))


# ------------------------------------------------------------ the board


def height(display: Display) -> int:
    return HEADER + display.height + PANEL_ROWS * ROW + 80


def board(display: Display, step_layer: ET.Element | None = None) -> ET.Element:
    """The whole picture: the board, and the step's layer in a group ``id="step"``."""
    w, h = display.width, height(display)
    svg = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "viewBox": f"0 0 {w} {h}",
            "width": "100%",
            "preserveAspectRatio": "xMidYMin meet",
            "role": "img",
            "font-family": FONT,
            "class": "board",
        },
    )
    _el(svg, "title", "The board")
    _defs(svg, display)
    _el(svg, "rect", x=0, y=0, width=w, height=h, fill="#ffffff")
    _el(
        svg,
        "rect",
        x=0,
        y=HEADER,
        width=w,
        height=display.height,
        fill="#f4efe1",
        stroke="#999999",
        stroke_width=4,
    )
    static = _el(svg, "g", id="map", transform=f"translate(0 {HEADER})")
    _roads(static, display)
    _boxes(static, display)
    _places(static, display)
    _legend(static, display)
    layer = step_layer if step_layer is not None else ET.Element("g")
    layer.set("id", "step")
    svg.append(layer)
    return svg


def _pattern_id(display: Display, side: str) -> str:
    return f"side-{list(display.sides).index(side)}"


def _defs(svg: ET.Element, display: Display) -> None:
    defs = _el(svg, "defs")
    for side, look in display.sides.items():
        p = _el(
            defs,
            "pattern",
            id=_pattern_id(display, side),
            patternUnits="userSpaceOnUse",
            width=16,
            height=16,
        )
        _el(p, "rect", x=0, y=0, width=16, height=16, fill=look.colour)
        if look.pattern == "stripes":
            _el(
                p,
                "path",
                d="M-4,4 l8,-8 M0,16 l16,-16 M12,20 l8,-8",
                stroke="#ffffff",
                stroke_width=4,
                stroke_opacity=0.75,
            )
        elif look.pattern == "dots":
            _el(p, "circle", cx=8, cy=8, r=3.5, fill="#ffffff", fill_opacity=0.8)
        elif look.pattern == "grid":
            _el(
                p,
                "path",
                d="M0,8 h16 M8,0 v16",
                stroke="#ffffff",
                stroke_width=3,
                stroke_opacity=0.75,
            )
    m = _el(
        defs,
        "marker",
        id="arrow",
        viewBox="0 0 10 10",
        refX=8,
        refY=5,
        markerWidth=5,
        markerHeight=5,
        orient="auto-start-reverse",
    )
    _el(m, "path", d="M0,0 L10,5 L0,10 z", fill=PATH_BLUE)


def _roads(g: ET.Element, display: Display) -> None:
    roads = _el(g, "g", class_="roads")
    for r in display.roads:
        a, b = display.places[r.a], display.places[r.b]
        line = _el(
            roads,
            "line",
            x1=a.x,
            y1=a.y,
            x2=b.x,
            y2=b.y,
            stroke="#5b4a36",
            class_="highway" if r.highway else "road",
        )
        if r.highway:
            line.set("stroke-width", "12")
        else:
            line.set("stroke-width", "6")
            line.set("stroke-dasharray", "22 14")
        _title(line, f"{r.a} - {r.b}: " + (f"highway ({r.highway})" if r.highway else "road"))


def _places(g: ET.Element, display: Display) -> None:
    places = _el(g, "g", class_="places")
    for p in display.places.values():
        loc = _el(places, "g", class_="location", data_name=clean(p.name))
        _el(loc, "circle", cx=p.x, cy=p.y, r=24, fill="#ffffff", stroke="#222222", stroke_width=5)
        label = clean(p.name)
        x, anchor = _inside(display, p.x, label, 36)
        _outlined(
            loc,
            label,
            x=x,
            y=p.y + 62,
            size=36,
            fill="#111111",
            halo="#ffffff",
            width=8,
            anchor=anchor,
            class_="label",
        )
        for i, mark in enumerate(_marks_of(display, p)):
            x, y = p.x + 44 + MARK_STEP * i, p.y - 20
            _shape(loc, mark.shape, x, y, 20, display.colour(p.entry.get(mark.field)))
            _outlined(
                loc,
                clean(mark.letter, 2),
                x=x,
                y=y + 11,
                size=28,
                fill="#ffffff",
                halo="#000000",
                width=4,
            )
            _title(loc[-1], f"{p.name}: {mark.title}")


def _inside(display: Display, x: float, text: str, size: int) -> tuple[float, str]:
    """Where a label centred on ``x`` is drawn so that it stays on the board: against the
    board's edge, if it would cross it (its width estimated, bold, at 0.7 em a character)."""
    half = 0.35 * size * len(text)
    if x + half > display.width - 8:
        return display.width - 8, "end"
    if x - half < 8:
        return 8, "start"
    return x, "middle"


def _marks_of(display: Display, p: Place) -> list[Any]:
    return [m for m in display.marks if p.entry.get(m.field) not in (None, False, "", [])]


def _shape(g: ET.Element, shape: str, x: float, y: float, r: float, fill: str) -> None:
    common = {"fill": fill, "stroke": "#000000", "stroke-width": "3"}
    if shape == "square":
        ET.SubElement(
            g,
            "rect",
            {"x": str(x - r), "y": str(y - r), "width": str(2 * r), "height": str(2 * r), **common},
        )
    elif shape == "disc":
        ET.SubElement(g, "circle", {"cx": str(x), "cy": str(y), "r": str(r), **common})
    elif shape == "diamond":
        pts = f"{x},{y - r * 1.2} {x + r * 1.2},{y} {x},{y + r * 1.2} {x - r * 1.2},{y}"
        ET.SubElement(g, "polygon", {"points": pts, **common})
    else:  # a star
        pts = " ".join(
            f"{x + (r * 1.3 if i % 2 == 0 else r * 0.6) * math.sin(i * math.pi / 5):.1f},"
            f"{y - (r * 1.3 if i % 2 == 0 else r * 0.6) * math.cos(i * math.pi / 5):.1f}"
            for i in range(10)
        )
        ET.SubElement(g, "polygon", {"points": pts, **common})


def _boxes(g: ET.Element, display: Display) -> None:
    boxes = _el(g, "g", class_="boxes")
    for b in display.boxes:
        box = _el(boxes, "g", class_="box", data_name=clean(b.name))
        _el(
            box,
            "rect",
            x=b.x,
            y=b.y,
            width=b.width,
            height=b.height,
            fill="#ffffff",
            stroke=b.colour,
            stroke_width=10,
            rx=12,
        )
        _el(
            box,
            "text",
            clean(b.label),
            x=b.x + 20,
            y=b.y + 46,
            font_size=34,
            font_weight="bold",
            fill="#111111",
        )


def _legend(g: ET.Element, display: Display) -> None:
    """Top left, in two columns: roads, the path drawn, the sides, the marks."""
    x0, y0, col = 20, 20, 560
    entries: list[tuple[str, Any]] = [
        ("highway (solid)", ("line", {"stroke_width": 12})),
        ("road (dashed)", ("line", {"stroke_width": 6, "stroke_dasharray": "22 14"})),
        (
            "\u2717 breaks a rule (red, dashed)",
            ("line", {"stroke": RED, "stroke_width": 14, "stroke_dasharray": "26 12"}),
        ),
    ]
    entries += [
        (f"{side}: {look.letter}, {look.pattern}", ("side", look))
        for side, look in display.sides.items()
    ]
    entries += [(f"{m.letter}: {m.title}", ("mark", m)) for m in display.marks]
    rows = (len(entries) + 1) // 2
    leg = _el(g, "g", class_="legend")
    _el(
        leg,
        "rect",
        x=x0,
        y=y0,
        width=2 * col + 20,
        height=30 + 48 * rows,
        fill="#ffffff",
        fill_opacity=0.9,
        stroke="#555555",
        stroke_width=3,
        rx=10,
    )
    for i, (text, (kind, what)) in enumerate(entries):
        c, r = divmod(i, rows)
        x, y = x0 + 20 + c * col, y0 + 56 + 48 * r
        if kind == "line":
            attrs = {"stroke": "#5b4a36", **what}
            _el(leg, "line", x1=x, y1=y - 10, x2=x + 110, y2=y - 10, **attrs)
        elif kind == "side":
            _block(leg, display, what, x, y - 40, what.letter)
        else:
            _shape(leg, what.shape, x + 55, y - 12, 16, "#bbbbbb")
        _el(leg, "text", clean(text), x=x + 130, y=y, font_size=30)


def _block(
    g: ET.Element,
    display: Display,
    look: SideLook | None,
    x: float,
    y: float,
    text: str,
    width: int = 110,
    fill: str = "",
) -> None:
    paint = f"url(#{_pattern_id(display, look.name)})" if look else fill or "#888888"
    _el(
        g,
        "rect",
        x=x,
        y=y,
        width=width,
        height=52,
        rx=8,
        fill=paint,
        stroke="#000000",
        stroke_width=4,
    )
    _outlined(
        g,
        text,
        x=x + width / 2,
        y=y + 39,
        size=36,
        fill="#ffffff",
        halo="#000000",
        width=6,
    )


# ------------------------------------------------------------ a step


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


def to_text(e: ET.Element) -> str:
    """The SVG as ASCII text (everything past ASCII as a character reference): it prints on
    any terminal and sits in an HTML page of any encoding."""
    return ET.tostring(e, encoding="unicode").encode("ascii", "xmlcharrefreplace").decode()
