"""A hex board (the display data's ``board: {kind: hex}``): the hexes by column and row, each
filled by its terrain's colour and pattern and lettered, named at its top; the hexsides the
data marks (a river) as double lines along the shared edge; the marks of hexes (a palisade,
an exit) as words at a hex's foot; a legend under the grid. A step draws each piece on its
own, a counter with its side's letter and pattern, its kind and its values, and (on request:
hidden until the page's switch shows them) the hexes in each side's enemy zones of control.
Nothing here knows a game: every name, field and look is the display data's."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from typing import Any

from referee.render.display import Display, Hexes
from referee.render.layout import Box, Boxes, clean, text_box, text_width

NAME_SIZE = 22  # a hex's name (at least 9 px on a phone, where the board is 0.58 of itself)
WORD_SIZE = 22
KIND_SIZE = 20
VALUE_SIZE = 30
LEGEND_ROW = 56
LEGEND_SIZE = 26
ZONE_DASH = ("16 8", "4 6", "24 6 4 6")


def corners(x: float, y: float, s: float) -> list[tuple[float, float]]:
    """A flat-topped hex's corners."""
    return [
        (x + s * math.cos(math.pi / 3 * i), y + s * math.sin(math.pi / 3 * i)) for i in range(6)
    ]


def _points(pts: list[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)


def legend_top(display: Display) -> float:
    return (
        max((p.y for p in display.places.values()), default=0)
        + (display.hexes.size if display.hexes else 0) * 1.0
        + 40
    )


def counter_size(hexes: Hexes) -> tuple[float, float]:
    return hexes.size * 1.2, hexes.size * 0.8


def fixed_boxes(display: Display) -> list[Box]:
    """The texts the board itself draws in each hex: its name, its terrain's letter, its
    marks' words; and the legend."""
    hexes = display.hexes
    assert hexes is not None
    s = hexes.size
    out: list[Box] = []
    marks: dict[str, int] = {}
    for name, (_, _, terrain) in hexes.cells.items():
        p = display.places[name]
        out.append(text_box(clean(name, 12), p.x, p.y - 0.62 * s, NAME_SIZE, bold=True))
        look = hexes.terrains.get(terrain)
        if look and look.letter:
            out.append(text_box(look.letter, p.x - 0.42 * s, p.y + 0.68 * s, WORD_SIZE, bold=True))
    for m in hexes.marks:
        p = display.places[m.hex]
        i = marks.get(m.hex, 0)
        marks[m.hex] = i + 1
        out.append(text_box(m.word, *_mark_xy(p.x, p.y, s, i), WORD_SIZE, "start", bold=True))
    out.append((0, legend_top(display), display.width, display.height))
    return out


def _mark_xy(x: float, y: float, s: float, i: int) -> tuple[float, float]:
    return x - 0.2 * s, y + 0.68 * s - i * (WORD_SIZE + 4) * (1 if i < 2 else 0)


def defs(d: ET.Element, display: Display) -> None:
    hexes = display.hexes
    assert hexes is not None
    for i, look in enumerate(hexes.terrains.values()):
        p = ET.SubElement(
            d,
            "pattern",
            {"id": f"terrain-{i}", "patternUnits": "userSpaceOnUse", "width": "20", "height": "20"},
        )
        ET.SubElement(
            p, "rect", {"x": "0", "y": "0", "width": "20", "height": "20", "fill": look.colour}
        )
        if look.pattern == "dots":
            ET.SubElement(
                p,
                "circle",
                {"cx": "10", "cy": "10", "r": "2.5", "fill": "#5a4a2a", "fill-opacity": "0.6"},
            )
        elif look.pattern == "stripes":
            ET.SubElement(
                p,
                "path",
                {
                    "d": "M0,5 h20 M0,15 h20",
                    "stroke": "#ffffff",
                    "stroke-width": "3",
                    "stroke-opacity": "0.8",
                },
            )
        elif look.pattern == "grid":
            ET.SubElement(
                p,
                "path",
                {
                    "d": "M0,10 h20 M10,0 v20",
                    "stroke": "#ffffff",
                    "stroke-width": "2",
                    "stroke-opacity": "0.7",
                },
            )


def draw_board(
    g: ET.Element, display: Display, el: Any, outlined: Any, title: Any, words: ET.Element
) -> None:
    """The hexes, the hexsides and the legend in ``g``; the hexes' names, terrain letters and
    marks in ``words``, drawn over the step's zones of control (``el``, ``outlined``,
    ``title``: the SVG writer's helpers)."""
    hexes = display.hexes
    assert hexes is not None
    s = hexes.size
    looks = list(hexes.terrains)
    grid = el(g, "g", class_="hexes")
    labels = el(words, "g", class_="hex-labels")
    for name, (col, row, terrain) in hexes.cells.items():
        p = display.places[name]
        look = hexes.terrains.get(terrain)
        cell = el(
            grid, "g", class_="hex", data_name=clean(name, 12), data_terrain=clean(terrain, 20)
        )
        fill = f"url(#terrain-{looks.index(terrain)})" if look else "#ffffff"
        el(
            cell,
            "polygon",
            points=_points(corners(p.x, p.y, s)),
            fill=fill,
            stroke="#6b5d45",
            stroke_width=3,
        )
        title(cell, f"{name}: {look.title if look else terrain} (column {col}, row {row})")
        label = el(labels, "g", class_="hex-label", data_name=clean(name, 12))
        outlined(
            label,
            clean(name, 12),
            x=p.x,
            y=round(p.y - 0.62 * s, 1),
            size=NAME_SIZE,
            fill="#3b3325",
            halo="#ffffff",
            width=5,
            class_="hex-name",
        )
        if look and look.letter:
            outlined(
                label,
                look.letter,
                x=round(p.x - 0.42 * s, 1),
                y=round(p.y + 0.68 * s, 1),
                size=WORD_SIZE,
                fill="#111111",
                halo="#ffffff",
                width=5,
                class_="terrain",
            )
    edges = el(g, "g", class_="hexsides")
    for side in hexes.sides:
        a, b = display.places[side.a], display.places[side.b]
        mx, my = (a.x + b.x) / 2, (a.y + b.y) / 2
        dx, dy = b.x - a.x, b.y - a.y
        n = math.hypot(dx, dy) or 1
        ux, uy = -dy / n * s / 2, dx / n * s / 2
        for width, colour in ((16, side.colour), (5, "#ffffff")):
            line = el(
                edges,
                "line",
                x1=round(mx - ux, 1),
                y1=round(my - uy, 1),
                x2=round(mx + ux, 1),
                y2=round(my + uy, 1),
                stroke=colour,
                stroke_width=width,
                stroke_linecap="round",
                class_="hexside",
                data_from=clean(side.a, 12),
                data_to=clean(side.b, 12),
            )
        title(line, f"{side.a} - {side.b}: {side.title}")
    marks = el(words, "g", class_="hex-marks")
    count: dict[str, int] = {}
    for m in hexes.marks:
        p = display.places[m.hex]
        i = count.get(m.hex, 0)
        count[m.hex] = i + 1
        x, y = _mark_xy(p.x, p.y, s, i)
        mg = el(marks, "g", class_="hex-mark", data_location=clean(m.hex, 12), data_item="mark")
        outlined(
            mg,
            m.word,
            x=round(x, 1),
            y=round(y, 1),
            size=WORD_SIZE,
            fill="#4a148c",
            halo="#ffffff",
            width=5,
            anchor="start",
        )
        title(mg, f"{m.hex}: {m.title}")
    _legend(g, display, el, title)


def _legend(g: ET.Element, display: Display, el: Any, title: Any) -> None:
    hexes = display.hexes
    assert hexes is not None
    top = legend_top(display)
    leg = el(g, "g", class_="legend")
    entries: list[tuple[str, str, Any]] = []
    for i, ground in enumerate(hexes.terrains.values()):
        word = ground.title + (f" ({ground.letter})" if ground.letter else "")
        entries.append((word, "terrain", i))
    seen = set()
    for edge in hexes.sides:
        if edge.title not in seen:
            seen.add(edge.title)
            entries.append((f"{edge.title} (double line)", "side", edge.colour))
    for m in {m.word: m for m in hexes.marks}.values():
        entries.append((f"{m.word}: {m.title}", "word", m.word))
    for side, look in display.sides.items():
        entries.append((f"{side}: {look.letter}, {look.pattern}", "piece", side))
    if display.pieces and display.pieces.apart:
        entries.append((f"{display.pieces.apart_title}: hollow, dashed", "apart", None))
    if display.pieces:
        values = "-".join(display.pieces.values)
        entries.append((f"counter: kind; {values} (\u00b7: none)", "none", None))
    cols = 3
    col_w = (display.width - 40) / cols
    for i, (text, kind, what) in enumerate(entries):
        r, c = divmod(i, cols)
        x, y = 30 + c * col_w, top + 30 + r * LEGEND_ROW
        swatch = {"x": x, "y": y, "width": 60, "height": 40, "stroke_width": 3}
        if kind == "terrain":
            el(leg, "rect", **swatch, fill=f"url(#terrain-{what})", stroke="#6b5d45")
        elif kind == "side":
            el(leg, "line", x1=x, y1=y + 20, x2=x + 60, y2=y + 20, stroke=what, stroke_width=14)
            el(leg, "line", x1=x, y1=y + 20, x2=x + 60, y2=y + 20, stroke="#ffffff", stroke_width=4)
        elif kind == "piece":
            idx = list(display.sides).index(what)
            el(leg, "rect", **swatch, rx=6, fill=f"url(#side-{idx})", stroke="#000000")
        elif kind == "apart":
            el(
                leg,
                "rect",
                **swatch,
                rx=6,
                fill="#ffffff",
                stroke="#000000",
                stroke_dasharray="8 5",
            )
        el(leg, "text", clean(text, 60), x=x + 76, y=y + 30, font_size=LEGEND_SIZE)


# ------------------------------------------------------------ a step


def draw_pieces(
    g: ET.Element,
    display: Display,
    pieces: list[dict[str, Any]],
    taken: Boxes,
    el: Any,
    outlined: Any,
    title: Any,
) -> None:
    """Each piece a counter in its hex (pieces sharing a hex side by side)."""
    hexes, pc = display.hexes, display.pieces
    assert hexes is not None and pc is not None
    w, h = counter_size(hexes)
    by_hex: dict[str, list[dict[str, Any]]] = {}
    for piece in pieces:
        if piece["at"] in display.places:
            by_hex.setdefault(piece["at"], []).append(piece)
    g.set("class", "units")
    for at, here in by_hex.items():
        p = display.places[at]
        n = len(here)
        cw = w if n == 1 else (w * 1.5) / n
        for i, piece in enumerate(here):
            x = p.x - (cw * n + 6 * (n - 1)) / 2 + i * (cw + 6)
            y = p.y - h / 2
            entry = pc.entries.get(piece["name"], {})
            look = display.sides.get(piece["side"])
            letter = look.letter if look else clean(piece["side"], 2)
            u = el(
                g,
                "g",
                class_="unit piece",
                data_location=clean(at, 12),
                data_side=clean(piece["side"], 40),
                data_name=clean(piece["name"], 60),
                data_count=1,
                data_item="unit",
            )
            apart = piece.get("apart")
            fill = (
                "#ffffff"
                if apart or look is None
                else f"url(#side-{list(display.sides).index(piece['side'])})"
            )
            rect = el(
                u,
                "rect",
                x=round(x, 1),
                y=round(y, 1),
                width=round(cw, 1),
                height=round(h, 1),
                rx=8,
                fill=fill,
                stroke=look.colour if apart and look else "#000000",
                stroke_width=4,
            )
            if apart:
                rect.set("stroke-dasharray", "10 6")
            kind = _fit(f"{letter} {clean(entry.get(pc.kind, ''), 20)}", cw - 8, KIND_SIZE)
            values = "-".join(
                "\u00b7" if entry.get(v) is None else clean(entry.get(v), 4) for v in pc.values
            )
            ink, halo = ("#111111", "#ffffff") if apart or look is None else ("#ffffff", "#000000")
            outlined(
                u,
                kind,
                x=round(x + cw / 2, 1),
                y=round(y + KIND_SIZE + 8, 1),
                size=KIND_SIZE,
                fill=ink,
                halo=halo,
                width=4,
                class_="piece-kind",
            )
            outlined(
                u,
                _fit(values, cw - 8, VALUE_SIZE),
                x=round(x + cw / 2, 1),
                y=round(y + h - 12, 1),
                size=VALUE_SIZE,
                fill=ink,
                halo=halo,
                width=5,
                class_="piece-values",
            )
            said = f" ({pc.apart_title})" if apart else ""
            title(
                u,
                f"{at}: {piece['name']}, {piece['side']}{said}: {entry.get(pc.kind, '')} "
                + ", ".join(f"{v} {entry.get(v)}" for v in pc.values),
            )
            taken.add((x, y, x + cw, y + h))


def draw_gone(g: ET.Element, display: Display, state: dict[str, Any], el: Any, title: Any) -> None:
    """Each mark whose ``gone`` state holds at its hex (a palisade removed), struck through
    and crossed out; ``state``: the step's states by name."""
    hexes = display.hexes
    assert hexes is not None
    count: dict[str, int] = {}
    for m in hexes.marks:
        i = count.get(m.hex, 0)
        count[m.hex] = i + 1
        gone = state.get(m.gone) if m.gone else None
        if not isinstance(gone, dict) or gone.get(m.hex) is not True:
            continue
        p = display.places[m.hex]
        left, top, right, bottom = text_box(
            m.word, *_mark_xy(p.x, p.y, hexes.size, i), WORD_SIZE, "start", bold=True
        )
        mid = (top + bottom) / 2
        cross = el(
            g,
            "path",
            d=f"M{left - 4:.1f},{mid:.1f} H{right + 4:.1f} "
            f"M{left:.1f},{bottom:.1f} L{right:.1f},{top:.1f}",
            stroke="#000000",
            stroke_width=5,
            class_="gone",
            data_location=clean(m.hex, 12),
        )
        title(cross, f"{m.hex}: {m.title} gone")


def _fit(text: str, room: float, size: float) -> str:
    while len(text) > 1 and text_width(text, size, bold=True) > room:
        text = text[:-1]
    return text


def draw_zones(
    g: ET.Element, display: Display, zones: dict[str, list[str]], el: Any, title: Any
) -> None:
    """Each side's hexes in its enemy's zones of control: an inset outline in its colour and
    dash, hidden until asked for (the page's switch)."""
    hexes = display.hexes
    assert hexes is not None
    g.set("class", "zones")
    g.set("display", "none")
    for i, (side, cells) in enumerate(zones.items()):
        look = display.sides.get(side)
        colour = look.colour if look else "#555555"
        inset = hexes.size * (0.9 - 0.1 * i)
        z = el(g, "g", class_="zone", data_side=clean(side, 40))
        for name in cells:
            p = display.places.get(name)
            if p is None:
                continue
            el(
                z,
                "polygon",
                points=_points(corners(p.x, p.y, inset)),
                fill="none",
                stroke=colour,
                stroke_width=6,
                stroke_dasharray=ZONE_DASH[i % len(ZONE_DASH)],
                data_location=clean(name, 12),
            )
        title(z, f"hexes where {side} stands in an enemy zone of control ({len(cells)})")


def panel_rows(display: Display, pieces: list[dict[str, Any]]) -> list[str]:
    pc = display.pieces
    if pc is None:
        return []
    rows = []
    for piece in sorted(pieces, key=lambda x: (x["at"], x["name"])):
        entry = pc.entries.get(piece["name"], {})
        look = display.sides.get(piece["side"])
        letter = look.letter if look else piece["side"]
        said = f", {pc.apart_title}" if piece.get("apart") else ""
        values = "-".join(
            "\u00b7" if entry.get(v) is None else str(entry.get(v)) for v in pc.values
        )
        rows.append(
            f"{piece['at']}  {letter} {piece['name']} ({entry.get(pc.kind, '')} {values}{said})"
        )
    return rows
