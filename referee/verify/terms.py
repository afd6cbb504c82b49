"""Translating the rules' expressions into z3 terms: definitions, constants and tables
(calls inlined, tables as chains of ``If``), numbers, booleans and enumerations; the
base the step translator (steps.py) extends with state, lists and records."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import z3

from referee.budget import TimeUp
from referee.parse import ast
from referee.resolve.symbols import Symbols
from referee.verify import lists
from referee.verify.common import MAX_INLINE, Untranslatable, enum, read_key
from referee.verify.fast import And, If, Or
from referee.verify.reuse import Reads


def _hex_distance(c1: Any, r1: Any, c2: Any, r2: Any) -> Any:
    """hex_distance (see referee.resolve.types) in z3's integer arithmetic."""

    def axial(c: Any, r: Any) -> tuple[Any, Any]:
        q = c - 1
        return q, r - (q - q % 2) / 2

    def size(x: Any) -> Any:
        return z3.If(x < 0, -x, x)

    q1, a1 = axial(c1, r1)
    q2, a2 = axial(c2, r2)
    dq, dr = q2 - q1, a2 - a1
    return (size(dq) + size(dq + dr) + size(dr)) / 2


def floor_div(a: Any, b: Any) -> Any:
    """Python's ``a // b``: the quotient rounded down, for every sign (z3's integer division
    is Euclidean: ``7 / -2`` is -3 there, -4 in Python). For a divisor above zero the two
    agree; below zero, ``a // b`` is ``(-a) // (-b)``. A divisor of zero is left as z3 has
    it: the referee stops there with an error, so no verdict rests on it."""
    if _above_zero(b):
        return a / b
    return z3.If(b > 0, a / b, (-a) / (-b))


def floor_mod(a: Any, b: Any) -> Any:
    """Python's ``a % b``: ``a - b * (a // b)``, a remainder with the divisor's sign."""
    if _above_zero(b):
        return a % b
    return a - b * floor_div(a, b)


def _above_zero(b: Any) -> bool:
    """Whether a divisor is a number above zero (z3's and Python's division then agree)."""
    known = z3.simplify(b)
    return bool(z3.is_int_value(known) and known.as_long() > 0)


# Calls inlined in one translation, in all: f calling g twice, g calling h twice, ... is
# 2**depth calls, each a copy of a body. Past it, the property is skipped (untranslatable).
# The bundled games' proofs inline at most 4,424 calls.
MAX_INLINED = 20_000

# While a property is proved under a --timeout: when its time is up, and the timeout in
# seconds. Translation stops there (TimeUp), as z3's calls do at their own timeout.
_DEADLINES: list[tuple[float, float]] = []


@contextmanager
def translating_within(timeout_ms: int | None) -> Iterator[None]:
    """Inside it, translating stops with TimeUp once ``timeout_ms`` have passed (if given)."""
    if timeout_ms is None:
        yield
        return
    _DEADLINES.append((time.monotonic() + timeout_ms / 1000, timeout_ms / 1000))
    try:
        yield
    finally:
        _DEADLINES.pop()


class Translator:
    def __init__(self, sym: Symbols, data_values: dict[str, set[str]]) -> None:
        self.sym = sym
        self.data_values = data_values
        self.sorts: dict[str, tuple[z3.SortRef, dict[str, z3.ExprRef]]] = {}
        self.used: set[str] = set()  # clauses whose definitions were translated
        self.read: set[str] = Reads()  # the declarations translated (see Outcome.reads)
        self.depth = 0
        self.inlined = 0  # definitions inlined so far: f calling g twice, g calling h twice...
        self.fresh = 0
        # what the property's domains say of its free variables (lists.py bounds sums by them)
        self.assumptions: list[Any] = []

    def note(self, d: ast.Decl, key: str = "", overlay: str | None = None) -> None:
        """A declaration the proof reads: its clause, and its name (see Outcome.reads)."""
        self.used.add(d.clause)
        self.read.add(read_key(key or d.name, d.overlay if overlay is None else overlay))

    # ------------------------------------------------------------ sorts
    def enum_sort(self, name: str) -> tuple[z3.SortRef, dict[str, z3.ExprRef]]:
        if name not in self.sorts:
            d = self.sym.types[name]
            assert isinstance(d, ast.EnumDecl)
            values = d.values or sorted(self.data_values.get(d.from_data, set()))
            self.sorts[name] = enum(name, values)
        return self.sorts[name]

    def const(self, name: str, t: ast.TypeRef | None, domain: ast.Expr | None) -> z3.ExprRef:
        kind = t.name if t is not None else self.domain_kind(domain)
        if kind == "int":
            return z3.Int(name)
        if kind == "bool":
            return z3.Bool(name)
        d = self.sym.types.get(kind)
        if isinstance(d, ast.EnumDecl):
            return z3.Const(name, self.enum_sort(kind)[0])
        raise Untranslatable(f"a variable of type {kind}")

    def domain_kind(self, domain: ast.Expr | None) -> str:
        if isinstance(domain, ast.Range):
            return "int"
        if isinstance(domain, ast.ListLit) and domain.items:
            first = domain.items[0]
            if isinstance(first, ast.BoolLit):
                return "bool"
            if isinstance(first, ast.IntLit):
                return "int"
            if isinstance(first, ast.Field) and isinstance(first.obj, ast.Name):
                return first.obj.id
        raise Untranslatable("a quantifier over something other than a range or a list of values")

    def domain(self, x: z3.ExprRef, domain: ast.Expr, env: dict[str, Any]) -> z3.BoolRef:
        if isinstance(domain, ast.Range):
            return z3.And(x >= self.expr(domain.lo, env), x <= self.expr(domain.hi, env))
        if isinstance(domain, ast.ListLit):
            return z3.Or(*[x == self.expr(i, env) for i in domain.items])
        raise Untranslatable("a quantifier over something other than a range or a list of values")

    # ------------------------------------------------------------ expressions
    def expr(self, e: ast.Expr, env: dict[str, Any]) -> Any:  # noqa: C901 - one case a node
        if _DEADLINES and time.monotonic() > _DEADLINES[-1][0]:
            raise TimeUp(f"the --timeout of {_DEADLINES[-1][1]:g} s passed while translating it")
        if isinstance(e, ast.IntLit):
            return z3.IntVal(e.value)
        if isinstance(e, ast.BoolLit):
            return z3.BoolVal(e.value)
        if isinstance(e, ast.Name):
            if e.id in env:
                return env[e.id]
            d = self.sym.values.get(e.id)
            if isinstance(d, ast.ConstDecl):
                self.note(d)
                return self.expr(d.value, {})
            raise Untranslatable(f"'{e.id}' is game state, not a definition")
        if isinstance(e, ast.Field):
            if isinstance(e.obj, ast.Name) and e.obj.id not in env and e.obj.id in self.sym.types:
                return self.enum_sort(e.obj.id)[1][e.name]
            raise Untranslatable("a field of a record")
        if isinstance(e, ast.Call):
            return self.call(e, env)
        if isinstance(e, ast.BinOp):
            return self.binop(e, env)
        if isinstance(e, ast.Not):
            return z3.Not(self.expr(e.operand, env))
        if isinstance(e, ast.Neg):
            return -self.expr(e.operand, env)
        if isinstance(e, ast.If):
            return z3.If(self.expr(e.cond, env), self.expr(e.then, env), self.expr(e.orelse, env))
        if isinstance(e, ast.Let):
            return self.expr(e.body, {**env, e.name: self.expr(e.value, env)})
        if isinstance(e, ast.Quant):
            return self.quant(e, env)
        if isinstance(e, (ast.Sum, ast.Count)):
            return lists.over_range(self, e, env)
        raise Untranslatable(f"{type(e).__name__.lower()} expressions")

    def binop(self, e: ast.BinOp, env: dict[str, Any]) -> Any:
        a, b = self.expr(e.left, env), self.expr(e.right, env)
        ops = {
            "+": lambda: a + b,
            "-": lambda: a - b,
            "*": lambda: a * b,
            "//": lambda: floor_div(a, b),
            "%": lambda: floor_mod(a, b),
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            "<=": lambda: a <= b,
            ">": lambda: a > b,
            ">=": lambda: a >= b,
            "and": lambda: And(a, b),
            "or": lambda: Or(a, b),
            "implies": lambda: z3.Implies(a, b),
        }
        if e.op not in ops:
            raise Untranslatable(f"the operator {e.op}")
        return ops[e.op]()

    def call(self, e: ast.Call, env: dict[str, Any]) -> Any:
        assert isinstance(e.func, ast.Name)
        name = e.func.id
        args = [self.expr(a, env) for a in e.args]
        d = self.sym.values.get(name)
        if d is None:
            if name in ("min", "max") and len(args) >= 2:
                out = args[0]
                for x in args[1:]:
                    out = z3.If(x < out, x, out) if name == "min" else z3.If(x > out, x, out)
                return out
            if name == "abs" and len(args) == 1:
                return z3.If(args[0] < 0, -args[0], args[0])
            if name == "clamp" and len(args) == 3:
                low = z3.If(args[0] < args[1], args[1], args[0])
                return z3.If(low > args[2], args[2], low)
            if name == "hex_distance" and len(args) == 4:
                return _hex_distance(*args)
            raise Untranslatable(f"the built-in {name}")
        if isinstance(d, (ast.Define, ast.TableDecl)):
            self.note(d)
        else:
            self.used.add(d.clause)
        if isinstance(d, ast.Define):
            self.depth += 1
            self.inlined += 1  # ... grows as 2**depth: counted, whatever the depth
            if self.depth > MAX_INLINE:
                raise Untranslatable(f"{name} calls itself too deeply")
            if self.inlined > MAX_INLINED:
                raise Untranslatable(f"{name}: more than {MAX_INLINED:,} calls inlined in all")
            try:
                return self.expr(d.body, {p.name: a for p, a in zip(d.params, args, strict=True)})
            finally:
                self.depth -= 1
        if isinstance(d, ast.TableDecl):
            return self.table(d, args[0])
        raise Untranslatable(f"'{name}' ({d.kind})")

    def table(self, d: ast.TableDecl, key: Any) -> Any:
        missing = self.no_row(d, key)
        out = missing
        for row in reversed(d.rows):
            k = row.key
            if row.key_kind == "int":
                cond = key == z3.IntVal(int(k[0]))  # type: ignore[call-overload]
            elif row.key_kind == "range":
                cond = z3.And(key >= int(k[0]), key <= int(k[1]))  # type: ignore[call-overload]
            elif row.key_kind == "from":
                cond = key >= int(k[0])  # type: ignore[call-overload]
            elif row.key_kind == "upto":
                cond = key <= int(k[0])  # type: ignore[call-overload]
            elif row.key_kind == "enum":
                cond = key == self.enum_sort(str(k[0]))[1][str(k[1])]
            else:
                cond = key == z3.BoolVal(bool(k[0]))
            out = If(cond, self.expr(row.value, {}), out)
        return out

    def no_row(self, d: ast.TableDecl, key: Any) -> Any:
        """The value of a key no row gives: unknown, but the same each time it is asked."""
        self.fresh += 1
        sort = self.const(f"{d.name}_no_row_{self.fresh}", d.type, None).sort()
        return z3.Function(f"{d.name}_no_row", key.sort(), sort)(key)

    def quant(self, e: ast.Quant, env: dict[str, Any]) -> Any:
        scope = dict(env)
        bound = []
        constraints = []
        for b in e.binders:
            self.fresh += 1
            x = self.const(f"{b.name}_{self.fresh}", b.type, b.domain)
            constraints.append(self.domain(x, b.domain, scope))
            scope[b.name] = x
            bound.append(x)
        body = self.expr(e.body, scope)
        if e.kind == "forall":
            return z3.ForAll(bound, z3.Implies(z3.And(*constraints), body))
        return z3.Exists(bound, z3.And(*constraints, body))
