"""Prove the spec's properties with z3, from the same tree the referee runs.

A property's definitions are translated into z3 terms (integers, booleans,
enumerations; calls are inlined, tables become chains of ``If``); its
universally quantified variables become free constants with their domains as
constraints, and the property is proved when its negation is unsatisfiable.
Otherwise the model is a counterexample, reported with the clauses of every
definition the property used.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import z3

from referee.budget import TimeUp
from referee.compile.spec import clause_key
from referee.parse import ast
from referee.resolve.symbols import Symbols
from referee.verify.common import DEFAULT_BUDGET, RLIMIT, Budget, Untranslatable, read_key
from referee.verify.invariants import SET_UP, prove_invariant
from referee.verify.records import record_of, source_of
from referee.verify.reuse import still_same, token, watching
from referee.verify.standing import prove_standing, standing_within
from referee.verify.terms import Translator, translating_within


@dataclass
class Outcome:
    clause: str
    label: str
    text: str
    status: str  # proved | failed | skipped | unknown
    counterexample: dict[str, str] = field(default_factory=dict)
    clauses: list[str] = field(default_factory=list)
    reason: str = ""
    how: str = ""  # a step invariant: by the standing rules, or by induction over the steps
    # the declarations the proof read: definitions, constants, tables and routines by name,
    # requirements and standing rules as clause/label, a procedure's steps as
    # procedure/step[/action or trigger], a procedure's variable as procedure.variable, an
    # overlay's exception as "except clause/label"; " [overlay]" after one an overlay put in
    # force
    reads: list[str] = field(default_factory=list)
    # a step invariant: the statements of the steps it read that its proof left out each
    # time (they set or check nothing it reads), as file:start:end
    left_out: list[str] = field(default_factory=list)
    # what a proof covers and no more: a property over definitions, its variables' domains;
    # a step invariant, the most items each list held, and the set-up's own lists
    bounds: list[str] = field(default_factory=list)
    record: dict[str, Any] = field(default_factory=dict)  # a failing invariant's record
    written: str = ""  # where that record was written
    seconds: float = 0.0  # the processor time the proof took (0 for one reused)
    kind: str = "property"  # or "standing rule": what its body achieves, that the rules settle
    rests_on: list[str] = field(default_factory=list)  # the standing rules its proof read

    @property
    def cites(self) -> str:
        return f"{self.clause}/{self.label}"

    def line(self) -> str:
        head = f"{self.cites:<40} {self.status}"
        if self.status == "failed" and self.record:
            where = f"; written to {self.written}" if self.written else ""
            clauses = ", ".join(self.clauses)
            return f"{head}: counterexample after {self.how} (clauses {clauses}){where}"
        if self.status == "failed" and self.kind == "standing rule":
            values = ", ".join(f"{k} = {v}" for k, v in self.counterexample.items())
            return f"{head}: {self.reason}" + (f": counterexample {values}" if values else "")
        if self.status == "failed":
            values = ", ".join(f"{k} = {v}" for k, v in self.counterexample.items())
            what = f"counterexample {values}" if values else "false as stated"
            if self.how == SET_UP:
                what = f"counterexample at {SET_UP}: {values}"
            return f"{head}: {what} (clauses {', '.join(self.clauses)})"
        if self.status in ("skipped", "unknown"):
            return f"{head}: {self.reason}"
        how = f"; {self.how}" if self.how else ""
        if self.how.startswith("by the standing rules") and self.rests_on:
            how += f", resting on {', '.join(self.rests_on)}"
        bounds = "".join(f"; {b}" for b in self.bounds)
        return f"{head} ({self.text}{how}{bounds})"


def prove(
    sym: Symbols,
    data_values: dict[str, set[str]],
    timeout_ms: int | None = None,
    collections: dict[str, list[dict[str, Any]]] | None = None,
    cache: dict[str, list[tuple[dict[tuple[str, str], Any], Any]]] | None = None,
    only: set[str] | None = None,
    rlimit: int = RLIMIT,
    least_reads: bool = True,
) -> list[Outcome]:
    """Prove every property of the spec (with ``only``, those it names by clause/label or
    by clause); one Outcome each, in clause order. A step
    invariant needs the components' items (``collections``). With a ``cache`` (one per
    spec: proving under several overlay sets), a step invariant whose proof read only
    declarations that are the same as in an earlier proof keeps that proof's outcome. Each
    solver call may do ``rlimit`` units of z3's work, and take ``timeout_ms`` where given;
    with ``least_reads`` off, a proof's reads are a set that suffices, not the least."""
    budget = Budget(rlimit, timeout_ms, least_reads)
    props = [d for d in sym.labels.values() if isinstance(d, ast.Property)]
    if only:
        props = [p for p in props if p.clause in only or f"{p.clause}/{p.name}" in only]
    rules = [
        w for w in sym.standing if not only or w.clause in only or f"{w.clause}/{w.name}" in only
    ]
    out = []
    for p in props:
        began = time.process_time()
        # a --timeout bounds the whole property, its translation included, not only z3's calls
        try:
            with translating_within(budget.timeout_ms):
                if not p.invariant:
                    out.append(_cached(sym, data_values, p, budget, cache))
                elif collections is None:  # a quantifier over no locations holds of nothing
                    out.append(
                        Outcome(
                            p.clause, p.name, p.text, "skipped", reason="the components are needed"
                        )
                    )
                else:
                    out.append(
                        prove_step_invariant(sym, data_values, collections, p, budget, cache)
                    )
        except TimeUp as err:
            out.append(Outcome(p.clause, p.name, p.text, "unknown", reason=str(err)))
        out[-1].seconds = round(time.process_time() - began, 2)
    keys = {read_key(f"{w.clause}/{w.name}") for w in sym.standing}
    resting = any(k.split(" [")[0] in keys for o in out for k in o.reads)
    if collections is not None and (rules or resting):
        out = _resting(out, _standing(sym, data_values, collections, budget, rules, cache))
    order = {k: i for i, k in enumerate(sym.labels)}
    return sorted(out, key=lambda o: order.get(o.cites, len(order)))


def _cached(
    sym: Symbols,
    data_values: dict[str, set[str]],
    p: ast.Property,
    budget: Budget,
    cache: dict[str, list[tuple[dict[tuple[str, str], Any], Any]]] | None,
) -> Outcome:
    """A property over definitions proved, or, with a ``cache``, kept from an earlier run
    (another overlay set) where every declaration its proof looked up is the same."""
    cites = f"{p.clause}/{p.name}"
    for deps, earlier in (cache or {}).get(cites, []):
        if still_same(sym, deps) and isinstance(earlier, Outcome):
            return replace(earlier, seconds=0.0)
    seen, looked = watching(sym)
    out = prove_one(seen, data_values, p, budget)
    if cache is not None:
        cache.setdefault(cites, []).append((looked.all, out))
    return out


def _standing(
    sym: Symbols,
    data_values: dict[str, set[str]],
    collections: dict[str, list[dict[str, Any]]],
    budget: Budget,
    shown: list[ast.Whenever],
    cache: dict[str, list[tuple[dict[tuple[str, str], Any], Any]]] | None = None,
) -> list[Outcome]:
    """Each standing rule's proofs (see standing.py), as outcomes; those not in ``shown``
    marked as such (``seconds`` < 0: proved for the properties that rest on them). With a
    ``cache``, proofs that read only declarations the same as an earlier run's are kept."""
    began = time.process_time()
    # the rules themselves and the bounds of their proofs, beside what the proofs looked up
    rules = (tuple(token(w) for w in sym.standing), tuple(sorted(standing_within(sym).items())))
    for deps, (were, earlier) in (cache or {}).get(STANDING, []):
        if were == rules and still_same(sym, deps):
            found = earlier
            break
    else:
        seen, looked = watching(sym)
        found = prove_standing(seen, data_values, collections, budget)
        if cache is not None:
            cache.setdefault(STANDING, []).append((looked.all, (rules, found)))
    out = []
    for r in found:
        o = Outcome(r.rule.clause, r.rule.name, r.rule.text, r.status, reason=r.reason)
        o.how, o.bounds = r.how, r.bounds
        o.counterexample = r.values
        o.clauses, o.reads = _clause_order(r.clauses), sorted(r.reads)
        o.kind = "standing rule"
        o.seconds = round((time.process_time() - began) / max(1, len(found)), 2)
        if r.rule not in shown:
            o.seconds = -1.0
        out.append(o)
    return out


STANDING = "~standing rules"  # the cache's key for the standing rules' proofs


def _resting(outcomes: list[Outcome], rules: list[Outcome]) -> list[Outcome]:
    """A proof that read a standing rule (the position at rest once the rules are done)
    rests on that rule's own proofs: proved only where they are. The rules' outcomes join
    the list where asked for."""
    by_key = {read_key(o.cites, ""): o for o in rules}
    for o in outcomes:
        rests = sorted({r.cites for key in o.reads for r in [by_key.get(key.split(" [")[0])] if r})
        if not rests:
            continue
        o.rests_on = rests
        weak = [by_key[c] for c in rests if by_key[c].status != "proved"]
        if o.status == "proved" and weak:
            o.status = "unknown"
            o.reason = "rests on the standing rules " + ", ".join(
                f"{r.cites} ({r.status})" for r in weak
            )
    return outcomes + [r for r in rules if r.seconds >= 0]


def slowest(outcomes: list[Outcome], n: int = 3) -> str:
    """Which proofs took longest (processor time), and the whole: a line of the output."""
    if not outcomes:
        return ""
    total = sum(o.seconds for o in outcomes)
    worst = sorted(outcomes, key=lambda o: -o.seconds)[:n]
    each = ", ".join(f"{o.cites} {o.seconds:.1f} s" for o in worst)
    return f"slowest: {each} (of {total:.1f} s proving, processor time)"


def numbers(domain: ast.Expr) -> bool:
    """Whether a quantifier's domain is some numbers (a range, a list of them): a bound."""
    if isinstance(domain, ast.ListLit):
        return any(isinstance(i, (ast.IntLit, ast.Neg)) for i in domain.items)
    return isinstance(domain, ast.Range)


def _clause_order(clauses: set[str]) -> list[str]:
    return sorted(clauses, key=clause_key)


def prove_step_invariant(
    sym: Symbols,
    data_values: dict[str, set[str]],
    collections: dict[str, list[dict[str, Any]]],
    p: ast.Property,
    budget: Budget | int = DEFAULT_BUDGET,
    cache: dict[str, list[tuple[dict[tuple[str, str], Any], Outcome]]] | None = None,
) -> Outcome:
    cites = f"{p.clause}/{p.name}"
    for deps, earlier in (cache or {}).get(cites, []):
        if still_same(sym, deps):
            return replace(earlier, record=dict(earlier.record), written="", seconds=0.0)
    seen, looked = watching(sym)
    budget = _budget(budget)
    found, used, read, left_out = prove_invariant(seen, data_values, collections, p, budget)
    out = Outcome(p.clause, p.name, p.text, found.status)
    out.clauses = _clause_order(used | {p.clause})
    out.reads, out.left_out = sorted(read), sorted(left_out)
    out.how = found.how if found.status != "failed" else (found.where or found.how)
    out.bounds = found.bounds
    out.reason = found.reason
    if found.status == "failed" and found.values:  # at the set-up: no event to replay
        out.counterexample = found.values
    elif found.status == "failed":
        out.record = record_of(p, found)
        out.counterexample = {"where": found.where}
    if cache is not None:
        cache.setdefault(cites, []).append((looked.all, out))
        if out.status == "proved" and not p.allows:
            # what the proof needed (z3's unsat cores, see reuse.py): the same under another
            # overlay set, it is proved there too, whatever else its steps' checks read. (A
            # property of what an event allows is proved once per set: there every check
            # is the property's own, and what cannot be translated leaves it skipped.)
            cache[cites].append((looked.needed(read), out))
    return out


def prove_one(
    sym: Symbols,
    data_values: dict[str, set[str]],
    p: ast.Property,
    budget: Budget | int = DEFAULT_BUDGET,
) -> Outcome:
    budget = _budget(budget)
    tr = Translator(sym, data_values)
    out = Outcome(p.clause, p.name, p.text, "proved")
    try:
        free: dict[str, z3.ExprRef] = {}
        constraints = tr.assumptions
        body = p.body
        # the outermost "forall" becomes free constants: a failure then has values
        if isinstance(body, ast.Quant) and body.kind == "forall":
            ranges = []
            for b in body.binders:
                x = tr.const(b.name, b.type, b.domain)
                constraints.append(tr.domain(x, b.domain, free))
                free[b.name] = x
                if numbers(b.domain):  # not all of a type (booleans, a side)
                    ranges.append(f"{b.name} in {' '.join(source_of(b.domain).split())}")
            out.bounds.append(f"for {', '.join(ranges)}" if ranges else "no bound")
            body = body.body
        goal = tr.expr(body, dict(free))
    except Untranslatable as err:
        out.status, out.reason = "skipped", f"cannot translate {err}"
        return out
    out.clauses = _clause_order(tr.used | {p.clause})
    out.reads = sorted(tr.read)
    solver = _solver(budget, constraints, goal)
    result = solver.check()
    if result == z3.unsat:
        return out
    if result == z3.unknown:
        return _unknown(out, solver, budget)
    model = solver.model()
    out.status = "failed"
    out.counterexample = {
        name: str(model.eval(x, model_completion=True)) for name, x in free.items()
    }
    return out


def _budget(budget: Budget | int) -> Budget:
    """A budget, or (as callers gave it before budgets were z3's work) a time in ms."""
    return budget if isinstance(budget, Budget) else Budget(timeout_ms=budget)


def _solver(budget: Budget, constraints: list[Any], goal: Any) -> z3.Solver:
    """A solver that looks for values within the domains where the goal fails."""
    solver = budget.solver()
    solver.add(*constraints)
    solver.add(z3.Not(goal))
    return solver


def _unknown(out: Outcome, solver: z3.Solver, budget: Budget) -> Outcome:
    out.status = "unknown"
    out.reason = f"z3 gave no answer ({solver.reason_unknown()}; {budget.limit()})"
    return out
