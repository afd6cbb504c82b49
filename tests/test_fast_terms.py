"""referee/verify/fast.py: z3's If, And and Or made directly where the arguments allow, the
very terms z3's own make (z3 shares equal terms), and z3's own for anything else."""

from __future__ import annotations

import z3

from referee.verify.fast import And, If, Or


def test_the_terms_are_z3s_own() -> None:
    p, q = z3.Bools("p q")
    x, y = z3.Ints("x y")
    r = z3.Real("r")
    e = z3.Const("e", z3.DeclareSort("E"))
    cases = [
        (If(p, x, y), z3.If(p, x, y)),
        (If(p, 1, 0), z3.If(p, 1, 0)),  # two whole numbers
        (If(p, x, 0), z3.If(p, x, 0)),  # a term and a number: z3's own
        (If(p, x, r), z3.If(p, x, r)),  # two sorts: z3 coerces
        (If(p, x, q), z3.If(p, x, q)),  # a truth as a number
        (If(True, x, y), z3.If(True, x, y)),
        (If(p, e, e), z3.If(p, e, e)),
        (And(p, q, x > y), z3.And(p, q, x > y)),
        (And(p, True), z3.And(p, True)),
        (And(), z3.And()),
        (And([p, q]), z3.And([p, q])),
        (Or(p, q), z3.Or(p, q)),
        (Or(p, False), z3.Or(p, False)),
        (Or(), z3.Or()),
    ]
    for fast, own in cases:
        assert fast.eq(own), (fast, own)
        assert fast.sort() == own.sort() and type(fast) is type(own)
