"""Where things go on a board so that nothing covers anything: text widths estimated from the
font's metrics, boxes, and a placer that puts each label, stack or note at the first of its
candidate places that is free (on the board, over no box already placed), or else away from
its place with a leader line back to it. Nothing here knows a game.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from referee.text import shown

Box = tuple[float, float, float, float]  # left, top, right, bottom
LABEL = 60  # characters of a name drawn on the board

# characters XML 1.0 cannot hold at all, besides what ``shown`` escapes
_NOT_XML = re.compile("[\ufffe\uffff]")


def clean(text: Any, limit: int = LABEL) -> str:
    """Text from a record or the data as drawn: clipped, controls escaped, XML-safe."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", shown(str(text), limit))


# the advance of each printable ASCII character (32 to 126) at 100 px in DejaVu Sans (the
# first font the pictures ask for; Verdana, the next, is as wide), normal and bold
_NORMAL = (
    "32 40 46 84 64 95 78 28 39 39 50 84 32 36 32 34 64 64 64 64 64 64 64 64 64 64 34 34 84 84"
    " 84 53 100 68 69 70 77 63 58 78 75 30 30 66 56 86 75 79 60 79 69 63 61 73 68 99 69 61 69"
    " 39 34 39 84 50 50 61 63 53 63 57 35 63 63 28 28 58 28 97 63 55 63 63 38 52 39 63 59 82 59"
    " 59 52 64 34 64 84"
)
_BOLD = (
    "35 46 52 84 70 100 87 31 46 46 52 84 38 42 38 37 70 70 70 70 70 70 70 70 70 70 40 40 84 84"
    " 84 58 100 77 76 73 83 68 68 82 84 37 37 77 64 100 84 85 73 85 77 72 68 81 77 110 77 72 72"
    " 46 37 46 84 50 50 67 72 59 72 68 44 72 71 34 34 66 34 104 71 69 72 72 49 60 48 71 65 92 64"
    " 65 58 71 37 71 84"
)
_WIDTHS = {False: [int(w) for w in _NORMAL.split()], True: [int(w) for w in _BOLD.split()]}
SLACK = 1.06  # a font a little wider than the table's, and rounding
ASCENT, DESCENT = 0.96, 0.26  # of the font size, above and below the baseline


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width of ``text`` drawn at ``size``: a character past ASCII counted as wide as
    the widest letter."""
    table = _WIDTHS[bold]
    units = sum(table[ord(c) - 32] if 32 <= ord(c) < 127 else 110 for c in text)
    return units * size / 100 * SLACK


def text_box(
    text: str, x: float, y: float, size: float, anchor: str = "middle", bold: bool = False
) -> Box:
    """The box of ``text`` with its baseline at ``y`` and anchored at ``x``."""
    w = text_width(text, size, bold)
    left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
    return (left, y - ASCENT * size, left + w, y + DESCENT * size)


def grow(b: Box, by: float) -> Box:
    return (b[0] - by, b[1] - by, b[2] + by, b[3] + by)


def shift(b: Box, dx: float, dy: float) -> Box:
    return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def union(boxes: Iterable[Box]) -> Box:
    bs = list(boxes)
    return (
        min(b[0] for b in bs),
        min(b[1] for b in bs),
        max(b[2] for b in bs),
        max(b[3] for b in bs),
    )


CELL = 200  # the side of a cell of the index


class Boxes:
    """Boxes already placed, indexed by the cells of a grid they touch."""

    def __init__(self, bounds: Box, gap: float = 6) -> None:
        self.bounds = bounds
        self.gap = gap
        self.cells: dict[tuple[int, int], list[Box]] = {}

    def copy(self) -> Boxes:
        other = Boxes(self.bounds, self.gap)
        other.cells = {k: list(v) for k, v in self.cells.items()}
        return other

    def _cells(self, b: Box) -> Iterator[tuple[int, int]]:
        for i in range(int(b[0] // CELL), int(b[2] // CELL) + 1):
            for j in range(int(b[1] // CELL), int(b[3] // CELL) + 1):
                yield i, j

    def add(self, b: Box) -> None:
        for c in self._cells(b):
            self.cells.setdefault(c, []).append(b)

    def inside(self, b: Box) -> bool:
        lo = self.bounds
        return b[0] >= lo[0] and b[1] >= lo[1] and b[2] <= lo[2] and b[3] <= lo[3]

    def free(self, b: Box) -> bool:
        """On the board, and clear of every box placed (by the gap)."""
        if not self.inside(b):
            return False
        g = grow(b, self.gap)
        return not any(overlap(g, o) for c in self._cells(g) for o in self.cells.get(c, ()))


@dataclass(frozen=True)
class Spot:
    """Where a thing was put: moved by (dx, dy) from where it was asked for; ``leader``:
    the line back to its place, when it was put away from it."""

    dx: float
    dy: float
    leader: tuple[float, float, float, float] | None = None


# directions tried, nearest first: below, above, right, left, then the diagonals
_DIRS = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)]
_MORE = [(math.cos(a * math.pi / 8), math.sin(a * math.pi / 8)) for a in range(16)]


def put(
    placed: Boxes,
    parts: list[Box],
    near: tuple[float, float],
    first: list[tuple[float, float]],
    reach: float = 900,
) -> Spot:
    """Put a thing made of ``parts`` (boxes as drawn at offset 0, 0): at the first of the
    offsets ``first`` where it is free, or else farther out from ``near`` (rings of 16
    directions), with a leader line. Its boxes are added to ``placed``."""

    def fits(dx: float, dy: float) -> bool:
        return all(placed.free(shift(b, dx, dy)) for b in parts)

    chosen: Spot | None = None
    for dx, dy in first:
        if fits(dx, dy):
            chosen = Spot(dx, dy)
            break
    if chosen is None:
        whole = union(parts)
        cx, cy = (whole[0] + whole[2]) / 2, (whole[1] + whole[3]) / 2
        step = 40.0
        r = step
        while chosen is None and r <= reach:
            for ux, uy in _MORE:
                # the thing's centre on a ring around the place
                dx, dy = near[0] + ux * r - cx, near[1] + uy * r - cy
                if fits(dx, dy):
                    chosen = Spot(dx, dy, leader(near, shift(whole, dx, dy)))
                    break
            r += step
    if chosen is None:  # nowhere free: where it was asked for, in the open
        chosen = Spot(*first[0])
    for b in parts:
        placed.add(shift(b, chosen.dx, chosen.dy))
    return chosen


def leader(near: tuple[float, float], b: Box) -> tuple[float, float, float, float]:
    """A line from ``near`` to the nearest point of ``b``'s edge."""
    x = min(max(near[0], b[0]), b[2])
    y = min(max(near[1], b[1]), b[3])
    return (near[0], near[1], x, y)


def around(w: float, h: float, gap: float) -> list[tuple[float, float]]:
    """Offsets putting a ``w`` by ``h`` thing centred on a point beside a point: below,
    above, right, left, then the diagonals, ``gap`` away."""
    return [(dx * (w / 2 + gap), dy * (h / 2 + gap)) for dx, dy in _DIRS]
