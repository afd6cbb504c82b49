"""Guards on a spec a user may give: what would crash or hang the referee is refused.

Before a .rules file is parsed: numbers of more than MAX_DIGITS digits, and expressions
nested deeper than MAX_NESTING levels (the parser and the checker recurse). After it is
checked: recursion. The rules language has none: a definition that calls itself, directly
or through others, or constants defined in terms of each other, would make the interpreter
recurse without end. ``spec check`` (and every load of a spec) finds such cycles and says
where each starts, in the base rules and in every overlay's replacements alike.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

from referee.data.limits import MAX_DIGITS
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.parse.parser import parse_module
from referee.resolve.symbols import Symbols

MAX_NESTING = 100  # brackets and `if`s open at once in a .rules file

_OPENS = re.compile(r"[(\[{]|\bif\b")
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[(\[{)\]}]|\bif\b|\belse\b|\d+')


def parse_rules(text: str, file: str) -> ast.Module:
    """``parse_module``, once the text is known to hold no number too long and no
    expression too deep for it."""
    depth = 0
    for m in _TOKENS.finditer(text):
        tok = m.group()
        if tok[0] in '"#':
            continue
        if tok[0].isdigit():
            if len(tok) > MAX_DIGITS:
                raise _at(text, file, m.start(), f"a number of more than {MAX_DIGITS} digits")
            continue
        depth += 1 if _OPENS.fullmatch(tok) else -1
        if depth > MAX_NESTING:
            raise _at(text, file, m.start(), f"expressions nested deeper than {MAX_NESTING} levels")
        depth = max(depth, 0)
    try:
        return parse_module(text, file)
    except RecursionError:
        raise _at(text, file, 0, "expressions nested too deeply to parse") from None


def _at(text: str, file: str, offset: int, message: str) -> RefereeError:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return RefereeError([Problem(Span(file, line, column, start=offset), message)], {file: text})


def no_recursion(sym: Symbols) -> list[Problem]:
    """Every cycle of calls, in the base rules and with each overlay's replacements."""
    decls: dict[str, Any] = {n: d for n, d in sym.values.items() if isinstance(d, _CALLERS)}
    decls |= {n: d for n, d in sym.actions.items() if isinstance(d, ast.Routine)}
    names = set(decls)
    graph = {n: sorted(_uses(d, names)) for n, d in decls.items()}
    found = {(p.span, p.message): p for p in _cycles(graph, decls, sorted(graph))}
    # each overlay alone, and every overlay together (replacements from two overlays in force
    # at once can call each other)
    groups = [[o] for o in sym.overlays.values()] + [list(sym.overlays.values())]
    for group in groups:
        changed = [
            c.decl
            for overlay in group
            for a in overlay.amends
            for c in a.changes
            if isinstance(c.decl, _CALLERS)
        ]
        if changed:
            g, ds = dict(graph), dict(decls)
            for d in changed:
                ds[d.name] = d
            for d in changed:
                g[d.name] = sorted(_uses(d, set(ds)))
                g.update({n: [] for n in g[d.name] if n not in g})
            starts = [d.name for d in changed]
            found |= {(p.span, p.message): p for p in _cycles(g, ds, starts)}
    return list(found.values())


_CALLERS = (ast.Define, ast.ConstDecl, ast.TableDecl, ast.Routine)


def _children(node: Any) -> Iterator[Any]:
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            if isinstance(value, (list, tuple)):
                yield from (v for v in value if dataclasses.is_dataclass(v))
            elif dataclasses.is_dataclass(value):
                yield value


def _uses(decl: Any, callable_names: set[str]) -> set[str]:
    """The names of definitions, constants, tables and routines a declaration's own text
    refers to (without recursion: an expression may be deeply nested)."""
    parts: list[Any] = []
    if isinstance(decl, ast.Define):
        parts = [decl.body]
    elif isinstance(decl, ast.ConstDecl):
        parts = [decl.value]
    elif isinstance(decl, ast.TableDecl):
        parts = [r.value for r in decl.rows]
    elif isinstance(decl, ast.Routine):
        parts = list(decl.body)
    found: set[str] = set()
    stack = list(parts)
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name):
            found.add(n.id)
        elif isinstance(n, ast.DoStmt):
            found.add(n.name)
        stack.extend(_children(n))
    return found & callable_names


def _cycles(graph: dict[str, list[str]], decls: dict[str, Any], starts: list[str]) -> list[Problem]:
    """A problem for each cycle of calls found from ``starts`` (without recursion)."""
    problems: list[Problem] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in starts:
        if state.get(start):
            continue
        path: list[str] = []
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(graph[start]))]
        state[start] = 1
        path.append(start)
        while stack:
            name, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[name] = 2
            elif state.get(nxt) == 1:
                loop = path[path.index(nxt) :] + [nxt]
                d = decls[nxt]
                what = "calls itself" if len(loop) == 2 else "is part of a cycle"
                problems.append(
                    Problem(
                        d.span,
                        f"'{nxt}' {what}: {' -> '.join(loop)}; the rules may not recurse",
                        clause=getattr(d, "clause", ""),
                    )
                )
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(graph[nxt])))
    return problems
