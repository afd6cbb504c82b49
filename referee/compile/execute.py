"""Statements run, game state written, standing rules enforced: the interpreter, on top of the
evaluator of expressions (interp.py)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from referee.compile.builtins import args_key
from referee.compile.closures import compile_args
from referee.compile.interp import CheckFailed, Evaluator, _dedupe
from referee.compile.shown import SHOWN_VALUE, brief
from referee.compile.source import statements
from referee.errors import fail
from referee.parse import ast

# How many times standing rules may fire after one change before the rules are said to loop.
MAX_FIRINGS = 10_000
# How many instances (combinations of parameter values) the standing rules may have in all.
MAX_INSTANCES = 100_000


class StandingLoop(Exception):
    """A standing rule keeps firing: its statements never make its condition false."""

    def __init__(self, rule: ast.Whenever) -> None:
        super().__init__(f"{rule.clause}/{rule.name} keeps firing")
        self.rule = rule


class Interpreter(Evaluator):
    """The evaluator of expressions (interp.py), and statements: a procedure's steps, a
    routine's body, a standing rule's consequences, each writing game state, and after every
    write the standing rules enforced."""

    # ------------------------------------------------------------ standing rules
    def standing_instances(self) -> list[tuple[ast.Whenever, tuple[Any, ...]]]:
        """Every standing rule with every combination of its parameters' values, in the
        order the spec declares the rules (and the values)."""
        if self._instances is None:
            out: list[tuple[ast.Whenever, tuple[Any, ...]]] = []
            for rule in self.sym.standing:
                domains = [self.enum_values(p.type.name) for p in rule.params]
                combinations = 1
                for domain in domains:
                    combinations *= len(domain)
                if combinations > MAX_INSTANCES:
                    raise fail(
                        rule.span,
                        f"standing rule {rule.clause}/{rule.name} ranges over {combinations:,}"
                        f" combinations of its parameters; at most {MAX_INSTANCES:,}",
                        clause=rule.clause,
                    )
                out += [(rule, combo) for combo in itertools.product(*domains)]
            self._instances = out
            self._dirty = set(range(len(out)))
        return self._instances

    def enforce(self) -> None:
        """Run every standing rule whose condition holds, until none does. A rule's own
        statements are not interrupted: what they change is looked at when they end."""
        if not self.standing_on or self._enforcing:
            return
        instances = self.standing_instances()
        if not self._dirty:
            return
        self._enforcing = True
        saved_trace, self.trace = self.trace, None
        firings = 0
        try:
            while self._dirty:
                i = min(self._dirty)
                self._dirty.discard(i)
                rule, values = instances[i]
                env = {p.name: v for p, v in zip(rule.params, values, strict=True)}
                # What the condition relies on is relied on, whether it holds or not: the
                # spec puts a decision's part of a condition last, so that it is consulted
                # only where it decides.
                reading: tuple[set[Any], set[str]] = (set(), set())
                self._reading.append(reading)
                try:
                    holds = bool(self.eval(rule.cond, env))
                finally:
                    self._reading.pop()
                for cell in reading[0]:
                    self._watch.setdefault(cell, set()).add(i)
                if not holds:
                    continue
                firings += 1
                if firings > MAX_FIRINGS:
                    raise StandingLoop(rule)
                if rule.overlay or rule.decisions:
                    self._rely(rule)
                self.fired.append((rule, values))
                self.run(rule.body, env)
                if not self.standing_on:  # the rule ended the game
                    break
                self._dirty.add(i)  # its statements must have made it false: look again
        finally:
            self._enforcing = False
            self.trace = saved_trace

    def write_state(self, d: ast.StateDecl, args: tuple[Any, ...], value: Any) -> None:
        self._write_cell(d, args_key(args) if d.params else None, value)

    def _write_cell(self, d: ast.StateDecl, k: Any, value: Any) -> None:
        """``write_state``, the arguments' key ``k`` given."""
        table: dict[Any, Any] = self.state.setdefault(d.name, {}) if d.params else self.state
        key = k if d.params else d.name
        had = key in table
        if had and table[key] == value:
            return  # no change: nothing that read it is forgotten
        defaulted = self._defaulted.pop((d.name, k), None) if self._defaulted else None
        if self.journal is not None:
            self.journal.append((d.name, k, had, table.get(key), defaulted))
        table[key] = value
        if self.setter:
            self.set_by[(d.name, k)] = self.setter
        if self._readers:
            self._written((d.name, k))
        if self._watch:
            watchers = self._watch.get((d.name, k))
            if watchers:
                self._dirty |= watchers
        if self.standing_on and not self._enforcing and (self._dirty or self._instances is None):
            self.enforce()

    def undo(self) -> None:
        """Put back every state cell written since the journal was started, and forget the
        kept values that read them."""
        journal, self.journal = self.journal or [], None
        for name, k, had, old, defaulted in reversed(journal):
            table: dict[Any, Any] = self.state[name] if k is not None else self.state
            key = k if k is not None else name
            if had:
                table[key] = old
            else:
                table.pop(key, None)
            if defaulted:
                self._defaulted[(name, k)] = defaulted
            self._written((name, k))
            watchers = self._watch.get((name, k))
            if watchers:
                self._dirty |= watchers

    # ------------------------------------------------------------ statements
    def run(self, stmts: list[ast.Stmt], env: dict[str, Any]) -> None:
        """Run statements; a failed ``check`` raises CheckFailed."""
        if self.reference:
            for st in stmts:
                self._stmt(st, env)
            return
        try:
            block = self._code[id(stmts)][1]
        except KeyError:
            block = self.block(stmts)
        block(env)

    def block(self, stmts: list[ast.Stmt]) -> Callable[[dict[str, Any]], Any]:
        """The closure that runs a list of statements (made once; the list kept with it)."""
        entry = self._code.get(id(stmts))
        if entry is None:
            entry = self._code[id(stmts)] = (stmts, self._compile_block(stmts))
        return entry[1]

    def _compile_block(self, stmts: list[ast.Stmt]) -> Callable[[dict[str, Any]], Any]:
        """The spec's statements as one Python function (source.py); the reference walks
        them (it never asks for a block)."""
        if not stmts:
            return lambda env: None
        if self.reference:
            return lambda env: self.run(stmts, env)
        return statements(self, stmts)

    def _compile_stmt(self, st: ast.Stmt) -> Callable[[dict[str, Any]], Any]:
        """A closure for a statement source.py does not write inline: a ``set`` of a cell
        (``+=``, ``-=``, or a cell of no parameters) here; the rest are run by ``_stmt``."""
        if (
            isinstance(st, ast.SetStmt)
            and isinstance(st.target, ast.Call)
            and isinstance(st.target.func, ast.Name)
        ):
            d = self.sym.values[st.target.func.id]
            assert isinstance(d, ast.StateDecl)
            value_f, args_f = self.compiled(st.value), compile_args(self, st.target.args)
            read, write, op, clause = self._read_cell, self._set_by, st.op, st.clause
            keyed, plain = bool(d.params), self.plain_key(d.params)

            def set_cell(env: dict[str, Any]) -> None:
                value, key = value_f(env), args_f(env)
                k = (key if plain else args_key(key)) if keyed else None
                if op == "+=":
                    value = read(d, key, k) + value
                elif op == "-=":
                    value = read(d, key, k) - value
                write(clause, d, k, value)

            return set_cell
        return lambda env: self._stmt(st, env)

    def _set_by(self, clause: str, d: ast.StateDecl, k: Any, value: Any) -> None:
        """A cell written by a ``set`` of this clause (which the position names as its
        setter)."""
        self.setter = clause
        try:
            self._write_cell(d, k, value)
        finally:
            self.setter = ""

    def _stmt(self, st: ast.Stmt, env: dict[str, Any]) -> None:  # noqa: C901 - one case a node
        if isinstance(st, ast.SetStmt):
            value = self.eval(st.value, env)
            if st.op != "=":
                current = self.eval(st.target, env)
                value = current + value if st.op == "+=" else current - value
            self.setter = st.clause
            try:
                self._assign(st.target, value, env)
            finally:
                self.setter = ""
        elif isinstance(st, ast.LetStmt):
            # keep how a fact was computed: a failed check shows it with its own numbers
            saved, saved_depth = self.trace, self.trace_depth
            self.trace, self.trace_depth = [], self._depth
            try:
                env[st.name] = self.eval(st.value, env)
                self.facts[st.name] = self.trace
            finally:
                self.trace, self.trace_depth = saved, saved_depth
        elif isinstance(st, ast.IfStmt):
            self.run(st.then if self.eval(st.cond, env) else st.orelse, env)
        elif isinstance(st, ast.ForStmt):
            for x in self.eval(st.domain, env):
                self.run(st.body, {**env, st.var: x})
        elif isinstance(st, ast.CheckStmt):
            self.check(st, env)
        elif isinstance(st, ast.TellStmt):
            # not while only legality is wanted (a random game's proposal)
            if self.explain or self.telling:
                self.tell(st, env)
        elif isinstance(st, ast.GameOverStmt):
            # the game is over: no standing rule fires after this moment
            self.standing_on = False
            self._dirty.clear()
            if self.on_game_over is not None:
                self.on_game_over(st.clause)
        elif isinstance(st, ast.DoStmt):
            args = tuple(self.eval(a, env) for a in st.args)
            callee = self.sym.actions.get(st.name)
            if isinstance(callee, ast.Routine):
                if callee.decisions or callee.overlay:
                    self._rely(callee)
                self.run(callee.body, {p.name: a for p, a in zip(callee.params, args, strict=True)})
            elif isinstance(callee, ast.Procedure):
                if self.on_procedure is None:
                    raise fail(st.span, f"no engine to run procedure {st.name}")
                self.on_procedure(callee, args)
            else:
                fn = self.externs.get(st.name)
                if fn is None:
                    raise fail(st.span, f"the engine provides no action '{st.name}'")
                fn(*args)

    def tell(self, st: ast.TellStmt, env: dict[str, Any]) -> None:
        values = {id(e): self.eval(e, env) for _, e in st.names}
        text = "".join(
            p if isinstance(p, str) else brief(values[id(p)], SHOWN_VALUE) for p in st.parts
        )
        named = {name: values[id(e)] for name, e in reversed(st.names)}  # the first of a name
        self.told.append((st, text, [(n, named[n]) for n in dict.fromkeys(n for n, _ in st.names)]))

    def _assign(self, target: ast.Expr, value: Any, env: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            if target.id in env:
                env[target.id] = value
            elif target.id in self.frame:
                self.frame[target.id] = value
            else:
                d = self.sym.values[target.id]
                assert isinstance(d, ast.StateDecl)
                self.write_state(d, (), value)
        elif isinstance(target, ast.Call) and isinstance(target.func, ast.Name):
            d = self.sym.values[target.func.id]
            assert isinstance(d, ast.StateDecl)
            self.write_state(d, tuple(self.eval(a, env) for a in target.args), value)

    def _holds_aside(self, req: ast.Require, st: ast.CheckStmt, env: dict[str, Any]) -> bool | None:
        """Whether a requirement (a base one, or one dropped) holds here, judged aside
        (docs/rules-language.md: a decision is relied on where it decided something); None
        where the check cannot give it its parameters."""
        given = len(st.args) if st.args is not None else None
        if (given is not None and given != len(req.params)) or (
            given is None
            and any(p.name not in env and p.name not in self.frame for p in req.params)
        ):
            return None

        def judge() -> bool:
            args = st.bind(req, env, self.frame, lambda a: self.eval(a, env))
            return bool(self.eval(req.cond, dict(args)))

        return bool(self.aside(judge))

    def check(self, st: ast.CheckStmt, env: dict[str, Any]) -> None:
        ref = str(st.ref)
        dropper = self.sym.dropped.get(ref)
        if dropper is not None:  # an overlay in force has dropped this condition
            # relied on where the condition dropped would have refused the event
            dropped = self.sym.labels.get(ref)
            if not isinstance(dropped, ast.Require) or not self._holds_aside(dropped, st, env):
                self.relied.add(dropper)
            if self.coverage is not None:
                self.coverage.dropped[ref] += 1
            return
        req = self.sym.labels.get(ref)
        assert req is not None, st.ref
        assert isinstance(req, ast.Require)
        args = st.bind(req, env, self.frame, lambda a: self.eval(a, env))
        holds = bool(self.eval(req.cond, dict(args)))
        if req.overlay and self.weighed(ref):  # replaced: relied on where the base judges otherwise
            other = self.sym.replaced[ref]
            if not isinstance(other, ast.Require) or self._holds_aside(other, st, env) != holds:
                self._rely(req)
        elif (req.overlay or req.decisions) and not holds:  # added: where it refuses
            self._rely(req)
        if holds:
            if self.coverage is not None:
                self.coverage.requirement(ref, True)
            return
        for cond, oid in self.sym.exceptions.get(ref, []):
            if self.eval(cond, dict(args)):  # an overlay in force makes an exception here
                self.relied.add(oid)
                if self.coverage is not None:
                    self.coverage.requirement(ref, True)
                return
        if self.coverage is not None:
            self.coverage.requirement(ref, False)
        if not self.explain:  # only whether it holds is wanted (a random game's proposal)
            raise CheckFailed(req, "", [], st.span, dict(args))
        # It fails: evaluate it again, pure as it is, recording the numbers that decide it.
        saved, saved_depth = self.trace, self.trace_depth
        self.trace, self.trace_depth = [], 1_000_000
        base = self._depth  # the calls the condition makes itself are made from here
        try:
            if st.args is None:
                for p in req.params:  # how each fact was computed (its own calls only)
                    self.trace.extend(self.facts.get(p.name, []))
                facts = len(self.trace)
            else:
                facts = 0
                for a in st.args:
                    self.eval(a, env)
            self.eval(req.cond, dict(args))
            trace = _dedupe(self.trace)
            decisive = _dedupe(
                self.trace[:facts] + [t for t in self.trace[facts:] if t.depth == base]
            )
        finally:
            self.trace, self.trace_depth = saved, saved_depth
        _, message = self.holds(req, dict(args))
        failed = CheckFailed(req, message, trace, st.span, dict(args), decisive)
        if self.lenient is None:
            raise failed
        self.lenient.append(failed)
