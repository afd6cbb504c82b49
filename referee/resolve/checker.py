"""Resolve and check a parsed spec: names, clause references, types.

Problems are collected, not raised one at a time, so one run of
``referee spec check`` shows everything wrong with a spec.
"""

from __future__ import annotations

import difflib
from dataclasses import fields, is_dataclass
from typing import Any

from referee.errors import Problem, Span
from referee.parse import ast
from referee.resolve.expressions import ExpressionChecker
from referee.resolve.hidden import check_hidden
from referee.resolve.symbols import Symbols
from referee.resolve.types import ANY, BOOL, INT, T, compatible, list_of

MAX_WITHIN = 64  # the most items a property's bounded model gives a list


class Checker(ExpressionChecker):
    # ------------------------------------------------------------ pass 1: declarations
    def declare(self) -> None:
        for mod in self.modules:
            for p in mod.printings:
                if p.id in self.sym.printings:
                    self.error(p.span, f"duplicate printing '{p.id}'")
                self.sym.printings[p.id] = p
            for ext in mod.externs:
                table = self.sym.actions if ext.action else self.sym.values
                self._add(table, ext)
            for c in mod.clauses:
                prev = self.sym.clauses.get(c.number)
                if prev is not None:
                    self.error(
                        c.span,
                        f"duplicate clause id {c.number}",
                        f"first declared at {prev.span}",
                    )
                    continue
                self.sym.clauses[c.number] = c
                self.clause = c.number
                for d in c.decls:
                    self._declare_decl(c, d)
                self.clause = ""
            for o in mod.overlays:
                if o.id in self.sym.overlays:
                    self.error(o.span, f"duplicate overlay '{o.id}'")
                self.sym.overlays[o.id] = o

    def _declare_decl(self, c: ast.Clause, d: ast.Decl) -> None:
        if isinstance(d, (ast.EnumDecl, ast.RecordDecl)):
            self._add(self.sym.types, d)
        elif isinstance(d, (ast.ConstDecl, ast.Define, ast.TableDecl, ast.StateDecl)):
            self._add(self.sym.values, d)
        elif isinstance(d, ast.Routine):
            self._add(self.sym.actions, d)
        elif isinstance(d, ast.Procedure):
            self._add(self.sym.actions, d)
            for t in d.triggers + [t for s in d.steps for t in s.triggers]:
                self._label(c, t)
        elif isinstance(d, (ast.Require, ast.Property, ast.Trigger)):
            self._label(c, d)
        elif isinstance(d, ast.Whenever):
            self._label(c, d)
            self.sym.standing.append(d)

    def _add(self, table: dict[str, Any], d: ast.Decl) -> None:
        for other in (self.sym.types, self.sym.values, self.sym.actions):
            prev: ast.Decl | None = other.get(d.name)
            if prev is not None:
                self.error(d.span, f"'{d.name}' is already declared", f"first at {prev.span}")
                return
        table[d.name] = d

    def _label(self, c: ast.Clause, d: ast.Decl) -> None:
        key = f"{c.number}/{d.name}"
        if key in self.sym.labels:
            self.error(d.span, f"duplicate label [{d.name}] in clause {c.number}")
        self.sym.labels[key] = d

    # ------------------------------------------------------------ pass 2: bodies
    def check(self) -> Symbols:
        self.declare()
        for mod in self.modules:
            for g in mod.games:
                self.game(g)
        for mod in self.modules:
            for ext in mod.externs:
                self.clause = ""
                for p in ext.params:
                    self.typeref(p.type)
                if ext.type is not None:
                    self.typeref(ext.type)
            for c in mod.clauses:
                self.clause = c.number
                for pid in c.printings:
                    if pid not in self.sym.printings:
                        where = c.printing_spans.get(pid, c.span)
                        self.unknown(where, "printing", pid, list(self.sym.printings))
                for ref in c.see:
                    self.ref(ref, use=False)
                for d in c.decls:
                    self.decl(d)
            for o in mod.overlays:
                self.overlay(o)
        self.clause = ""
        check_hidden(self, [h for mod in self.modules for h in mod.hidden])
        self.conflicts()
        return self.sym

    def conflicts(self) -> None:
        """Two overlays that can be in force together must not amend one thing differently."""
        seen: dict[str, tuple[ast.Overlay, ast.Change]] = {}
        for o in self.sym.overlays.values():
            for am in o.amends:
                for ch in am.changes:
                    key = f"{am.clause}/{ch.decl.name}" if ch.decl is not None else str(ch.ref)
                    prev = seen.get(key)
                    if prev is None:
                        seen[key] = (o, ch)
                        continue
                    other, och = prev
                    together = _together(other, o)
                    if together and _differ(och, ch):
                        self.error(
                            ch.span,
                            f"overlays {other.id} and {o.id} amend {key} in different ways,"
                            f" and are in force together ({together})",
                            "give them different printings, or merge them into one overlay",
                        )

    def game(self, g: ast.Game) -> None:
        if g.players:
            self.players = self.typeref(ast.TypeRef(g.players, None, g.span))
            self.sym.players = g.players
        self.sym.start = g.start
        if g.start and g.start not in self.sym.procedures():
            self.unknown(g.span, "procedure", g.start, list(self.sym.procedures()))
        if g.turns:
            counter = self.sym.values.get(g.turns)
            if not (isinstance(counter, ast.StateDecl) and not counter.params):
                counters = [
                    k
                    for k, v in self.sym.values.items()
                    if isinstance(v, ast.StateDecl) and not v.params
                ]
                close = difflib.get_close_matches(g.turns, counters, n=1)
                self.error(
                    g.span,
                    f"turns {g.turns}: the turn counter must be a state without parameters",
                    f"did you mean '{close[0]}'?" if close else "declare it: state NAME: int = 1",
                )
            self.sym.turns = g.turns

    def decl(self, d: ast.Decl) -> None:
        for oid in d.decisions:
            o = self.sym.overlays.get(oid)
            if o is None:
                self.unknown(
                    d.span,
                    "decision",
                    oid,
                    [k for k, o in self.sym.overlays.items() if o.kind == "decision"],
                )
            elif o.kind not in ("decision", "clarification"):
                self.error(
                    d.span,
                    f"{oid} is an overlay of kind {o.kind or 'none'}: only a decision or a"
                    " clarification can settle a reading",
                )
        if isinstance(d, ast.EnumDecl):
            if d.from_data and d.from_data not in self.sym.data_values:
                self.unknown(d.span, "data collection", d.from_data, list(self.sym.data_values))
        elif isinstance(d, ast.RecordDecl):
            for f in d.fields:
                ft = self.typeref(f.type)
                if f.default is not None:
                    self.expect(f.default, {}, ft)
            if d.from_data and d.from_data not in self.sym.data_values:
                self.unknown(d.span, "data collection", d.from_data, list(self.sym.data_values))
        elif isinstance(d, ast.StateDecl):
            self.expect(d.value, self.params(d.params), self.typeref(d.type))
        elif isinstance(d, ast.ConstDecl):
            self.expect(d.value, {}, self.typeref(d.type))
        elif isinstance(d, ast.Define):
            self.expect(d.body, self.params(d.params), self.typeref(d.type))
        elif isinstance(d, ast.TableDecl):
            self.table(d)
        elif isinstance(d, ast.Require):
            env = self.params(d.params)
            self.expect(d.cond, env, BOOL)
            for part in d.parts:
                if isinstance(part, ast.Expr):
                    self.expr(part, env)
        elif isinstance(d, ast.Property):
            # a step invariant may read the parameters and variables of the procedures (of
            # one procedure)
            frame: dict[str, T] = {}
            if d.invariant:
                for proc in self.sym.procedures().values():
                    for v in proc.vars:
                        frame.setdefault(v.name, self.typeref(v.type))
                    for q in proc.params:
                        frame.setdefault(q.name, self.typeref(q.type))
            action = d.after or d.allows
            if action:
                every = [
                    a
                    for proc in self.sym.procedures().values()
                    for st in proc.steps
                    for a in st.allows
                ]
                allows = [a for a in every if a.name == action]
                if not allows:
                    self.unknown(d.span, "action", action, sorted({a.name for a in every}))
                shapes = {", ".join(f"{q.name}: {q.type}" for q in a.params) for a in allows}
                if len(shapes) > 1:
                    self.error(
                        d.span,
                        f"the steps that allow '{action}' give it different parameters"
                        f" ({'; '.join(sorted(sh or 'none' for sh in shapes))}):"
                        " a property of the action reads them alike in every step",
                    )
                for a in allows:
                    for q in a.params:
                        frame.setdefault(q.name, self.typeref(q.type))
                frame["by"] = self.players
            self.in_effect = bool(d.after)
            try:
                self.expect(d.body, frame, BOOL)
            finally:
                self.in_effect = False
            for name, n in d.within.items():
                if name not in self.sym.types and name not in ("int", "bool", "text"):
                    self.unknown(d.span, "type", name, sorted(self.sym.types))
                if n > MAX_WITHIN:
                    self.error(
                        d.span,
                        f"within {n} {name}: a bounded model holds at most {MAX_WITHIN} items"
                        " a list (the proof grows with every slot)",
                    )
        elif isinstance(d, ast.Procedure):
            self.procedure(d)
        elif isinstance(d, ast.Routine):
            self.stmts(d.body, self.params(d.params), None)
        elif isinstance(d, ast.Trigger):
            self.expect(d.cond, {}, BOOL)
            self.stmts(d.body, {}, None)
        elif isinstance(d, ast.Whenever):
            env = self.params(d.params)
            combinations = 1
            for p in d.params:
                if env[p.name].kind != "enum":
                    self.error(
                        p.span,
                        f"a standing rule's parameter ranges over a finite set: '{p.name}' is"
                        f" {env[p.name]}, not an enum",
                    )
                    continue
                e = self.sym.types.get(env[p.name].name)
                if isinstance(e, ast.EnumDecl):
                    combinations *= len(e.values or self.sym.data_values.get(e.from_data, ()))
            if combinations > 100_000:
                self.error(
                    d.span,
                    f"standing rule [{d.name}] ranges over {combinations:,} combinations of its"
                    " parameters; at most 100,000",
                )
            self.expect(d.cond, env, BOOL)
            self.stmts(d.body, env, None)

    def table(self, d: ast.TableDecl) -> None:
        key_t = self.typeref(d.param.type)
        val_t = self.typeref(d.type)
        seen: set[object] = set()
        for row in d.rows:
            if row.key_kind in ("int", "range", "from", "upto"):
                if not compatible(INT, key_t):
                    self.error(row.span, f"a number key needs an int parameter, not {key_t}")
                ints = [int(k) for k in row.key]  # type: ignore[call-overload]
                if row.key_kind == "range" and ints[0] > ints[1]:
                    self.error(row.span, f"empty range {ints[0]}..{ints[1]}")
                keys: set[object] = (
                    set(range(ints[0], ints[1] + 1)) if row.key_kind == "range" else {ints[0]}
                )
            elif row.key_kind == "enum":
                self.enum_literal(str(row.key[0]), str(row.key[1]), row.span, key_t)
                keys = {row.key[1]}
            else:
                if not compatible(BOOL, key_t):
                    self.error(row.span, f"a true/false key needs a bool parameter, not {key_t}")
                keys = {row.key[0]}
            if keys & seen:
                self.error(row.span, "this row's key is already covered by an earlier row")
            seen |= keys
            self.expect(row.value, {}, val_t)

    def procedure(self, d: ast.Procedure) -> None:
        env = self.params(d.params)
        for v in d.vars:
            t = self.typeref(v.type)
            self.expect(v.value, env, t)
            env[v.name] = t
        steps = {s.name for s in d.steps}
        for s in d.steps:
            if s.clause:
                self.ref(ast.Ref(s.clause, "", s.span))
            if s.actor is not None:  # one player, or a list of those who may act
                got = self.expr(s.actor, env)
                if not (compatible(self.players, got) or compatible(list_of(self.players), got)):
                    self.error(
                        s.actor.span,
                        f"type mismatch: expected {self.players} or {list_of(self.players)},"
                        f" found {got}",
                    )
            # what a step that names its clause sets, that clause computes
            self.step_clause = s.clause
            self.stmts(s.enter, env, d)
            for a in s.allows:
                if a.clause:
                    self.ref(ast.Ref(a.clause, "", a.span))
                if a.propose is not None:
                    self.proposal(a, {**env, "by": self.players})
                if a.choices is not None:  # read as a proposal; may say how each is shown
                    self.proposal(
                        a,
                        {**env, "by": self.players},
                        a.choices,
                        ast.ALTERNATIVE_FIELDS,
                        "choices are",
                    )
                local = self.params(a.params, {**env, "by": self.players})
                if a.alternatives is not None:
                    self.alternatives(a, local)
                for r in a.requires:
                    self.ref(r)
                self.stmts(a.effects, local, d)
                if a.then and a.then not in steps:
                    self.unknown(a.span, f"step of procedure {d.name}", a.then, sorted(steps))
            self.step_clause = ""
            for cond, then in s.ends:
                if isinstance(cond, ast.CheckStmt):  # `ends unless 8.9.2/label(args)`
                    self.check_stmt(cond, env)
                else:
                    self.expect(cond, env, BOOL)
                if then and then not in steps:  # located at its condition's line
                    self.unknown(cond.span, f"step of procedure {d.name}", then, sorted(steps))
        for trig in d.triggers + [t for s in d.steps for t in s.triggers]:
            self.expect(trig.cond, env, BOOL)
            self.stmts(trig.body, env, d)

    def proposal(
        self,
        a: ast.Allow,
        env: dict[str, T],
        given: ast.Expr | None = None,
        extra: tuple[str, ...] = (),
        what: str = "a proposal is",
    ) -> None:
        """A list of argument records, each naming the action's parameters with their types
        (and the ``extra`` fields)."""
        proposed = given if given is not None else a.propose
        self.suggesting = True  # shuffled(...) may draw here, and only here
        try:
            t = self.expr(proposed, env) if proposed is not None else ANY
        finally:
            self.suggesting = False
        if t.kind not in ("list", "any"):
            self.error(proposed.span if proposed else a.span, f"{what} a list, not {t}")
        params = {p.name: p for p in a.params}
        stack: list[Any] = [proposed]
        while stack:
            e = stack.pop()
            if isinstance(e, ast.RecordLit):
                for name, value in e.fields:
                    if name in extra:
                        continue
                    if name not in params:
                        self.unknown(
                            value.span, f"argument of {a.name}", name, list(params) + list(extra)
                        )
                continue
            if isinstance(e, (ast.ListLit,)):
                stack.extend(e.items)
            elif isinstance(e, ast.Comp):
                stack.append(e.value)
            elif isinstance(e, ast.BinOp) and e.op == "+":
                stack += [e.left, e.right]
            elif isinstance(e, ast.Call) and getattr(e.func, "id", "") == "flatten":
                stack.extend(e.args)
            elif isinstance(e, ast.If):
                stack += [e.then, e.orelse]

    def alternatives(self, a: ast.Allow, env: dict[str, T]) -> None:
        """Read like a proposal, with the refused event's arguments in scope; a record may
        also say how a verdict shows it (``shown``) and which are alike (``key``)."""
        assert a.alternatives is not None
        for p in a.params:
            if p.name in ast.ALTERNATIVE_FIELDS:
                self.error(
                    p.span,
                    f"an action with alternatives cannot have a parameter named '{p.name}':"
                    f" {', '.join(ast.ALTERNATIVE_FIELDS)} say how an alternative is shown",
                )
        self.proposal(a, env, a.alternatives, ast.ALTERNATIVE_FIELDS, "alternatives are")

    def stmts(self, body: list[ast.Stmt], env: dict[str, T], proc: ast.Procedure | None) -> None:
        scope = dict(env)
        for st in body:
            if isinstance(st, ast.SetStmt):
                st.clause = st.clause or self.step_clause or self.clause
                target = self.expr(st.target, scope)
                if not self.settable(st.target, scope):
                    self.error(
                        st.target.span,
                        "only game state (a `state` or a procedure's `var`) can be set",
                    )
                if st.op == "=":
                    self.expect(st.value, scope, target)
                else:
                    if not compatible(INT, target):
                        self.error(st.span, f"{st.op} needs a whole number, not {target}")
                    self.expect(st.value, scope, INT)
            elif isinstance(st, ast.DoStmt):
                callee = self.sym.actions.get(st.name)
                if callee is None:
                    self.unknown(st.span, "action or procedure", st.name, list(self.sym.actions))
                    for a in st.args:
                        self.expr(a, scope)
                    continue
                self._use(callee)
                ps = (
                    callee.params
                    if isinstance(callee, (ast.Extern, ast.Procedure, ast.Routine))
                    else []
                )
                self.call_args(st.span, st.name, ps, st.args, scope)
            elif isinstance(st, ast.IfStmt):
                self.expect(st.cond, scope, BOOL)
                self.stmts(st.then, scope, proc)
                self.stmts(st.orelse, scope, proc)
            elif isinstance(st, ast.ForStmt):
                elem = self.element(st.domain, scope)
                self.stmts(st.body, {**scope, st.var: elem}, proc)
            elif isinstance(st, ast.LetStmt):
                scope[st.name] = self.expr(st.value, scope)
            elif isinstance(st, ast.CheckStmt):
                self.check_stmt(st, scope)
            elif isinstance(st, ast.GameOverStmt):
                st.clause = self.clause
            elif isinstance(st, ast.TellStmt):
                if st.clause and st.clause not in self.sym.clauses:
                    self.error(st.span, f"no clause {st.clause} to tell of")
                st.clause = st.clause or self.clause
                named: dict[str, ast.Expr] = {}
                for name, e in st.names:
                    self.expr(e, scope)
                    first = named.setdefault(name, e)
                    if first is not e and not _alike(first, e):  # `{l}` twice is one number
                        self.error(
                            e.span,
                            f"two numbers of this tell are named '{name}'",
                            "give each a name of its own: {name = expression}",
                        )

    def settable(self, target: ast.Expr, scope: dict[str, T]) -> bool:
        if isinstance(target, ast.Name):
            return target.id in scope or isinstance(self.sym.values.get(target.id), ast.StateDecl)
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Name):
            return isinstance(self.sym.values.get(target.func.id), ast.StateDecl)
        return False

    def check_stmt(self, st: ast.CheckStmt, scope: dict[str, T]) -> None:
        req = self.ref(st.ref)
        if req is None:
            return
        if not isinstance(req, ast.Require):
            what = req.kind if isinstance(req, ast.Decl) else "clause"
            self.error(st.span, f"{st.ref} is a {what}, not a requirement")
            return
        if st.args is not None:
            self.call_args(st.span, str(st.ref), req.params, st.args, scope)
            return
        for p in req.params:
            if p.name not in scope:
                self.error(
                    st.span,
                    f"{st.ref} needs '{p.name}', and nothing of that name is in scope here",
                    "pass its arguments in order: check " + str(st.ref) + "(...)",
                )
            elif not compatible(self.typeref(p.type), scope[p.name]):
                self.error(
                    st.span,
                    f"{st.ref} needs '{p.name}' as {self.typeref(p.type)}, found {scope[p.name]}",
                )

    def overlay(self, o: ast.Overlay) -> None:
        self.clause = ""
        for pid in o.printings:
            if pid not in self.sym.printings:
                self.unknown(o.span, "printing", pid, list(self.sym.printings))
        for am in o.amends:
            clause = self.sym.clauses.get(am.clause)
            if clause is None:
                self.error(
                    am.span,
                    f"overlay {o.id} amends a missing clause {am.clause}",
                    "an overlay can only amend a clause the spec declares",
                )
                continue
            self.clause = am.clause
            for ch in am.changes:
                self.change(o, clause, ch)
        self.clause = ""

    def change(self, o: ast.Overlay, clause: ast.Clause, ch: ast.Change) -> None:
        if ch.decl is not None:
            target = next((d for d in clause.decls if d.name == ch.decl.name), None)
            if ch.action == "replace" and (target is None or target.kind != ch.decl.kind):
                self.error(
                    ch.span,
                    f"overlay {o.id} replaces {ch.decl.kind} '{ch.decl.name}', "
                    f"which clause {clause.number} does not declare",
                )
                return
            if ch.action == "add" and target is not None:
                self.error(ch.span, f"clause {clause.number} already declares '{ch.decl.name}'")
                return
            self.decl(ch.decl)
            return
        assert ch.ref is not None
        if ch.ref.clause != clause.number:
            self.error(ch.ref.span, f"this amendment of {clause.number} names {ch.ref.clause}")
            return
        target_decl = self.ref(ch.ref)
        if ch.action == "except" and ch.cond is not None:
            env = self.params(target_decl.params) if isinstance(target_decl, ast.Require) else {}
            self.expect(ch.cond, env, BOOL)


def _together(a: ast.Overlay, b: ast.Overlay) -> str:
    """When two overlays are both in force by themselves: by default, or under one printing."""
    if a.default and b.default:
        return "both on by default"
    if a.default or b.default:
        printings = b.printings if a.default else a.printings
        return f"printing {printings[0]}" if printings else ""
    shared = sorted(set(a.printings) & set(b.printings))
    return f"printing {shared[0]}" if shared else ""


def _differ(a: ast.Change, b: ast.Change) -> bool:
    if a.action != b.action:
        return True
    if a.decl is not None and b.decl is not None:
        return _text(a.decl.span) != _text(b.decl.span)
    return a.action == "except"  # two drops of one condition agree; two exceptions may not


def _text(span: Span) -> str:
    return f"{span.start}:{span.end}:{span.file}"


def check_modules(
    modules: list[ast.Module], data_values: dict[str, set[str]]
) -> tuple[Symbols, list[Problem]]:
    c = Checker(modules, data_values)
    sym = c.check()
    problems = sorted(c.problems, key=lambda p: (p.span.file, p.span.line, p.span.column))
    return sym, problems


def _alike(a: Any, b: Any) -> bool:
    """The same expression, wherever each is written."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_alike(x, y) for x, y in zip(a, b, strict=True))
    if is_dataclass(a) and not isinstance(a, type):
        return all(
            _alike(getattr(a, f.name), getattr(b, f.name)) for f in fields(a) if f.name != "span"
        )
    return bool(a == b)
