"""The board as SVG, drawn from the game's data and a step of a replay.

Two layers: the board (locations at their coordinates, labelled; highways solid and roads
dashed; the printed marks of each location; the off-map boxes; a legend), the same at every
step; and the step (its caption, the units by location and side, who controls what, the
event drawn: a path with the segment that broke a rule in red and dashed, a combat with
each side's Impact, an outcome such as an overrun marked at its location; and a panel
listing each location's units). Everything taken from a record or the data is escaped by
ElementTree and clipped; nothing names a game. This module draws the board; svg_step.py draws
a step over it.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

from referee.render import hexmap
from referee.render import plan as planned
from referee.render.display import Display, SideLook
from referee.render.layout import clean

SVG_NS = "http://www.w3.org/2000/svg"
HEADER = 400  # the caption band above the map
ROW = 44  # a line of the units panel
PANEL_COLUMNS = 2
PANEL_ROWS = 12  # lines of each column the panel has room for, at least
FACES_SHOWN = 8  # faces listed for one side at one place, the rest counted
LINE = 130  # characters of a caption line
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
RED = "#c62828"
PATH_BLUE = "#1f4e9e"


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


def mark_letter(parent: ET.Element, letter: str, x: float, y: float) -> None:
    """A mark's (or a holder's badge's) letter, white on black, its baseline at ``y``."""
    _outlined(
        parent,
        clean(letter, 2),
        x=x,
        y=y,
        size=planned.MARK_SIZE,
        fill="#ffffff",
        halo="#000000",
        width=4,
    )


def _title(parent: ET.Element, text: str) -> None:
    _el(parent, "title", clean(text, 600))


# ------------------------------------------------------------ the board


def height(display: Display, rows: int = PANEL_ROWS) -> int:
    return panel_top(display) + 100 + max(rows, PANEL_ROWS) * ROW


def panel_top(display: Display) -> int:
    return HEADER + display.height


def board(
    display: Display, step_layer: ET.Element | None = None, rows: int = PANEL_ROWS
) -> ET.Element:
    """The whole picture: the board, and the step's layer in a group ``id="step"``; room
    for ``rows`` lines of the units panel in each column."""
    w, h = display.width, height(display, rows)
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
    svg.set("data-board", display.kind)
    if display.zones:
        svg.set("data-zones", "on request")  # drawn hidden: the page's switch shows them
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
    layer = step_layer if step_layer is not None else ET.Element("g")
    if display.hexes is not None:
        # the step's zones of control go under the hexes' names and marks: a slot between
        words = ET.Element("g", {"id": "map-words", "transform": f"translate(0 {HEADER})"})
        hexmap.draw_board(static, display, _el, _outlined, _title, words)
        slot = _el(svg, "g", id="zones-slot")
        for child in list(layer):
            if child.get("class") == "zones":
                layer.remove(child)
                slot.append(child)
        svg.append(words)
    else:
        _roads(static, display)
        _boxes(static, display)
        _places(static, display)
        _legend(static, display)
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
    if display.hexes is not None:
        hexmap.defs(defs, display)


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
    plan = planned.plan(display)
    for p in display.places.values():
        loc = _el(places, "g", class_="location", data_name=clean(p.name))
        r = planned.RADIUS
        _el(loc, "circle", cx=p.x, cy=p.y, r=r, fill="#ffffff", stroke="#222222", stroke_width=5)
        label = plan.labels[p.name]
        if label.leader:
            x1, y1, x2, y2 = label.leader
            _el(
                loc,
                "line",
                x1=x1,
                y1=y1,
                x2=x2,
                y2=y2,
                stroke="#333333",
                stroke_width=3,
                class_="leader",
            )
        _outlined(
            loc,
            clean(p.name),
            x=label.x,
            y=label.y,
            size=planned.LABEL_SIZE,
            fill="#111111",
            halo="#ffffff",
            width=8,
            class_="label",
        )
        for mark, x, y in plan.marks[p.name]:
            m = _el(loc, "g", class_="mark", data_item="mark")
            _shape(m, mark.shape, x, y, planned.MARK_R, display.colour(p.entry.get(mark.field)))
            mark_letter(m, mark.letter, x, y + 11)
            _title(m, f"{p.name}: {mark.title}" + _named(p.entry.get(mark.field)))


def _named(value: Any) -> str:
    """A mark's entry that has a name of its own (a disk's leader): the name."""
    return f" ({clean(value['name'])})" if isinstance(value, dict) and value.get("name") else ""


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
    x0, y0, col, row = planned.LEGEND_X, planned.LEGEND_Y, planned.LEGEND_COL, planned.LEGEND_ROW
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
    rows = planned.legend_rows(display)
    leg = _el(g, "g", class_="legend")
    _el(
        leg,
        "rect",
        x=x0,
        y=y0,
        width=2 * col + 20,
        height=30 + row * rows,
        fill="#ffffff",
        fill_opacity=0.9,
        stroke="#555555",
        stroke_width=3,
        rx=10,
    )
    for i, (text, (kind, what)) in enumerate(entries):
        c, r = divmod(i, rows)
        x, y = x0 + 20 + c * col, y0 + 56 + row * r
        if kind == "line":
            attrs = {"stroke": "#5b4a36", **what}
            _el(leg, "line", x1=x, y1=y - 10, x2=x + 110, y2=y - 10, **attrs)
        elif kind == "side":
            _block(leg, display, what, x, y - 42, what.letter, height=46)
        else:
            _shape(leg, what.shape, x + 55, y - 12, 16, "#bbbbbb")
        _el(leg, "text", clean(text), x=x + 130, y=y, font_size=32)


def _block(
    g: ET.Element,
    display: Display,
    look: SideLook | None,
    x: float,
    y: float,
    text: str,
    width: int = 110,
    fill: str = "",
    height: int = 52,
) -> None:
    paint = f"url(#{_pattern_id(display, look.name)})" if look else fill or "#888888"
    _el(
        g,
        "rect",
        x=x,
        y=y,
        width=width,
        height=height,
        rx=8,
        fill=paint,
        stroke="#000000",
        stroke_width=4,
    )
    _outlined(
        g,
        text,
        x=x + width / 2,
        y=y + height / 2 + 13,
        size=36,
        fill="#ffffff",
        halo="#000000",
        width=6,
    )


# ------------------------------------------------------------ as text


def to_text(e: ET.Element) -> str:
    """The SVG as ASCII text (everything past ASCII as a character reference): it prints on
    any terminal and sits in an HTML page of any encoding."""
    return ET.tostring(e, encoding="unicode").encode("ascii", "xmlcharrefreplace").decode()
