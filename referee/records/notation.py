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
back what they were given.
"""

from __future__ import annotations

import difflib
import io
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from referee import resources
from referee.check.overlays import Choice, in_force
from referee.compile.spec import Spec
from referee.data.limits import MAX_DIGITS, read_text
from referee.data.schema import validate
from referee.data.source import Document, Path_, load_document, parse_document
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.parse.parser import error_place
from referee.records.record import RECORD_SCHEMA
from referee.records.values import raw

# The one place the notation's grammar is found: beside the rules language's own.
NOTATION_GRAMMAR = resources.grammar("notation")
SUFFIX = ".rec"  # a record in the notation; anything else is read as YAML or JSON
MAX_NOTATION_BYTES = 16 * 1024 * 1024  # as for a YAML record
MAX_NESTING = 16  # structures inside structures
EXPANSION_SUFFIX = "_setup"  # `setup: NAME` expands the spec's definition NAME_setup()
REPEAT_FROM = 3  # a run of this many equal items is written `item*N`

_INT = re.compile(r"-?[0-9]+")
_BARE = re.compile(r'[^\s,()":*#|]+')


@lru_cache(maxsize=1)
def lark_notation() -> Lark:
    return Lark(
        NOTATION_GRAMMAR.read_text(encoding="utf-8"),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
        cache=False,
    )


def is_notation(path: object) -> bool:
    """Whether a record's path names a file of the table notation (by its suffix)."""
    return isinstance(path, (str, Path)) and str(path).lower().endswith(SUFFIX)


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


# ---------------------------------------------------------------- reading


@dataclass
class Notation:
    """A notation record read: the data and positions a YAML record would give, and the
    comments, each before (or after, on its line) the header or event it is attached to."""

    doc: Document
    # (before | after, header | event | end, the header's key or the event's index, text)
    comments: list[tuple[str, str, int | str, str]] = field(default_factory=list)


def read_notation(spec: Spec, path: str | Path) -> Notation:
    text = read_text(path, MAX_NOTATION_BYTES, "record")
    return parse_notation(spec, text, str(path))


def notation_document(spec: Spec, path: str | Path) -> Document:
    """The record in a notation file, as `referee check` reads a YAML record."""
    return read_notation(spec, path).doc


def parse_notation(spec: Spec, text: str, file: str) -> Notation:
    text = text.replace("\r\n", "\n")
    source = text if text.endswith("\n") else text + "\n"
    try:
        tree = lark_notation().parse(source)
    except UnexpectedInput as err:
        raise RefereeError([_syntax_problem(err, file, source)], {file: text}) from None
    return _Reader(Words.of(spec), file, text).read(tree)


def _syntax_problem(err: UnexpectedInput, file: str, text: str) -> Problem:
    span, pos = error_place(err, file, text)
    if isinstance(err, UnexpectedCharacters):
        ch = text[pos : pos + 1]
        if ch == '"':
            return Problem(span, "this quoted value is not closed", 'end it with " on its line')
        expected = {_readable(t) for t in err.allowed}
        return Problem(span, f"unexpected character {ch!r}", _expected(expected))
    if isinstance(err, UnexpectedToken):
        if str(err.token).startswith('"') and err.token.type != "STRING":
            return Problem(span, "this quoted value is not closed", 'end it with " on its line')
        found = "the end of the line" if err.token.type == "_NL" else f"`{err.token}`"
        if err.token.type == "$END":
            found = "the end of the file"
        expected = {_readable(t) for t in err.expected if t != "$END"}
        if err.token.type == "RPAR" and "RPAR" not in err.expected:
            return Problem(span, "`)` closes no `(`", "")
        if err.token.type == "_NL" and "RPAR" in err.expected:
            return Problem(span, "a `(` is not closed on its line", "close it with `)`")
        return Problem(span, f"unexpected {found}", _expected(expected))
    return Problem(span, "unexpected end of the file", "")


def _expected(names: set[str]) -> str:
    return f"expected {', '.join(sorted(names))}" if names else ""


def _readable(name: str) -> str:
    return {
        "ITEM": "a name or a number",
        "STRING": "a quoted value",
        "HEADER": "a header (key: value)",
        "EXPECT": "`expect`",
        "REST": "an expected value (key: value)",
        "_NL": "the end of the line",
        "BAR": "`|`",
        "COMMA": "`,`",
        "COLON": "`:`",
        "STAR": "`*`",
        "LPAR": "`(`",
        "RPAR": "`)`",
        "COMMENT": "a comment",
    }.get(name, name)


def _span(file: str, tok: Token) -> Span:
    return Span(
        file,
        tok.line or 0,
        tok.column or 0,
        tok.end_line or 0,
        tok.end_column or 0,
        tok.start_pos or 0,
        tok.end_pos or 0,
    )


def _first(node: Tree[Token] | Token) -> Token:
    while isinstance(node, Tree):
        node = node.children[0]
    return node


def _where(file: str, node: Tree[Token] | Token) -> Span:
    """Where a token, or the text a rule matched (an empty `()` too), begins."""
    if isinstance(node, Token):
        return _span(file, node)
    m = node.meta
    if m.empty:
        return Span(file, 0, 0)
    return Span(file, m.line, m.column, m.end_line, m.end_column, m.start_pos, m.end_pos)


class _Reader:
    def __init__(self, words: Words, file: str, text: str) -> None:
        self.w = words
        self.file = file
        self.text = text
        self.data: dict[str, Any] = {}
        self.events: list[dict[str, Any]] = []
        self.marks: dict[Path_, Span] = {}
        self.notation = Notation(Document(file, text, None, self.marks))
        self.pending: list[str] = []  # comments waiting for the next header or event
        self.anchor: tuple[str, int | str] | None = None  # the header or event above
        self.item = ""  # what the last line held: header, event, setup
        self.last_line = 0

    def fail(self, at: Tree[Token] | Token | Span, message: str, hint: str = "") -> RefereeError:
        span = at if isinstance(at, Span) else _where(self.file, at)
        return RefereeError([Problem(span, message, hint)], {self.file: self.text})

    def read(self, tree: Tree[Token]) -> Notation:
        for node in tree.children:
            assert isinstance(node, Tree)
            kind = node.data
            head = node.children[0] if node.children else None
            if kind == "header" and isinstance(head, Token):
                self.header(head)
            elif kind == "event":
                self.event(node)
            elif kind == "expect":
                self.expect(node)
            elif kind == "comment" and isinstance(head, Token):
                self.comment(head)
        if not self.data and not self.events:
            raise self.fail(Span(self.file, 1, 1), "the record is empty")
        self.data["events"] = self.events
        self.marks.setdefault(("events",), self.marks.get(("events", 0), Span(self.file, 1, 1)))
        for text in self.pending:
            self.notation.comments.append(("before", "end", 0, text))
        self.notation.doc.data = self.data
        return self.notation

    # ------------------------------------------------------------ comments
    def comment(self, tok: Token) -> None:
        text = _comment_text(str(tok))
        if self.anchor is not None and tok.line == self.last_line:
            self.notation.comments.append(("after", *self.anchor, text))
        else:
            self.pending.append(text)

    def attach(self, kind: str, key: int | str, line: int, item: str = "") -> None:
        """A header or event on ``line``: the comments above it are its own."""
        for text in self.pending:
            self.notation.comments.append(("before", kind, key, text))
        self.pending = []
        self.anchor = (kind, key)
        self.item = item or kind
        self.last_line = line

    # ------------------------------------------------------------ header lines
    def header(self, tok: Token) -> None:
        if tok.column != 1:
            raise self.fail(tok, "a header line starts at the beginning of its line")
        value, marks = self.yaml(str(tok), tok)
        if not isinstance(value, dict) or len(value) != 1:
            raise self.fail(tok, "a header line is `key: value`")
        ((key, v),) = value.items()
        key_line = tok.line or 0
        if key == "setup":
            self.setup(v, marks.get((key,), _span(self.file, tok)), tok)
            return
        if key == "events":
            raise self.fail(tok, "events are written one a line, not as a header")
        if key == "expect":
            raise self.fail(tok, "an expected outcome is written `expect key: value`")
        if self.events:
            raise self.fail(
                tok,
                f"the header '{key}' comes after the events",
                "header lines come before the first event",
            )
        if key in self.data:
            raise self.fail(tok, f"the header '{key}' is given twice")
        if isinstance(v, str) and "\n" in str(tok).rstrip():
            later = str(tok).split("\n")[1]
            start = Span(self.file, key_line + 1, len(later) - len(later.lstrip()) + 1)
            raise self.fail(
                start,
                f"this indented line goes on with the header '{key}' above it",
                "events start at the beginning of a line; only a mapping or a list"
                " (a position) goes on over indented lines",
            )
        self.data[key] = v
        for path, span in marks.items():
            self.marks[path] = span
        self.attach("header", key, key_line)

    def yaml(self, text: str, at: Token) -> tuple[Any, dict[Path_, Span]]:
        """YAML written in the notation, with its positions in the notation file."""
        line0, col0, start0 = (at.line or 1) - 1, (at.column or 1) - 1, at.start_pos or 0

        def moved(s: Span) -> Span:
            col = s.column + col0 if s.line == 1 else s.column
            return Span(self.file, s.line + line0, col, start=s.start + start0)

        try:
            doc = parse_document(text, self.file)
        except RefereeError as err:
            raise RefereeError(
                [Problem(moved(p.span), p.message, p.hint) for p in err.problems],
                {self.file: self.text},
            ) from None
        return doc.data, {path: moved(span) for path, span in doc.marks.items()}

    # ------------------------------------------------------------ set-up
    def setup(self, name: Any, at: Span, tok: Token) -> None:
        setups = self.w.setups()
        if not isinstance(name, str):
            raise self.fail(at, "a set-up is named by one word: setup: NAME")
        if name not in setups:
            close = difflib.get_close_matches(str(name), sorted(setups), n=1)
            hint = f"did you mean '{close[0]}'?" if close else ""
            if not close:
                hint = f"set-ups of this game: {', '.join(sorted(setups)) or 'none'}"
            raise self.fail(at, f"unknown set-up '{name}'", hint)
        first = len(self.events)
        for ev in self.expansion(name, self.data, at):
            i = len(self.events)
            self.events.append(ev)
            _mark_all(self.marks, ("events", i), ev, at)
        self.attach("event", first, tok.line or 0, "setup")

    def expansion(self, name: str, header: dict[str, Any], at: Span) -> list[dict[str, Any]]:
        where = header_where(header, self.marks, self.file)
        try:
            return expand(self.w, name, header, where, at)
        except RefereeError as err:
            err.sources.setdefault(self.file, self.text)
            raise

    # ------------------------------------------------------------ events
    def event(self, node: Tree[Token]) -> None:
        head, *rest = node.children
        assert isinstance(head, Token)
        i = len(self.events)
        path: Path_ = ("events", i)
        self.marks[path] = _span(self.file, head)
        args: dict[str, Any] = {}
        if self.w.players is not None:
            by = self.w.side(str(head))
            sides = ", ".join(f"{a} ({s})" for a, s in self.w.sides.items())
            if by is None:
                if str(head) in self.w.actions:
                    raise self.fail(
                        head,
                        f"who acts? the line names no side before '{head}'",
                        f"begin it with one of {sides}",
                    )
                close = difflib.get_close_matches(str(head), [*self.w.sides, *self.w.short], n=1)
                raise self.fail(
                    head,
                    f"unknown side '{head}': a line begins with who acts",
                    f"did you mean '{close[0]}'?" if close else f"sides: {sides}",
                )
            if not rest or not _is_word(rest[0]):
                where = rest[0] if rest else Span(self.file, head.line or 0, head.end_column or 0)
                raise self.fail(where, f"an action is due after the side {head}")
            act = _first(rest[0])
            rest = rest[1:]
            args["by"] = by
            by_span = _span(self.file, head)
        else:
            act = head
        action = str(act)
        if action not in self.w.actions:
            raise self.unknown(act, "action", list(self.w.actions))
        path_a = path + (action,)
        self.marks[path_a] = _span(self.file, act)
        if "by" in args:
            self.marks[path_a + ("by",)] = by_span
        args |= self.arguments(action, self.w.actions[action], rest, path_a, act, 0)
        self.events.append({action: args})
        self.attach("event", i, head.line or 0)

    def unknown(self, tok: Token, what: str, known: list[str]) -> RefereeError:
        close = difflib.get_close_matches(str(tok), known, n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"{what}s: {', '.join(sorted(known))}"
        return self.fail(tok, f"unknown {what} '{tok}'", hint)

    def arguments(  # noqa: C901
        self,
        owner: str,
        params: list[Slot],
        args: list[Tree[Token] | Token],
        path: Path_,
        at: Tree[Token] | Token,
        depth: int,
        outer: dict[str, Any] | None = None,
        outer_params: list[Slot] | None = None,
        outer_path: Path_ = (),
    ) -> dict[str, Any]:
        """Values in the order of ``params``, or by name; a list of structures may take the
        rest of the line. A name that is no field of a structure written so may name a
        parameter of the event (``outer``)."""
        if depth > MAX_NESTING:
            raise self.fail(at, f"structures nested deeper than {MAX_NESTING} levels")
        by_name = {p.name: p for p in params}
        shorts = {s: n for n, s in short_names(list(by_name)).items()}
        out: dict[str, Any] = {}
        given: set[str] = set()
        i = 0
        while i < len(args):
            a = args[i]
            if isinstance(a, Token):  # `|`
                raise self.fail(
                    a, "`|` parts the structures of a list written at the end of a line"
                )
            if a.data == "keyed":
                key_tok, value = a.children
                assert isinstance(key_tok, Token) and isinstance(value, Tree)
                key = shorts.get(str(key_tok), str(key_tok))
                if key not in by_name and outer is not None and outer_params is not None:
                    outer_by = {p.name: p for p in outer_params}
                    outer_shorts = {s: n for n, s in short_names(list(outer_by)).items()}
                    okey = outer_shorts.get(str(key_tok), str(key_tok))
                    if okey in outer_by:
                        if okey in outer:
                            raise self.fail(key_tok, f"'{okey}' is given twice")
                        p = outer_by[okey]
                        outer[okey] = self.value(value, p, outer_path + (okey,), depth)
                        i += 1
                        continue
                if key not in by_name:
                    raise self.unknown_argument(key_tok, owner, params, outer_params)
                if key in given:
                    raise self.fail(key_tok, f"'{key}' is given twice")
                given.add(key)
                out[key] = self.value(value, by_name[key], path + (key,), depth)
                i += 1
                continue
            free = [p for p in params if p.name not in given]
            if not free:
                names = ", ".join(p.name for p in params) or "nothing"
                raise self.fail(
                    a, f"one value too many: {owner} takes {names}", "or name one: name:value"
                )
            p = free[0]
            given.add(p.name)
            rec = self.w.record_of(p.type.arg) if p.type.arg is not None else None
            if rec is not None and depth == 0 and _bare_start(a):  # the rest of the line
                out[p.name] = self.bare(rec, args[i:], path + (p.name,), depth, params, out, path)
                break
            out[p.name] = self.value(a, p, path + (p.name,), depth)
            i += 1
        return out

    def unknown_argument(
        self, tok: Token, owner: str, params: list[Slot], outer: list[Slot] | None
    ) -> RefereeError:
        names = [p.name for p in params] + [p.name for p in outer or []]
        shorts = list(short_names([p.name for p in params]).values())
        close = difflib.get_close_matches(str(tok), names + shorts, n=1)
        listed = ", ".join(
            p.name + (f" ({s})" if (s := short_names([q.name for q in params]).get(p.name)) else "")
            for p in params
        )
        hint = f"did you mean '{close[0]}'? " if close else ""
        return self.fail(
            tok, f"unknown argument '{tok}' of {owner}", f"{hint}{owner} takes: {listed or 'none'}"
        )

    def bare(
        self,
        rec: ast.RecordDecl,
        args: list[Tree[Token] | Token],
        path: Path_,
        depth: int,
        outer_params: list[Slot],
        outer: dict[str, Any],
        outer_path: Path_,
    ) -> list[dict[str, Any]]:
        """Structures written to the end of the line, parted by `|`."""
        parts: list[list[Tree[Token] | Token]] = [[]]
        bars: list[Token] = []
        for a in args:
            if isinstance(a, Token):
                bars.append(a)
                parts.append([])
            else:
                parts[-1].append(a)
        out = []
        for k, part in enumerate(parts):
            if not part:
                raise self.fail(bars[k - 1] if k else bars[0], f"an empty {rec.name} beside `|`")
            self.marks[path + (k,)] = _where(self.file, part[0])
            out.append(
                self.arguments(
                    rec.name,
                    slots(rec.fields),
                    part,
                    path + (k,),
                    part[0],
                    depth + 1,
                    outer,
                    outer_params,
                    outer_path,
                )
            )
        self.marks[path] = self.marks[path + (0,)]
        return out

    def value(self, node: Tree[Token], p: Slot, path: Path_, depth: int) -> Any:
        """A value read as its parameter's type says: a list, a number, a structure..."""
        self.marks[path] = _where(self.file, node)
        elements = node.children
        t = p.type
        if t.name in ("list", "set"):
            assert t.arg is not None
            if len(elements) == 1 and _bare_word(elements[0]) in ("-", "~"):
                return [] if _bare_word(elements[0]) == "-" else None
            out: list[Any] = []
            for e in elements:
                assert isinstance(e, Tree)
                if e.data == "repeat":
                    item_tok, n_tok = e.children
                    assert isinstance(item_tok, Token) and isinstance(n_tok, Token)
                    if not _INT.fullmatch(str(n_tok)) or not 1 <= len(str(n_tok)) <= 4:
                        raise self.fail(n_tok, "a repeat is item*N, N a number (up to 9999)")
                    item = self.scalar(item_tok, t.arg)
                    for _ in range(int(str(n_tok))):
                        self.marks[path + (len(out),)] = _span(self.file, item_tok)
                        out.append(item)
                    continue
                self.marks[path + (len(out),)] = _where(self.file, e)
                out.append(self.element(e, t.arg, path + (len(out),), depth))
            return out
        if len(elements) > 1:
            comma = elements[1]
            raise self.fail(comma, f"'{p.name}' is one {t}, not a list", "a list is written a,b,c")
        e = elements[0]
        assert isinstance(e, Tree)
        if e.data == "repeat":
            raise self.fail(e, f"'{p.name}' is one {t}: item*N makes a list")
        return self.element(e, t, path, depth)

    def element(self, e: Tree[Token], t: ast.TypeRef, path: Path_, depth: int) -> Any:
        at = self.marks[path]
        if e.data == "structure":
            rec = self.w.record_of(t)
            if rec is None:
                raise self.fail(at, f"(...) writes a structure; here one {t} is due")
            fields = slots(rec.fields)
            args = list(e.children)
            if not args:
                return {}
            return self.arguments(rec.name, fields, args, path, e, depth + 1)
        tok = e.children[0]
        assert isinstance(tok, Token)
        return self.scalar(tok, t)

    def scalar(self, tok: Token, t: ast.TypeRef) -> Any:
        text = str(tok)
        if tok.type == "STRING":
            return json.loads(text)
        if text == "~":
            return None
        if t.name == "int" and _INT.fullmatch(text):
            if len(text.lstrip("-")) > MAX_DIGITS:
                raise self.fail(tok, f"a number of more than {MAX_DIGITS} digits")
            return int(text)
        if t.name == "bool" and text in ("true", "false"):
            return text == "true"
        if text == "-":
            raise self.fail(tok, f"`-` is an empty list; here one {t} is due")
        return text

    # ------------------------------------------------------------ expected outcomes
    def expect(self, node: Tree[Token]) -> None:
        kw = node.children[0]
        assert isinstance(kw, Token)
        if self.item != "event":
            what = "a set-up line" if self.item == "setup" else "no event"
            raise self.fail(kw, f"an expectation is about the event above it; here {what} is")
        if len(node.children) < 2:
            raise self.fail(kw, "expect what? write: expect key: value")
        rest = node.children[1]
        assert isinstance(rest, Token)
        value, marks = self.yaml(str(rest), rest)
        if not isinstance(value, dict) or not value:
            raise self.fail(rest, "an expectation is `key: value`")
        i = len(self.events) - 1
        expected = self.events[i].setdefault("expect", {})
        base: Path_ = ("events", i, "expect")
        self.marks.setdefault(base, _span(self.file, kw))
        for key in value:
            if key in expected:
                at = marks.get((key,), _span(self.file, rest))
                raise self.fail(at, f"'{key}' is expected twice after this event")
            expected[key] = value[key]
        for path, span in marks.items():
            if path:
                self.marks[base + path] = span
        self.last_line = kw.line or 0


def _is_word(node: Tree[Token] | Token) -> bool:
    return (
        isinstance(node, Tree)
        and node.data == "value"
        and len(node.children) == 1
        and isinstance(node.children[0], Tree)
        and node.children[0].data == "word"
        and isinstance(node.children[0].children[0], Token)
        and node.children[0].children[0].type == "ITEM"
    )


def _bare_start(node: Tree[Token] | Token) -> bool:
    """Whether a value begins structures written to the end of the line: not `(...)`,
    nor `-` (none) or `~` (nothing)."""
    if not isinstance(node, Tree) or node.data != "value":
        return False
    if any(isinstance(e, Tree) and e.data == "structure" for e in node.children):
        return False
    return not (len(node.children) == 1 and _bare_word(node.children[0]) in ("-", "~"))


def _bare_word(e: Tree[Token] | Token) -> str | None:
    if isinstance(e, Tree) and e.data == "word":
        tok = e.children[0]
        if isinstance(tok, Token) and tok.type == "ITEM":
            return str(tok)
    return None


def _mark_all(marks: dict[Path_, Span], path: Path_, value: Any, at: Span) -> None:
    marks[path] = at
    if isinstance(value, dict):
        for k, v in value.items():
            _mark_all(marks, path + (k,), v, at)
    elif isinstance(value, list):
        for k, v in enumerate(value):
            _mark_all(marks, path + (k,), v, at)


# ---------------------------------------------------------------- set-ups


def expand(
    words: Words, name: str, header: dict[str, Any], where: Any, at: Span
) -> list[dict[str, Any]]:
    """The events of the spec's set-up NAME, under the printing and overlays the header
    names: each record of the definition an event, its action, who acts, its arguments."""
    spec = words.spec
    choice = Choice(
        str(header.get("printing") or ""),
        [str(o) for o in header.get("overlays") or []],
        [str(o) for o in header.get("no_overlays") or []],
    )
    _, overlays = in_force(spec.sym, choice, where)
    interp = spec.lease(overlays)
    try:
        records = raw(interp.call(name + EXPANSION_SUFFIX))
    except Exception as err:  # noqa: BLE001 - the spec's own fault, said where it is used
        raise RefereeError(
            [Problem(at, f"the spec's set-up '{name}' cannot be worked out: {err!r}")]
        ) from None
    finally:
        spec.give_back(overlays, interp)
    out = []
    for r in records:
        if not isinstance(r, dict) or not isinstance(r.get("action"), str):
            raise RefereeError(
                [Problem(at, f"the spec's set-up '{name}' gives {r!r}, not an event")]
            )
        args = dict(r)
        out.append({args.pop("action"): args})
    return out


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


# ---------------------------------------------------------------- writing


class _Unwritable(Exception):
    """A value the notation cannot say as it is: where, and why."""

    def __init__(self, path: Path_, message: str) -> None:
        self.path = path
        self.message = message


class _Dumper(yaml.SafeDumper):
    """Lists under a key indented, so that a header's lines below it are indented."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


def _styled(node: yaml.Node, flow: bool | None) -> None:
    if isinstance(node, yaml.ScalarNode):
        if any(b in node.value for b in _BREAKS):
            node.style = '"'  # on one line, its breaks escaped
        return
    if flow and isinstance(node, yaml.CollectionNode):
        node.flow_style = True
    children: list[yaml.Node] = []
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            children += [k, v]
    elif isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    for child in children:
        _styled(child, flow)


class _Written(str):
    """A number as the file writes it (``8.10``, a clause YAML takes for 8.1): written so."""


def _represent_written(dumper: yaml.SafeDumper, value: _Written) -> yaml.Node:
    return dumper.represent_scalar("tag:yaml.org,2002:float", str(value))


_Dumper.add_representer(_Written, _represent_written)
_PLAIN = re.compile(r"[^\s,\]}#]+")


def as_written(doc: Document, path: Path_, value: Any) -> Any:
    """``value`` with each of its fractions as the file writes it: the referee reads a
    clause number YAML took for a number from the text (``8.10``, not 8.1)."""
    if isinstance(value, float):
        at = doc.span(path)
        lines = doc.text.splitlines()
        line = lines[at.line - 1] if 1 <= at.line <= len(lines) else ""
        m = _PLAIN.match(line[at.column - 1 :])
        return _Written(m.group(0)) if m else value
    if isinstance(value, dict):
        return {k: as_written(doc, path + (k,), v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_written(doc, path + (k,), v) for k, v in enumerate(value)]
    return value


def yaml_text(key: str, value: Any, one_line: bool) -> str:
    """``key: value`` in YAML: on one line, or (a header) with a mapping's or a list's
    lines indented below the key."""
    stream = io.StringIO()
    dumper = _Dumper(
        stream, default_flow_style=None, width=10**9, sort_keys=False, allow_unicode=True
    )
    dumper.open()
    node = dumper.represent_data({key: value})
    assert isinstance(node, yaml.MappingNode)
    node.flow_style = False
    for k, v in node.value:
        _styled(k, True)
        _styled(v, True if one_line else None)
    dumper.serialize(node)
    dumper.close()
    dumper.dispose()
    return stream.getvalue().rstrip("\n")


def yaml_line(key: str, value: Any) -> str:
    return yaml_text(key, value, True)


def yaml_header(key: str, value: Any) -> str:
    return yaml_text(key, value, False)


class _Writer:
    def __init__(self, words: Words) -> None:
        self.w = words

    def event(self, action: str, args: Any, path: Path_) -> str:
        if action not in self.w.actions:
            raise _Unwritable(
                path[:2], f"unknown action '{action}': the notation writes the spec's actions only"
            )
        if args is not None and not isinstance(args, dict):
            raise _Unwritable(path + (action,), "an event's arguments are a mapping")
        rest = dict(args or {})
        words = []
        if self.w.players is not None:
            if "by" not in rest:
                raise _Unwritable(path + (action,), "'by' is missing: a line begins with who acts")
            by = rest.pop("by")
            if not isinstance(by, str) or by not in self.w.short:
                raise _Unwritable(path + (action, "by"), f"unknown side {by!r}")
            words.append(self.w.short[by])
        words.append(action)
        words += self.arguments(action, self.w.actions[action], rest, path + (action,), True)
        return " ".join(words)

    def arguments(
        self, owner: str, params: list[Slot], args: dict[str, Any], path: Path_, top: bool
    ) -> list[str]:
        names = {p.name for p in params}
        for key in args:
            if key not in names:
                raise _Unwritable(path + (key,), f"unknown argument '{key}' of {owner}")
        shorts = short_names([p.name for p in params])
        # Required parameters in order, then (of an action) the first optional one unless
        # a number or true/false: what the value is for is plain from the value itself.
        positional: list[Slot] = []
        for p in params:
            if p.name not in args:
                break
            if p.optional:
                if (
                    top
                    and not any(q.optional for q in positional)
                    and p.type.name
                    not in (
                        "int",
                        "bool",
                    )
                ):
                    positional.append(p)
                break
            positional.append(p)
        named = [p for p in params if p.name in args and p not in positional]
        bare: Slot | None = None
        if top:
            for k, p in enumerate(positional):
                if self.bare_ok(p, args[p.name]):
                    bare = p
                    named = positional[k + 1 :] + named
                    positional = positional[:k]
                    break
        out = [self.value(p.type, args[p.name], path + (p.name,)) for p in positional]
        out += [
            f"{shorts.get(p.name, p.name)}:{self.value(p.type, args[p.name], path + (p.name,))}"
            for p in named
        ]
        if bare is not None:
            rec = self.w.record_of(bare.type.arg) if bare.type.arg else None
            assert rec is not None
            parts = [
                " ".join(
                    self.arguments(rec.name, slots(rec.fields), el, path + (bare.name, k), False)
                )
                for k, el in enumerate(args[bare.name])
            ]
            out.append(" | ".join(parts))
        return out

    def bare_ok(self, p: Slot, value: Any) -> bool:
        """A list of structures, none of them empty: written to the end of the line."""
        rec = self.w.record_of(p.type.arg) if p.type.arg is not None else None
        return (
            rec is not None
            and isinstance(value, list)
            and bool(value)
            and all(isinstance(v, dict) and v for v in value)
        )

    def value(self, t: ast.TypeRef, v: Any, path: Path_) -> str:
        if v is None:
            return "~"
        if t.name in ("list", "set"):
            assert t.arg is not None
            if not isinstance(v, list):
                raise _Unwritable(path, f"expected a list ({t}), found {_kind(v)}")
            if not v:
                return "-"
            items: list[str] = []
            k = 0
            while k < len(v):
                n = 1
                while k + n < len(v) and v[k + n] == v[k]:
                    n += 1
                word = self.item(t.arg, v[k], path + (k,))
                if n >= REPEAT_FROM and _BARE.fullmatch(word) and word not in ("-", "~"):
                    items.append(f"{word}*{n}")
                else:
                    items += [self.item(t.arg, v[j], path + (j,)) for j in range(k, k + n)]
                k += n
            return ",".join(items)
        return self.item(t, v, path)

    def item(self, t: ast.TypeRef, v: Any, path: Path_) -> str:
        if v is None:
            return "~"
        rec = self.w.record_of(t)
        if rec is not None:
            if not isinstance(v, dict):
                raise _Unwritable(path, f"expected a mapping ({rec.name}), found {_kind(v)}")
            inner = self.arguments(rec.name, slots(rec.fields), v, path, False)
            return "(" + " ".join(inner) + ")"
        if t.name in ("list", "set"):
            raise _Unwritable(path, "a list inside a list cannot be written in the notation")
        if isinstance(v, bool):
            if t.name != "bool":
                raise _Unwritable(path, f"expected {t}, found {_kind(v)}")
            return "true" if v else "false"
        if isinstance(v, int):
            if t.name != "int":
                raise _Unwritable(path, f"expected {t}, found {_kind(v)}")
            return str(v)
        if not isinstance(v, str):
            raise _Unwritable(path, f"expected {t}, found {_kind(v)}")
        retyped = (t.name == "int" and _INT.fullmatch(v)) or (
            t.name == "bool" and v in ("true", "false")
        )
        if _BARE.fullmatch(v) and v not in ("-", "~") and not retyped:
            return v
        return json.dumps(v, ensure_ascii=False)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    return {dict: "a mapping", list: "a list", str: "text", int: "a number"}.get(
        type(value), type(value).__name__
    ) + (f" {value!r}" if isinstance(value, (str, int)) else "")


def _yaml_comments(doc: Document) -> list[tuple[str, str, int | str, str]]:
    """The YAML record's comments on lines of their own, each before the header key or
    event that follows it (a comment inside a value goes before the next one)."""
    data = doc.data
    anchors: list[tuple[int, str, int | str]] = []
    for key in data:
        if key != "events":
            anchors.append((doc.span((key,)).line, "header", key))
    for i in range(len(data.get("events") or [])):
        anchors.append((doc.span(("events", i)).line, "event", i))
    anchors.sort(key=lambda a: a[0])
    out: list[tuple[str, str, int | str, str]] = []
    k = 0
    for n, line in enumerate(doc.text.splitlines(), 1):
        stripped = line.strip()
        if not stripped.startswith("#"):
            continue
        while k < len(anchors) and anchors[k][0] < n:
            k += 1
        if k < len(anchors):
            out.append(("before", anchors[k][1], anchors[k][2], _comment_text(stripped)))
        else:
            out.append(("before", "end", 0, _comment_text(stripped)))
    return out


def _comment_text(comment: str) -> str:
    """A comment's text: what follows `#` and one space, kept as written."""
    text = comment.strip()[1:].rstrip()
    return text[1:] if text.startswith(" ") else text


def _comment_lines(
    comments: list[tuple[str, str, int | str, str]], kind: str, key: int | str, indent: str = ""
) -> list[str]:
    return [
        f"{indent}# {text}".rstrip()
        for place, k, x, text in comments
        if place == "before" and k == kind and x == key
    ]


def _after(comments: list[tuple[str, str, int | str, str]], kind: str, key: int | str) -> str:
    texts = [t for place, k, x, t in comments if place == "after" and k == kind and x == key]
    return "".join(f"  # {t}" for t in texts)


def compact_setup(words: Words, data: dict[str, Any], where: Any) -> tuple[str, int, int] | None:
    """A set-up the record's events spell out in full, one after another, as the spec's
    definition gives them: its name, where it starts and how many events it takes."""
    events = data.get("events") or []
    for name in sorted(words.setups()):
        try:
            expansion = expand(words, name, data, where, Span("", 0, 0))
        except RefereeError:
            continue
        n = len(expansion)
        if not n:
            continue
        for j in range(len(events) - n + 1):
            if events[j : j + n] == expansion:
                return name, j, n
    return None


def _header_lines(doc: Document, comments: list[tuple[str, str, int | str, str]]) -> list[str]:
    """A record's header, one `key: value` line each as written, with its comments; both
    forms write it alike."""
    lines: list[str] = []
    for key, value in doc.data.items():
        if key == "events":
            continue
        lines += _comment_lines(comments, "header", key)
        value = as_written(doc, (key,), value)
        lines.append(yaml_header(key, value) + _after(comments, "header", key))
    return lines


def to_notation(
    spec: Spec, doc: Document, comments: list[tuple[str, str, int | str, str]] | None = None
) -> str:
    """A record (already read, its shape checked) in the notation; refused, with the place,
    where the notation cannot say it as it is."""
    words = Words.of(spec)
    data = doc.data
    comments = _yaml_comments(doc) if comments is None else comments
    writer = _Writer(words)
    lines: list[str] = _header_lines(doc, comments)
    setup = compact_setup(words, data, header_where(data, doc.marks, doc.file))
    events = data["events"]
    i = 0
    try:
        while i < len(events):
            lines += _comment_lines(comments, "event", i)
            if setup is not None and i == setup[1]:
                for j in range(i + 1, i + setup[2]):
                    lines += _comment_lines(comments, "event", j)
                lines.append(f"setup: {setup[0]}" + _after(comments, "event", i))
                i += setup[2]
                continue
            ev = events[i]
            path: Path_ = ("events", i)
            if not isinstance(ev, dict):
                raise _Unwritable(path, "an event is a mapping")
            actions = [k for k in ev if k != "expect"]
            if len(actions) != 1:
                raise _Unwritable(path, "an event names one action")
            lines.append(
                writer.event(actions[0], ev[actions[0]], path) + _after(comments, "event", i)
            )
            for key, value in (ev.get("expect") or {}).items():
                value = as_written(doc, path + ("expect", key), value)
                lines.append(f"  expect {yaml_line(str(key), value)}")
            i += 1
    except _Unwritable as err:
        raise RefereeError(
            [Problem(doc.span(err.path), f"cannot be written in the notation: {err.message}")],
            {doc.file: doc.text},
        ) from None
    lines += _comment_lines(comments, "end", 0)
    text = "\n".join(lines) + "\n"
    _same(doc, parse_notation(spec, text, doc.file + SUFFIX).doc.data, "notation")
    return text


def to_yaml(spec: Spec, notation: Notation) -> str:
    """A notation record as YAML: the header as written, each event on a line of its own."""
    doc = notation.doc
    data = doc.data
    comments = notation.comments
    lines: list[str] = _header_lines(doc, comments)
    lines.append("events:" if data["events"] else "events: []")
    for i, ev in enumerate(data["events"]):
        lines += _comment_lines(comments, "event", i, "  ")
        ((action, args),) = ((k, v) for k, v in ev.items() if k != "expect")
        lines.append(f"  - {yaml_line(action, args)}" + _after(comments, "event", i))
        if "expect" in ev:
            lines.append("    expect:")
            lines += [
                f"      {yaml_line(str(k), as_written(doc, ('events', i, 'expect', k), v))}"
                for k, v in ev["expect"].items()
            ]
    lines += _comment_lines(comments, "end", 0)
    text = "\n".join(lines) + "\n"
    _same(doc, parse_document(text, doc.file).data, "YAML")
    return text


def _same(doc: Document, written: Any, form: str) -> None:
    """What was written reads back as what was given, or the place where it does not."""
    data = doc.data
    if written == data:
        return
    path: Path_ = ()
    for key in [*data, *written]:
        if key != "events" and data.get(key) != written.get(key):
            path = (key,)
            break
    else:
        ours, theirs = data.get("events") or [], written.get("events") or []
        k = next(
            (k for k, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), len(ours)
        )
        path = ("events", min(k, max(len(ours) - 1, 0)))
    raise RefereeError(
        [Problem(doc.span(path), f"cannot be written in the {form} without changing it here")],
        {doc.file: doc.text},
    )


def convert(spec: Spec, path: str | Path, to: str | None = None) -> str:
    """A record file in the other form (or the one ``to`` names: yaml or notation)."""
    if is_notation(path):
        notation = read_notation(spec, path)
        if to == "notation":
            return to_notation(spec, notation.doc, notation.comments)
        return to_yaml(spec, notation)
    doc = load_document(path, MAX_NOTATION_BYTES, "record")
    if doc.data is None:
        raise RefereeError([Problem(doc.span(()), "the record is empty")], {doc.file: doc.text})
    validate(doc, spec.game_dir.parent / "schema" / RECORD_SCHEMA)
    if to == "yaml":
        return to_yaml(spec, Notation(doc, _yaml_comments(doc)))
    return to_notation(spec, doc)


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
