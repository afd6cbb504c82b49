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


def _joined(args: tuple[Any, ...]) -> Any:
    """The arguments' context and their terms as z3's array, if all are formulas of one."""
    if not args:
        return None
    ctx = args[0].ctx if type(args[0]) is _BOOL else None
    if ctx is None or any(type(x) is not _BOOL or x.ctx is not ctx for x in args):
        return None
    return ctx, (z3.Ast * len(args))(*[x.ast for x in args])


def And(*args: Any) -> Any:  # noqa: N802 - z3's name
    joined = _joined(args)
    if joined is None:
        return z3.And(*args)
    ctx, terms = joined
    return _BOOL(z3core.Z3_mk_and(ctx.ref(), len(args), terms), ctx)


def Or(*args: Any) -> Any:  # noqa: N802 - z3's name
    joined = _joined(args)
    if joined is None:
        return z3.Or(*args)
    ctx, terms = joined
    return _BOOL(z3core.Z3_mk_or(ctx.ref(), len(args), terms), ctx)
