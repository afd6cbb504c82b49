"""What the rules say of one entry of the game's data (``referee explain`` of a location, a
block face, a hex, a unit): what joins it to the other entries of its collection, what the
rules' definitions compute of it, its game state at the start, and what starts there.

Nothing here knows the game. What an entry is comes from the spec's declarations: the types
made from its collection (``enum location from data locations``, ``record face from data
faces``); a link is an entry of a collection whose record gives two fields of the entry's type
(``record road from data segments { a: location, b: location, highway: text }``); what the
rules compute of it are the definitions and tables of one parameter of its type that read no
game state; its state at the start, the defaults of the state kept for each value of its type;
what starts there, the entries whose state starts at it (a unit's hex) and the events of the
set-ups the spec defines (``NAME_setup()``, as a record's ``setup: NAME`` expands) that name it.
"""

from __future__ import annotations

from typing import Any

from referee.compile.interp import RULES_FAILURES
from referee.compile.spec import Spec, clause_key
from referee.errors import RefereeError, Span
from referee.parse import ast
from referee.resolve.overlays import Choice, in_force
from referee.resolve.purity import _pure_definitions
from referee.text import escape, shown

# what evaluating a definition for an entry it was never meant for may raise (a table with no
# row for a field the entry leaves empty): that definition is left out
FAILURES = (*RULES_FAILURES, RefereeError)
SETUP_SUFFIX = "_setup"  # `setup: NAME` in a record stands for the events of NAME_setup()
MOST_STARTING = 200  # entries listed as starting at one entry


def facts(spec: Spec, collection: str, item: dict[str, Any], name: str) -> dict[str, Any]:
    """The links, computed values, starting state and what starts at one data entry."""
    sym = spec.sym
    enums = {t.name for t in sym.types.values() if t.from_data == collection and _enum(t)}
    records = {t.name for t in sym.types.values() if t.from_data == collection and _record(t)}

    def value_of(t: ast.TypeRef) -> Any:  # the entry as a value of type t, if it is one
        if t.arg is None and t.name in enums:
            return name
        if t.arg is None and t.name in records:
            return item
        return _NONE

    _, overlays = in_force(sym, Choice(), lambda _: Span("<explain>", 0, 0))
    interp = spec.lease(overlays)
    try:
        computed = _computed(spec, interp, value_of)
        at_start = _at_start(spec, interp, value_of)
        starting = _starting(spec, interp, enums, name)
    finally:
        spec.give_back(overlays, interp)
    return {
        "links": _links(spec, collection, enums, name),
        "computed": computed,
        "at_start": at_start,
        "starting": starting,
    }


class _None:
    pass


_NONE = _None()


def _enum(t: ast.Decl) -> bool:
    return isinstance(t, ast.EnumDecl)


def _record(t: ast.Decl) -> bool:
    return isinstance(t, ast.RecordDecl)


def _links(spec: Spec, collection: str, enums: set[str], name: str) -> list[dict[str, Any]]:
    """The entries of other collections that join this one to another of its kind: each with
    the other end and the link's other fields."""
    out: list[dict[str, Any]] = []
    for t in spec.sym.types.values():
        if not isinstance(t, ast.RecordDecl) or not t.from_data:
            continue
        ends = [f.name for f in t.fields if f.type.arg is None and f.type.name in enums]
        if len(ends) != 2:
            continue
        for entry in spec.components.collections.get(t.from_data, []):
            if not isinstance(entry, dict):
                continue
            here = [e for e in ends if entry.get(e) == name]
            if len(here) != 1:
                continue
            other = next(e for e in ends if e not in here)
            rest = {k: v for k, v in entry.items() if k not in ends and k in _fields(t)}
            out.append(
                {
                    "by": t.from_data,
                    "record": t.name,
                    "clause": t.clause,
                    "to": entry.get(other),
                    "fields": {k: _plain(v) for k, v in rest.items()},
                }
            )
    return out


def _fields(t: ast.RecordDecl) -> set[str]:
    return {f.name for f in t.fields}


def _computed(spec: Spec, interp: Any, value_of: Any) -> list[dict[str, Any]]:
    """Each definition or table of one parameter of the entry's type that reads no game
    state, evaluated for it (those the rules fail on for it are left out)."""
    pure = _pure_definitions(spec.sym)
    out = []
    for d in spec.sym.values.values():
        if d.name not in pure or d.clause not in spec.sym.clauses:
            continue
        params = [d.param] if isinstance(d, ast.TableDecl) else getattr(d, "params", [])
        if len(params) != 1:
            continue
        arg = value_of(params[0].type)
        if arg is _NONE:
            continue
        interp.relied.clear()
        try:
            value = interp.call(d.name, arg)
        except FAILURES:
            continue
        out.append(
            {
                "name": d.name,
                "kind": d.kind,
                "clause": d.clause,
                "value": _plain(value),
                "overlays": sorted(interp.relied),
            }
        )
    return sorted(out, key=lambda r: (clause_key(r["clause"]), r["name"]))


def _at_start(spec: Spec, interp: Any, value_of: Any) -> list[dict[str, Any]]:
    """The game state kept for the entry (a state of one parameter of its type), as the
    game starts."""
    out = []
    for d in spec.sym.values.values():
        if not isinstance(d, ast.StateDecl) or len(d.params) != 1:
            continue
        arg = value_of(d.params[0].type)
        if arg is _NONE:
            continue
        try:
            value = interp.read_state(d, (arg,))
        except FAILURES:
            continue
        out.append({"name": d.name, "clause": d.clause, "value": _plain(value)})
    return sorted(out, key=lambda r: (clause_key(r["clause"]), r["name"]))


def _starting(spec: Spec, interp: Any, enums: set[str], name: str) -> list[dict[str, Any]]:
    """What starts at the entry: the values of another type whose state (of one parameter)
    starts as the entry, and the events of the spec's set-ups that name it."""
    sym = spec.sym
    out: list[dict[str, Any]] = []
    for d in sym.values.values():
        if not isinstance(d, ast.StateDecl) or len(d.params) != 1:
            continue
        if d.type.arg is not None or d.type.name not in enums:
            continue
        keys = sym.types.get(d.params[0].type.name)
        if not isinstance(keys, ast.EnumDecl):
            continue
        values = keys.values or _names_of(spec, keys.from_data)
        found = []
        for key in values:
            try:
                if interp.read_state(d, (key,)) == name:
                    found.append(key)
            except FAILURES:
                continue
            if len(found) >= MOST_STARTING:
                break
        if found:
            out.append({"state": d.name, "clause": d.clause, "values": found})
    for d in sym.values.values():
        if not (isinstance(d, ast.Define) and d.name.endswith(SETUP_SUFFIX) and not d.params):
            continue
        if not _lists_events(d):  # `mori_setup(): list of face` is no set-up of a record
            continue
        try:
            events = interp.call(d.name)
        except FAILURES:
            continue
        named = [_plain(e) for e in events if isinstance(e, dict) and _names(e, name)]
        if named:
            setup = d.name.removesuffix(SETUP_SUFFIX)
            out.append({"setup": setup, "clause": d.clause, "events": named})
    return out


def _lists_events(d: ast.Define) -> bool:
    """Whether a definition gives events, as a record's `setup: NAME` expands it: a list of
    structs (the notation reads set-ups the same way)."""
    arg = d.type.arg
    return d.type.name == "list" and arg is not None and arg.name == "struct"


def _names_of(spec: Spec, collection: str) -> list[str]:
    return sorted(spec.components.names().get(collection, set()))


def _names(value: Any, name: str) -> bool:
    """Whether a value names the entry, anywhere inside it."""
    if isinstance(value, str):
        return value == name
    if isinstance(value, dict):
        own = value.get("id", value.get("name"))
        if own is not None:
            return bool(own == name)
        return any(_names(v, name) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_names(v, name) for v in value)
    return False


def _plain(value: Any) -> Any:
    """A value of the rules as JSON holds it: a data entry by its name, lists as lists."""
    if isinstance(value, dict):
        own = value.get("id", value.get("name"))
        if own is not None:
            return own
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return sorted((_plain(v) for v in value), key=str)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return str(value)


def render_facts(x: dict[str, Any]) -> list[str]:
    """The lines of ``facts`` in an explanation, each value as the rules show it."""
    out: list[str] = []
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for link in x.get("links", []):
        groups.setdefault((link["by"], link["record"], link["clause"]), []).append(link)
    for (by, record, clause), links in groups.items():
        out.append(f"joined by {by} ({record}, {clause}) to {len(links)}:")
        for link in links:
            said = [f"{k}: {flow(v)}" for k, v in link["fields"].items() if v is not None]
            out.append(f"  {flow(link['to'])}" + (f"  ({', '.join(said)})" if said else ""))
    if x.get("computed"):
        out.append("what the rules compute of it (definitions reading no game state):")
        for c in x["computed"]:
            relies = f", relying on {', '.join(c['overlays'])}" if c["overlays"] else ""
            out.append(f"  {c['name']} = {flow(c['value'])}  ({c['clause']}{relies})")
    if x.get("at_start"):
        out.append("its state as the game starts:")
        out += [f"  {s['name']} = {flow(s['value'])}  ({s['clause']})" for s in x["at_start"]]
    for s in x.get("starting", []):
        if "state" in s:
            out.append(f"starting here ({s['state']}, {s['clause']}): {flow(s['values'])}")
        else:
            out.append(f"in the set-up `setup: {s['setup']}` ({s['clause']}):")
            for e in s["events"]:
                rest = ", ".join(
                    f"{k}: {flow(v)}" for k, v in e.items() if k not in ("action", "by")
                )
                out.append(f"  {e.get('action', '')} by {e.get('by', '')}: {rest}")
    return [escape(line) for line in out]


def flow(value: Any) -> str:
    """A data value written on one line, as YAML's flow style would: safe to print."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return shown(str(value))
