"""The table notation read: a record one event a line, into the data and positions a YAML
record gives (referee/records/notation.py has the words)."""

from __future__ import annotations

import difflib
import json
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from referee.compile.spec import Spec
from referee.data.limits import MAX_DIGITS, STDIN_NAME
from referee.data.source import MAX_NODES, Document, Path_, parse_document
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.parse.syntax_errors import error_place
from referee.records.notation import (
    _INT,
    EXPANSION_SUFFIX,
    MAX_NESTING,
    NOTATION_GRAMMAR,
    Notation,
    Slot,
    Words,
    _comment_text,
    header_where,
    is_notation,
    looks_like_notation,
    short_names,
    slots,
)
from referee.records.record import (
    RecordText,
    Source,
    is_stdin,
    once,
    read_stdin_once,
    record_text,
    stdin_text,
)
from referee.records.values import raw
from referee.records.views import counted
from referee.resolve.overlays import Choice, in_force

MAX_LINE_TOKENS = 250_000  # words and signs on one line: 100,000 values and their commas fit


class _Lines(Transformer[Token, None]):
    """Each line handed to the reader of this thread as soon as it is parsed, and dropped:
    the notation is read as it is parsed, never held whole as a tree."""

    def __init__(self) -> None:
        super().__init__()
        self.current = threading.local()

    def _give(self, kind: str, children: list[Any]) -> None:
        self.current.reader.line(Tree(kind, children))

    def header(self, children: list[Any]) -> None:
        self._give("header", children)

    def event(self, children: list[Any]) -> None:
        self._give("event", children)

    def expect(self, children: list[Any]) -> None:
        self._give("expect", children)

    def comment(self, children: list[Any]) -> None:
        self._give("comment", children)

    def start(self, children: list[Any]) -> None:
        return None


_LINES = _Lines()


@lru_cache(maxsize=1)
def lark_notation() -> Lark:
    """The notation's parser: each line given to the reader of this thread as it is read."""
    return Lark(
        NOTATION_GRAMMAR.read_text(encoding="utf-8"),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=False,
        cache=False,
        transformer=_LINES,
    )


def read_notation(spec: Spec, path: str | Path) -> Notation:
    return parse_notation(spec, record_text(path), str(path))


def notation_document(spec: Spec, path: Source) -> Document:
    """The record in a notation file, text or standard input, as `referee check` reads a
    YAML record (a file read once in ``read_once``, for each spec it is read by)."""
    if isinstance(path, RecordText):
        return parse_notation(spec, path.checked(), path.name).doc
    if is_stdin(path):
        return parse_notation(spec, stdin_text(), STDIN_NAME).doc
    return once(("notation", str(path), id(spec)), lambda: read_notation(spec, path).doc)


def is_notation_source(path: Source) -> bool:
    """Whether a record is in the table notation: a file by its suffix (.rec), a text or
    standard input by its look (docs/notation.md)."""
    if isinstance(path, RecordText):
        return looks_like_notation(path.text)
    if is_stdin(path):
        kept = read_stdin_once()
        return isinstance(kept, str) and looks_like_notation(kept)
    return is_notation(path)


def parse_notation(spec: Spec, text: str, file: str) -> Notation:
    """The record a notation text writes. Read line by line as it is parsed: no more than
    MAX_LINE_TOKENS words and signs on a line, and MAX_NODES values, events and comments
    in all (``item*N`` counting N), so that neither time nor memory grows past the limits."""
    text = text.replace("\r\n", "\n")
    nul = text.find("\x00")
    if nul >= 0:  # a NUL byte is no text: an executable, an image, a compressed file
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1) + 1
        where = Span(file, line, column)
        raise RefereeError([Problem(where, "binary data, not text: a record is text")])
    source = text if text.endswith("\n") else text + "\n"
    reader = _Reader(Words.of(spec), file, text)
    saved = getattr(_LINES.current, "reader", None)
    _LINES.current.reader = reader
    try:
        parser = lark_notation().parse_interactive(source)
        on_line = 0
        for tok in parser.iter_parse():
            on_line = 0 if tok.type == "_NL" else on_line + 1
            if on_line > MAX_LINE_TOKENS:
                raise reader.fail(tok, f"more than {MAX_LINE_TOKENS:,} values and signs on a line")
        parser.feed_eof()  # type: ignore[no-untyped-call]
    except UnexpectedInput as err:
        raise RefereeError([_syntax_problem(err, file, source)], {file: text}) from None
    finally:
        _LINES.current.reader = saved
    return reader.finish()


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
        self.values = 0  # values, events and comments read so far, item*N counting N

    def fail(self, at: Tree[Token] | Token | Span, message: str, hint: str = "") -> RefereeError:
        span = at if isinstance(at, Span) else _where(self.file, at)
        return RefereeError([Problem(span, message, hint)], {self.file: self.text})

    def line(self, node: Tree[Token]) -> None:
        """One line read (a header with the lines that go on with it)."""
        kind = node.data
        head = node.children[0] if node.children else None
        if isinstance(head, Token):
            self.count(1, head)
        if kind == "header" and isinstance(head, Token):
            self.header(head)
        elif kind == "event":
            self.event(node)
        elif kind == "expect":
            self.expect(node)
        elif kind == "comment" and isinstance(head, Token):
            self.comment(head)

    def count(self, n: int, at: Tree[Token] | Token | Span) -> None:
        """``n`` more values (or lines): past MAX_NODES in all, the record is refused."""
        self.values += n
        if self.values > MAX_NODES:
            raise self.fail(
                at,
                f"the record holds more than {MAX_NODES:,} values, events and comments",
                "item*N counts as N values",
            )

    def finish(self) -> Notation:
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
        self.count(len(doc.marks), at)
        return doc.data, {path: moved(span) for path, span in doc.marks.items()}

    # ------------------------------------------------------------ set-up
    def setup(self, name: Any, at: Span, tok: Token) -> None:
        self.check_header_types(tok)
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

    def check_header_types(self, tok: Token) -> None:
        """The headers a set-up is worked out under, of the types the record's schema says
        (the schema itself is checked once the whole record is read)."""
        for key in ("printing", "title", "game"):
            if key in self.data and not isinstance(self.data[key], str):
                raise self.fail(self.marks.get((key,), tok), f"the header '{key}' is one name")
        for key in ("overlays", "no_overlays"):
            v = self.data.get(key, [])
            if not isinstance(v, list) or not all(isinstance(o, str) for o in v):
                raise self.fail(
                    self.marks.get((key,), tok),
                    f"the header '{key}' is a list of overlay names: [{key[-8:-1]}-a, ...]",
                )

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
                    self.count(int(str(n_tok)), n_tok)
                    at = _span(self.file, item_tok)
                    for _ in range(int(str(n_tok))):
                        self.marks[path + (len(out),)] = at
                        out.append(item)
                    continue
                self.count(1, e)
                self.marks[path + (len(out),)] = _where(self.file, e)
                out.append(self.element(e, t.arg, path + (len(out),), depth))
            if self.data.get("view") and counted(self.w.spec.sym, t, out):
                return len(out)  # a view's hidden cards: `?*5` is `cards: 5` (views.py)
            return out
        if len(elements) > 1:
            comma = elements[1]
            raise self.fail(comma, f"'{p.name}' is one {t}, not a list", "a list is written a,b,c")
        e = elements[0]
        assert isinstance(e, Tree)
        if e.data == "repeat":
            raise self.fail(e, f"'{p.name}' is one {t}: item*N makes a list")
        self.count(1, e)
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
            return self.quoted(tok)
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

    def quoted(self, tok: Token) -> str:
        """A quoted value: its escapes are JSON's, and no other; no lone surrogate."""
        try:
            value = json.loads(str(tok))
        except json.JSONDecodeError as err:
            at = Span(self.file, tok.line or 0, (tok.column or 0) + err.pos)
            raise self.fail(
                at,
                "a quoted value with an escape or character JSON does not take: "
                + err.msg.removesuffix(" at"),
                'the escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX (four hex digits)',
            ) from None
        if not isinstance(value, str) or any("\ud800" <= c <= "\udfff" for c in value):
            raise self.fail(tok, "a quoted value holds a lone surrogate (\\ud800 to \\udfff)")
        return value

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
