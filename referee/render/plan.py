"""Where the board's fixed things go (the same at every step): each location's circle and
marks beside it, the legend, the off-map boxes, then each location's name where it covers
nothing (below its circle if it can, else beside it, else out with a leader line). What a
step draws (stacks, a combat's Impact, an outcome's note) is placed over this plan by
svg_step.py, each step afresh. Nothing here knows a game."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.render import hexmap, layout
from referee.render.display import Display, Mark, Place
from referee.render.layout import Box, Boxes, Spot, clean, text_box

LABEL_SIZE = 36
MARK_SIZE = 32  # a mark's letter (at least 9 px on a phone, where the board is 0.29 of itself)
RADIUS = 24  # a location's circle
MARK_STEP = 54  # between the centres of two marks of a location (a star is 52 wide)
MARK_R = 20
BADGE_DY = 48  # from a mark's centre down to its holder's badge
BADGE_R = 21
LEGEND_X, LEGEND_Y, LEGEND_COL, LEGEND_ROW = 20, 20, 600, 48


@dataclass(frozen=True)
class Label:
    x: float
    y: float  # the baseline
    leader: tuple[float, float, float, float] | None


@dataclass
class Plan:
    labels: dict[str, Label] = field(default_factory=dict)
    marks: dict[str, list[tuple[Mark, float, float]]] = field(default_factory=dict)
    taken: Boxes = field(default_factory=lambda: Boxes((0, 0, 0, 0)))


def marks_of(display: Display, p: Place) -> list[Mark]:
    return [m for m in display.marks if p.entry.get(m.field) not in (None, False, "", [])]


def legend_rows(display: Display) -> int:
    return (3 + len(display.sides) + len(display.marks) + 1) // 2


def legend_box(display: Display) -> Box:
    return (
        LEGEND_X,
        LEGEND_Y,
        LEGEND_X + 2 * LEGEND_COL + 20,
        LEGEND_Y + 30 + LEGEND_ROW * legend_rows(display),
    )


_PLANS: dict[int, tuple[Display, Plan]] = {}


def plan(display: Display) -> Plan:
    """The board's plan (computed once for a display)."""
    kept = _PLANS.get(id(display))
    if kept is not None and kept[0] is display:
        return kept[1]
    made = _make(display)
    if len(_PLANS) > 8:
        _PLANS.clear()
    _PLANS[id(display)] = (display, made)
    return made


def _make(display: Display) -> Plan:
    taken = Boxes((0, 0, display.width, display.height))
    out = Plan(taken=taken)
    if display.hexes is not None:  # a hex board: its hexes' own texts and the legend
        for box in hexmap.fixed_boxes(display):
            taken.add(box)
        out.marks = {p: [] for p in display.places}
        return out
    if display.places:
        taken.add(legend_box(display))
    for b in display.boxes:
        taken.add((b.x, b.y, b.x + b.width, b.y + b.height))
    for p in display.places.values():
        taken.add((p.x - RADIUS, p.y - RADIUS, p.x + RADIUS, p.y + RADIUS))
        placed: list[tuple[Mark, float, float]] = []
        for i, mark in enumerate(marks_of(display, p)):
            x, y = p.x + 46 + MARK_STEP * i, p.y - 22
            placed.append((mark, x, y))
            taken.add((x - 26, y - 26, x + 26, y + 26))
            if mark.holder:
                taken.add(
                    (x - BADGE_R, y + BADGE_DY - BADGE_R, x + BADGE_R, y + BADGE_DY + BADGE_R)
                )
        out.marks[p.name] = placed
    for p in display.places.values():
        out.labels[p.name] = _label(taken, p, out.marks[p.name])
    return out


def _label(taken: Boxes, p: Place, marks: list[Any]) -> Label:
    box = text_box(clean(p.name), p.x, p.y, LABEL_SIZE, "middle", bold=True)
    w, h = box[2] - box[0], box[3] - box[1]
    cy = (box[1] + box[3]) / 2  # the box's centre, as drawn at the place
    right = (marks[-1][1] + 30) if marks else p.x + RADIUS
    gap = RADIUS + 6
    wanted = [
        (p.x, p.y + gap + h / 2),  # below
        (p.x - w / 2 + RADIUS, p.y + gap + h / 2),  # below, to the left
        (p.x - gap - w / 2, p.y),  # left
        (right + 6 + w / 2, p.y - 22),  # right, past the marks
        (p.x, p.y - gap - h / 2),  # above
        (p.x - w / 2 + RADIUS, p.y - gap - h / 2),
        (p.x, p.y + gap + 50 + h / 2),  # below the badges
        (p.x - gap - w / 2, p.y + gap + h / 2),
        (p.x - gap - w / 2, p.y - gap - h / 2),
    ]
    spot: Spot = layout.put(taken, [box], (p.x, p.y), [(x - p.x, y - cy) for x, y in wanted])
    return Label(p.x + spot.dx, p.y + spot.dy, spot.leader)
