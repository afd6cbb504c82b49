"""What a game's ``display`` data file says about drawing its board.

Nothing here knows a game: the map's collections and fields, the states drawn, the sides'
looks and the boxes' places are all read from the game's data (``schema: display``,
validated by display.schema.json), and checked against the spec: every state it names must
be one the spec declares, every side one of the spec's sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.compile.spec import Spec
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.text import shown

# how a side with no entry in the display file is drawn: the patterns in turn, grey
PATTERNS = ("solid", "stripes", "dots", "grid")
FALLBACK_COLOUR = "#888888"


@dataclass(frozen=True)
class SideLook:
    name: str
    colour: str  # #rrggbb
    letter: str
    pattern: str  # one of PATTERNS


@dataclass(frozen=True)
class Place:
    name: str
    x: int
    y: int
    entry: dict[str, Any]  # the location's data entry


@dataclass(frozen=True)
class Road:
    a: str
    b: str
    highway: str | None  # None: a road


@dataclass(frozen=True)
class Mark:
    field: str
    shape: str
    letter: str
    title: str
    holder: str = ""  # a state keyed by location: the side controlling it
    standing: str = ""  # a state keyed by location: drawn while true


@dataclass(frozen=True)
class Box:
    name: str
    label: str
    colour: str
    x: int
    y: int
    width: int
    height: int
    state: str
    side: str = ""  # the state's key, for a state keyed by side


@dataclass(frozen=True)
class Told:
    cites: str
    at: str
    label: str


@dataclass(frozen=True)
class Terrain:
    colour: str
    letter: str
    pattern: str
    title: str


@dataclass(frozen=True)
class HexSide:
    a: str
    b: str
    title: str
    colour: str


@dataclass(frozen=True)
class HexMark:
    hex: str
    word: str
    title: str
    gone: str  # a state keyed by hex: the mark crossed out while true


@dataclass(frozen=True)
class Hexes:
    """A hex board: each hex's column, row and terrain; the hexsides and marks drawn."""

    size: int
    lower_odd: bool  # the odd columns sit half a hex lower (else the even ones)
    cells: dict[str, tuple[int, int, str]]  # by name: column, row, terrain
    terrains: dict[str, Terrain]
    sides: list[HexSide]
    marks: list[HexMark]


@dataclass(frozen=True)
class Pieces:
    """Pieces drawn one by one: the spec's states or definitions (of a piece) saying where
    each stands, its side, whether it is on the board and whether it is drawn apart."""

    names: list[str]
    entries: dict[str, dict[str, Any]]
    at: str
    side: str
    shown: str
    apart: str
    apart_title: str
    kind: str
    values: list[str]
    lost: str = ""  # a state or definition of a piece: true once it is lost


@dataclass(frozen=True)
class Display:
    width: int
    height: int
    places: dict[str, Place]
    roads: list[Road]
    colours: dict[str, str]
    sides: dict[str, SideLook]  # in the spec's order
    marks: list[Mark]
    units: str
    boxes: list[Box]
    combat_at: list[str]
    impact: str
    path: tuple[str, ...]  # the fields of an event holding a path of places
    told: list[Told]
    states: frozenset[str] = field(default_factory=frozenset)  # every state drawn
    inside: str = ""  # a state keyed by location: the units inside its castle
    besieged: str = ""  # a state keyed by location: the side besieged there
    # a siege being fought: (procedure, its parameter naming the location, the one naming
    # the side inside), for the combat before any state names that side besieged
    fought: tuple[str, str, str] | None = None
    lost: str = ""  # a state keyed by side: the units it has lost
    hands: str = ""  # a state keyed by side: the cards in its hand (drawn as a count)
    kind: str = "points"  # the kind of board: "points" (a map of places) or "hex"
    hexes: Hexes | None = None
    pieces: Pieces | None = None
    zones: str = ""  # a definition (hex, side): in the zone of control of that side's enemy

    def colour(self, value: Any) -> str:
        """A printed colour (a name of ``colours``, or an entry with a ``colour``) as drawn."""
        if isinstance(value, dict):
            value = value.get("colour")
        return display_colour(self.colours, value)


def load_display(spec: Spec, sides: list[str]) -> Display:
    """The game's display file, checked against its spec; ``sides``: the spec's sides."""
    doc = spec.components.documents.get("display")
    if doc is None:
        raise RefereeError(
            [
                Problem(
                    Span(str(spec.game_dir / "data"), 0, 0),
                    "this game has no display data: nothing says how to draw its board",
                    "add a data file with `schema: display` (see docs/data.md)",
                )
            ]
        )
    d: dict[str, Any] = doc.data["display"]
    problems: list[Problem] = []
    declared = {n for n, v in spec.sym.values.items() if isinstance(v, ast.StateDecl)}

    def state(name: str, path: tuple[str | int, ...]) -> str:
        if name not in declared:
            problems.append(Problem(doc.span(path), f"'{name}' is no state the spec declares"))
        return name

    def named(name: str, path: tuple[str | int, ...]) -> str:
        """A state or a definition the spec declares (what a piece's look is read from)."""
        if not isinstance(spec.sym.values.get(name), (ast.StateDecl, ast.Define)):
            problems.append(
                Problem(doc.span(path), f"'{name}' is no state or definition the spec declares")
            )
        return name

    collections = spec.components.collections
    kind = d["board"].get("kind", "points")
    hexes = _hexes(d["hexes"], collections) if kind == "hex" and "hexes" in d else None
    places: dict[str, Place] = {}
    loc: dict[str, Any] = d.get("locations") or {}
    for item in collections.get(loc["collection"], []) if loc else []:
        name, xy = item.get(loc["name"]), item.get(loc["xy"])
        if isinstance(name, str) and isinstance(xy, list) and len(xy) == 2:
            places[name] = Place(name, int(xy[0]), int(xy[1]), item)
    width, height = d["board"]["width"], d["board"]["height"]
    if hexes is not None:
        places = {
            p.name: p for p in hex_places(hexes, collections.get(d["hexes"]["collection"], []))
        }
        width = max(width, max((p.x for p in places.values()), default=0) + 2 * hexes.size)
        height = max((p.y for p in places.values()), default=0) + 2 * hexes.size + 60 * 4
    for place in places.values():
        if loc and (place.x > width or place.y > height):
            problems.append(
                Problem(
                    _item_span(spec, loc["collection"], place.entry, loc["xy"]),
                    f"{place.name} at [{shown(str(place.x), 20)}, {shown(str(place.y), 20)}]"
                    f" lies outside the board ({width} by {height})",
                    "the board's size is display.board in the display file",
                )
            )
    if not places:
        problems.append(
            Problem(
                doc.span(("display", "locations")),
                "no item of the map's collection has a name and a place",
            )
        )
    rd: dict[str, Any] = d.get("roads") or {}
    roads = [
        Road(str(s.get(rd["a"])), str(s.get(rd["b"])), _opt_text(s.get(rd["highway"])))
        for s in (collections.get(rd["collection"], []) if rd else [])
        if s.get(rd["a"]) in places and s.get(rd["b"]) in places
    ]
    colours = dict(d["colours"])
    looks: dict[str, SideLook] = {}
    given = d["sides"]
    for k in given:
        if k not in sides:
            problems.append(
                Problem(
                    doc.span(("display", "sides", k)),
                    f"'{k}' is no side of the spec",
                    f"sides: {', '.join(sides)}",
                )
            )
    for i, s in enumerate(sides):
        g = given.get(s)
        if g is None:
            looks[s] = SideLook(s, FALLBACK_COLOUR, s[:1].upper(), PATTERNS[i % len(PATTERNS)])
        else:
            looks[s] = SideLook(s, display_colour(colours, g["colour"]), g["letter"], g["pattern"])
    marks = []
    for i, m in enumerate(d.get("marks", [])):
        for key in ("holder", "standing"):
            if key in m:
                state(m[key], ("display", "marks", i, key))
        marks.append(
            Mark(
                m["field"],
                m["shape"],
                m["letter"],
                m["title"],
                m.get("holder", ""),
                m.get("standing", ""),
            )
        )
    printed = {b.get("name"): b for b in collections.get("boxes", [])}
    boxes = []
    for i, b in enumerate(d.get("boxes", [])):
        entry = printed.get(b["name"], {})
        boxes.append(
            Box(
                b["name"],
                str(entry.get("label") or b["name"]),
                display_colour(colours, entry.get("colour")),
                b["xy"][0],
                b["xy"][1],
                b["size"][0],
                b["size"][1],
                state(b["state"], ("display", "boxes", i, "state")),
                b.get("side", ""),
            )
        )
    combat = d.get("combat", {"at": [], "impact": ""})
    combat_at = [state(s, ("display", "combat", "at", i)) for i, s in enumerate(combat["at"])]
    impact = state(combat["impact"], ("display", "combat", "impact")) if combat["impact"] else ""
    units = state(d["units"], ("display", "units")) if "units" in d else ""
    pieces = None
    if "pieces" in d:
        pc = d["pieces"]
        items = collections.get(pc["collection"], [])
        entries = {str(i.get(pc["name"])): i for i in items if i.get(pc["name"]) is not None}
        apart = pc.get("apart", {})
        pieces = Pieces(
            list(entries),
            entries,
            named(pc["at"], ("display", "pieces", "at")),
            named(pc["side"], ("display", "pieces", "side")),
            named(pc["shown"], ("display", "pieces", "shown")),
            named(apart["define"], ("display", "pieces", "apart", "define")) if apart else "",
            apart.get("title", ""),
            pc["kind"],
            list(pc["values"]),
            named(pc["lost"], ("display", "pieces", "lost")) if "lost" in pc else "",
        )
    zones = named(d["zones"], ("display", "zones")) if "zones" in d else ""
    if hexes is not None:
        for i, m in enumerate(hexes.marks):
            if m.gone:
                state(m.gone, ("display", "hexes", "marks", i, "gone"))
    siege = d.get("siege", {})
    inside = state(siege["inside"], ("display", "siege", "inside")) if siege else ""
    besieged = state(siege["besieged"], ("display", "siege", "besieged")) if siege else ""
    fought = None
    if siege and "fought" in siege:
        f = siege["fought"]
        proc = spec.sym.procedures().get(f["procedure"])
        params = {p.name for p in proc.params} if proc else set()
        if proc is None:
            problems.append(
                Problem(
                    doc.span(("display", "siege", "fought", "procedure")),
                    f"'{f['procedure']}' is no procedure the spec declares",
                )
            )
        for key in ("at", "side") if proc else ():
            if f[key] not in params:
                problems.append(
                    Problem(
                        doc.span(("display", "siege", "fought", key)),
                        f"'{f[key]}' is no parameter of procedure {f['procedure']}",
                    )
                )
        fought = (f["procedure"], f["at"], f["side"])
    lost = state(d["lost"], ("display", "lost")) if "lost" in d else ""
    hands = state(d["hands"], ("display", "hands")) if "hands" in d else ""
    if problems:
        texts = {d.file: d.text for d in spec.components.documents.values()}
        raise RefereeError(problems, texts)
    drawn = {units, impact, inside, besieged, lost, hands, *combat_at, *(b.state for b in boxes)}
    drawn |= {m.holder for m in marks} | {m.standing for m in marks}
    drawn |= {m.gone for m in hexes.marks} if hexes else set()
    return Display(
        width=width,
        height=height,
        places=places,
        roads=roads,
        colours=colours,
        sides=looks,
        marks=marks,
        units=units,
        boxes=boxes,
        combat_at=combat_at,
        impact=impact,
        path=(d["path"],) if isinstance(d.get("path"), str) else tuple(d.get("path", ())),
        told=[Told(t["cites"], t["at"], t["label"]) for t in d.get("told", [])],
        states=frozenset(drawn - {""}),
        inside=inside,
        besieged=besieged,
        fought=fought,
        lost=lost,
        hands=hands,
        kind=kind,
        hexes=hexes,
        pieces=pieces,
        zones=zones,
    )


def _hexes(h: dict[str, Any], collections: dict[str, list[dict[str, Any]]]) -> Hexes:
    cells = {}
    for item in collections.get(h["collection"], []):
        name, col, row = item.get(h["name"]), item.get(h["col"]), item.get(h["row"])
        if isinstance(name, str) and isinstance(col, int) and isinstance(row, int):
            cells[name] = (col, row, str(item.get(h["terrain"])))
    lower = h.get("lower")
    odd = False
    if lower:
        first = next(iter(collections.get(lower["collection"], [])), {})
        odd = (first.get(lower["field"]) or lower["default"]) == "odd"
    terrains = {
        k: Terrain(
            display_colour({}, t["colour"]),
            t.get("letter", ""),
            t.get("pattern", "solid"),
            t.get("title", k),
        )
        for k, t in h["terrains"].items()
    }
    sides = [
        HexSide(str(x.get(s["a"])), str(x.get(s["b"])), s["title"], display_colour({}, s["colour"]))
        for s in h.get("sides", [])
        for x in collections.get(s["collection"], [])
        if x.get(s["field"]) is True and x.get(s["a"]) in cells and x.get(s["b"]) in cells
    ]
    marks = [
        HexMark(str(x.get(m["hex"])), m["word"], m["title"], m.get("gone", ""))
        for m in h.get("marks", [])
        for x in collections.get(m["collection"], [])
        if x.get(m["hex"]) in cells
    ]
    return Hexes(h["size"], odd, cells, terrains, sides, marks)


HEX_MARGIN = 30


def hex_places(hexes: Hexes, items: list[dict[str, Any]]) -> list[Place]:
    """Each hex's centre: flat-topped hexes, columns 1.5 sizes apart, rows a hex's height
    apart, the lower columns half a hex lower."""
    s = hexes.size
    h = s * 3**0.5
    cols = [c for c, _, _ in hexes.cells.values()]
    rows = [r for _, r, _ in hexes.cells.values()]
    c0, r0 = min(cols, default=1), min(rows, default=1)
    out = []
    by_name = {str(i.get("name")): i for i in items}
    for name, (c, r, _) in hexes.cells.items():
        lower = (c % 2 == 1) == hexes.lower_odd
        x = HEX_MARGIN + s + (c - c0) * 1.5 * s
        y = HEX_MARGIN + h / 2 + (r - r0) * h + (h / 2 if lower else 0)
        out.append(Place(name, round(x), round(y), by_name.get(name, {})))
    return out


def _item_span(spec: Spec, collection: str, item: dict[str, Any], key: str) -> Span:
    """Where a data file holds ``item`` of ``collection`` (its field ``key``)."""
    for doc in spec.components.documents.values():
        items = doc.data.get(collection) if isinstance(doc.data, dict) else None
        for i, other in enumerate(items if isinstance(items, list) else []):
            if other is item:
                return doc.span((collection, i, key))
    return Span(str(spec.game_dir / "data"), 0, 0)


def display_colour(colours: dict[str, str], value: Any) -> str:
    if isinstance(value, str):
        return value if value.startswith("#") else colours.get(value, FALLBACK_COLOUR)
    return FALLBACK_COLOUR


def _opt_text(v: Any) -> str | None:
    return None if v is None else str(v)
