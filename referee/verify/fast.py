"""z3's ``If``, ``And`` and ``Or`` for the translators' hottest places: where the arguments
are already terms of one context (and, for ``If``, of one sort, or two whole numbers), the
term is made directly, without the checks and coercions of z3's Python API; anything else
is left to z3's own. The same terms either way (z3 shares equal terms): only made faster,
as a proof builds hundreds of thousands of them."""

from __future__ import annotations

from typing import Any

import z3
from z3 import z3core

_BOOL = z3.BoolRef
_EXPR = z3.ExprRef


def If(c: Any, a: Any, b: Any) -> Any:  # noqa: N802 - z3's name
    if type(c) is _BOOL:
        ctx = c.ctx
        if type(a) is int and type(b) is int:
            a, b = z3.IntVal(a, ctx), z3.IntVal(b, ctx)
        if isinstance(a, _EXPR) and isinstance(b, _EXPR) and a.ctx is ctx and b.ctx is ctx:
            ref = ctx.ref()
            if z3core.Z3_get_sort(ref, a.ast).value == z3core.Z3_get_sort(ref, b.ast).value:
                made = z3core.Z3_mk_ite(ref, c.ast, a.ast, b.ast)
                return z3.z3._to_expr_ref(made, ctx)
    return z3.If(c, a, b)


def _n_ary(make: Any, own: Any, args: tuple[Any, ...]) -> Any:
    """``make`` (z3's C function) of the arguments, if all are formulas of one context and
    there is one at least; else z3's ``own``."""
    ctx = args[0].ctx if args and type(args[0]) is _BOOL else None
    if ctx is None or any(type(x) is not _BOOL or x.ctx is not ctx for x in args):
        return own(*args)
    terms = (z3.Ast * len(args))(*[x.ast for x in args])
    return _BOOL(make(ctx.ref(), len(args), terms), ctx)


def And(*args: Any) -> Any:  # noqa: N802 - z3's name
    return _n_ary(z3core.Z3_mk_and, z3.And, args)


def Or(*args: Any) -> Any:  # noqa: N802 - z3's name
    return _n_ary(z3core.Z3_mk_or, z3.Or, args)
