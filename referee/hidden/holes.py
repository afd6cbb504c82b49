"""The holes of a view record: each list of marks, each count of a secret list, each single
mark, with the type of what it hides; the values a hole may take; a complete event made
from a view event and values for its holes. Nothing here knows a game: the types are the
spec's, the values its enumerations and its components.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from referee.compile.spec import Spec
from referee.parse import ast
from referee.records.record import Event, Record
from referee.records.views import MARK
from referee.resolve.hidden import allows_of, field_type, leaf_type
from referee.resolve.symbols import Symbols

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Hole:
    """Values a view did not see: ``size`` of them (a list of marks, a count) or one
    (``single``), of type ``type`` (the leaf type's name), at ``path`` in an event's
    arguments (``index`` >= 1) or in the position's state (``index`` 0)."""

    index: int
    path: Path
    size: int
    type: str
    single: bool = False

    def where(self) -> str:
        return ".".join(str(p) for p in self.path)


def _walk(sym: Symbols, value: Any, t: ast.TypeRef, path: Path) -> Iterator[tuple[Path, Any]]:
    """Each hole below ``value`` of type ``t``: its path and what the record wrote."""
    secret = sym.hidden.secret if sym.hidden is not None else {}
    leaf = leaf_type(t)
    if t.name in ("list", "set") and t.arg is not None:
        if isinstance(value, int) and not isinstance(value, bool) and secret.get(leaf, False):
            if value > 0:
                yield path, value
            return
        if isinstance(value, list):
            if value and all(x == MARK for x in value):
                yield path, value
                return
            for i, item in enumerate(value):
                yield from _walk(sym, item, t.arg, path + (i,))
        return
    if value == MARK:
        yield path, MARK
        return
    if isinstance(value, dict):
        for name, v in value.items():
            ft = field_type(sym, t, name)
            if ft is not None:
                yield from _walk(sym, v, ft, path + (name,))


def holes_of_event(sym: Symbols, ev: Event) -> list[Hole]:
    allows = allows_of(sym, ev.action)
    if not allows:
        return []
    out = []
    params = {p.name: p.type for p in allows[0].params}
    for name, value in ev.args.items():
        if name in params:
            for path, v in _walk(sym, value, params[name], (name,)):
                out.append(_hole(ev.index, path, v, params[name], sym))
    return out


def shown_of_event(sym: Symbols, ev: Event) -> list[tuple[str, str]]:
    """What an event's arguments show of the items it names: (leaf type, value) for each
    value the record wrote at a place whose type is a structure from the data (a block's
    face, a card), in order; an enumeration's value (a side, a location) is not one."""
    allows = allows_of(sym, ev.action)
    if not allows:
        return []
    params = {p.name: p.type for p in allows[0].params}
    out: list[tuple[str, str]] = []

    def walk(v: Any, t: ast.TypeRef) -> None:
        if isinstance(v, list) and t.arg is not None:
            for x in v:
                walk(x, t.arg)
        elif isinstance(v, dict):
            for name, x in v.items():
                ft = field_type(sym, t, name)
                if ft is not None:
                    walk(x, ft)
        elif isinstance(v, str) and v != MARK:
            d = sym.types.get(leaf_type(t))
            if isinstance(d, ast.RecordDecl) and d.from_data:
                out.append((leaf_type(t), v))

    for name, value in ev.args.items():
        if name in params:
            walk(value, params[name])
    return out


def _hole(index: int, path: Path, v: Any, top: ast.TypeRef, sym: Symbols, skip: int = 1) -> Hole:
    t = top
    for p in path[skip:]:
        if isinstance(p, str):
            ft = field_type(sym, t, p)
            assert ft is not None
            t = ft
    name = leaf_type(t)
    if v == MARK:
        return Hole(index, path, 1, name, single=True)
    return Hole(index, path, v if isinstance(v, int) else len(v), name)


def holes_of_position(sym: Symbols, record: Record) -> list[Hole]:
    pos = record.position or {}
    state = pos.get("state") if isinstance(pos, dict) else None
    out: list[Hole] = []
    if not isinstance(state, dict):
        return out
    for name, value in state.items():
        d = sym.values.get(name)
        if not isinstance(d, ast.StateDecl):
            continue

        def keyed(v: Any, depth: int, path: Path, d: ast.StateDecl = d) -> None:
            if depth < len(d.params):
                if isinstance(v, dict):
                    for k, x in v.items():
                        keyed(x, depth + 1, path + (k,))
                return
            for p, x in _walk(sym, v, d.type, path):
                out.append(_hole(0, p, x, d.type, sym, len(path)))

        keyed(value, 0, ("position", "state", name))
    return out


def domain(spec: Spec, sym: Symbols, type_name: str) -> list[str]:
    """Every value of a type as a record writes it: an enumeration's values, a component's
    items by id (each once), a truth value."""
    if type_name == "bool":
        return ["false", "true"]
    d = sym.types.get(type_name)
    if isinstance(d, ast.EnumDecl):
        return [m for m in d.values if m != "nothing"]
    if isinstance(d, ast.RecordDecl) and d.from_data:
        out: list[str] = []
        for item in spec.components.collections.get(d.from_data, []):
            key = item.get("id", item.get("name")) if isinstance(item, dict) else None
            if isinstance(key, str) and key not in out:
                out.append(key)
        return out
    return []


def put(data: Any, path: Path, value: Any) -> None:
    """Set ``data`` at ``path`` (keys and indexes) to ``value``."""
    for p in path[:-1]:
        data = data[p]
    data[path[-1]] = value


def filled_event(ev: Event, holes: list[Hole], values: list[list[Any]]) -> Event:
    """The complete event: each hole's values put in its place."""
    args = copy.deepcopy(ev.args)
    for h, v in zip(holes, values, strict=True):
        put(args, h.path, v[0] if h.single else list(v))
    return Event(ev.index, ev.action, args, ev.path, None)


def owner_rule(sym: Symbols, type_name: str, key_type: str) -> str | None:
    """The spec's one definition from a value of ``type_name`` to a ``key_type`` (a block's
    face to its side): the owner of each item; None when the spec has none, or several."""
    found = [
        d.name
        for d in sym.values.values()
        if isinstance(d, ast.Define)
        and len(d.params) == 1
        and d.params[0].type.name == type_name
        and d.params[0].type.arg is None
        and d.type.name == key_type
        and d.type.arg is None
    ]
    return found[0] if len(found) == 1 else None


def viewer_key(sym: Symbols, state: str) -> int | None:
    """Which key of a state's cells names the side that sees it (`units_at(l, s) seen by
    s`: the second), the owner of what the cell holds; None if no key does."""
    for s in sym.hidden.seen if sym.hidden is not None else []:
        side = s.side
        if s.kind == "state" and s.name == state and isinstance(side, ast.Name):
            return s.path.index(side.id) if side.id in s.path else None
    return None
