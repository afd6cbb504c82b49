"""Which definitions read no game state (their values kept for good) and which read it (kept
until a cell they read is written): worked out once from the checked symbols."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from referee.parse import ast
from referee.resolve.symbols import Symbols
from referee.resolve.types import BUILTINS


def _pure_definitions(sym: Symbols) -> set[str]:
    """Definitions and tables that read no state, directly or through what they call."""
    reads: dict[str, set[str]] = {}
    for name, d in sym.values.items():
        if isinstance(d, ast.Define):
            reads[name] = _names(d.body)
        elif isinstance(d, ast.TableDecl):
            reads[name] = set().union(*(_names(r.value) for r in d.rows)) if d.rows else set()
    impure = _spread(
        {n for n, d in sym.values.items() if isinstance(d, (ast.StateDecl, ast.Extern))}, reads
    )
    return {n for n in reads if n not in impure}


def _spread(marked: set[str], uses: dict[str, set[str]]) -> set[str]:
    """The marked names and, again and again, every name that uses a marked one."""
    marked = set(marked)
    changed = True
    while changed:
        changed = False
        for name, used in uses.items():
            if name not in marked and used & marked:
                marked.add(name)
                changed = True
    return marked


def _derived_definitions(sym: Symbols, pure: set[str]) -> set[str]:
    """Definitions that read game state but no procedure's variables and call no engine
    function: their values can be kept until a state cell they read changes."""
    procedure_names: set[str] = set()
    for proc in sym.procedures().values():
        procedure_names |= {p.name for p in proc.params} | {v.name for v in proc.vars}
    calls: dict[str, set[str]] = {}
    known = set(sym.values) | set(sym.types) | set(BUILTINS)
    tainted = {n for n, d in sym.values.items() if isinstance(d, ast.Extern)}
    for name, d in sym.values.items():
        if not isinstance(d, ast.Define):
            continue
        names = _names(d.body)
        calls[name] = names
        free = names - {p.name for p in d.params} - _bound(d.body) - known
        if free or (names & procedure_names) - {p.name for p in d.params} - _bound(d.body):
            tainted.add(name)
    tainted = _spread(tainted, calls)
    return {n for n in calls if n not in tainted and n not in pure}


def _nodes(node: Any) -> Iterator[Any]:
    """Every expression and binder in an expression, the expression itself included."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.Expr, ast.Binder)):
            for v in vars(n).values():
                if isinstance(v, list):
                    for x in v:  # a record literal's fields are (name, expression) pairs
                        items = x if isinstance(x, tuple) else (x,)
                        stack.extend(y for y in items if isinstance(y, (ast.Expr, ast.Binder)))
                elif isinstance(v, (ast.Expr, ast.Binder)):
                    stack.append(v)


def _bound(node: Any) -> set[str]:
    """The names a comprehension, a quantifier or an aggregate binds inside an expression."""
    out: set[str] = set()
    for n in _nodes(node):
        var = n.name if isinstance(n, ast.Binder) else getattr(n, "var", None)
        if isinstance(var, str):
            out.add(var)
    return out


def _names(node: Any) -> set[str]:
    """Every name an expression refers to (variables, definitions, state)."""
    return {n.id for n in _nodes(node) if isinstance(n, ast.Name)}
