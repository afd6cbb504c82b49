"""The table notation: a record one event a line, read and written from the spec's words.

A line names who acts (a side of the spec's ``players`` type, by its full name or its
abbreviation: the shortest prefix no other side shares, in capitals), the action, and its
arguments: values in the order the spec declares the action's parameters, or
``name:value``. Header lines (``game: ...``) and expected outcomes (``expect key: value``)
are YAML. ``setup: NAME`` stands for the events of the spec's definition ``NAME_setup()``.
The grammar (referee/grammar/notation.lark) says how a line is made; every word comes from the spec.

Reading gives the same data a YAML record gives, with the line and column of every value in
the notation file, so that a notation record is judged exactly as its YAML and every error
points into the notation. Writing goes the other way; both directions are checked to give
back what they were given. This module holds the words both share; the reading is in
notation_read.py, the writing in notation_write.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import resources
from referee.compile.spec import Spec
from referee.data.source import Document, Path_
from referee.errors import Span
from referee.parse import ast

# The one place the notation's grammar is found: beside the rules language's own.
NOTATION_GRAMMAR = resources.grammar("notation")
SUFFIX = ".rec"  # a record in the notation; anything else is read as YAML or JSON
MAX_NOTATION_BYTES = 16 * 1024 * 1024  # as for a YAML record
MAX_NESTING = 16  # structures inside structures
EXPANSION_SUFFIX = "_setup"  # `setup: NAME` expands the spec's definition NAME_setup()
REPEAT_FROM = 3  # a run of this many equal items is written `item*N`

_INT = re.compile(r"-?[0-9]+")
_BARE = re.compile(r'[^\s,()":*#|]+')


def is_notation(path: object) -> bool:
    """Whether a record's path names a file of the table notation (by its suffix)."""
    return isinstance(path, (str, Path)) and str(path).lower().endswith(SUFFIX)


_EVENTS_KEY = re.compile(r"^(events|\"events\"|'events')[ \t]*:", re.M)


def looks_like_notation(text: str) -> bool:
    """Whether a record's text (given as a string, or on standard input) is in the table
    notation rather than YAML or JSON: not a JSON object, and no top-level ``events:`` key
    (a notation record's events are lines, not a list under a key)."""
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped or stripped.startswith(("{", "[")):
        return False
    return _EVENTS_KEY.search(text) is None


# ---------------------------------------------------------------- the spec's words


@dataclass
class Slot:
    """A parameter of an action, or a field of a structure: what a value is read as."""

    name: str
    type: ast.TypeRef
    optional: bool


@dataclass
class Words:
    """What the notation takes from the spec: sides, actions and their parameters,
    structures and their fields, and the set-ups it can expand."""

    spec: Spec
    players: ast.TypeRef | None = None
    sides: dict[str, str] = field(default_factory=dict)  # abbreviation -> side
    short: dict[str, str] = field(default_factory=dict)  # side -> abbreviation
    actions: dict[str, list[Slot]] = field(default_factory=dict)

    @classmethod
    def of(cls, spec: Spec) -> Words:
        w = cls(spec)
        game = spec.game
        if game is not None and game.players:
            w.players = ast.TypeRef(game.players)
            d = spec.sym.types.get(game.players)
            if isinstance(d, ast.EnumDecl) and d.values:
                w.short = abbreviations(d.values)
                w.sides = {a: s for s, a in w.short.items()}
        for proc in spec.sym.procedures().values():
            for step in proc.steps:
                for allow in step.allows:
                    w.actions.setdefault(allow.name, slots(allow.params))
        return w

    def record_of(self, t: ast.TypeRef) -> ast.RecordDecl | None:
        """The structure a value of this type spells out, if it is one (not a data item)."""
        d = self.spec.sym.types.get(t.name)
        return d if isinstance(d, ast.RecordDecl) and not d.from_data else None

    def side(self, word: str) -> str | None:
        if word in self.sides:
            return self.sides[word]
        return word if word in self.short else None

    def setups(self) -> dict[str, ast.Define]:
        """The set-ups a record may name: definitions NAME_setup() giving a list of
        records, each an event as a proposal spells it (action, by, arguments)."""
        out = {}
        for name, d in self.spec.sym.values.items():
            if (
                isinstance(d, ast.Define)
                and name.endswith(EXPANSION_SUFFIX)
                and not d.params
                and d.type.name == "list"
                and d.type.arg is not None
                and d.type.arg.name == "struct"
            ):
                out[name.removesuffix(EXPANSION_SUFFIX)] = d
        return out


def abbreviations(values: list[str]) -> dict[str, str]:
    """Each value's shortest prefix that no other value starts with, in capitals."""
    out = {}
    for v in values:
        n = 1
        while n < len(v) and any(o != v and o.startswith(v[:n]) for o in values):
            n += 1
        out[v] = v[:n].upper()
    if len(set(out.values())) < len(values):  # two alike in capitals: full names
        return {v: v for v in values}
    return out


def slots(params: list[ast.Param]) -> list[Slot]:
    return [Slot(p.name, p.type, p.default is not None) for p in params]


def initials(name: str) -> str:
    """``some_long_name`` -> ``sln``: how a name of several words may be shortened."""
    parts = [p for p in name.split("_") if p]
    return "".join(p[0] for p in parts) if len(parts) > 1 else ""


def short_names(names: list[str]) -> dict[str, str]:
    """Each name of several words to its initials, where no other name has them or is them."""
    counts: dict[str, int] = {}
    for n in names:
        i = initials(n)
        if i:
            counts[i] = counts.get(i, 0) + 1
    return {
        n: initials(n)
        for n in names
        if initials(n) and counts[initials(n)] == 1 and initials(n) not in names
    }


# ---------------------------------------------------------------- a record read


@dataclass
class Notation:
    """A notation record read: the data and positions a YAML record would give, and the
    comments, each before (or after, on its line) the header or event it is attached to."""

    doc: Document
    # (before | after, header | event | end, the header's key or the event's index, text)
    comments: list[tuple[str, str, int | str, str]] = field(default_factory=list)


def header_where(data: dict[str, Any], marks: dict[Path_, Span], file: str) -> Any:
    """Where a header names a printing or overlay, for a message about it."""

    def where(name: str) -> Span:
        if data.get("printing") == name:
            return marks.get(("printing",), Span(file, 1, 1))
        for key in ("overlays", "no_overlays"):
            for i, oid in enumerate(data.get(key) or []):
                if oid == name:
                    return marks.get((key, i), Span(file, 1, 1))
        return Span(file, 1, 1)

    return where


# ---------------------------------------------------------------- the forms, for docs/notation.md


def forms(spec: Spec) -> str:
    """Each action's line and each structure's fields, as the notation writes them, from the
    spec's declarations: a markdown table (docs/notation.md shows this game's)."""
    words = Words.of(spec)

    def shown(params: list[Slot]) -> str:
        shorts = short_names([p.name for p in params])
        out = []
        for p in params:
            text = p.name + (f" ({shorts[p.name]})" if p.name in shorts else "")
            rec = words.record_of(p.type.arg) if p.type.arg is not None else None
            text += " ..." if rec is not None else ""
            out.append(f"[{text}]" if p.optional else text)
        return " ".join(out)

    rows = ["| action | written (who acts first; [optional]) |", "|---|---|"]
    structures: dict[str, ast.RecordDecl] = {}
    for action, params in sorted(words.actions.items()):
        rows.append(f"| `{action}` | `{' '.join([action, shown(params)]).strip()}` |")
        for p in params:
            for t in (p.type, p.type.arg):
                rec = words.record_of(t) if t is not None else None
                if rec is not None:
                    structures[rec.name] = rec
    found = list(structures.values())
    while found:
        rec = found.pop()
        for f in rec.fields:
            for t in (f.type, f.type.arg):
                inner = words.record_of(t) if t is not None else None
                if inner is not None and inner.name not in structures:
                    structures[inner.name] = inner
                    found.append(inner)
    rows += ["", "| structure | written (inside `(...)`, or to the end of the line) |", "|---|---|"]
    for name, rec in sorted(structures.items()):
        rows.append(f"| `{name}` | `{shown(slots(rec.fields))}` |")
    return "\n".join(rows)


def _comment_text(comment: str) -> str:
    """A comment's text: what follows `#` and one space, kept as written."""
    text = comment.strip()[1:].rstrip()
    return text[1:] if text.startswith(" ") else text
