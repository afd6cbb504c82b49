"""Expressions type-checked, names resolved against the symbols: the base of the checker
(checker.py), which adds declarations, procedures, statements and overlays."""

from __future__ import annotations

import difflib

from referee.errors import Problem, Span
from referee.parse import ast
from referee.resolve.symbols import Symbols
from referee.resolve.types import ANY, BOOL, BUILTINS, INT, TEXT, T, compatible, list_of

ARITH = {"+", "-", "*", "//", "%"}
ORDER = {"<", "<=", ">", ">="}
EQUAL = {"==", "!="}


MAX_SUGGESTED = 50  # unknown names given a "did you mean" (each search looks at every name)


class ExpressionChecker:
    """Names resolved and expressions typed, each problem recorded with its place and clause."""

    def __init__(self, modules: list[ast.Module], data_values: dict[str, set[str]]) -> None:
        self.modules = modules
        self.sym = Symbols(data_values=data_values)
        self.problems: list[Problem] = []
        self.clause = ""  # the clause being checked, for usage records
        self.step_clause = ""  # the clause the step being checked names, if any
        self.players: T = ANY  # the type of `by`, the actor of an event
        self.in_effect = False  # checking a property after an action: before(...) is known
        self.suggested = 0  # unknown names reported so far
        self.suggesting = False  # checking a `propose` or `alternatives`: shuffled(...) is known

    # ------------------------------------------------------------ reporting
    def error(self, span: Span, message: str, hint: str = "") -> None:
        self.problems.append(Problem(span, message, hint, self.clause))

    def unknown(self, span: Span, what: str, name: str, known: list[str]) -> None:
        self.suggested += 1  # past MAX_SUGGESTED, no name is searched for a close one
        close = (
            difflib.get_close_matches(name, known, n=1) if self.suggested <= MAX_SUGGESTED else []
        )
        self.error(span, f"unknown {what} '{name}'", f"did you mean '{close[0]}'?" if close else "")

    def ref(self, ref: ast.Ref, use: bool = True) -> ast.Decl | ast.Clause | None:
        """Resolve a clause or label reference; ``use`` records the citing clause as a user."""
        clause = self.sym.clauses.get(ref.clause)
        if clause is None:
            self.error(
                ref.span,
                f"reference to a missing clause {ref.clause}",
                "every clause a rule cites must be declared",
            )
            return None
        if use and self.clause and self.clause != ref.clause:
            self.sym.used_by[ref.clause].add(self.clause)
        if not ref.label:
            return clause
        d = self.sym.labels.get(str(ref))
        if d is None:
            known = [k.split("/", 1)[1] for k in self.sym.labels if k.startswith(ref.clause + "/")]
            close = difflib.get_close_matches(ref.label, known, n=1)
            self.error(
                ref.span,
                f"clause {ref.clause} has no label [{ref.label}]",
                f"did you mean [{close[0]}]?"
                if close
                else f"its labels: {', '.join(known) or 'none'}",
            )
        return d

    def typeref(self, t: ast.TypeRef) -> T:
        if t.name in ("list", "set"):
            return T(t.name, arg=self.typeref(t.arg)) if t.arg else ANY
        if t.name in ("int", "bool", "text"):
            return T(t.name)
        if t.name == "struct":  # the arguments of an action, as a proposal spells them
            return T("struct")
        d = self.sym.types.get(t.name)
        if d is None:
            self.unknown(t.span, "type", t.name, ["int", "bool", "text", *self.sym.types])
            return ANY
        self._use(d)
        return T("enum" if isinstance(d, ast.EnumDecl) else "record", d.name)

    def _use(self, d: ast.Decl) -> None:
        if self.clause and d.clause and d.clause != self.clause:
            self.sym.used_by[d.clause].add(self.clause)

    def params(self, ps: list[ast.Param], env: dict[str, T] | None = None) -> dict[str, T]:
        scope = dict(env or {})
        for p in ps:
            if p.name in scope and env is not None and p.name not in env:
                self.error(p.span, f"parameter '{p.name}' is given twice")
            scope[p.name] = self.typeref(p.type)
            if p.default is not None:
                self.expect(p.default, {}, scope[p.name])
        return scope

    def expect(self, e: ast.Expr, env: dict[str, T], want: T) -> None:
        got = self.expr(e, env)
        if not compatible(want, got):
            self.error(e.span, f"type mismatch: expected {want}, found {got}")

    # ------------------------------------------------------------ expressions
    def enum_literal(self, enum: str, value: str, span: Span, want: T | None = None) -> T:
        d = self.sym.types.get(enum)
        if not isinstance(d, ast.EnumDecl):
            self.unknown(span, "enum", enum, [k for k, v in self.sym.types.items()])
            return ANY
        self._use(d)
        values = d.values or sorted(self.sym.data_values.get(d.from_data, set()))
        if value not in values:
            self.unknown(span, f"value of {enum}", value, values)
        t = T("enum", enum)
        if want is not None and not compatible(want, t):
            self.error(span, f"type mismatch: expected {want}, found {t}")
        return t

    def element(self, e: ast.Expr, env: dict[str, T]) -> T:
        t = self.expr(e, env)
        if t.kind == "any":
            return ANY
        if not t.is_collection:
            self.error(e.span, f"expected a list or set, found {t}")
            return ANY
        return t.arg or ANY

    def call_args(
        self, span: Span, name: str, ps: list[ast.Param], args: list[ast.Expr], env: dict[str, T]
    ) -> None:
        if len(args) != len(ps):
            self.error(span, f"{name} takes {len(ps)} argument(s), {len(args)} given")
        for p, a in zip(ps, args, strict=False):  # arity reported above
            self.expect(a, env, self.typeref(p.type))

    def expr(self, e: ast.Expr, env: dict[str, T]) -> T:
        t = self._expr(e, env)
        return t

    def _expr(self, e: ast.Expr, env: dict[str, T]) -> T:  # noqa: C901 - one case a node
        if isinstance(e, ast.IntLit):
            return INT
        if isinstance(e, ast.StrLit):
            return TEXT
        if isinstance(e, ast.Text):
            for part in e.parts:
                if isinstance(part, ast.Expr):
                    self.expr(part, env)
            return TEXT
        if isinstance(e, ast.BoolLit):
            return BOOL
        if isinstance(e, ast.Nothing):
            return ANY
        if isinstance(e, ast.RecordLit):
            for _, value in e.fields:
                self.expr(value, env)
            return T("struct")
        if isinstance(e, ast.Data):
            if e.collection not in self.sym.data_values:
                self.unknown(e.span, "data collection", e.collection, list(self.sym.data_values))
            rec = next(
                (
                    t
                    for t in self.sym.types.values()
                    if isinstance(t, ast.RecordDecl) and t.from_data == e.collection
                ),
                None,
            )
            return list_of(T("record", rec.name) if rec else ANY)
        if isinstance(e, ast.Name):
            return self.name(e, env)
        if isinstance(e, ast.Field):
            if isinstance(e.obj, ast.Name) and e.obj.id not in env and e.obj.id in self.sym.types:
                return self.enum_literal(e.obj.id, e.name, e.span)
            base = self.expr(e.obj, env)
            if base.kind == "any":
                return ANY
            found = self.sym.types.get(base.name) if base.kind == "record" else None
            rec = found if isinstance(found, ast.RecordDecl) else None
            if rec is None:
                self.error(e.span, f"{base} has no fields")
                return ANY
            for f in rec.fields:
                if f.name == e.name:
                    return self.typeref(f.type)
            self.unknown(e.span, f"field of {rec.name}", e.name, [f.name for f in rec.fields])
            return ANY
        if isinstance(e, ast.Call):
            return self.call(e, env)
        if isinstance(e, ast.Index):
            elem = self.element(e.obj, env)
            key = self.expr(e.index, env)
            by_name = key.kind in ("enum", "text") and elem.kind in ("record", "any")
            if not by_name and not compatible(INT, key):
                self.error(
                    e.index.span,
                    f"an index is a position (int) or, for data items, a name; found {key}",
                )
            return elem
        if isinstance(e, ast.ListLit):
            if not e.items:
                return list_of(ANY)
            first = self.expr(e.items[0], env)
            for item in e.items[1:]:
                self.expect(item, env, first)
            return list_of(first)
        if isinstance(e, ast.BinOp):
            return self.binop(e, env)
        if isinstance(e, ast.Not):
            self.expect(e.operand, env, BOOL)
            return BOOL
        if isinstance(e, ast.Neg):
            self.expect(e.operand, env, INT)
            return INT
        if isinstance(e, ast.Range):
            self.expect(e.lo, env, INT)
            self.expect(e.hi, env, INT)
            return list_of(INT)
        if isinstance(e, ast.If):
            self.expect(e.cond, env, BOOL)
            a = self.expr(e.then, env)
            self.expect(e.orelse, env, a)
            return a
        if isinstance(e, ast.Let):
            return self.expr(e.body, {**env, e.name: self.expr(e.value, env)})
        if isinstance(e, ast.Quant):
            scope = dict(env)
            for b in e.binders:
                elem = self.element(b.domain, scope)
                if b.type is not None:
                    declared = self.typeref(b.type)
                    if not compatible(declared, elem):
                        self.error(b.span, f"type mismatch: expected {declared}, found {elem}")
                    elem = declared
                scope[b.name] = elem
            self.expect(e.body, scope, BOOL)
            return BOOL
        if isinstance(e, ast.Count):
            scope = {**env, e.var: self.element(e.domain, env)}
            if e.where is not None:
                self.expect(e.where, scope, BOOL)
            return INT
        if isinstance(e, ast.Comp):
            scope = {**env, e.var: self.element(e.domain, env)}
            if e.where is not None:
                self.expect(e.where, scope, BOOL)
            return list_of(self.expr(e.value, scope))
        if isinstance(e, ast.Sum):
            scope = {**env, e.var: self.element(e.domain, env)}
            if e.where is not None:
                self.expect(e.where, scope, BOOL)
            self.expect(e.value, scope, INT)
            return INT
        raise AssertionError(f"unchecked node {type(e).__name__}")

    def name(self, e: ast.Name, env: dict[str, T]) -> T:
        if e.id in env:
            return env[e.id]
        d = self.sym.values.get(e.id)
        if isinstance(d, ast.ConstDecl) or (isinstance(d, ast.StateDecl) and not d.params):
            self._use(d)
            return self.typeref(d.type)
        if d is not None:
            self.error(e.span, f"'{e.id}' is a {d.kind}; call it with its arguments: {e.id}(...)")
            return ANY
        if e.id in self.sym.types:
            self.error(e.span, f"'{e.id}' is a type; name one of its values: {e.id}.<value>")
            return ANY
        known = [*env, *self.sym.values]
        self.unknown(e.span, "name", e.id, known)
        return ANY

    def call(self, e: ast.Call, env: dict[str, T]) -> T:
        if not isinstance(e.func, ast.Name):
            self.error(e.span, "only a definition, a table or a built-in function can be called")
            return ANY
        name = e.func.id
        d = self.sym.values.get(name)
        if isinstance(d, (ast.Define, ast.TableDecl, ast.StateDecl, ast.Extern)):
            self._use(d)
            params = [d.param] if isinstance(d, ast.TableDecl) else d.params
            self.call_args(e.span, name, params, e.args, env)
            return self.typeref(d.type) if d.type is not None else ANY  # an extern action's
        if isinstance(d, ast.ConstDecl):
            self.error(e.span, f"'{name}' is a constant; use it without parentheses")
            return self.typeref(d.type)
        if name in BUILTINS:
            return self.builtin(e, name, env)
        if name == "before" and self.in_effect:
            # a property after an action: the value in the position before the event
            if len(e.args) != 1:
                self.error(e.span, "before takes 1 argument(s)")
                return ANY
            return self.expr(e.args[0], env)
        self.unknown(e.func.span, "definition", name, [*self.sym.values, *BUILTINS])
        for a in e.args:
            self.expr(a, env)
        return ANY

    def builtin(self, e: ast.Call, name: str, env: dict[str, T]) -> T:
        lo, hi, _ = BUILTINS[name]
        if len(e.args) < lo or (hi >= 0 and len(e.args) > hi):
            self.error(e.span, f"{name} takes {lo if hi == lo else f'{lo} or more'} argument(s)")
            return INT
        if name == "size":
            self.element(e.args[0], env)
            return INT
        if name in ("includes", "without"):
            elem = self.element(e.args[0], env)
            self.expect(e.args[1], env, list_of(elem))
            return BOOL if name == "includes" else list_of(elem)
        if name in ("take", "drop"):
            elem = self.element(e.args[0], env)
            self.expect(e.args[1], env, INT)
            return list_of(elem)
        if name == "subsets":
            elem = self.element(e.args[0], env)
            self.expect(e.args[1], env, INT)
            return list_of(list_of(elem))
        if name == "last":
            return self.element(e.args[0], env)
        if name == "distinct":
            return list_of(self.element(e.args[0], env))
        if name == "shuffled":
            if not self.suggesting:
                self.error(
                    e.span,
                    "shuffled draws at random: it may stand only in a `propose` or"
                    " `alternatives` expression, which suggest events; what the referee judges"
                    " is never random",
                    "shuffle where the action's proposals are made, and let the rules judge"
                    " what is drawn",
                )
            return list_of(self.element(e.args[0], env))
        if name == "repeat":
            self.expect(e.args[1], env, INT)
            return list_of(self.expr(e.args[0], env))
        if name == "flatten":
            inner = self.element(e.args[0], env)
            if inner.kind not in ("list", "any"):
                self.error(e.span, f"flatten needs a list of lists, found list of {inner}")
            return inner if inner.kind == "list" else list_of(ANY)
        if name in ("min", "max") and len(e.args) == 1:
            elem = self.element(e.args[0], env)
            if not compatible(INT, elem):
                self.error(e.span, f"{name} of a list needs whole numbers, found {elem}")
            return INT
        for a in e.args:
            self.expect(a, env, INT)
        return INT

    def binop(self, e: ast.BinOp, env: dict[str, T]) -> T:
        if e.op in ("and", "or", "implies"):
            self.expect(e.left, env, BOOL)
            self.expect(e.right, env, BOOL)
            return BOOL
        if e.op == "in":
            elem = self.element(e.right, env)
            self.expect(e.left, env, elem)
            return BOOL
        left = self.expr(e.left, env)
        if e.op == "+" and left.kind == "list":
            self.expect(e.right, env, left)
            return left
        if e.op in EQUAL:
            self.expect(e.right, env, left)
            return BOOL
        if not compatible(INT, left):
            self.error(e.left.span, f"type mismatch: {e.op} needs whole numbers, found {left}")
        self.expect(e.right, env, INT)
        return BOOL if e.op in ORDER else INT
