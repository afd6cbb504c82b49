"""Text to tree: a .rules file or one expression parsed (grammar.py's parser) and Lark's tree
turned into ast nodes, every node with its file, line and column.

Syntax errors become located problems (syntax_errors.py); common mistakes get a sentence of
their own instead of a list of expected tokens.
"""

from __future__ import annotations

import re
from typing import Any

from lark import Token, v_args
from lark.exceptions import UnexpectedInput
from lark.tree import Meta

from referee.data.limits import MAX_DIGITS
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.parse.grammar import lark_parser
from referee.parse.hidden import HiddenRules
from referee.parse.syntax_errors import _readable, _syntax_problem


def _span(file: str, meta: Meta | Token) -> Span:
    if isinstance(meta, Token):
        return Span(
            file,
            meta.line or 0,
            meta.column or 0,
            meta.end_line or 0,
            meta.end_column or 0,
            meta.start_pos or 0,
            meta.end_pos or 0,
        )
    if getattr(meta, "empty", True):
        return Span(file, 0, 0)
    return Span(
        file, meta.line, meta.column, meta.end_line, meta.end_column, meta.start_pos, meta.end_pos
    )


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s[1:-1])


@v_args(meta=True, inline=True)
class _ToAst(HiddenRules):
    """Lark tree to ast nodes. One method a grammar rule; each keeps its span."""

    def __init__(self, file: str, source: str = "") -> None:
        super().__init__()
        self.file = file
        self.source = source

    def s(self, meta: Meta | Token) -> Span:
        return _span(self.file, meta)

    # -- expressions
    def int_lit(self, meta: Meta, tok: Token) -> ast.Expr:
        return ast.IntLit(int(tok), span=self.s(meta))

    def str_lit(self, meta: Meta, tok: Token) -> ast.Expr:
        text = _unquote(tok)
        if "{" in text:
            return ast.Text(_interpolate(text, self.s(meta)), span=self.s(meta))
        return ast.StrLit(text, span=self.s(meta))

    def true_lit(self, meta: Meta) -> ast.Expr:
        return ast.BoolLit(True, span=self.s(meta))

    def false_lit(self, meta: Meta) -> ast.Expr:
        return ast.BoolLit(False, span=self.s(meta))

    def nothing_lit(self, meta: Meta) -> ast.Expr:
        return ast.Nothing(span=self.s(meta))

    def data_expr(self, meta: Meta, name: Token) -> ast.Expr:
        return ast.Data(str(name), span=self.s(meta))

    def name_ref(self, meta: Meta, tok: Token) -> ast.Expr:
        return ast.Name(str(tok), span=self.s(meta))

    def field_op(self, meta: Meta, obj: ast.Expr, name: Token) -> ast.Expr:
        return ast.Field(obj, str(name), span=self.s(meta))

    def call_op(self, meta: Meta, func: ast.Expr, args: list[ast.Expr] | None) -> ast.Expr:
        return ast.Call(func, args or [], span=self.s(meta))

    def index_op(self, meta: Meta, obj: ast.Expr, index: ast.Expr) -> ast.Expr:
        return ast.Index(obj, index, span=self.s(meta))

    def args(self, meta: Meta, *items: ast.Expr) -> list[ast.Expr]:
        return list(items)

    def field_value(self, meta: Meta, name: Token, value: ast.Expr) -> tuple[str, ast.Expr]:
        return (str(name), value)

    def record_lit(self, meta: Meta, *fields: tuple[str, ast.Expr] | None) -> ast.Expr:
        return ast.RecordLit([f for f in fields if f is not None], span=self.s(meta))

    def list_lit(self, meta: Meta, items: list[ast.Expr] | None) -> ast.Expr:
        return ast.ListLit(items or [], span=self.s(meta))

    def bin_op(self, meta: Meta, left: ast.Expr, op: Token, right: ast.Expr) -> ast.Expr:
        return ast.BinOp(str(op), left, right, span=self.s(meta))

    def cmp_op(self, meta: Meta, left: ast.Expr, op: Token, right: ast.Expr) -> ast.Expr:
        return ast.BinOp(str(op), left, right, span=self.s(meta))

    def in_op(self, meta: Meta, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        return ast.BinOp("in", left, right, span=self.s(meta))

    def and_op(self, meta: Meta, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        return ast.BinOp("and", left, right, span=self.s(meta))

    def implies_op(self, meta: Meta, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        return ast.BinOp("implies", left, right, span=self.s(meta))

    def or_op(self, meta: Meta, left: ast.Expr, right: ast.Expr) -> ast.Expr:
        return ast.BinOp("or", left, right, span=self.s(meta))

    def not_op(self, meta: Meta, operand: ast.Expr) -> ast.Expr:
        return ast.Not(operand, span=self.s(meta))

    def neg_op(self, meta: Meta, operand: ast.Expr) -> ast.Expr:
        return ast.Neg(operand, span=self.s(meta))

    def range_op(self, meta: Meta, lo: ast.Expr, hi: ast.Expr) -> ast.Expr:
        return ast.Range(lo, hi, span=self.s(meta))

    def if_expr(self, meta: Meta, c: ast.Expr, a: ast.Expr, b: ast.Expr) -> ast.Expr:
        return ast.If(c, a, b, span=self.s(meta))

    def let_expr(self, meta: Meta, name: Token, value: ast.Expr, body: ast.Expr) -> ast.Expr:
        return ast.Let(str(name), value, body, span=self.s(meta))

    def binder(
        self, meta: Meta, name: Token, typ: ast.TypeRef | None, domain: ast.Expr
    ) -> ast.Binder:
        return ast.Binder(str(name), typ, domain, self.s(meta))

    def forall_expr(self, meta: Meta, *parts: Any) -> ast.Expr:
        return ast.Quant("forall", list(parts[:-1]), parts[-1], span=self.s(meta))

    def exists_expr(self, meta: Meta, *parts: Any) -> ast.Expr:
        return ast.Quant("exists", list(parts[:-1]), parts[-1], span=self.s(meta))

    def count_expr(
        self, meta: Meta, var: Token, domain: ast.Expr, where: ast.Expr | None
    ) -> ast.Expr:
        return ast.Count(str(var), domain, where, span=self.s(meta))

    def comp_expr(
        self, meta: Meta, value: ast.Expr, var: Token, domain: ast.Expr, where: ast.Expr | None
    ) -> ast.Expr:
        return ast.Comp(value, str(var), domain, where, span=self.s(meta))

    def sum_expr(
        self, meta: Meta, value: ast.Expr, var: Token, domain: ast.Expr, where: ast.Expr | None
    ) -> ast.Expr:
        return ast.Sum(value, str(var), domain, where, span=self.s(meta))

    # -- types
    def simple_type(self, meta: Meta, name: Token) -> ast.TypeRef:
        return ast.TypeRef(str(name), None, self.s(meta))

    def list_type(self, meta: Meta, arg: ast.TypeRef) -> ast.TypeRef:
        return ast.TypeRef("list", arg, self.s(meta))

    def set_type(self, meta: Meta, arg: ast.TypeRef) -> ast.TypeRef:
        return ast.TypeRef("set", arg, self.s(meta))

    # -- statements
    def set_stmt(self, meta: Meta, target: ast.Expr, op: Token, value: ast.Expr) -> ast.Stmt:
        return ast.SetStmt(target, str(op), value, span=self.s(meta))

    def do_stmt(self, meta: Meta, name: Token, args: list[ast.Expr] | None) -> ast.Stmt:
        return ast.DoStmt(str(name), args or [], span=self.s(meta))

    def block(self, meta: Meta, *stmts: ast.Stmt) -> list[ast.Stmt]:
        return list(stmts)

    def if_stmt(
        self, meta: Meta, cond: ast.Expr, then: list[ast.Stmt], orelse: list[ast.Stmt] | None
    ) -> ast.Stmt:
        return ast.IfStmt(cond, then, orelse or [], span=self.s(meta))

    def for_stmt(self, meta: Meta, var: Token, domain: ast.Expr, body: list[ast.Stmt]) -> ast.Stmt:
        return ast.ForStmt(str(var), domain, body, span=self.s(meta))

    def let_stmt(self, meta: Meta, name: Token, value: ast.Expr) -> ast.Stmt:
        return ast.LetStmt(str(name), value, span=self.s(meta))

    def check_stmt(self, meta: Meta, tok: Token, args: list[ast.Expr] | None) -> ast.Stmt:
        ref = self.label_ref(meta, tok)
        has_parens = self.text_after(tok).lstrip().startswith("(")
        return ast.CheckStmt(ref, (args or []) if has_parens else None, span=self.s(meta))

    def game_over_stmt(self, meta: Meta) -> ast.Stmt:
        return ast.GameOverStmt(span=self.s(meta))

    def tell_stmt(self, meta: Meta, clause: Token | None, label: Token, message: Token) -> ast.Stmt:
        text = _unquote(message)
        parts, names = _interpolate_named(text, self.s(message))
        return ast.TellStmt(
            str(label), text, parts, names, str(clause) if clause else "", span=self.s(meta)
        )

    def text_after(self, tok: Token) -> str:
        return self.source[tok.end_pos or 0 : (tok.end_pos or 0) + 3]

    # -- declarations
    def param(
        self, meta: Meta, name: Token, typ: ast.TypeRef, default: ast.Expr | None
    ) -> ast.Param:
        return ast.Param(str(name), typ, self.s(meta), default)

    def params(self, meta: Meta, *ps: ast.Param) -> list[ast.Param]:
        return list(ps)

    def field(
        self, meta: Meta, name: Token, typ: ast.TypeRef, default: ast.Expr | None
    ) -> ast.Param:
        return ast.Param(str(name), typ, self.s(meta), default)

    def label(self, meta: Meta, tok: Token) -> Token:
        return tok

    def enum_decl(self, meta: Meta, name: Token, *values: Token) -> ast.Decl:
        return ast.EnumDecl(str(name), [str(v) for v in values], span=self.s(meta))

    def enum_from_data(self, meta: Meta, name: Token, coll: Token) -> ast.Decl:
        return ast.EnumDecl(str(name), [], str(coll), span=self.s(meta))

    def record_decl(
        self, meta: Meta, name: Token, coll: Token | None, *fields: ast.Param | None
    ) -> ast.Decl:
        return ast.RecordDecl(
            str(name), [f for f in fields if f is not None], str(coll or ""), span=self.s(meta)
        )

    def decided(self, meta: Meta, decl: ast.Decl, *ids: Token) -> ast.Decl:
        decl.decisions = [str(i) for i in ids]
        return decl

    def routine(self, meta: Meta, name: Token, params: Any, body: list[ast.Stmt]) -> ast.Decl:
        return ast.Routine(str(name), params or [], body, span=self.s(meta))

    def state_decl(
        self, meta: Meta, name: Token, params: Any, typ: ast.TypeRef, value: ast.Expr
    ) -> ast.Decl:
        return ast.StateDecl(str(name), params or [], typ, value, span=self.s(meta))

    def const_decl(self, meta: Meta, name: Token, typ: ast.TypeRef, value: ast.Expr) -> ast.Decl:
        return ast.ConstDecl(str(name), typ, value, span=self.s(meta))

    def key_int(self, meta: Meta, v: Token) -> tuple[str, tuple[object, ...]]:
        return ("int", (int(v),))

    def key_range(self, meta: Meta, lo: Token, hi: Token) -> tuple[str, tuple[object, ...]]:
        return ("range", (int(lo), int(hi)))

    def key_from(self, meta: Meta, lo: Token) -> tuple[str, tuple[object, ...]]:
        return ("from", (int(lo),))

    def key_upto(self, meta: Meta, hi: Token) -> tuple[str, tuple[object, ...]]:
        return ("upto", (int(hi),))

    def key_enum(self, meta: Meta, enum: Token, value: Token) -> tuple[str, tuple[object, ...]]:
        return ("enum", (str(enum), str(value)))

    def key_true(self, meta: Meta) -> tuple[str, tuple[object, ...]]:
        return ("bool", (True,))

    def key_false(self, meta: Meta) -> tuple[str, tuple[object, ...]]:
        return ("bool", (False,))

    def row(self, meta: Meta, key: tuple[str, tuple[object, ...]], value: ast.Expr) -> ast.TableRow:
        return ast.TableRow(key[0], key[1], value, self.s(meta))

    def table_decl(
        self, meta: Meta, name: Token, param: ast.Param, typ: ast.TypeRef, *rows: Any
    ) -> ast.Decl:
        return ast.TableDecl(
            str(name), param, typ, [r for r in rows if r is not None], span=self.s(meta)
        )

    def define(
        self,
        meta: Meta,
        name: Token,
        params: list[ast.Param] | None,
        typ: ast.TypeRef,
        body: ast.Expr,
    ) -> ast.Decl:
        return ast.Define(str(name), params or [], typ, body, span=self.s(meta))

    def require(
        self,
        meta: Meta,
        label: Token,
        params: list[ast.Param] | None,
        cond: ast.Expr,
        message: Token | None,
    ) -> ast.Decl:
        text = _unquote(message) if message is not None else ""
        mspan = self.s(message) if message is not None else self.s(meta)
        req = ast.Require(str(label), params or [], cond, text, mspan, span=self.s(meta))
        req.parts = _interpolate(text, mspan)
        return req

    def property(
        self,
        meta: Meta,
        label: Token,
        text: Token,
        header: dict[str, int] | tuple[str, str, dict[str, int]] | None,
        body: ast.Expr,
    ) -> ast.Decl:
        kind, action, within = header if isinstance(header, tuple) else ("", "", header)
        return ast.Property(
            str(label),
            _unquote(text),
            body,
            invariant=header is not None,
            within=within or {},
            after=action if kind == "after" else "",
            allows=action if kind == "allows" else "",
            span=self.s(meta),
        )

    def invariant(self, meta: Meta, *bounds: Bound | None) -> dict[str, int]:
        return _bounds(bounds)

    def after(
        self, meta: Meta, action: Token, *bounds: Bound | None
    ) -> tuple[str, str, dict[str, int]]:
        return "after", str(action), _bounds(bounds)

    def allows(
        self, meta: Meta, action: Token, *bounds: Bound | None
    ) -> tuple[str, str, dict[str, int]]:
        return "allows", str(action), _bounds(bounds)

    def bound(self, meta: Meta, n: Token, name: Token) -> Bound:
        return str(name), int(n), self.s(name)

    def action_kind(self, meta: Meta) -> bool:
        return True

    def function_kind(self, meta: Meta) -> bool:
        return False

    def extern(
        self,
        meta: Meta,
        action: bool,
        name: Token,
        params: list[ast.Param] | None,
        typ: ast.TypeRef | None,
    ) -> ast.Extern:
        return ast.Extern(str(name), action, params or [], typ, span=self.s(meta))

    def clause_ref(self, meta: Meta, tok: Token) -> ast.Ref:
        return ast.Ref(str(tok), "", self.s(tok))

    def label_ref(self, meta: Meta, tok: Token) -> ast.Ref:
        clause, label = str(tok).split("/", 1)
        return ast.Ref(clause, label, self.s(tok))

    # -- procedures
    def var_decl(self, meta: Meta, name: Token, typ: ast.TypeRef, value: ast.Expr) -> ast.VarDecl:
        return ast.VarDecl(str(name), typ, value, self.s(meta))

    def actor(self, meta: Meta, e: ast.Expr) -> tuple[str, Any]:
        return ("actor", e)

    def requires(self, meta: Meta, *refs: ast.Ref) -> tuple[str, Any]:
        return ("requires", list(refs))

    def effect(self, meta: Meta, stmts: list[ast.Stmt]) -> tuple[str, Any]:
        return ("effect", stmts)

    def then(self, meta: Meta, name: Token) -> tuple[str, Any]:
        return ("then", str(name))

    def enter(self, meta: Meta, stmts: list[ast.Stmt]) -> tuple[str, Any]:
        return ("enter", stmts)

    def ends(self, meta: Meta, cond: ast.Expr, then: tuple[str, str] | None) -> tuple[str, Any]:
        return ("ends", (cond, then[1] if then else ""))

    def ends_unless(
        self,
        meta: Meta,
        tok: Token,
        args: list[ast.Expr] | None,
        then: tuple[str, str] | None,
    ) -> tuple[str, Any]:
        return ("ends", (self.check_stmt(meta, tok, args), then[1] if then else ""))

    def propose(self, meta: Meta, e: ast.Expr) -> tuple[str, Any]:
        return ("propose", e)

    def alternatives(self, meta: Meta, e: ast.Expr) -> tuple[str, Any]:
        return ("alternatives", e)

    def choices(self, meta: Meta, e: ast.Expr) -> tuple[str, Any]:
        return ("choices", e)

    def allow(
        self,
        meta: Meta,
        clause: Token | None,
        name: Token,
        params: Any,
        prop: Any,
        choices: Any,
        alts: Any,
        req: Any,
        eff: Any,
        then: Any,
    ) -> Any:
        return ast.Allow(
            str(name),
            params or [],
            req[1] if req else [],
            eff[1] if eff else [],
            then[1] if then else "",
            self.s(meta),
            prop[1] if prop else None,
            alts[1] if alts else None,
            str(clause or ""),
            choices[1] if choices else None,
        )

    def trigger(self, meta: Meta, label: Token, cond: ast.Expr, body: list[ast.Stmt]) -> ast.Decl:
        return ast.Trigger(str(label), cond, body, span=self.s(meta))

    def whenever(
        self,
        meta: Meta,
        label: Token,
        text: Token,
        params: list[ast.Param] | None,
        cond: ast.Expr,
        body: list[ast.Stmt],
    ) -> ast.Decl:
        return ast.Whenever(str(label), _unquote(text), params or [], cond, body, span=self.s(meta))

    def step(self, meta: Meta, name: Token, clause: Token | None, *members: Any) -> ast.Step:
        actor = None
        ends: list[tuple[ast.Expr | ast.CheckStmt, str]] = []
        allows: list[ast.Allow] = []
        triggers: list[ast.Trigger] = []
        enter: list[ast.Stmt] = []
        for m in members:
            if isinstance(m, ast.Allow):
                allows.append(m)
            elif isinstance(m, ast.Trigger):
                triggers.append(m)
            elif m[0] == "actor":
                actor = m[1]
            elif m[0] == "ends":
                ends.append(m[1])
            elif m[0] == "enter":
                enter = m[1]
        return ast.Step(
            str(name), actor, allows, ends, triggers, enter, self.s(meta), str(clause or "")
        )

    def procedure(
        self, meta: Meta, name: Token, title: Token, params: Any, *members: Any
    ) -> ast.Decl:
        return ast.Procedure(
            str(name),
            _unquote(title),
            params or [],
            [m for m in members if isinstance(m, ast.VarDecl)],
            [m for m in members if isinstance(m, ast.Step)],
            [m for m in members if isinstance(m, ast.Trigger)],
            span=self.s(meta),
        )

    # -- clauses
    def summary(self, meta: Meta, text: Token) -> tuple[str, Any]:
        return ("summary", _unquote(text))

    def printings(self, meta: Meta, *ids: Token) -> tuple[str, Any]:
        return ("printings", [(str(i), self.s(i)) for i in ids])

    def informative(self, meta: Meta) -> tuple[str, Any]:
        return ("informative", True)

    def see(self, meta: Meta, *refs: ast.Ref) -> tuple[str, Any]:
        return ("see", list(refs))

    def clause(self, meta: Meta, number: Token, title: Token, *members: Any) -> ast.Clause:
        c = ast.Clause(str(number), _unquote(title), span=self.s(meta))
        for m in members:
            if isinstance(m, ast.Decl):
                m.clause = c.number
                c.decls.append(m)
            elif m[0] == "summary":
                c.summary = m[1]
            elif m[0] == "printings":
                c.printings = [i for i, _ in m[1]]
                c.printing_spans = dict(m[1])
            elif m[0] == "informative":
                c.informative = True
            elif m[0] == "see":
                c.see.extend(m[1])
        return c

    def base(self, meta: Meta) -> bool:
        return True

    def printing(self, meta: Meta, pid: Token, title: Token, base: bool | None) -> ast.Printing:
        return ast.Printing(str(pid), _unquote(title), bool(base), self.s(meta))

    def game(
        self,
        meta: Meta,
        name: Token,
        title: Token,
        players: Token | None,
        start: Token | None,
        turns: Token | None,
    ) -> ast.Game:
        return ast.Game(
            str(name),
            _unquote(title),
            str(players or ""),
            str(start or ""),
            str(turns or ""),
            self.s(meta),
        )

    # -- overlays
    def overlay_kind(self, meta: Meta, kind: Token) -> tuple[str, Any]:
        return ("kind", str(kind))

    def overlay_source(self, meta: Meta, text: Token) -> tuple[str, Any]:
        return ("source", _unquote(text))

    def overlay_date(self, meta: Meta, text: Token) -> tuple[str, Any]:
        return ("date", _unquote(text))

    def default_on(self, meta: Meta) -> tuple[str, Any]:
        return ("default", True)

    def default_off(self, meta: Meta) -> tuple[str, Any]:
        return ("default", False)

    def overlay_applies(self, meta: Meta, *ids: Token) -> tuple[str, Any]:
        return ("printings", [str(i) for i in ids])

    def replace(self, meta: Meta, decl: ast.Decl) -> ast.Change:
        return ast.Change("replace", decl=decl, span=self.s(meta))

    def add(self, meta: Meta, decl: ast.Decl) -> ast.Change:
        return ast.Change("add", decl=decl, span=self.s(meta))

    def drop(self, meta: Meta, tok: Token) -> ast.Change:
        return ast.Change("drop", ref=self.label_ref(meta, tok), span=self.s(meta))

    def except_(self, meta: Meta, tok: Token, cond: ast.Expr) -> ast.Change:
        return ast.Change("except", ref=self.label_ref(meta, tok), cond=cond, span=self.s(meta))

    def amend(self, meta: Meta, number: Token, *changes: ast.Change) -> ast.Amend:
        for ch in changes:
            if ch.decl is not None:
                ch.decl.clause = str(number)
        return ast.Amend(str(number), list(changes), self.s(meta))

    def overlay(self, meta: Meta, oid: Token, title: Token, *members: Any) -> ast.Overlay:
        o = ast.Overlay(str(oid), _unquote(title), span=self.s(meta))
        for m in members:
            if isinstance(m, ast.Amend):
                o.amends.append(m)
            else:
                setattr(o, m[0], m[1])
        return o

    def start(self, meta: Meta, *items: Any) -> list[Any]:
        return list(items)


_INTERP = re.compile(r"\{([^{}]*)\}")


def _interpolate(text: str, span: Span) -> list[str | ast.Expr]:
    """Split a message into text and ``{expression}`` parts, each parsed as an expression."""
    parts: list[str | ast.Expr] = []
    pos = 0
    for m in _INTERP.finditer(text):
        if m.start() > pos:
            parts.append(text[pos : m.start()])
        inner = Span(span.file, span.line, span.column + 1 + m.start(1))
        parts.append(parse_expr(m.group(1), inner))
        pos = m.end()
    if pos < len(text):
        parts.append(text[pos:])
    return parts


_NAMED = re.compile(r"\s*([a-z_][a-z0-9_]*)\s*=(?!=)")


def _interpolate_named(
    text: str, span: Span
) -> tuple[list[str | ast.Expr], list[tuple[str, ast.Expr]]]:
    """A told message: ``{expr}`` shows a number named by its source text, ``{name = expr}``
    one named ``name``."""
    parts: list[str | ast.Expr] = []
    names: list[tuple[str, ast.Expr]] = []
    pos = 0
    for m in _INTERP.finditer(text):
        if m.start() > pos:
            parts.append(text[pos : m.start()])
        inner, start = m.group(1), m.start(1)
        named = _NAMED.match(inner)
        name = named.group(1) if named else " ".join(inner.split())
        if named:
            start += named.end()
            inner = inner[named.end() :]
        e = parse_expr(inner, Span(span.file, span.line, span.column + 1 + start))
        parts.append(e)
        names.append((name, e))
        pos = m.end()
    if pos < len(text):
        parts.append(text[pos:])
    return parts, names


# a number in a string is no number; anything else made of digits is
_DIGITS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\d+')


Bound = tuple[str, int, Span]  # `within 3 card`: the type, its bound, where the type is named


def _bounds(bounds: tuple[Bound | None, ...]) -> dict[str, int]:
    """A property's `within` bounds by type; a type bounded twice is a located problem."""
    found: dict[str, int] = {}
    for b in bounds:
        if b is None:
            continue
        name, n, span = b
        if name in found:
            twice = f"within bounds '{name}' twice ({found[name]} and {n}): give it once"
            raise RefereeError([Problem(span, twice)])
        found[name] = n
    return found


def parse_expr(text: str, where: Span, what: str = "message") -> ast.Expr:
    """Parse one expression (a message's ``{...}``, a record's ``expect:`` key, ``--until``),
    its spans placed at ``where``. Held to what a .rules file is held to: no number of more
    than MAX_DIGITS digits, and no nesting too deep to parse, each a located problem."""
    for m in _DIGITS.finditer(text):
        if m.group()[0] != '"' and len(m.group()) > MAX_DIGITS:
            at = Span(where.file, where.line, where.column + m.start())
            raise RefereeError([Problem(at, f"a number of more than {MAX_DIGITS} digits")])
    try:
        return _parse_expr(text, where, what)
    except RecursionError:
        raise RefereeError([Problem(where, "an expression nested too deeply to parse")]) from None


def _parse_expr(text: str, where: Span, what: str) -> ast.Expr:
    try:
        tree = lark_parser().parse(text, start="expr")
    except UnexpectedInput as err:
        col = where.column + max((getattr(err, "column", 1) or 1) - 1, 0)
        names = getattr(err, "expected", None) or getattr(err, "allowed", None) or []
        expected = sorted({_readable(n) for n in names if n != "$END"})
        hint = f"expected one of: {', '.join(expected[:10])}" if expected else ""
        raise RefereeError(
            [
                Problem(
                    Span(where.file, where.line, col), f"bad expression in {what}: {text!r}", hint
                )
            ]
        ) from None
    too_deep = _too_deep(tree)
    if too_deep is not None:
        line, col = too_deep
        at = Span(where.file, where.line, where.column + col - 1 if line == 1 else col)
        raise RefereeError([Problem(at, _TOO_DEEP)])
    node = _ToAst(where.file).transform(tree)
    _shift(node, where)
    return node  # type: ignore[no-any-return]


def _shift(node: Any, where: Span) -> None:
    """Move the spans of an expression parsed on its own to where it sits in the file."""
    if isinstance(node, ast.Expr):
        s = node.span
        node.span = Span(where.file, where.line, where.column + s.column - 1)
        for v in vars(node).values():
            if isinstance(v, list):
                for x in v:
                    _shift(x, where)
            else:
                _shift(v, where)
    elif isinstance(node, ast.Binder):
        _shift(node.domain, where)


# How deep a parse tree may go, however the depth arises: brackets, calls, or operators
# chained without brackets (`a implies b implies ...`, `if .. else if ..`, `a + b + ...`),
# each a level. Deeper, the tree is refused before anything recurses over it.
MAX_TREE_DEPTH = 210
_TOO_DEEP = (
    f"an expression nested too deeply to parse: more than {MAX_TREE_DEPTH} levels (brackets,"
    " calls, and each operator of a chain: `a implies b implies ...`, `else if`)"
)


def _too_deep(tree: Any) -> tuple[int, int] | None:
    """Where a parse tree first goes deeper than MAX_TREE_DEPTH (line, column), found
    without recursion; None if it does not."""
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        children = getattr(node, "children", None)
        if children is None:
            continue
        if depth > MAX_TREE_DEPTH:
            first = node
            while getattr(first, "children", None):
                first = first.children[0]
            meta = getattr(node, "meta", None)
            line = getattr(first, "line", None) or getattr(meta, "line", None) or 1
            column = getattr(first, "column", None) or getattr(meta, "column", None) or 1
            return int(line), int(column)
        stack += [(c, depth + 1) for c in children if c is not None]
    return None


def parse_module(text: str, file: str) -> ast.Module:
    """Parse one .rules file. Raises RefereeError with a located problem."""
    try:
        tree = lark_parser().parse(text, start="start")
    except UnexpectedInput as err:
        raise RefereeError([_syntax_problem(err, file, text, "start")], {file: text}) from None
    too_deep = _too_deep(tree)
    if too_deep is not None:
        raise RefereeError([Problem(Span(file, *too_deep), _TOO_DEEP)], {file: text})
    try:
        items = _ToAst(file, text).transform(tree)
    except Exception as err:  # VisitError wrapping a RefereeError from a message
        inner = getattr(err, "orig_exc", err)
        if isinstance(inner, RefereeError):
            inner.sources[file] = text
            raise inner from None
        raise
    mod = ast.Module(file, text)
    for it in items:
        if isinstance(it, ast.Game):
            mod.games.append(it)
        elif isinstance(it, ast.Printing):
            mod.printings.append(it)
        elif isinstance(it, ast.Clause):
            mod.clauses.append(it)
        elif isinstance(it, ast.Overlay):
            mod.overlays.append(it)
        elif isinstance(it, ast.Extern):
            mod.externs.append(it)
        elif isinstance(it, ast.Hidden):
            mod.hidden.append(it)
    return mod
