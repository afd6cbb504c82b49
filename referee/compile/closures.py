"""The checked tree's expressions turned into Python closures: each node once, calling its
children's closures directly (the common nodes: literals, names, calls, operators, fields,
conditionals, lists, loops, one-variable quantifiers, records, indexing); the rest are
evaluated by the Evaluator's tree walk (interp.py, ``_eval_node``), which is the reference
they agree with. source.py writes the spec's own larger expressions as Python source and
falls back to these closures for the nodes it does not write inline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.budget import minus, plus, times
from referee.compile.builtins import _builtin, args_key
from referee.parse import ast

# The evaluator the closures are made for (interp.py's Evaluator, which imports this
# module): its methods are what they call.
Evaluator = Any
Code = Callable[[dict[str, Any]], Any]


def compile_args(
    ev: Evaluator, nodes: list[ast.Expr]
) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    fns = [ev.compiled(a) for a in nodes]
    if len(fns) == 0:
        return lambda env: ()
    if len(fns) == 1:
        (f0,) = fns
        return lambda env: (f0(env),)
    if len(fns) == 2:
        f0, f1 = fns
        return lambda env: (f0(env), f1(env))
    return lambda env: tuple(f(env) for f in fns)


def compile_node(ev: Evaluator, e: ast.Expr) -> Callable[[dict[str, Any]], Any]:  # noqa: C901
    """A closure for the common nodes, calling its children's closures directly; the
    rest are evaluated by ``_eval_node``."""
    c = ev.compiled
    if isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit)):
        value = e.value
        return lambda env: value
    if isinstance(e, ast.Name):
        name = e.id
        d = ev.sym.values.get(name)
        frame_of = ev

        if isinstance(d, ast.StateDecl):
            read, state_decl = ev.read_state, d

            def global_value(env: dict[str, Any]) -> Any:
                if name in env:
                    return env[name]
                if name in frame_of.frame:
                    return frame_of.frame[name]
                return read(state_decl, ())

            return global_value

        def local_value(env: dict[str, Any]) -> Any:
            if name in env:
                return env[name]
            if name in frame_of.frame:
                return frame_of.frame[name]
            return ev._eval_node(e, env)

        return local_value
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
        callee = ev.sym.values.get(e.func.id)
        args = compile_args(ev, e.args)
        fname = e.func.id
        if callee is None:
            if fname == "shuffled":
                return lambda env: ev.shuffled(args(env)[0])
            return lambda env: _builtin(fname, args(env))
        if isinstance(callee, ast.StateDecl):
            if not callee.params:
                read, state_decl = ev.read_state, callee
                return lambda env: read(state_decl, args(env))
            read_cell, cell_decl = ev._read_cell, callee
            if ev.plain_key(callee.params):

                def read_plain(env: dict[str, Any]) -> Any:
                    a = args(env)
                    return read_cell(cell_decl, a, a)

                return read_plain

            def read_keyed(env: dict[str, Any]) -> Any:
                a = args(env)
                return read_cell(cell_decl, a, args_key(a))

            return read_keyed
        invoke, target = ev._invoke, callee
        if isinstance(callee, ast.Define) and not (callee.overlay or callee.decisions):
            kept_call = kept_caller(ev, callee)
            return lambda env: kept_call(args(env))
        return lambda env: invoke(target, args(env))
    if isinstance(e, ast.BinOp):
        op = e.op
        if op in ("and", "or", "implies", "in") or (op in OPS and op not in ("//", "%")):
            left, right = c(e.left), c(e.right)
            if op == "and":
                return lambda env: bool(left(env)) and bool(right(env))
            if op == "or":
                return lambda env: bool(left(env)) or bool(right(env))
            if op == "implies":
                return lambda env: not left(env) or bool(right(env))
            if op == "in":
                return lambda env: left(env) in right(env)
            if op in COMPARE:  # the comparison inline, against a literal as it is
                both, to_literal = COMPARE[op]
                if isinstance(e.right, (ast.IntLit, ast.StrLit, ast.BoolLit)):
                    return to_literal(left, e.right.value)
                return both(left, right)
            fn = OPS[op]
            return lambda env: fn(left(env), right(env))
        return lambda env: ev._binop(e, env)
    if isinstance(e, ast.Field):
        obj, field_name = e.obj, e.name
        if isinstance(obj, ast.Name) and obj.id in ev.sym.types:
            type_name = obj.id
            return lambda env: env[type_name][field_name] if type_name in env else field_name
        of = c(obj)
        return lambda env: of(env)[field_name]
    if isinstance(e, ast.If):
        cond, then, orelse = c(e.cond), c(e.then), c(e.orelse)
        return lambda env: then(env) if cond(env) else orelse(env)
    if isinstance(e, ast.ListLit):
        return compile_args(ev, e.items)
    if isinstance(e, ast.Not):
        operand = c(e.operand)
        return lambda env: not operand(env)
    if isinstance(e, (ast.Comp, ast.Count, ast.Sum)):
        return compile_loop(ev, e)
    if isinstance(e, ast.Quant) and len(e.binders) == 1:
        domain, name, body = c(e.binders[0].domain), e.binders[0].name, c(e.body)
        if e.kind == "forall":
            return lambda env: all(body({**env, name: x}) for x in domain(env))
        return lambda env: any(body({**env, name: x}) for x in domain(env))
    if isinstance(e, ast.RecordLit):
        fields = [(name, c(value)) for name, value in e.fields]
        return lambda env: {name: f(env) for name, f in fields}
    if isinstance(e, ast.Index):
        of, index_f, at = c(e.obj), c(e.index), ev._item
        return lambda env: at(of(env), index_f(env))
    return lambda env: ev._eval_node(e, env)


def kept_caller(ev: Evaluator, d: ast.Define) -> Callable[[tuple[Any, ...]], Any]:
    """The call of a definition, given its arguments: a kept value is looked up here,
    without the general path, when nothing is being traced."""
    derived = ev._kept_kinds().get(d.name)
    invoke, invoke_kept, name = ev._invoke, ev._invoke_kept, d.name
    if derived is None:
        return lambda a: invoke(d, a)
    plain = ev.plain_key(d.params)

    def call(a: tuple[Any, ...]) -> Any:
        if ev.trace is not None and ev._depth <= ev.trace_depth:
            return invoke(d, a)
        store = ev._derived if derived else ev._memo
        key = (name, a) if plain else (name, args_key(a))
        try:
            hit = store.get(key)
        except TypeError:  # an argument that cannot be a key
            return invoke_kept(d, a, store, key)
        if hit is None:
            return invoke_kept(d, a, store, key)
        # as _invoke_kept does with a kept value: its reads and reliances passed on
        relied, reading = hit[2], ev._reading
        if relied:
            ev.relied |= relied
        if reading:
            outer = reading[-1]
            outer[0].update(hit[1])
            if relied:
                outer[1].update(relied)
        return hit[0]

    return call


def compile_loop(
    ev: Evaluator, e: ast.Comp | ast.Count | ast.Sum
) -> Callable[[dict[str, Any]], Any]:
    """A comprehension, a count or a sum over a domain, with an optional filter."""
    domain, var = ev.compiled(e.domain), e.var
    where = ev.compiled(e.where) if e.where is not None else None
    if isinstance(e, ast.Count):

        def count(env: dict[str, Any]) -> Any:
            n = 0
            for x in domain(env):
                if where is None or where({**env, var: x}):
                    n += 1
            return n

        return count
    value = ev.compiled(e.value)
    if isinstance(e, ast.Sum):

        def total(env: dict[str, Any]) -> Any:
            t = 0
            for x in domain(env):
                scope = {**env, var: x}
                if where is None or where(scope):
                    t += value(scope)
            return t

        return total

    def comp(env: dict[str, Any]) -> Any:
        out = []
        for x in domain(env):
            scope = {**env, var: x}
            if where is None or where(scope):
                out.append(value(scope))
        return tuple(out)

    return comp


OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": plus,  # integers bounded: see referee/budget.py
    "-": minus,
    "*": times,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

# The comparisons, compiled with their operands' closures inline: (both operands compiled,
# the right one a literal)
COMPARE: dict[str, tuple[Callable[[Code, Code], Code], Callable[[Code, Any], Code]]] = {
    "==": (lambda f, g: lambda env: f(env) == g(env), lambda f, k: lambda env: f(env) == k),
    "!=": (lambda f, g: lambda env: f(env) != g(env), lambda f, k: lambda env: f(env) != k),
    "<": (lambda f, g: lambda env: f(env) < g(env), lambda f, k: lambda env: f(env) < k),
    "<=": (lambda f, g: lambda env: f(env) <= g(env), lambda f, k: lambda env: f(env) <= k),
    ">": (lambda f, g: lambda env: f(env) > g(env), lambda f, k: lambda env: f(env) > k),
    ">=": (lambda f, g: lambda env: f(env) >= g(env), lambda f, k: lambda env: f(env) >= k),
}
