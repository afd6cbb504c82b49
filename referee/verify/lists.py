"""Bounded sums and counts for the prover: ``sum(...)`` and ``count(...)`` over a range.

``sum(impact_of(m, i, false, 0) for i in 0..k - 1)``, with ``k`` a variable of
the property, has no fixed number of terms. The prover proves from the
property's domains that the range never holds more than n items (the least of
BOUNDS it can prove), then unrolls n terms, each counting only while
``lo + j <= hi``. A range it cannot bound so (unbounded, or over a variable of
an inner quantifier), and a sum or count over a list (game state, data), is
untranslatable: the property is skipped with the reason.
"""

from __future__ import annotations

from typing import Any, Protocol

import z3

from referee.parse import ast
from referee.verify.common import Untranslatable


class Terms(Protocol):
    """What a sum needs of the translator (terms.Translator): its terms, and what the
    property's domains say of its free variables."""

    assumptions: list[Any]

    def expr(self, e: ast.Expr, env: dict[str, Any]) -> Any: ...


BOUNDS = (4, 16, 64)  # the numbers of terms tried, least first
MAX_ITEMS = BOUNDS[-1]
BOUND_RLIMIT = 2_000_000  # z3's work on each bound tried (not a time: the same on any machine)


def over_range(tr: Terms, e: ast.Sum | ast.Count, env: dict[str, Any]) -> Any:
    """The z3 term of a sum or count whose domain is a range ``lo..hi``."""
    if not isinstance(e.domain, ast.Range):
        raise Untranslatable("a sum or count over a list (only ranges a..b are unrolled)")
    lo = z3.simplify(tr.expr(e.domain.lo, env))
    hi = z3.simplify(tr.expr(e.domain.hi, env))
    items = z3.simplify(hi - lo + 1)
    guarded = not z3.is_int_value(items)
    if not guarded:
        n = max(0, items.as_long())
        if n > MAX_ITEMS:
            raise Untranslatable(f"a sum or count over {n} items (at most {MAX_ITEMS})")
    else:
        n = _bound(tr.assumptions, items)
        if n is None:
            raise Untranslatable(f"a sum or count that may hold more than {MAX_ITEMS} items")
    terms = []
    for j in range(n):
        x = z3.simplify(lo + j)
        scope = {**env, e.var: x}
        cond = [x <= hi] if guarded else []
        if e.where is not None:
            cond.append(tr.expr(e.where, scope))
        value = z3.IntVal(1) if isinstance(e, ast.Count) else tr.expr(e.value, scope)
        terms.append(z3.If(z3.And(*cond), value, 0) if cond else value)
    return z3.Sum(*terms) if terms else z3.IntVal(0)


def _bound(assumptions: list[Any], items: Any) -> int | None:
    """The least of BOUNDS that the number of items provably never exceeds, or None."""
    for n in BOUNDS:
        solver = z3.Solver()
        solver.set("rlimit", BOUND_RLIMIT)
        solver.add(*assumptions)
        solver.add(items > n)
        if solver.check() == z3.unsat:
            return n
    return None
