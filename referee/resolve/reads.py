"""What an expression reads: the state cells (and the names that may be procedure
variables) it looks at, through the definitions and constants it calls. Static: nothing is
evaluated. The step prover slices with it; the referee finds with it the state whose starting
value reads other state."""

from __future__ import annotations

from typing import Any

from referee.parse import ast
from referee.resolve.symbols import Symbols


def reads(e: Any, sym: Symbols, seen: set[str] | None = None) -> set[str]:
    """The state cells (and names that may be procedure variables) an expression reads,
    through the definitions it calls. A name bound inside (a quantifier's, a comprehension's,
    a definition's parameter, a `let`'s) is no read: it names a value of its own."""
    seen = set() if seen is None else seen
    out: set[str] = set()

    def walk(x: Any, bound: frozenset[str]) -> None:  # noqa: C901 - one case a node
        if isinstance(x, ast.Name):
            if x.id in bound:
                return
            d = sym.values.get(x.id)
            if d is None or isinstance(d, ast.StateDecl):
                out.add(x.id)
            elif isinstance(d, ast.ConstDecl):
                walk(d.value, frozenset())
        elif isinstance(x, ast.Call) and isinstance(x.func, ast.Name):
            d = None if x.func.id in bound else sym.values.get(x.func.id)
            if isinstance(d, ast.StateDecl):
                out.add(x.func.id)
            elif isinstance(d, (ast.Define, ast.TableDecl)) and x.func.id not in seen:
                seen.add(x.func.id)
                if isinstance(d, ast.Define):
                    walk(d.body, frozenset(p.name for p in d.params))
                else:
                    walk([r.value for r in d.rows], frozenset())
            for a in x.args:
                walk(a, bound)
        elif isinstance(x, ast.Quant):
            inner = bound
            for b in x.binders:
                walk(b.domain, inner)
                inner = inner | {b.name}
            walk(x.body, inner)
        elif isinstance(x, (ast.Count, ast.Sum, ast.Comp)):
            walk(x.domain, bound)
            inner = bound | {x.var}
            walk(x.where, inner)
            if not isinstance(x, ast.Count):
                walk(x.value, inner)
        elif isinstance(x, ast.Let):
            walk(x.value, bound)
            walk(x.body, bound | {x.name})
        elif isinstance(x, list):
            for i in x:
                walk(i, bound)
        elif isinstance(x, ast.Expr):
            for v in vars(x).values():
                if isinstance(v, (ast.Expr, list)):
                    walk(v, bound)
                elif isinstance(v, tuple):
                    walk(list(v), bound)
        elif isinstance(x, ast.Binder):
            walk(x.domain, bound)
        elif isinstance(x, tuple):
            walk(list(x), bound)

    walk(e, frozenset())
    return out


def names_written(e: Any) -> list[str]:
    """Every bare name an expression writes (called, bound or read), each once, in the
    order written: what a key or a property's body names, looked at statically."""
    out: list[str] = []
    stack: list[Any] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Name) and n.id not in out:
            out.append(n.id)
        if isinstance(n, (ast.Expr, ast.Binder)):
            for v in reversed(list(vars(n).values())):
                if isinstance(v, (list, tuple)):
                    stack.extend(reversed([x for x in v if isinstance(x, (ast.Expr, ast.Binder))]))
                elif isinstance(v, (ast.Expr, ast.Binder)):
                    stack.append(v)
    return out


def _sets(stmts: list[ast.Stmt]) -> list[ast.SetStmt]:
    """Every `set` among the statements, inside their `if`s and `for`s."""
    out: list[ast.SetStmt] = []
    for st in stmts:
        if isinstance(st, ast.SetStmt):
            out.append(st)
        elif isinstance(st, ast.IfStmt):
            out += _sets(st.then) + _sets(st.orelse)
        elif isinstance(st, ast.ForStmt):
            out += _sets(st.body)
    return out


def procedure_statements(p: ast.Procedure) -> list[ast.Stmt]:
    """The statements of a procedure's own: its steps' entries, actions and triggers, and
    its triggers (not those of the routines and procedures they run)."""
    out: list[ast.Stmt] = []
    for step in p.steps:
        out += step.enter
        for a in step.allows:
            out += a.effects
        for t in step.triggers:
            out += t.body
    for t in p.triggers:
        out += t.body
    return out


def floors(sym: Symbols) -> dict[tuple[str, str], int]:
    """The procedure variables, by procedure and name, and the state cells, by "" and name,
    that only count up: of type int, starting at a whole number, and wherever the rules set
    one, raised by a whole number not below zero or set to one not below the start. Such a
    value is never below its start, so a position that gives it less is one no game
    reaches."""
    stmts: list[ast.Stmt] = []
    for d in sym.actions.values():
        if isinstance(d, ast.Routine):
            stmts += d.body
        elif isinstance(d, ast.Procedure):
            stmts += procedure_statements(d)
    for w in sym.standing:
        stmts += w.body
    if any(isinstance(d, ast.Extern) and d.action for d in sym.actions.values()):
        return {}  # an action outside the rules language may set anything
    sets: dict[str, list[ast.SetStmt]] = {}
    for st in _sets(stmts):
        target: ast.Expr = st.target
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Name):
            target = target.func
        if isinstance(target, ast.Name):
            sets.setdefault(target.id, []).append(st)

    def counts_up(st: ast.SetStmt, start: int) -> bool:
        n = whole_constant(st.value, sym)
        if n is None:
            return False
        return (st.op == "+=" and n >= 0) or (st.op == "=" and n >= start)

    out: dict[tuple[str, str], int] = {}
    for proc in sym.procedures().values():
        for v in proc.vars:
            start = whole_constant(v.value, sym)
            if v.type.name != "int" or start is None:
                continue
            if all(counts_up(st, start) for st in sets.get(v.name, [])):
                out[(proc.name, v.name)] = start
    for name, d in sym.values.items():
        if not isinstance(d, ast.StateDecl) or d.type.name != "int":
            continue
        start = whole_constant(d.value, sym)
        if start is not None and all(counts_up(st, start) for st in sets.get(name, [])):
            out[("", name)] = start
    return out


def whole_constant(e: ast.Expr, sym: Symbols) -> int | None:
    """A whole number written as such or as the name of a constant that is one (through
    other constants' names), else None: a value known without running anything."""
    seen: set[str] = set()
    while isinstance(e, ast.Name) and e.id not in seen:
        seen.add(e.id)
        d = sym.values.get(e.id)
        if not isinstance(d, ast.ConstDecl):
            return None
        e = d.value
    if isinstance(e, ast.IntLit) and not isinstance(e.value, bool):
        return int(e.value)
    return None
