"""Step invariants: properties that hold after every event the rules allow.

A bounded model of the position and of the event, translated from the same tree the
referee runs. A position is symbolic: each state cell a z3 array over its keys (a list
cell, one array a slot, at most the property's ``within`` bound of items); the
components (the map, the blocks) are concrete, their items enumerations. An event is
symbolic too: its arguments free constants, its lists bounded the same way. The
translator runs a transition's statements as z3 terms: ``check`` adds the requirement's
own condition (as the interpreter would evaluate it, overlays' exceptions included) to
the assumptions, ``set`` updates the arrays, ``for`` unrolls over the slots of a bounded
list, ``do`` inlines a routine, ``game over`` marks the game over.

The standing rules (``whenever``) fire after every write the interpreter makes; the
model does not follow them step by step. Instead, every cell a standing rule may write
is unknown after the event (and when read during it), and once the event is over, with
the game going on, no standing rule's condition holds (the interpreter runs them until
none does). A standing rule that always ends the game is followed: if it fired, the game
is over, and no event follows.

An invariant is proved in one of two ways. By the standing rules: every position in
which no standing rule is due satisfies it. Otherwise by induction on the transitions:
for each allowed action, step entry and trigger that writes a cell the invariant reads,
from a position that satisfies the invariant, with every check passing, the position
after satisfies it. A statement the translator cannot express makes the cells it writes
unknown (and a check it cannot express is left out): the model only ever allows more.
"""

from __future__ import annotations

from typing import Any

import z3

from referee.parse import ast
from referee.resolve.reads import reads
from referee.verify.cells import StateModel
from referee.verify.common import MAX_INLINE, Untranslatable, read_key
from referee.verify.fast import And, If, Or
from referee.verify.flow import checks_in, has_check, writes
from referee.verify.values import (
    ABSENT,
    SLIPS,
    Item,
    Rec,
    SList,
    Unknown,
    UnknownUsed,
    item_keys,
    term_bounds,
)

MAX_REPEAT = 64  # the most copies repeat(x, n) gives


class StepTranslator(StateModel):
    """The step model's expressions and statements: a transition run as z3 terms."""

    # ------------------------------------------------------------ expressions
    def expr(self, e: ast.Expr, env: dict[str, Any]) -> Any:  # noqa: C901 - one case a node
        if isinstance(e, ast.Nothing):
            return ABSENT
        if isinstance(e, ast.StrLit):
            return z3.StringVal(e.value)
        if isinstance(e, ast.Name):
            if e.id in env:
                if isinstance(env[e.id], Unknown):
                    raise Untranslatable(env[e.id].why)
                self.let_used(e.id)
                return env[e.id]
            if e.id in self.frame:
                return self.frame[e.id]
            d = self.sym.values.get(e.id)
            if isinstance(d, ast.StateDecl) and not d.params:
                self.used.add(d.clause)
                return self.read_cell(e.id, [])
            if isinstance(d, ast.ConstDecl):
                self.note(d)
                return self.expr(d.value, {})
            raise Untranslatable(f"the name '{e.id}'")
        if isinstance(e, ast.Data):
            sort, consts = self.item_sort(e.collection)
            rec = next(
                (
                    n
                    for n, d in self.sym.types.items()
                    if isinstance(d, ast.RecordDecl) and d.from_data == e.collection
                ),
                "",
            )
            items = [
                (z3.BoolVal(True), Item(e.collection, rec, consts[k]))
                for k in item_keys(self.collections.get(e.collection, []))
            ]
            return SList(items, ast.TypeRef(rec))
        if isinstance(e, ast.Field):
            if isinstance(e.obj, ast.Name) and e.obj.id not in env and e.obj.id in self.sym.types:
                return self.enum_sort(e.obj.id)[1][e.name]
            return self.field_of(self.expr(e.obj, env), e.name)
        if isinstance(e, ast.Index):
            if isinstance(e.obj, ast.Data):
                key = self.expr(e.index, env)
                rec = next(
                    n
                    for n, d in self.sym.types.items()
                    if isinstance(d, ast.RecordDecl) and d.from_data == e.obj.collection
                )
                return Item(e.obj.collection, rec, self.unwrap(key))
            lst = self.expr(e.obj, env)
            if not isinstance(lst, SList):
                raise Untranslatable("an index into something that is not a list")
            return self.at(lst, self.expr(e.index, env))
        if isinstance(e, ast.ListLit):
            items = [self.expr(i, env) for i in e.items]
            return SList([(z3.BoolVal(True), v) for v in items])
        if isinstance(e, ast.RecordLit):
            return Rec({k: self.expr(v, env) for k, v in e.fields})
        if isinstance(e, ast.Range):
            return self.range(e, env)
        if isinstance(e, (ast.Count, ast.Sum, ast.Comp)):
            return self.fold(e, env)
        if isinstance(e, ast.If):
            return self.ite(
                self.expr(e.cond, env), self.expr(e.then, env), self.expr(e.orelse, env)
            )
        if isinstance(e, ast.Text):
            raise Untranslatable("text built from values")
        return super().expr(e, env)

    def range(self, e: ast.Range, env: dict[str, Any]) -> SList:
        lo, hi = z3.simplify(self.expr(e.lo, env)), z3.simplify(self.expr(e.hi, env))
        if z3.is_int_value(lo) and z3.is_int_value(hi):
            a, b = lo.as_long(), hi.as_long()
            if b - a > 4096:
                raise Untranslatable("a range of more than 4096 numbers")
            return SList([(z3.BoolVal(True), z3.IntVal(i)) for i in range(a, b + 1)])
        top, bottom = term_bounds(hi, self.fn_bounds)[1], term_bounds(lo, self.fn_bounds)[0]
        if top is None or bottom is None:
            raise Untranslatable("a range whose ends the model does not bound")
        if top - bottom > 4096:
            raise Untranslatable("a range of more than 4096 numbers")
        return SList([(lo + k <= hi, lo + k) for k in range(max(0, top - bottom + 1))])

    def fold(self, e: ast.Count | ast.Sum | ast.Comp, env: dict[str, Any]) -> Any:
        dom = self.expr(e.domain, env)
        if not isinstance(dom, SList):
            raise Untranslatable("a loop over something that is not a list")
        slots = []
        for p, x in dom.slots:
            scope = {**env, e.var: x}
            keep = p if e.where is None else And(p, self.expr(e.where, scope))
            value = None if isinstance(e, ast.Count) else self.expr(e.value, scope)
            slots.append((keep, value))
        if isinstance(e, ast.Count):
            return z3.Sum([If(k, 1, 0) for k, _ in slots]) if slots else z3.IntVal(0)
        if isinstance(e, ast.Sum):
            return z3.Sum([If(k, v, 0) for k, v in slots]) if slots else z3.IntVal(0)
        return SList(slots)

    def quant(self, e: ast.Quant, env: dict[str, Any]) -> Any:
        def go(i: int, scope: dict[str, Any]) -> Any:
            if i == len(e.binders):
                return self.expr(e.body, scope)
            b = e.binders[i]
            try:
                dom = self.expr(b.domain, scope)
            except Untranslatable:
                if not isinstance(b.domain, ast.Range):
                    raise
                dom = None
            if isinstance(dom, SList):
                parts = [(p, go(i + 1, {**scope, b.name: x})) for p, x in dom.slots]
                if e.kind == "forall":
                    return And(*[z3.Implies(p, v) for p, v in parts])
                return Or(*[And(p, v) for p, v in parts])
            # a range of numbers: z3's own quantifier
            self.fresh += 1
            x = self.const(f"{b.name}_{self.fresh}", b.type, b.domain)
            c = self.domain(x, b.domain, scope)
            body = go(i + 1, {**scope, b.name: x})
            if e.kind == "forall":
                return z3.ForAll([x], z3.Implies(c, body))
            return z3.Exists([x], z3.And(c, body))

        return go(0, env)

    def binop(self, e: ast.BinOp, env: dict[str, Any]) -> Any:
        if e.op in ("==", "!=", "in", "+") or e.op in ("and", "or", "implies"):
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            if e.op == "==":
                return self.eq(a, b)
            if e.op == "!=":
                return z3.Not(self.eq(a, b))
            if e.op == "in":
                if not isinstance(b, SList):
                    raise Untranslatable("'in' something that is not a list")
                return (
                    Or(*[And(p, self.eq(a, x)) for p, x in b.slots])
                    if b.slots
                    else (z3.BoolVal(False))
                )
            if e.op == "+" and isinstance(a, SList) and isinstance(b, SList):
                return SList(a.slots + b.slots, a.elem or b.elem)
            ops = {
                "+": lambda: a + b,
                "and": lambda: And(a, b),
                "or": lambda: Or(a, b),
                "implies": lambda: z3.Implies(a, b),
            }
            return ops[e.op]()
        return super().binop(e, env)

    def call(self, e: ast.Call, env: dict[str, Any]) -> Any:  # noqa: C901 - one case a builtin
        assert isinstance(e.func, ast.Name)
        name = e.func.id
        d = self.sym.values.get(name)
        if d is None and name == "before" and len(e.args) == 1:
            if self.before_frame is None:
                raise Untranslatable("before(...) outside a property after an action")
            saved, self.frame = self.frame, self.before_frame
            self.before_mode = True
            try:
                return self.expr(e.args[0], env)
            finally:
                self.before_mode = False
                self.frame = saved
        if isinstance(d, ast.StateDecl):
            self.used.add(d.clause)
            return self.read_cell(name, [self.expr(a, env) for a in e.args])
        if d is not None:  # a definition is inlined, a table looked up, as for any property
            return super().call(e, env)
        args = [self.expr(a, env) for a in e.args]
        lists = [a for a in args if isinstance(a, SList)]
        if name in ("min", "max") and len(args) == 1 and lists:
            lst = lists[0]
            out: Any = None
            for p, x in lst.slots:
                if out is None:
                    out = x  # a list max and min are asked of starts with a known item
                    continue
                better = (x < out) if name == "min" else (x > out)
                out = z3.If(z3.And(p, better), x, out)
            if out is None:
                raise Untranslatable(f"the {name} of an empty list")
            return out
        if name == "repeat" and len(args) == 2:
            top = term_bounds(z3.simplify(args[1]), self.fn_bounds)[1]
            if top is None or top > MAX_REPEAT:
                raise Untranslatable("repeat of a number the model does not bound")
            return SList([(z3.IntVal(k) < args[1], args[0]) for k in range(max(0, top))])
        if name == "size" and lists:
            return self.size(lists[0])
        if name in ("take", "drop") and lists:
            lst, n = args[0], args[1]
            return SList(
                [
                    (z3.And(p, (r < n) if name == "take" else (r >= n)), x)
                    for (p, x), r in zip(lst.slots, self.ranks(lst), strict=False)
                ],
                lst.elem,
            )
        if name == "last" and lists:
            return self.at(lists[0], self.size(lists[0]) - 1)
        if name == "flatten" and lists:
            slots = []
            for p, inner in lists[0].slots:
                if not isinstance(inner, SList):
                    raise Untranslatable("flatten of a list of non-lists")
                slots += [(z3.And(p, q), x) for q, x in inner.slots]
            return SList(slots)
        if name == "distinct" and lists:
            lst = lists[0]
            slots = []
            for i, (p, x) in enumerate(lst.slots):
                seen = [z3.And(q, self.eq(y, x)) for q, y in lst.slots[:i]]
                slots.append((z3.And(p, z3.Not(z3.Or(*seen))) if seen else p, x))
            return SList(slots, lst.elem)
        if name == "includes" and len(lists) == 2:
            a, b = args
            return z3.And(
                *[z3.Implies(p, self.count_of(b, x) <= self.count_of(a, x)) for p, x in b.slots]
            )
        if name == "without" and len(lists) == 2:
            a, b = args
            slots = []
            for i, (p, x) in enumerate(a.slots):
                so_far = self.count_of(a, x, i + 1)
                slots.append((z3.And(p, so_far > self.count_of(b, x)), x))
            return SList(slots, a.elem)
        return super().call(e, env)

    # ------------------------------------------------------------ statements
    def run(self, stmts: list[ast.Stmt], env: dict[str, Any]) -> dict[str, Any]:
        for st in stmts:
            env = self.stmt(st, env)
        return env

    relevant: set[str] | None = None  # when given: what the statements kept may read or set
    all_checks = False  # every check is kept (a counterexample's event is then legal)
    # when given, the checks are not assumed but gathered (whether an event is allowed), and
    # those that cannot be translated are named in unchecked
    collected: list[tuple[Any, Any, str, set[str], set[str]]] | None = None
    strict = False  # what cannot be translated leaves the proof skipped, not assumed away
    unchecked: list[str] = []
    let_reads: dict[str, set[str]] = {}
    # a `let`'s name: the declarations and clauses its translation read, counted as read
    # (self.read, self.used) only when a statement kept uses the name
    let_notes: dict[str, tuple[set[str], set[str]]] = {}

    def let_used(self, name: str) -> None:
        notes = self.let_notes.get(name)
        if notes is not None:
            self.read |= notes[0]
            self.used |= notes[1]

    def reads_of(self, exprs: list[ast.Expr], env_names: list[str]) -> set[str]:
        out = reads(exprs, self.sym)
        for n in [*env_names, *out]:
            out = out | self.let_reads.get(n, set())
        return out

    def sliced(self, st: ast.Stmt, env: dict[str, Any]) -> bool:
        """Whether a statement is left out: it sets nothing the property reads (what it sets
        is unknown from here on), or it checks nothing the property reads."""
        if self.relevant is None:
            return False
        if isinstance(st, ast.CheckStmt):
            if self.all_checks:
                return False
            req = self.sym.labels.get(str(st.ref))
            names = [p.name for p in req.params] if isinstance(req, ast.Require) else []
            got = self.reads_of(st.args or [], names if st.args is None else [])
            return not (got & self.relevant)
        if self.all_checks and isinstance(st, ast.DoStmt) and has_check([st]):
            return False  # its checks are the event's too
        if isinstance(st, (ast.SetStmt, ast.DoStmt)) and not (
            writes([st], self.sym) & self.relevant
        ):
            self.forget(writes([st], self.sym))
            return True
        return False

    def forget(self, names: set[str]) -> None:
        self.dirty = self.dirty or bool(names)
        for name in names:
            if name in self.frame:
                d = self.frame_types.get(name)
                if d is not None:
                    self.frame[name] = self.fresh_value(d, name)
            else:
                self.havoc.add(name)
                self.forgotten.add(name)
                self.cells.pop(name, None)

    def stmt(self, st: ast.Stmt, env: dict[str, Any]) -> dict[str, Any]:  # noqa: C901
        where = f"{st.span.file}:{st.span.start}:{st.span.end}"
        if isinstance(st, ast.TellStmt) or self.sliced(st, env):
            self.left_out.add(where)  # a tell changes nothing the model holds
            return env
        if not isinstance(st, ast.CheckStmt):  # a check counts as kept if the proof needs it
            self.kept.add(where)
        if isinstance(st, ast.LetStmt):
            self.let_reads = {**self.let_reads, st.name: self.reads_of([st.value], [])}
            # what its translation reads counts once a statement kept uses the name
            with self.apart() as notes:
                try:
                    return {**env, st.name: self.expr(st.value, env)}
                except (Untranslatable, *SLIPS) as err:
                    self.missed.add(str(err))
                    return {**env, st.name: Unknown(str(err))}
                finally:
                    self.let_notes = {**self.let_notes, st.name: notes}
        if isinstance(st, ast.CheckStmt) and self.collected is not None:
            with self.apart() as (read, used):
                try:
                    cond = self.requirement(st, env)
                except (Untranslatable, UnknownUsed, *SLIPS) as err:
                    self.unchecked = [*self.unchecked, f"{st.ref}: {err}"]
                    return env
            self.collected.append((self.guard, cond, where, read, used))
            return env
        if isinstance(st, ast.CheckStmt):
            with self.apart() as (read, used):
                try:
                    cond = z3.Implies(self.guard, self.requirement(st, env))
                except (Untranslatable, UnknownUsed, *SLIPS) as err:
                    self.missed.add(f"{st.ref}: {err}")  # left out: more is allowed, not less
                    return env
            self.track(cond, where, read, used)
            return env
        if isinstance(st, ast.GameOverStmt):
            self.over = z3.Or(self.over, self.guard)
            return env
        try:
            if isinstance(st, ast.SetStmt):
                self.set(st, env)
            elif isinstance(st, ast.IfStmt):
                c = self.expr(st.cond, env)
                saved = self.guard
                self.guard = z3.And(saved, c)
                self.run(st.then, env)
                self.guard = z3.And(saved, z3.Not(c))
                self.run(st.orelse, env)
                self.guard = saved
            elif isinstance(st, ast.ForStmt):
                dom = self.expr(st.domain, env)
                if not isinstance(dom, SList):
                    raise Untranslatable("a loop over something that is not a list")
                saved = self.guard
                for p, x in dom.slots:
                    self.guard = z3.And(saved, p)
                    self.run(st.body, {**env, st.var: x})
                self.guard = saved
            elif isinstance(st, ast.DoStmt):
                callee = self.sym.actions.get(st.name)
                if not isinstance(callee, ast.Routine):
                    return env  # a procedure starts: its steps are transitions of their own
                args = [self.expr(a, env) for a in st.args]
                self.note(callee)
                self.depth += 1
                if self.depth > MAX_INLINE:
                    raise Untranslatable(f"{st.name} calls itself too deeply")
                outer, self.let_notes = self.let_notes, {}
                try:
                    self.run(
                        callee.body, {p.name: a for p, a in zip(callee.params, args, strict=True)}
                    )
                finally:
                    self.depth -= 1
                    self.let_notes = outer
        except (Untranslatable, UnknownUsed, *SLIPS) as err:
            # what it may write is unknown from here on
            self.missed.add(str(err))
            self.forget(writes([st], self.sym))
            if self.collected is not None and checks_in([st], self.sym):
                self.unchecked = [*self.unchecked, f"{', '.join(checks_in([st], self.sym))}: {err}"]
        return env

    def set(self, st: ast.SetStmt, env: dict[str, Any]) -> None:
        t = st.target
        if isinstance(t, ast.Name):
            name, args = t.id, []
        elif isinstance(t, ast.Call) and isinstance(t.func, ast.Name):
            name, args = t.func.id, [self.expr(a, env) for a in t.args]
        else:
            raise Untranslatable("a target that is not a state cell")
        value = self.expr(st.value, env)
        if st.op != "=":
            old = self.frame[name] if name in self.frame else self.read_cell(name, args)
            if isinstance(old, SList):
                if st.op != "+=" or not isinstance(value, SList):
                    raise Untranslatable("-= on a list")
                value = SList(old.slots + value.slots, old.elem)
            else:
                value = old + value if st.op == "+=" else old - value
        if name in self.frame:
            self.frame[name] = self.ite(self.guard, value, self.frame[name])
            self.dirty = True
            return
        self.write_cell(name, args, value)

    def requirement(self, st: ast.CheckStmt, env: dict[str, Any]) -> Any:
        ref = str(st.ref)
        if ref in self.sym.dropped:
            return z3.BoolVal(True)
        req = self.sym.labels[ref]
        assert isinstance(req, ast.Require)
        self.note(req, ref)
        args = st.bind(req, env, self.frame, lambda a: self.expr(a, env))
        if st.args is None:
            for p in req.params:
                if p.name in env:
                    self.let_used(p.name)
        for v in args.values():
            if isinstance(v, Unknown):
                raise UnknownUsed(v.why)
        conds = [self.expr(req.cond, dict(args))]
        for cond, oid in self.sym.exceptions.get(ref, []):
            self.read.add(read_key(f"except {ref}", oid))
            conds.append(self.expr(cond, dict(args)))
        return z3.Or(*conds)
