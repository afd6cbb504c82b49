"""What an expression reads: the state cells (and the names that may be procedure
variables) it looks at, through the definitions and constants it calls. Static: nothing is
evaluated. The step prover slices with it; the referee finds with it the state whose starting
value reads other state."""

from __future__ import annotations

from typing import Any

from referee.dsl import ast
from referee.dsl.checker import Symbols


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
