"""The `hidden` declaration (what each seat sees) from Lark's tree to ast nodes: the methods
the parser's transformer takes from here, one a grammar rule, each keeping its span."""

from __future__ import annotations

import re
from typing import Any

from lark import Token, Transformer, v_args
from lark.tree import Meta

from referee.errors import Span
from referee.parse import ast


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s[1:-1])


def _clauses(parts: tuple[Any, ...]) -> tuple[list[Any], list[str]]:
    """The parts before the clause numbers, and the clause numbers (the tokens at the end)."""
    n = len(parts)
    while n and isinstance(parts[n - 1], Token) and parts[n - 1].type == "CLAUSE_NUM":
        n -= 1
    return list(parts[:n]), [str(t) for t in parts[n:]]


@v_args(meta=True, inline=True)
class HiddenRules(Transformer[Token, Any]):
    """The base of the parser's transformer (parser.py): the `hidden` declaration's rules."""

    def s(self, meta: Meta | Token) -> Span:
        raise NotImplementedError

    def secret(self, meta: Meta, name: Token, count: bool | None) -> tuple[str, bool]:
        return (str(name), bool(count))

    def secret_count(self, meta: Meta) -> bool:
        return True

    def seen_everybody(self, meta: Meta) -> tuple[str, ast.Expr | None]:
        return ("everybody", None)

    def seen_nobody(self, meta: Meta) -> tuple[str, ast.Expr | None]:
        return ("nobody", None)

    def seen_actor(self, meta: Meta) -> tuple[str, ast.Expr | None]:
        return ("actor", None)

    def seen_side(self, meta: Meta, e: ast.Expr) -> tuple[str, ast.Expr | None]:
        return ("side", e)

    def seen_when(self, meta: Meta, e: ast.Expr) -> ast.Expr:
        return e

    def seen_state(self, meta: Meta, name: Token, *parts: Any) -> ast.Seen:
        head, clauses = _clauses(parts)
        viewer, side = head[-1]
        keys = [str(k) for k in head[:-1] if k is not None]
        return ast.Seen("state", str(name), keys, viewer, side, None, clauses, self.s(meta))

    def seen_event(self, meta: Meta, action: Token, *parts: Any) -> ast.Seen:
        head, clauses = _clauses(parts)
        when = None if isinstance(head[-1], tuple) else head.pop()  # [seen_when]: None if absent
        viewer, side = head[-1]
        path = [str(p) for p in head[:-1]]
        return ast.Seen("event", str(action), path, viewer, side, when, clauses, self.s(meta))

    def hidden(self, meta: Meta, title: Token, *parts: Any) -> ast.Hidden:
        secret: dict[str, bool] = dict(p for p in parts if isinstance(p, tuple))
        seen = [p for p in parts if isinstance(p, ast.Seen)]
        return ast.Hidden(_unquote(title), secret, seen, self.s(meta))
