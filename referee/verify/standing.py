"""The standing rules' own proofs: what each rule's body achieves, and that the rules settle.

The step invariants take a position "at rest" (no standing rule due) as the one the referee
reaches after every event: it runs the standing rules until none is due. That holds only if
each rule's body does what its condition promises, and if the rules do not trigger one
another forever. Each standing rule is proved as a property of its own (named by its
clause and label):

- **achieves**: from any position where the rule is due at some values of its parameters,
  once its body has run (the referee runs it uninterrupted), the rule is no longer due at
  those values. A rule whose body ends the game achieves that instead.
- **settles**: a rule's body may make another rule due (or itself, at other values): that
  is an edge of a graph among the rules, left out where z3 proves the body never does it
  (from any position where the other is not due, it is not due after), or left out at
  once where the body sets no state the other's condition reads. A rule that makes
  itself due elsewhere, or lies on a cycle of the graph, is not proved to settle. Without
  cycles, each instance of a rule fires at most once for each firing of the rules before it
  in the graph, so the rules settle within a number of firings the proof states.

Proofs by the standing rules (and every proof that takes the position after an event to
be at rest) rest on these: prover.py marks one that read a rule not proved so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from referee.parse import ast
from referee.resolve.reads import reads
from referee.resolve.symbols import Symbols
from referee.verify.common import Budget, Untranslatable, read_key
from referee.verify.flow import ends_game, writes
from referee.verify.invariants import InvariantProver
from referee.verify.steps import StepTranslator
from referee.verify.values import DEFAULT_BOUND, SLIPS


@dataclass
class RuleOutcome:
    rule: ast.Whenever
    status: str  # proved | failed | skipped | unknown
    how: str = ""
    reason: str = ""
    values: dict[str, str] = field(default_factory=dict)  # a failure: where it shows
    clauses: set[str] = field(default_factory=set)
    reads: set[str] = field(default_factory=set)
    bounds: list[str] = field(default_factory=list)

    @property
    def cites(self) -> str:
        return f"{self.rule.clause}/{self.rule.name}"


def rule_key(w: ast.Whenever) -> str:
    """How a proof's reads name a standing rule (see InvariantProver.quiescent)."""
    return read_key(f"{w.clause}/{w.name}", w.overlay)


def standing_within(sym: Symbols) -> dict[str, int]:
    """The bounds of the standing rules' proofs: for each type, the largest ``within`` a
    property of the spec gives it (the rules' bodies handle what the properties' do)."""
    out: dict[str, int] = {}
    for d in sym.labels.values():
        if isinstance(d, ast.Property):
            for name, n in d.within.items():
                out[name] = max(out.get(name, DEFAULT_BOUND), n)
    return out


class StandingProver(InvariantProver):
    def __init__(
        self,
        sym: Symbols,
        data_values: dict[str, set[str]],
        collections: dict[str, list[dict[str, Any]]],
        budget: Budget,
    ) -> None:
        claim = ast.Property("", text="", body=ast.BoolLit(True), invariant=True)
        claim.within = standing_within(sym)
        super().__init__(sym, data_values, collections, claim, budget)

    def due(
        self, tr: StepTranslator, w: ast.Whenever, env: dict[str, Any], wrote: set[str] | None
    ) -> Any:
        """The rule's condition at its parameters' values; with ``wrote``, only its parts
        (conjuncts) that read a cell of those (see ``after_body``)."""
        parts = [c for c in conjuncts(w.cond) if wrote is None or reads(c, self.sym) & wrote]
        with tr.apart() as (read, used):
            tr.note(w, f"{w.clause}/{w.name}")
            cond = z3.And(*[tr.expr(c, env) for c in parts]) if parts else z3.BoolVal(True)
        tr.read |= read
        tr.used |= used
        return cond

    def values_of(self, tr: StepTranslator, w: ast.Whenever, tag: str) -> dict[str, Any]:
        return {prm.name: tr.something(prm.type, f"{prm.name}{tag}") for prm in w.params}

    def after_body(
        self, a: ast.Whenever, b: ast.Whenever | None = None, wrote: set[str] | None = None
    ) -> tuple[str, dict[str, str], str]:
        """Whether a's body, run where a is due, leaves a due at the same values (``b``
        None), or makes b due where it was not (at other values if b is a): "proved" when
        it never does, "failed" with the values, "unknown" or "skipped" with the reason.

        Where a condition cannot be translated whole, the proof is tried again on the parts
        of the conditions (their conjuncts) that read what a's body sets (``wrote``): the
        other parts are the same before and after the body, so were the rule due after
        and not before (or due before and after), those parts alone would be too. Proved
        so, or skipped: assuming less, a model shows no position."""
        tr = self.translator()
        p = self.values_of(tr, a, "")
        try:
            tr.assumptions.append(self.due(tr, a, p, wrote))
            q: dict[str, Any] = p
            if b is not None:
                q = self.values_of(tr, b, "'")
                tr.assumptions.append(z3.Not(self.due(tr, b, q, wrote)))
                if b is a and p:
                    tr.assumptions.append(z3.Not(z3.And(*[tr.eq(p[k], q[k]) for k in p])))
            tr.run(a.body, dict(p))
            goal = self.due(tr, b or a, q, wrote)
        except (Untranslatable, *SLIPS) as err:
            return self.by_parts(a, b, wrote, f"cannot translate {err}")
        if tr.missed:
            return self.by_parts(a, b, wrote, f"cannot translate {sorted(tr.missed)[0]}")
        result, solver = self.solve(tr, goal)
        if result == z3.unsat:
            return "proved", {}, ""
        if wrote is not None:
            return "skipped", {}, ""
        if result == z3.unknown:
            return "unknown", {}, self.no_answer(solver, "")
        # the values, and the cells the conditions read there, as the position had them
        model = solver.model()
        self.looked = set()
        self.look(model, [*p.values(), *q.values()])
        self.inv_reads = reads(a.cond, self.sym) | reads((b or a).cond, self.sym)
        shown = self.start_values(tr, model, p)
        if b is not None:
            shown |= {f"{k} ({b.name})": str(self.show(model, v)) for k, v in q.items()}
        return "failed", shown, ""

    def by_parts(
        self, a: ast.Whenever, b: ast.Whenever | None, wrote: set[str] | None, why: str
    ) -> tuple[str, dict[str, str], str]:
        """``after_body`` on the parts of the conditions that read what a's body sets, once;
        skipped with ``why`` unless that proves it. Only for a rule's own proofs (b None
        or a): an edge to another rule left in the graph costs nothing unless on a cycle."""
        if wrote is None and b in (None, a):
            wrote = writes(a.body, self.sym, whole=True)
            if "*" not in wrote and self.after_body(a, b, wrote)[0] == "proved":
                return "proved", {}, ""
        return "skipped", {}, why

    def instances(self, tr: StepTranslator, w: ast.Whenever) -> int:
        """How many values the rule's parameters take (the instances that may be due)."""
        n = 1
        for prm in w.params:
            n *= len(tr.key_values(prm.type))
        return n


def prove_standing(
    sym: Symbols,
    data_values: dict[str, set[str]],
    collections: dict[str, list[dict[str, Any]]],
    budget: Budget,
) -> list[RuleOutcome]:
    """Each standing rule's proof: what its body achieves, and that the rules settle."""
    prover = StandingProver(sym, data_values, collections, budget)
    rules = list(sym.standing)
    out: dict[str, RuleOutcome] = {}
    for w in rules:
        prover.used, prover.read = set(), set()
        if ends_game(w.body):
            o = RuleOutcome(w, "proved", "its body ends the game: it fires at most once")
        else:
            status, values, reason = prover.after_body(w)
            o = RuleOutcome(w, status, reason=reason, values=values)
            if status == "failed":
                o.reason = "after its body runs, it is still due"
            o.how = "after its body runs, it is no longer due at its values"
        o.clauses, o.reads = set(prover.used) | {w.clause}, set(prover.read)
        out[rule_key(w)] = o
    # the graph: a rule's body may make another rule due (itself, at other values)
    going = [w for w in rules if not ends_game(w.body)]
    edges: dict[str, set[str]] = {rule_key(w): set() for w in going}
    for a in going:
        wrote = writes(a.body, sym, whole=True)
        for b in going:
            if b is not a and "*" not in wrote and not wrote & reads(b.cond, sym):
                continue  # a's body sets nothing b's condition reads
            status, values, reason = prover.after_body(a, b)
            if status != "proved":
                edges[rule_key(a)].add(rule_key(b))
                if a is b:
                    o = out[rule_key(a)]
                    if o.status == "proved":
                        o.status = status if status != "failed" else "failed"
                        o.values = values
                        o.reason = reason or "its body may make it due at other values"
    looped = _on_cycles(edges)
    bound = _firings(edges, {rule_key(w): prover.instances(prover.translator(), w) for w in going})
    ending = sum(1 for w in rules if ends_game(w.body))
    settle = (
        f"the standing rules settle within {bound + ending} firings"
        if not looped
        else "the standing rules may trigger one another in a cycle"
    )
    for w in going:
        o = out[rule_key(w)]
        makes = sorted(b for b in edges[rule_key(w)] if b != rule_key(w))
        o.how += f"; it may make due {', '.join(makes)}" if makes else "; it makes no rule due"
        o.how += f"; {settle}"
        if rule_key(w) in looped and o.status == "proved":
            o.status, o.reason = "failed", f"it lies on a cycle of rules that may trigger: {settle}"
    bounds = prover.bounds()
    for o in out.values():
        o.bounds = bounds
    return [out[rule_key(w)] for w in rules]


def conjuncts(e: ast.Expr) -> list[ast.Expr]:
    """The parts of a condition that must all hold (its ``and``s, flattened)."""
    if isinstance(e, ast.BinOp) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def _on_cycles(edges: dict[str, set[str]]) -> set[str]:
    """The rules on a cycle of the graph (a rule's edge to itself is not one: it is said
    apart, as a rule that makes itself due elsewhere)."""
    out = set()
    for start in edges:
        seen, todo = set(), [b for b in edges[start] if b != start]
        while todo:
            x = todo.pop()
            if x == start:
                out.add(start)
                break
            if x in seen:
                continue
            seen.add(x)
            todo += [b for b in edges.get(x, set()) if b != x]
    return out


def _firings(edges: dict[str, set[str]], instances: dict[str, int]) -> int:
    """A bound on the firings before the rules settle, without cycles: each instance of a
    rule fires at most once, and once more for each firing of a rule that may make it due."""
    memo: dict[str, int] = {}

    def most(r: str, path: frozenset[str]) -> int:
        if r in memo:
            return memo[r]
        before = [a for a, bs in edges.items() if r in bs and a != r and a not in path]
        n = instances[r] * (1 + sum(most(a, path | {r}) for a in before))
        memo[r] = n
        return n

    return sum(most(r, frozenset()) for r in edges) if edges else 0
