"""What ``referee explain`` says of any topic: a clause, a label or a declared name (see
explain.py), an overlay, a printing, an overlay file, or an entry of the game's data.

A topic may name several things. They are tried in this order, and the first that matches is
explained; the others are listed under ``also``, each with the qualified topic that picks it
(``data:NAME``):

1. ``clause``: a clause number or a label (``7.3.1``, ``7.3.1/no-pickup``);
2. ``name``: a name the spec declares (a definition, constant, type, state, procedure...);
3. ``overlay``: an overlay's id (a printing's erratum, a clarification, a decision);
4. ``printing``: a printing's id;
5. ``file``: the name of a file of overlays, which stands for all of them;
6. ``data``: the name or id of an entry of a data collection, collections in the order loaded.

Nothing here knows the game: the collections, their fields and the types built from them all
come from the spec and its data files.
"""

from __future__ import annotations

import datetime
import difflib
import re
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from referee.compile.spec import Spec, clause_key, display_name
from referee.data.components import KEYS
from referee.data.source import Path_, show_path
from referee.errors import RefereeError, Span, fail
from referee.explainer.clauses import (
    change_text,
    embodiments,
    explain,
    in_force_text,
    render_explanation,
    signature,
)
from referee.explainer.places import facts, flow, render_facts
from referee.explainer.search import render_search, render_section, search, section
from referee.parse import ast
from referee.resolve.overlays import overlay_groups
from referee.text import escape, shown

QUALIFIERS = ("clause", "name", "overlay", "printing", "file", "data")
SEARCH = "search"  # search:WORDS finds topics by their words, whatever the words name
WHAT = {
    "clause": "clause or label",
    "name": "declared name",
    "overlay": "overlay",
    "printing": "printing",
    "file": "overlay file",
    "data": "data entry",
}
MAX_SUGGESTED = 100  # characters of a topic for which close names are looked for
MAX_MENTIONS = 50  # lines of the spec shown that mention an overlay


@dataclass
class Match:
    kind: str  # the key "kind" of the explanation: clause, overlay, printing, file, data
    what: str  # said to a person: "the overlay S-x"
    ask: str  # the qualified topic that picks this one
    build: Callable[[], dict[str, Any]]


def explain_topic(spec: Spec, topic: str) -> dict[str, Any]:
    """The explanation of the first thing ``topic`` names, with the others it names too;
    else the section it numbers, else what its words find (search.py)."""
    topic = topic.strip()  # `8.8 ` as typed or pasted: the spaces name nothing
    qualifier, sep, rest = topic.partition(":")
    if sep and qualifier == SEARCH and rest.strip():
        return {**search(spec, rest), "also": []}
    if not (rest if sep and qualifier in (*QUALIFIERS, SEARCH) else topic).strip():
        what = WHAT.get(qualifier, "") if sep else ""
        raise fail(
            Span("<command line>", 0, 0),
            f"explain: name a {what or 'topic'}" + (f" after '{qualifier}:'" if sep else ""),
            "as `referee explain 7.3.5`, `referee explain clause:7.3.1/no-pickup`",
        )
    found = matches(spec, topic)
    if not found:
        qualifier, sep, rest = topic.partition(":")
        numbered = section(spec, rest if sep and qualifier == "clause" else topic)
        if numbered is not None:
            return {**numbered, "also": []}
        if sep and qualifier in QUALIFIERS:
            raise _unknown(spec, rest, qualifier, matches(spec, rest))
        by_words = search(spec, topic)
        if by_words["complete"]:
            return {**by_words, "also": []}
        raise _unknown(spec, topic, partly=[h["ask"] for h in by_words["hits"]])
    x = found[0].build()
    x["also"] = [{"kind": m.kind, "what": m.what, "ask": m.ask} for m in found[1:]]
    return x


def matches(spec: Spec, topic: str) -> list[Match]:
    qualifier, sep, rest = topic.partition(":")
    game = spec.game.name if spec.game else ""
    if sep and qualifier in QUALIFIERS:
        wanted, topic = {qualifier}, rest
    elif sep and game and qualifier == game and spec.clause(rest.partition("/")[0]):
        wanted, topic = {"clause"}, rest  # a clause's id: game:number
    else:
        wanted = set(QUALIFIERS)
    found: list[Match] = []

    def add(qualifier: str, kind: str, what: str, build: Callable[[], dict[str, Any]]) -> None:
        if qualifier in wanted:
            found.append(Match(kind, what, f"{qualifier}:{topic}", build))

    number, slash, label = topic.partition("/")
    clause = spec.clause(number)
    if clause is not None and "clause" in wanted:
        if label and clause.label(label) is None:
            raise _no_label(spec, clause, label)
        add("clause", "clause", f"clause {topic}", lambda: explain(spec, topic))
    for table in (spec.sym.values, spec.sym.types, spec.sym.actions):
        d = table.get(topic)
        if d is not None and d.clause in spec.sym.clauses:
            what = f"the {d.kind} {topic} of clause {d.clause}"
            add("name", "clause", what, lambda: explain(spec, topic))
            break
    o = spec.sym.overlays.get(topic)
    if o is not None:
        add("overlay", "overlay", f"the {o.kind} {o.id}", lambda: explain_overlay(spec, o))
    p = spec.sym.printings.get(topic)
    if p is not None:
        add("printing", "printing", f"the printing {p.id}", lambda: explain_printing(spec, p))
    if topic in overlay_groups(spec.sym):
        what = f"the overlay file {topic}"
        add("file", "file", what, lambda: explain_file(spec, topic))
    for collection in _collections(spec):
        item = spec.components.item(collection, topic)
        if item is not None:
            what = f"an entry of {collection}"
            add("data", "data", what, _data_builder(spec, collection, item))
    return found


def _collections(spec: Spec) -> list[str]:
    """The data collections in the order loaded, those whose names are an enumeration's
    values first: a unit before the list of units that a rule names (``sudden_death``)."""
    enums = {t.from_data for t in spec.sym.types.values() if isinstance(t, ast.EnumDecl)}
    names = list(spec.components.collections)
    return [c for c in names if c in enums] + [c for c in names if c not in enums]


def _data_builder(
    spec: Spec, collection: str, item: dict[str, Any]
) -> Callable[[], dict[str, Any]]:
    return lambda: explain_data(spec, collection, item)


# ------------------------------------------------------------------ unknown topics


def _no_label(spec: Spec, clause: ast.Clause, label: str) -> RefereeError:
    labels = [k.partition("/")[2] for k in spec.sym.labels if k.startswith(f"{clause.number}/")]
    close = difflib.get_close_matches(label, labels, n=3) if len(label) <= MAX_SUGGESTED else []
    hint = _did_you_mean([f"{clause.number}/{c}" for c in close])
    return fail(
        Span("<command line>", 0, 0), f"clause {clause.number} has no label [{label}]", hint
    )


def _unknown(
    spec: Spec,
    topic: str,
    qualifier: str = "",
    elsewhere: list[Match] | None = None,
    partly: list[str] | None = None,
) -> RefereeError:
    """No such topic: the message names the closest known ones (names, and the titles of
    clauses and overlays), or what the topic is when it was asked for as another kind; else
    what matches some of its words (``partly``)."""
    by_kind = _known(spec)
    known = by_kind[qualifier] if qualifier else [k for ks in by_kind.values() for k in ks]
    close: list[str] = []
    if len(topic) <= MAX_SUGGESTED:
        lowered: dict[str, str] = {}
        for k in known:
            lowered.setdefault(k.lower(), k)
        if qualifier in ("", "clause"):
            for c in spec.clauses():
                lowered.setdefault(c.title.lower(), c.number)
        if qualifier in ("", "overlay"):
            for o in spec.sym.overlays.values():
                lowered.setdefault(o.title.lower(), o.id)
        close = [lowered[c] for c in difflib.get_close_matches(topic.lower(), lowered, n=3)]
    close = close or list(dict.fromkeys(partly or []))[:3]
    if elsewhere:
        close = [m.ask for m in elsewhere]
    hint = _did_you_mean(close) or (
        "list them with: referee clauses, referee overlays; data entries are in the data files"
    )
    return fail(
        Span("<command line>", 0, 0),
        f"no {WHAT.get(qualifier, 'clause, label, name, overlay, printing or data entry')}"
        f" '{topic}'",
        hint,
    )


def _known(spec: Spec) -> dict[str, list[str]]:
    """Every topic ``explain`` knows, by its kind, for suggestions."""
    sym = spec.sym
    tables = (sym.values, sym.types, sym.actions)
    return {
        "clause": [c.number for c in spec.clauses()] + list(sym.labels),
        "name": [n for t in tables for n, d in t.items() if d.clause in sym.clauses],
        "overlay": list(sym.overlays),
        "printing": list(sym.printings),
        "file": list(overlay_groups(sym)),
        "data": [n for ns in spec.components.names().values() for n in sorted(ns)],
    }


def _did_you_mean(names: list[str]) -> str:
    if not names:
        return ""
    quoted = [f"'{n}'" for n in dict.fromkeys(names)]
    said = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f"did you mean {said}?"


# ------------------------------------------------------------------ overlays


def explain_overlay(spec: Spec, o: ast.Overlay) -> dict[str, Any]:
    group = _stem(o.span.file)
    return {
        "kind": "overlay",
        "id": o.id,
        "title": o.title,
        "overlay_kind": o.kind,
        "source": o.source,
        "date": o.date,
        "in_force": in_force_text(o),
        "switch": f"--no-overlay {o.id}" if o.default else f"--overlay {o.id}",
        "printings": o.printings,
        "group": group,
        "file": o.span.file,
        "line": o.span.line,
        "changes": [_change(spec, a.clause, ch) for a in o.amends for ch in a.changes],
        "embodied_by": [
            {
                "clause": d.clause,
                "kind": d.kind,
                "name": d.name,
                "signature": signature(d),
                "file": d.span.file,
                "line": d.span.line,
                "text": spec.source_of(d.span),
            }
            for d in embodiments(spec, o.id)
        ],
        "source_clauses": _clauses_named(spec, o.source),
        "mentioned_in": _mentions(spec, o),
    }


def _change(spec: Spec, clause: str, ch: ast.Change) -> dict[str, Any]:
    """One change of an overlay: the overlay's text and the base declaration it amends."""
    base: ast.Decl | None
    if ch.decl is not None:
        name, what = ch.decl.name, signature(ch.decl)
        base = _base_decl(spec, clause, ch.decl)
    else:
        name = what = str(ch.ref)
        base = spec.sym.labels.get(str(ch.ref))
    return {
        "action": ch.action,
        "clause": clause,
        "name": name,
        "signature": what,
        "text": spec.source_of(ch.span),
        "file": ch.span.file,
        "line": ch.span.line,
        "base": None
        if base is None
        else {
            "clause": base.clause,
            "kind": base.kind,
            "name": base.name,
            "signature": signature(base),
            "text": spec.source_of(base.span),
            "file": base.span.file,
            "line": base.span.line,
        },
    }


def _base_decl(spec: Spec, clause: str, decl: ast.Decl) -> ast.Decl | None:
    """The declaration of the base rules an overlay's declaration takes the place of."""
    c = spec.clause(clause)
    if isinstance(decl, (ast.Require, ast.Property)):
        return c.label(decl.name) if c is not None else None
    here = [d for d in (c.decls if c is not None else []) if d.name == decl.name]
    return here[0] if here else spec.sym.values.get(decl.name)


def _clauses_named(spec: Spec, text: str) -> list[str]:
    """The clause numbers a text names, in order, once each."""
    out: list[str] = []
    for n in re.findall(r"\d+(?:(?:\.\d+)+|(?:-\d+)+)", text):  # 7.3.1, 7-3-1
        if spec.clause(n) is not None and n not in out:
            out.append(n)
    return out


def _mentions(spec: Spec, o: ast.Overlay) -> list[dict[str, Any]]:
    """The lines of the spec that name an overlay (comments too), outside its own text and
    the ``decided`` lines listed as its embodiments."""
    pattern = re.compile(r"(?<![\w-])" + re.escape(o.id) + r"(?![\w-])")
    out: list[dict[str, Any]] = []
    for hit, at in _lines_matching(spec, pattern):
        inside = hit["file"] == o.span.file and o.span.start <= at < o.span.end
        if not inside and not hit["text"].startswith("decided "):
            out.append(hit)
            if len(out) >= MAX_MENTIONS:
                break
    return out


def _lines_matching(spec: Spec, pattern: re.Pattern[str]) -> Iterator[tuple[dict[str, Any], int]]:
    """Each match in the spec's text: its clause (if inside one), file, line and the line's
    text; and the offset of the match."""
    spans = _clause_spans(spec)
    for file, text in spec.sources.items():
        for m in pattern.finditer(text):
            at = m.start()
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            hit = {
                "clause": next((n for a, b, n in spans.get(file, []) if a <= at < b), ""),
                "file": file,
                "line": text.count("\n", 0, at) + 1,
                "text": text[start : end if end >= 0 else len(text)].strip(),
            }
            yield hit, at


def _clause_spans(spec: Spec) -> dict[str, list[tuple[int, int, str]]]:
    out: dict[str, list[tuple[int, int, str]]] = {}
    for m in spec.modules:
        for c in m.clauses:
            out.setdefault(c.span.file, []).append((c.span.start, c.span.end, c.number))
    return out


def _summary(o: ast.Overlay) -> dict[str, Any]:
    return {
        "id": o.id,
        "title": o.title,
        "overlay_kind": o.kind,
        "in_force": in_force_text(o),
        "changes": [change_text(ch) for a in o.amends for ch in a.changes],
    }


def explain_printing(spec: Spec, p: ast.Printing) -> dict[str, Any]:
    overlays = [o for o in spec.sym.overlays.values() if p.id in o.printings]
    return {
        "kind": "printing",
        "id": p.id,
        "title": p.title,
        "base": p.base,
        "switch": f"--printing {p.id}",
        "file": p.span.file,
        "line": p.span.line,
        "clauses_not_carried": [c.number for c in spec.clauses() if p.id not in c.printings],
        "overlays": [_summary(o) for o in overlays],
    }


def explain_file(spec: Spec, name: str) -> dict[str, Any]:
    ids = overlay_groups(spec.sym)[name]
    overlays = [spec.sym.overlays[i] for i in ids]
    return {
        "kind": "file",
        "name": name,
        "file": overlays[0].span.file if overlays else "",
        "switch": f"--overlay {name} / --no-overlay {name}",
        "overlays": [_summary(o) for o in overlays],
    }


def _stem(file: str) -> str:
    return file.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".rules")


# ------------------------------------------------------------------ data entries


def explain_data(spec: Spec, collection: str, item: dict[str, Any]) -> dict[str, Any]:
    where = _positions(spec)
    key = next(k for k in KEYS if isinstance(item.get(k), str))
    name = item[key]
    file, line = where.get(id(item), ("", 0))
    types = [t for t in spec.sym.types.values() if t.from_data == collection]
    type_names = {t.name for t in types}
    mentioned = []
    for other, items in spec.components.collections.items():
        for entry in items:
            if entry is item:
                continue
            paths = list(_paths_to(entry, name, ()))
            if not paths:
                continue
            own = next((entry[k] for k in KEYS if isinstance(entry.get(k), str)), None)
            fields = None
            if own is None:  # an entry with no name of its own: what else it says
                top = {p[0] for p in paths}
                fields = {k: _plain(v) for k, v in entry.items() if k not in top}
            f, n = where.get(id(entry), ("", 0))
            mentioned.append(
                {
                    "collection": other,
                    "name": own,
                    "via": [show_path(p) for p in paths],
                    "fields": fields,
                    "file": f,
                    "line": n,
                }
            )
    return {
        "kind": "data",
        "name": name,
        "collection": collection,
        "key": key,
        "file": file,
        "line": line,
        "fields": {k: _plain(v) for k, v in item.items() if k != key},
        "types": [{"kind": t.kind, "name": t.name, "clause": t.clause} for t in types],
        "state": _state_over(spec, type_names),
        "named_in_rules": _named_in_rules(spec, types, name),
        "mentioned_by": mentioned,
        **facts(spec, collection, item, name),
    }


def _positions(spec: Spec) -> dict[int, tuple[str, int]]:
    """Where each entry of every collection is written: its file and line, by identity."""
    out: dict[int, tuple[str, int]] = {}
    for doc in spec.components.documents.values():
        if not isinstance(doc.data, dict):
            continue
        for key, value in doc.data.items():
            if isinstance(value, list):
                for i, entry in enumerate(value):
                    span = doc.span((key, i))
                    out[id(entry)] = (display_name(span.file), span.line)
    return out


def _paths_to(value: Any, name: str, at: Path_) -> Iterator[Path_]:
    """The paths inside an entry at which the text ``name`` is a value."""
    if isinstance(value, str):
        if value == name and at:
            yield at
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _paths_to(v, name, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths_to(v, name, (*at, i))


def _plain(value: Any) -> Any:
    """A data value as JSON can hold it (a date read from YAML becomes its text)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def _mentions_type(t: ast.TypeRef, names: set[str]) -> bool:
    return t.name in names or (t.arg is not None and _mentions_type(t.arg, names))


def _state_over(spec: Spec, type_names: set[str]) -> list[dict[str, Any]]:
    """The game state kept for each value of these types, or holding them."""
    out = []
    for c in spec.clauses():
        for d in c.decls:
            if not isinstance(d, ast.StateDecl):
                continue
            per = any(_mentions_type(p.type, type_names) for p in d.params)
            holds = _mentions_type(d.type, type_names)
            if per or holds:
                params = ", ".join(f"{p.name}: {p.type}" for p in d.params)
                out.append(
                    {
                        "name": d.name,
                        "clause": d.clause,
                        "signature": f"state {d.name}({params}): {d.type}",
                        "per_value": per,
                    }
                )
    return out


def _named_in_rules(spec: Spec, types: list[Any], name: str) -> list[dict[str, Any]]:
    """The places the rules name this entry as a value of its enum (``type.Name``)."""
    enums = [t.name for t in types if isinstance(t, ast.EnumDecl)]
    if not enums:
        return []
    pattern = re.compile(
        r"(?<![\w.])(?:" + "|".join(map(re.escape, enums)) + r")\." + re.escape(name) + r"(?!\w)"
    )
    out = [hit for hit, _ in _lines_matching(spec, pattern)]
    return sorted(out, key=lambda r: (clause_key(r["clause"]) if r["clause"] else (), r["line"]))


# ------------------------------------------------------------------ text


def render_topic(x: dict[str, Any]) -> str:
    kind = x["kind"]
    if kind == "clause":
        text = render_explanation(x)
    elif kind == "overlay":
        text = render_overlay(x)
    elif kind == "printing":
        text = render_printing(x)
    elif kind == "file":
        text = render_file(x)
    elif kind == "section":
        text = render_section(x)
    elif kind == "search":
        text = render_search(x)
    else:
        text = render_data(x)
    also = [f"also {a['what']}: referee explain {a['ask']}" for a in x.get("also", [])]
    return "\n".join([text, *also]) if also else text


def render_overlay(x: dict[str, Any]) -> str:
    out = [
        f"{x['id']}  ({x['overlay_kind']}, {x['date']})",
        _wrap(x["title"]),
        "",
        _wrap(f"source: {x['source']}", indent="  "),
        f"in force {x['in_force']} (switch with {x['switch']})",
        f"declared at {x['file']}:{x['line']}, in the overlay file {x['group']}",
    ]
    if x["changes"]:
        out += ["", "what it changes:"]
        for ch in x["changes"]:
            out.append(f"  {ch['action']} in {ch['clause']}: {ch['signature']}")
            b = ch["base"]
            if b is not None:
                out.append(f"    the base rules ({b['clause']}, {b['file']}:{b['line']}):")
                out.append(_indent(b["text"], 8))
            elif ch["action"] == "add":
                out.append("    the base rules have nothing in its place")
            out.append(f"    this overlay ({ch['file']}:{ch['line']}):")
            out.append(_indent(ch["text"], 8))
    else:
        out += ["", "what it changes: nothing; it records the reading the base rules already give"]
    if x["source_clauses"]:
        out.append(f"clauses its source names: {', '.join(x['source_clauses'])}")
    out.append("")
    if x["embodied_by"]:
        out.append("embodied by (declarations that say `decided " + x["id"] + "`):")
        for d in x["embodied_by"]:
            out.append(f"  {d['clause']}: {d['signature']}  ({d['file']}:{d['line']})")
    else:
        out.append(f"embodied by: no declaration (none says `decided {x['id']}`)")
    if x["mentioned_in"]:
        out.append("mentioned in the spec:")
        for m in x["mentioned_in"]:
            where = f"{m['clause']} " if m["clause"] else ""
            out.append(f"  {where}({m['file']}:{m['line']}): {m['text']}")
    return "\n".join(out)


def _render_summaries(overlays: list[dict[str, Any]]) -> list[str]:
    out = []
    for o in overlays:
        out.append(f"  {o['id']} ({o['overlay_kind']}, in force {o['in_force']}): {o['title']}")
        out += [f"    {c}" for c in o["changes"]] or ["    changes nothing"]
    return out


def render_printing(x: dict[str, Any]) -> str:
    out = [f"{x['id']}  {x['title']}  (printing)", ""]
    if x["base"]:
        out.append("the base text: the clauses are written as it reads")
    else:
        out.append(f"its differences from the base text are the overlays below ({x['switch']})")
    out.append(f"declared at {x['file']}:{x['line']}")
    missing = x["clauses_not_carried"]
    out.append(f"clauses it does not carry: {', '.join(missing) if missing else 'none'}")
    out.append("")
    if x["overlays"]:
        out.append(f"overlays of this printing ({len(x['overlays'])}):")
        out += _render_summaries(x["overlays"])
    else:
        out.append("overlays of this printing: none")
    return "\n".join(out)


def render_file(x: dict[str, Any]) -> str:
    out = [
        f"{x['name']}  (overlay file {x['file']})",
        f"its name stands for all its overlays: {x['switch']}",
        "",
        f"overlays ({len(x['overlays'])}):",
        *_render_summaries(x["overlays"]),
    ]
    return "\n".join(out)


def render_data(x: dict[str, Any]) -> str:
    where = f": {x['file']}:{x['line']}" if x["file"] else ""
    out = [escape(f"{shown(x['name'])}  (an entry of {x['collection']}{where})"), ""]
    out += [escape(f"  {k}: {flow(v)}") for k, v in x["fields"].items()]
    out.append("")
    lines = render_facts(x)
    out += [*lines, ""] if lines else []
    types = [f"{t['kind']} {t['name']} ({t['clause']})" for t in x["types"]]
    out.append(f"a value of: {', '.join(types) if types else 'no type of the spec'}")
    per = [f"{s['name']} ({s['clause']})" for s in x["state"] if s["per_value"]]
    holds = [f"{s['name']} ({s['clause']})" for s in x["state"] if not s["per_value"]]
    if per:
        out.append(_wrap(f"state kept for each: {', '.join(per)}", indent="  "))
    if holds:
        out.append(_wrap(f"state that holds one: {', '.join(holds)}", indent="  "))
    if x["named_in_rules"]:
        out.append("named in the rules:")
        out += [
            f"  {r['clause']} ({r['file']}:{r['line']}): {r['text']}" for r in x["named_in_rules"]
        ]
    else:
        out.append("named in the rules: nowhere")
    out.append("")
    if not x["mentioned_by"]:
        out.append("mentioned by: no other entry")
    else:
        out.append(f"mentioned by ({len(x['mentioned_by'])}):")
        for m in x["mentioned_by"]:
            via = ", ".join(m["via"])
            at = f"; {m['file']}:{m['line']}" if m["file"] else ""
            if m["fields"] is None:
                line = f"  {m['collection']}: {shown(m['name'])}  (as {via}{at})"
            else:
                said = ", ".join(f"{k}: {flow(v)}" for k, v in m["fields"].items())
                line = f"  {m['collection']}: {said}  (as {via}{at})"
            out.append(escape(line))
    return "\n".join(out)


def _indent(text: str, n: int) -> str:
    return textwrap.indent(text, " " * n)


def _wrap(text: str, width: int = 88, indent: str = "") -> str:
    return textwrap.fill(text, width, subsequent_indent=indent)
