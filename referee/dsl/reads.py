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
    through the definitions it calls."""
    seen = set() if seen is None else seen
    out: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, ast.Name):
            d = sym.values.get(x.id)
            if d is None or isinstance(d, ast.StateDecl):
                out.add(x.id)
            elif isinstance(d, ast.ConstDecl):
                walk(d.value)
        elif isinstance(x, ast.Call) and isinstance(x.func, ast.Name):
            d = sym.values.get(x.func.id)
            if isinstance(d, ast.StateDecl):
                out.add(x.func.id)
            elif isinstance(d, (ast.Define, ast.TableDecl)) and x.func.id not in seen:
                seen.add(x.func.id)
                walk(d.body if isinstance(d, ast.Define) else [r.value for r in d.rows])
            for a in x.args:
                walk(a)
        elif isinstance(x, list):
            for i in x:
                walk(i)
        elif isinstance(x, ast.Expr):
            for v in vars(x).values():
                if isinstance(v, (ast.Expr, list)):
                    walk(v)
                elif isinstance(v, tuple):
                    walk(list(v))
        elif isinstance(x, ast.Binder):
            walk(x.domain)
        elif isinstance(x, tuple):
            walk(list(x))

    walk(e)
    return out
