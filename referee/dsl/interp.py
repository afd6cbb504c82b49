"""Evaluate expressions of the checked tree.

Values: int, bool, str (text and enum values alike: the checker keeps enums
apart), dict (records), tuple (lists), frozenset (sets). Every call of a
definition or table can be recorded in a trace, so that a verdict can show the
numbers that decided it and the clause each number comes from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.dsl import ast
from referee.dsl.checker import Symbols
from referee.errors import fail


@dataclass
class TraceEntry:
    """One evaluated call: ``size_penalty(5) = 1`` from clause 7.3.5."""

    name: str
    clause: str
    args: tuple[Any, ...]
    result: Any
    depth: int

    def __str__(self) -> str:
        args = ", ".join(_show(a) for a in self.args)
        return f"{self.name}({args}) = {_show(self.result)}  ({self.clause})"


def _show(v: Any) -> str:
    if isinstance(v, dict):
        return str(v.get("id", v.get("name", "{...}")))
    if isinstance(v, (tuple, list, frozenset)):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@dataclass
class Interpreter:
    sym: Symbols
    externs: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    trace: list[TraceEntry] | None = None
    _depth: int = 0
    _consts: dict[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------ entry points
    def call(self, name: str, *args: Any) -> Any:
        """Call a definition, a table or an extern function by name."""
        d = self.sym.values.get(name)
        if d is None:
            raise KeyError(f"no definition named {name!r}")
        if isinstance(d, ast.ConstDecl):
            return self.const(d)
        return self._invoke(d, tuple(args))

    def const(self, d: ast.ConstDecl) -> Any:
        if d.name not in self._consts:
            self._consts[d.name] = self.eval(d.value, {})
        return self._consts[d.name]

    def holds(self, req: ast.Require, env: dict[str, Any]) -> tuple[bool, str]:
        """Whether a requirement holds, and its message with the values filled in."""
        ok = bool(self.eval(req.cond, env))
        text = "".join(p if isinstance(p, str) else _show(self.eval(p, env)) for p in req.parts)
        return ok, text

    # ------------------------------------------------------------ calls
    def _invoke(self, d: ast.Decl, args: tuple[Any, ...]) -> Any:
        self._depth += 1
        try:
            if isinstance(d, ast.Define):
                env = {p.name: a for p, a in zip(d.params, args, strict=True)}
                result = self.eval(d.body, env)
            elif isinstance(d, ast.TableDecl):
                result = self._lookup(d, args[0])
            elif isinstance(d, ast.Extern):
                fn = self.externs.get(d.name)
                if fn is None:
                    raise fail(d.span, f"the engine provides no function '{d.name}'")
                result = fn(*args)
            else:
                raise fail(d.span, f"'{d.name}' cannot be called")
        finally:
            self._depth -= 1
        if self.trace is not None and not isinstance(d, ast.Extern):
            self.trace.append(TraceEntry(d.name, d.clause, args, result, self._depth))
        return result

    def _lookup(self, d: ast.TableDecl, key: Any) -> Any:
        for row in d.rows:
            k = row.key
            if (
                (row.key_kind == "int" and key == k[0])
                or (row.key_kind == "range" and k[0] <= key <= k[1])
                or (row.key_kind == "from" and key >= k[0])
                or (row.key_kind == "enum" and key == k[1])
                or (row.key_kind == "bool" and key is k[0])
            ):
                return self.eval(row.value, {})
        raise fail(d.span, f"table {d.name} has no row for {_show(key)}", clause=d.clause)

    # ------------------------------------------------------------ expressions
    def eval(self, e: ast.Expr, env: dict[str, Any]) -> Any:  # noqa: C901 - one case a node
        if isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit)):
            return e.value
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            d = self.sym.values[e.id]
            assert isinstance(d, ast.ConstDecl)
            return self.const(d)
        if isinstance(e, ast.Field):
            if isinstance(e.obj, ast.Name) and e.obj.id not in env and e.obj.id in self.sym.types:
                return e.name  # an enum literal: its value's name
            obj = self.eval(e.obj, env)
            return obj[e.name]
        if isinstance(e, ast.Call):
            assert isinstance(e.func, ast.Name)
            args = tuple(self.eval(a, env) for a in e.args)
            callee = self.sym.values.get(e.func.id)
            if callee is None:
                return _builtin(e.func.id, args)
            return self._invoke(callee, args)
        if isinstance(e, ast.Index):
            return self.eval(e.obj, env)[self.eval(e.index, env)]
        if isinstance(e, ast.ListLit):
            return tuple(self.eval(i, env) for i in e.items)
        if isinstance(e, ast.BinOp):
            return self._binop(e, env)
        if isinstance(e, ast.Not):
            return not self.eval(e.operand, env)
        if isinstance(e, ast.Neg):
            return -self.eval(e.operand, env)
        if isinstance(e, ast.Range):
            return tuple(range(self.eval(e.lo, env), self.eval(e.hi, env) + 1))
        if isinstance(e, ast.If):
            return self.eval(e.then if self.eval(e.cond, env) else e.orelse, env)
        if isinstance(e, ast.Let):
            return self.eval(e.body, {**env, e.name: self.eval(e.value, env)})
        if isinstance(e, ast.Quant):
            return self._quant(e, e.binders, env)
        if isinstance(e, ast.Count):
            return sum(
                1
                for x in self.eval(e.domain, env)
                if e.where is None or self.eval(e.where, {**env, e.var: x})
            )
        if isinstance(e, ast.Sum):
            total = 0
            for x in self.eval(e.domain, env):
                scope = {**env, e.var: x}
                if e.where is None or self.eval(e.where, scope):
                    total += self.eval(e.value, scope)
            return total
        raise AssertionError(f"cannot evaluate {type(e).__name__}")

    def _quant(self, e: ast.Quant, binders: list[ast.Binder], env: dict[str, Any]) -> bool:
        if not binders:
            return bool(self.eval(e.body, env))
        b, rest = binders[0], binders[1:]
        results = (self._quant(e, rest, {**env, b.name: x}) for x in self.eval(b.domain, env))
        return all(results) if e.kind == "forall" else any(results)

    def _binop(self, e: ast.BinOp, env: dict[str, Any]) -> Any:
        if e.op == "and":
            return bool(self.eval(e.left, env)) and bool(self.eval(e.right, env))
        if e.op == "or":
            return bool(self.eval(e.left, env)) or bool(self.eval(e.right, env))
        if e.op == "implies":
            return not self.eval(e.left, env) or bool(self.eval(e.right, env))
        a = self.eval(e.left, env)
        b = self.eval(e.right, env)
        if e.op == "in":
            return a in b
        if e.op in ("//", "%") and b == 0:
            raise fail(e.span, "division by zero")
        return _OPS[e.op](a, b)


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _builtin(name: str, args: tuple[Any, ...]) -> Any:
    if name == "size":
        return len(args[0])
    if name == "abs":
        return abs(args[0])
    values = args[0] if len(args) == 1 else args
    if name == "min":
        return min(values)
    if name == "max":
        return max(values)
    raise AssertionError(f"unknown built-in {name}")
