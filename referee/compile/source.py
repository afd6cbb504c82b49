"""The checked tree compiled to Python source: an expression, or a list of statements, becomes
one Python function of its environment, its nodes written inline (the variables of a
comprehension, a quantifier or a ``let`` as Python locals, the calls of kept definitions, the
reads and writes of state cells through the interpreter's own methods).

The text is generated here from the checked tree alone, never from anything a record
supplies: names are written as Python string literals (``repr``), values as literals of
numbers, truth values and texts, and every other object the code needs (a declaration, a
closure) is passed in a table of constants, ``K[i]``. What is not written inline (a node or a
statement of a kind not listed here) is evaluated by the interpreter's closure for it, with
the locals in scope added to its environment: the result is the same, and
tests/test_differential.py compares both with the reference interpreter on every record.
"""

from __future__ import annotations

import marshal
import types
from collections.abc import Callable
from typing import Any

from referee.budget import minus, plus, times
from referee.compile import closures
from referee.compile.builtins import _builtin, args_key
from referee.parse import ast

# The interpreter the code is made for (interp.py's Evaluator, execute.py's Interpreter, which
# import this module): its methods are what the code calls.
Evaluator = Any
Interpreter = Any
Code = Callable[[dict[str, Any]], Any]

_MISSING = object()
_ARITH = {"+": "PLUS", "-": "MINUS", "*": "TIMES"}
_CMP = ("==", "!=", "<", "<=", ">", ">=")
_LITERAL = (ast.IntLit, ast.StrLit, ast.BoolLit)


class _Gen:
    """One function's text: its lines, its constants and its fresh local names."""

    def __init__(self, interp: Evaluator) -> None:
        self.interp = interp
        self.consts: list[Any] = []
        self.lines: list[str] = []
        self.n = 0

    def const(self, value: Any) -> str:
        self.consts.append(value)
        return f"K[{len(self.consts) - 1}]"

    def fresh(self, name: str) -> str:
        self.n += 1
        return f"_{self.n}_{name}" if name.isidentifier() else f"_{self.n}"

    # ------------------------------------------------------------ expressions
    def env_of(self, scope: dict[str, str], env: str | None) -> str:
        """The environment a closure of a node is given: the one in hand, with the locals."""
        if not scope:
            return env or "{}"
        locs = ", ".join(f"{name!r}: {local}" for name, local in scope.items())
        return f"{{**{env}, {locs}}}" if env else f"{{{locs}}}"

    def delegate(self, e: ast.Expr, scope: dict[str, str], env: str | None) -> str:
        return f"{self.const(closures.compile_node(self.interp, e))}({self.env_of(scope, env)})"

    def args(self, nodes: list[ast.Expr], scope: dict[str, str], env: str | None) -> str:
        items = [self.expr(a, scope, env) for a in nodes]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"

    def expr(self, e: ast.Expr, scope: dict[str, str], env: str | None) -> str:  # noqa: C901
        sym = self.interp.sym
        if isinstance(e, _LITERAL) and type(e.value) in (int, str, bool):
            return repr(e.value)
        if isinstance(e, ast.Name):
            if e.id in scope:
                return scope[e.id]
            slow = self.delegate(e, {}, env) if env else self.delegate(e, scope, env)
            name = repr(e.id)
            if env:
                return f"({env}[{name}] if {name} in {env} else {slow})"
            return slow
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            fname = e.func.id
            callee = sym.values.get(fname)
            a = self.args(e.args, scope, env)
            if callee is None:
                if fname == "size":
                    return f"len({a}[0])"
                if fname == "shuffled":
                    return f"I.shuffled({a}[0])"
                return f"BUILTIN({fname!r}, {a})"
            if isinstance(callee, ast.StateDecl):
                d = self.const(callee)
                if not callee.params:
                    return f"I.read_state({d}, {a})"
                if self.interp.plain_key(callee.params):
                    return f"READ_PLAIN({d}, {a})"
                return f"READ_KEYED({d}, {a})"
            if isinstance(callee, ast.Define) and not (callee.overlay or callee.decisions):
                return f"{self.const(closures.kept_caller(self.interp, callee))}({a})"
            return f"I._invoke({self.const(callee)}, {a})"
        if isinstance(e, ast.BinOp) and e.op not in ("//", "%"):
            left, right = self.expr(e.left, scope, env), self.expr(e.right, scope, env)
            if e.op == "and":
                return f"(bool({left}) and bool({right}))"
            if e.op == "or":
                return f"(bool({left}) or bool({right}))"
            if e.op == "implies":
                return f"(not {left} or bool({right}))"
            if e.op == "in":
                return f"({left} in {right})"
            if e.op in _CMP:
                return f"({left} {e.op} {right})"
            if e.op in _ARITH:
                return f"{_ARITH[e.op]}({left}, {right})"
        if isinstance(e, ast.Field):
            obj = e.obj
            if isinstance(obj, ast.Name) and obj.id in sym.types and obj.id not in scope:
                t, f = repr(obj.id), repr(e.name)
                if env:
                    return f"({env}[{t}][{f}] if {t} in {env} else {f})"
                return f
            return f"{self.expr(obj, scope, env)}[{e.name!r}]"
        if isinstance(e, ast.If):
            cond = self.expr(e.cond, scope, env)
            then, orelse = self.expr(e.then, scope, env), self.expr(e.orelse, scope, env)
            return f"({then} if {cond} else {orelse})"
        if isinstance(e, ast.ListLit):
            return self.args(e.items, scope, env) if e.items else "()"
        if isinstance(e, ast.Not):
            return f"(not {self.expr(e.operand, scope, env)})"
        if isinstance(e, ast.RecordLit):
            fields = ", ".join(f"{n!r}: {self.expr(v, scope, env)}" for n, v in e.fields)
            return f"{{{fields}}}"
        if isinstance(e, ast.Index):
            return f"INDEX({self.expr(e.obj, scope, env)}, {self.expr(e.index, scope, env)})"
        if isinstance(e, (ast.Comp, ast.Sum)):
            domain = self.expr(e.domain, scope, env)
            var = self.fresh(e.var)
            inner = {**scope, e.var: var}
            where = f" if {self.expr(e.where, inner, env)}" if e.where is not None else ""
            value = self.expr(e.value, inner, env)
            if isinstance(e, ast.Sum):
                return f"sum({value} for {var} in {domain}{where})"
            return f"tuple([{value} for {var} in {domain}{where}])"
        if isinstance(e, ast.Quant) and len(e.binders) == 1:
            b = e.binders[0]
            domain = self.expr(b.domain, scope, env)
            var = self.fresh(b.name)
            body = self.expr(e.body, {**scope, b.name: var}, env)
            kind = "all" if e.kind == "forall" else "any"
            return f"{kind}({body} for {var} in {domain})"
        # the rest (a count among them: tests/test_differential.py alters the closure of a
        # count to show that a difference would be seen) by the interpreter's closures
        return self.delegate(e, scope, env)

    # ------------------------------------------------------------ statements
    # A statement's variables are its environment's (``env``, a dict: a ``let`` adds to it),
    # and a loop's variable is a Python local (``scope``) where the loop's body binds no
    # name itself: what is not written inline is given both.
    def block(self, stmts: list[ast.Stmt], env: str, scope: dict[str, str], indent: str) -> None:
        if not stmts:
            self.lines.append(f"{indent}pass")
        for st in stmts:
            self.stmt(st, env, scope, indent)

    def stmt(self, st: ast.Stmt, env: str, scope: dict[str, str], indent: str) -> None:
        interp = self.interp
        sym, out = interp.sym, self.lines
        if (
            isinstance(st, ast.SetStmt)
            and st.op == "="
            and isinstance(st.target, ast.Call)
            and isinstance(st.target.func, ast.Name)
        ):
            d = sym.values[st.target.func.id]
            if isinstance(d, ast.StateDecl) and d.params:
                # a cell set to the value it holds: nothing happens (as in write_state)
                v, k, t, o = self.fresh("v"), self.fresh("k"), self.fresh("t"), self.fresh("o")
                out.append(f"{indent}{v} = {self.expr(st.value, scope, env)}")
                key = self.args(st.target.args, scope, env)
                plain = interp.plain_key(d.params)
                out.append(f"{indent}{k} = {key}" if plain else f"{indent}{k} = ARGS_KEY({key})")
                out.append(f"{indent}{t} = I.state.get({d.name!r})")
                out.append(
                    f"{indent}if {t} is None or ({o} := {t}.get({k}, MISSING)) is MISSING"
                    f" or not ({o} == {v}):"
                )
                out.append(f"{indent}    SET_BY({st.clause!r}, {self.const(d)}, {k}, {v})")
                return
        if isinstance(st, ast.IfStmt):
            out.append(f"{indent}if {self.expr(st.cond, scope, env)}:")
            self.block(st.then, env, scope, indent + "    ")
            if st.orelse:
                out.append(f"{indent}else:")
                self.block(st.orelse, env, scope, indent + "    ")
            return
        if isinstance(st, ast.ForStmt):
            x = self.fresh(st.var)
            out.append(f"{indent}for {x} in {self.expr(st.domain, scope, env)}:")
            if _binds(st.body):
                inner = self.fresh("env")
                out.append(
                    f"{indent}    {inner} = {{**{self.env_of(scope, env)}, {st.var!r}: {x}}}"
                )
                self.block(st.body, inner, {}, indent + "    ")
            else:
                self.block(st.body, env, {**scope, st.var: x}, indent + "    ")
            return
        if isinstance(st, ast.CheckStmt) and self.check(st, env, scope, indent):
            return
        if isinstance(st, ast.DoStmt) and isinstance(sym.actions.get(st.name), ast.Routine):
            callee = sym.actions[st.name]
            assert isinstance(callee, ast.Routine)
            if callee.decisions or callee.overlay:
                out.append(f"{indent}I._rely({self.const(callee)})")
            body = self.const(_Late(interp, callee.body))
            names = [p.name for p in callee.params]
            a = self.args(st.args, scope, env) if st.args else "()"
            out.append(f"{indent}{body}(dict(zip({names!r}, {a}, strict=True)))")
            return
        stmt_code: Code = interp._compile_stmt(st)
        out.append(f"{indent}{self.const(stmt_code)}({self.env_of(scope, env)})")

    def check(self, st: ast.CheckStmt, env: str, scope: dict[str, str], indent: str) -> bool:
        """``check ref(args)``: a requirement that holds is seen here, its condition inline
        over its parameters as locals, when no trace is wanted; anything else goes the
        whole way through ``check``, which evaluates it again."""
        sym = self.interp.sym
        ref = str(st.ref)
        req = sym.labels.get(ref)
        if (
            st.args is None
            or ref in sym.dropped
            or not isinstance(req, ast.Require)
            or req.overlay
            or req.decisions
            or len(st.args) != len(req.params)
        ):
            return False
        out = self.lines
        params = {}
        for p, a in zip(req.params, st.args, strict=True):
            local = self.fresh(p.name)
            out.append(f"{indent}{local} = {self.expr(a, scope, env)}")
            params[p.name] = local
        cond = self.expr(req.cond, params, None)
        out.append(f"{indent}if I.trace is None and {cond}:")
        out.append(f"{indent}    if I.coverage is not None:")
        out.append(f"{indent}        I.coverage.requirement({ref!r}, True)")
        out.append(f"{indent}else:")
        out.append(f"{indent}    I.check({self.const(st)}, {self.env_of(scope, env)})")
        return True

    # ------------------------------------------------------------ the function
    def function(self, name: str) -> Callable[..., Any]:
        text = "\n".join([f"def {name}(env):", *self.lines])
        scope: dict[str, Any] = {
            "K": self.consts,
            "I": self.interp,
            "BUILTIN": _builtin,
            "PLUS": plus,
            "MINUS": minus,
            "TIMES": times,
            "ARGS_KEY": args_key,
            "MISSING": _MISSING,
            "READ_PLAIN": lambda d, a: self.interp._read_cell(d, a, a),
            "READ_KEYED": lambda d, a: self.interp._read_cell(d, a, args_key(a)),
            "INDEX": self.interp._item,
            "SET_BY": getattr(self.interp, "_set_by", None),
        }
        made = _COMPILED.get(text)
        if made is None:
            # our own text, generated from the checked tree above: see the module's docstring
            made = _COMPILED[text] = compile(text, f"<rules: {name}>", "exec")
            _NEW.append(text)
        exec(made, scope)  # noqa: S102 - defines the function, from our own text
        code: Callable[..., Any] = scope[name]
        return code


# Python's compiling of the text generated, by the text (never used for any other text):
# compiling is most of what the rules' first game costs a process, so the spec's disk cache
# keeps it (referee/compile/spec.py: signed by this user's referee, with the spec).
_COMPILED: dict[str, types.CodeType] = {}
_NEW: list[str] = []  # compiled in this process since the cache was read or written


def compiled_code() -> bytes | None:
    """What this process compiled, with what it was given, for the disk cache; None if it
    compiled nothing new."""
    if not _NEW:
        return None
    _NEW.clear()
    return marshal.dumps({text: code for text, code in _COMPILED.items()})


def take_compiled(payload: bytes) -> None:
    """What another process compiled, from the disk cache (a payload signed by this user's
    referee: see referee/data/cache.py): each code object is used only for its own text."""
    try:
        table = marshal.loads(payload)  # noqa: S302 - signed by this user's referee
    except (EOFError, ValueError, TypeError):
        return
    if isinstance(table, dict):
        for text, code in table.items():
            if isinstance(text, str) and isinstance(code, types.CodeType):
                _COMPILED.setdefault(text, code)


class _Late:
    """A routine's body, compiled when first run (a routine may call itself by way of
    another)."""

    def __init__(self, interp: Evaluator, body: list[ast.Stmt]) -> None:
        self.interp, self.body = interp, body

    def __call__(self, env: dict[str, Any]) -> Any:
        block: Callable[[list[ast.Stmt]], Code] = self.interp.block
        return block(self.body)(env)


def _binds(stmts: list[ast.Stmt]) -> bool:
    """Whether statements bind or set a variable of their environment (a ``let``, a ``set``
    of a name), themselves or within an ``if`` or a loop."""
    for st in stmts:
        if isinstance(st, ast.LetStmt):
            return True
        if isinstance(st, ast.SetStmt) and isinstance(st.target, ast.Name):
            return True
        if isinstance(st, ast.IfStmt) and (_binds(st.then) or _binds(st.orelse)):
            return True
        if isinstance(st, ast.ForStmt) and _binds(st.body):
            return True
    return False


def worth_it(e: ast.Expr) -> bool:
    """Whether an expression is worth a function of its own: not a literal or a name."""
    return not isinstance(e, (*_LITERAL, ast.Name, ast.Nothing))


def expression(interp: Evaluator, e: ast.Expr) -> Code:
    """One Python function evaluating the expression."""
    gen = _Gen(interp)
    gen.lines.append(f"    return {gen.expr(e, {}, 'env')}")
    return gen.function("expression")


def body(interp: Evaluator, d: ast.Define) -> Callable[[tuple[Any, ...]], Any]:
    """One Python function evaluating a definition's body, given its arguments: its
    parameters Python locals."""
    gen = _Gen(interp)
    scope = {p.name: gen.fresh(p.name) for p in d.params}
    if scope:
        gen.lines.append(f"    {', '.join(scope.values())}, = env")
    gen.lines.append(f"    return {gen.expr(d.body, scope, None)}")
    return gen.function("body")


def statements(interp: Interpreter, stmts: list[ast.Stmt]) -> Code:
    """One Python function running the statements."""
    gen = _Gen(interp)
    gen.block(stmts, "env", {}, "    ")
    return gen.function("statements")
