"""Proving step invariants, properties after an action and properties that an action is
allowed: by the standing rules, or by induction over the transitions (see steps.py for the
model)."""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

import z3

from referee.parse import ast
from referee.resolve.reads import floors, reads
from referee.resolve.symbols import Symbols
from referee.verify.common import Budget, Untranslatable, read_key
from referee.verify.flow import (
    Transition,
    beneath,
    checks_after,
    ends_game,
    has_check,
    starts_any,
    step_of,
    transitions,
    widen,
    writes,
)
from referee.verify.records import Counterexamples, StepOutcome
from referee.verify.reuse import Deps, Reads, carry, deps_of
from referee.verify.steps import StepTranslator
from referee.verify.values import NOTHING, SLIPS, SMALL_ENUM, Item, SList, Unknown, scalars

SET_UP = "the set-up"
_DUE_AT_START: list[Any] = []  # the symbols last asked, and whether a rule is due at the start


class InvariantProver(Counterexamples):
    def __init__(
        self,
        sym: Symbols,
        data_values: dict[str, set[str]],
        collections: dict[str, list[dict[str, Any]]],
        p: ast.Property,
        budget: Budget,
    ) -> None:
        self.sym, self.data_values, self.collections, self.p = sym, data_values, collections, p
        self.budget = budget
        self.inv_reads = reads(p.body, sym)
        self.floors = floors(sym)  # the counts, never below their start
        self.standing_writes: dict[str, set[str]] = {
            f"{w.clause}/{w.name}": writes(w.body, sym) for w in sym.standing
        }
        self.havoc_cells = set().union(
            *[
                ws
                for w, ws in zip(sym.standing, self.standing_writes.values(), strict=False)
                if not ends_game(w.body)
            ]
        )
        self.used: set[str] = set()
        self.read: set[str] = Reads()  # the declarations read (see Outcome.reads)
        self.fact_deps: Deps = {}  # what the facts asked of a counterexample looked up
        self.bounds_used: dict[str, int] = {}  # the lists' bounds the proofs used, by type
        self.longer_at_start = False
        self.kept: set[str] = set()  # the statements run, and those left out
        self.left_out: set[str] = set()

    def translator(self) -> StepTranslator:
        tr = StepTranslator(self.sym, self.data_values, self.collections, self.p.within)
        tr.floors = self.floors
        return tr

    def skolems(self, tr: StepTranslator) -> tuple[dict[str, Any], Any]:
        """The invariant's outermost ``forall`` as constants (a violation names its values),
        with their domains as constraints; and the invariant's body."""
        body = self.p.body
        env: dict[str, Any] = {}
        if not (isinstance(body, ast.Quant) and body.kind == "forall"):
            return env, z3.BoolVal(True)
        constraints = []
        for b in body.binders:
            with tr.invariant_frame():
                dom = tr.expr(b.domain, env)
            if not isinstance(dom, SList) or not dom.slots:
                return {}, z3.BoolVal(True)
            tr.fresh += 1
            first = dom.slots[0][1]
            term = tr.unwrap(first)
            x = z3.Const(f"{b.name}*{tr.fresh}", term.sort())
            value = Item(first.coll, first.type, x) if isinstance(first, Item) else x
            constraints.append(z3.Or(*[z3.And(p, tr.eq(value, v)) for p, v in dom.slots]))
            env[b.name] = value
        return env, z3.And(*constraints)

    def holds(self, tr: StepTranslator, env: dict[str, Any]) -> Any:
        """The invariant, at the skolem constants if it has them."""
        body = self.p.body
        with tr.invariant_frame():
            if env and isinstance(body, ast.Quant):
                return tr.expr(body.body, env)
            return tr.expr(body, {})

    def quiescent(
        self, tr: StepTranslator, at: dict[str, Any] | None = None, lazy: bool = False
    ) -> None:
        """Assume no standing rule is due, at each combination of its parameters' values (a
        big enumeration only at the invariant's own constants of its type: assuming less),
        each behind an indicator of its own (see StepTranslator.track); ``lazy``, as facts
        asked of a counterexample only (see solve)."""
        at = at or {}
        for w in self.sym.standing:
            domains = []
            for prm in w.params:
                sort, consts = tr.enum_sort(prm.type.name)
                values = [c for k, c in consts.items() if k != NOTHING]
                mine = [tr.unwrap(v) for v in at.values() if tr.unwrap(v).sort() == sort]
                domains.append(values if len(values) <= SMALL_ENUM else mine)
            for combo in itertools.product(*domains):
                env = {prm.name: v for prm, v in zip(w.params, combo, strict=True)}
                with tr.apart() as (read, used):
                    tr.note(w, f"{w.clause}/{w.name}")
                    try:
                        cond = z3.Not(tr.expr(w.cond, env))
                    except Untranslatable as err:
                        if tr.strict:  # a failure must be a position the rules can reach
                            raise Untranslatable(f"{w.clause}/{w.name}: {err}") from err
                        tr.missed.add(f"{w.clause}/{w.name}: {err}")
                        break
                if lazy:
                    tr.facts.append(cond)
                    self.fact_deps.update(deps_of(read))
                else:
                    tr.track(cond, "", read, used)

    @staticmethod
    def event_values(env: dict[str, Any]) -> dict[str, Any]:
        """The terms an event's arguments hold (through lists and records), by position: where
        the standing rules are assumed not due before it."""
        return {f"@{i}": x for i, x in enumerate(scalars(list(env.values())))}

    def frame_of(self, tr: StepTranslator, proc: ast.Procedure | None, initial: bool) -> None:
        tr.frame, tr.frame_types = {}, {}
        if proc is None:
            return
        for prm in proc.params:
            tr.frame[prm.name] = tr.something(prm.type, prm.name)
            tr.frame_types[prm.name] = prm.type
        for v in proc.vars:
            tr.frame_types[v.name] = v.type
            tr.frame[v.name] = tr.expr(v.value, {}) if initial else tr.fresh_value(v.type, v.name)
            if not initial and (proc.name, v.name) in self.floors:
                tr.facts.append(tr.frame[v.name] >= self.floors[(proc.name, v.name)])

    def solve(self, tr: StepTranslator, goal: Any) -> tuple[Any, z3.Solver]:
        """Whether the goal (a counterexample) can hold. Proved, the checks and standing
        rules the proof did not need (outside z3's unsat core) count as left out."""
        solver = self.budget.solver()
        solver.set("core.minimize", self.budget.least_reads)
        solver.add(*tr.assumptions)
        solver.add(goal)
        indicators = [t[0] for t in tr.tracked]
        result = solver.check(*indicators)
        if result != z3.unsat and tr.facts:  # a counterexample: one a game can reach?
            solver.add(*tr.facts)
            carry(tr.read, self.fact_deps)  # what the answer then rests on
            result = solver.check(*indicators)
        needed = {str(c) for c in solver.unsat_core()} if result == z3.unsat else None
        if result != z3.unsat:
            solver.add(*indicators)  # the model that follows assumes every one
            result = solver.check()
        for ind, where, read, used in tr.tracked:
            if needed is None or str(ind) in needed:
                tr.read |= read
                tr.used |= used
                if where:
                    tr.kept.add(where)
            elif where:
                tr.left_out.add(where)
        self.used |= tr.used
        self.read |= tr.read
        self.bounds_used.update(tr.bounds_used)
        self.longer_at_start = self.longer_at_start or tr.longer_at_start
        self.kept |= tr.kept
        self.left_out |= tr.left_out
        return result, solver

    def no_answer(self, solver: z3.Solver, where: str) -> str:
        """Why z3 gave no answer, the limit it had, and where (a larger --rlimit may do)."""
        at = f" in {where}" if where else ""
        return f"z3 gave no answer ({solver.reason_unknown()}; {self.budget.limit()}){at}"

    def var_procedure(self) -> ast.Procedure | None:
        """The procedure whose variables (and parameters) the invariant reads: the one that
        declares them all and names the most of what it reads (a name may also be one the
        invariant binds itself)."""
        procs = self.sym.procedures().values()
        reads = {n for n in self.inv_reads if n not in self.sym.values}
        var_names = reads & {v.name for proc in procs for v in proc.vars}
        if not var_names:
            return None
        best: tuple[int, ast.Procedure] | None = None
        for proc in procs:
            own = {v.name for v in proc.vars} | {q.name for q in proc.params}
            if var_names <= own and (best is None or len(reads & own) > best[0]):
                best = (len(reads & own), proc)
        if best is None:
            raise Untranslatable(f"the names {', '.join(sorted(var_names))}")
        return best[1]

    # ------------------------------------------------------------ the two ways
    def by_standing_rules(self, show: bool = True) -> StepOutcome:
        """Proved when every position at rest satisfies the invariant; failed otherwise,
        with (``show``) the position and an idle event that shows it."""
        tr = self.translator()
        proc = self.var_procedure()
        if proc is not None:
            return StepOutcome("failed", "standing rules")
        at, member = self.skolems(tr)
        self.quiescent(tr, at)
        goal = z3.And(member, z3.Not(self.holds(tr, at)))
        # the event a counterexample shows, in its procedure as it starts
        event = self.idle_event()
        if event is not None:
            self.frame_of(tr, event[0].proc, True)
        result, solver = self.solve(tr, goal)
        if result == z3.unsat:
            return StepOutcome("proved", "by the standing rules")
        out = StepOutcome("failed" if result == z3.sat else "unknown", "standing rules")
        if result == z3.sat:
            out.model = solver.model()
            if event is not None and show:
                t, step = event
                self.looked = set()
                self.look(out.model, list(at.values()))
                # the model's position, and an event that leaves it as it is
                entries = self.entries(tr, tr.cells)
                model = self.simplest(tr, solver, entries, list(at.values()))
                out.position = self.position(tr, model, entries, t.proc, step, tr.frame)
                out.event = self.event(tr, model, t, step, {"by": self.actor(tr, t)})
                out.where = t.where
        else:
            out.reason = self.no_answer(solver, "")
        return out

    def idle_event(self) -> tuple[Transition, ast.Step] | None:
        """An allowed action that checks nothing and sets nothing the invariant or a standing
        rule reads: after it, the position is as before."""
        watched = self.inv_reads | set().union(
            *[reads(w.cond, self.sym) for w in self.sym.standing]
        )
        for proc in self.sym.procedures().values():
            for step in proc.steps:
                for a in step.allows:
                    if a.params or a.requires or has_check(a.effects):
                        continue
                    if writes(a.effects, self.sym) & watched or starts_any(a.effects, self.sym):
                        continue
                    return Transition(f"{proc.name}.{step.name}.{a.name}", proc, a, a.effects), step
        return None

    def by_induction(self) -> StepOutcome:
        proc_of_vars = self.var_procedure()
        worst: StepOutcome | None = None
        checked = 0
        candidates: list[tuple[Transition, bool]] = []
        if proc_of_vars is not None:
            candidates.append(
                # a procedure starts by entering its first step
                (
                    Transition(
                        f"{proc_of_vars.name} (start)",
                        proc_of_vars,
                        None,
                        proc_of_vars.steps[0].enter if proc_of_vars.steps else [],
                    ),
                    True,
                )
            )
        candidates += [(t, False) for t in transitions(self.sym)]
        candidates.append((Transition("any event", None, None, []), False))
        inner = beneath(proc_of_vars, self.sym) if proc_of_vars is not None else set()
        base = self.at_start(proc_of_vars)
        if base.status != "proved":
            return base
        for t, start in candidates:
            # an event of another procedure may come while the invariant's runs (a
            # procedure it starts): its variables stay as they were
            outer = None
            if proc_of_vars is not None and t.proc is not proc_of_vars:
                if t.proc is None or t.proc.name not in inner:
                    continue
                outer = proc_of_vars
            touched = (
                writes(t.body, self.sym)
                | self.havoc_cells
                | set(c for ws in self.standing_writes.values() for c in ws)
            )
            if (
                t.where != "any event"
                and not start
                and not (writes(t.body, self.sym) & self.inv_reads)
            ):
                continue
            if not (touched & self.inv_reads) and not start and t.where != "any event":
                continue
            checked += 1
            out = self.one_transition(t, start, outer=outer)
            if out.status == "failed" and t.allow is not None:
                # again with every check the step makes: the event found is then one the
                # referee allows (or, if there is none, the checks left out were needed)
                out = self.one_transition(t, start, all_checks=True, outer=outer)
            if out.status == "failed":
                return out
            if out.status in ("skipped", "unknown"):
                worst = out
        if worst is not None:
            return worst
        return StepOutcome("proved", f"by induction over {checked} transition(s), {base.how}")

    def at_start(self, proc_of_vars: ast.Procedure | None) -> StepOutcome:
        """The base case of an induction: the invariant holds where the game starts, each
        cell at its declared starting value, once the game's first procedure has entered its
        first step (and the standing rules have settled). An invariant of a procedure's
        variables starts with that procedure instead: its start is a transition of its own,
        from any position (see by_induction). A record's own ``position:`` is assumed."""
        assumed = "a record's position assumed"
        if proc_of_vars is not None:
            return StepOutcome("proved", f"from each start of {proc_of_vars.name} ({assumed})")
        proc = self.sym.procedures().get(self.sym.start)
        if proc is None:
            return StepOutcome("proved", f"from any start (the game names none: {assumed})")
        enter = proc.steps[0].enter if proc.steps else []
        setup = Transition(SET_UP, proc, None, enter, decl=f"{proc.name}/{proc.steps[0].name}")
        out = self.one_transition(setup, True, setup=True)
        if out.status == "failed" and not writes(enter, self.sym) and not self.due_at_start():
            # what the standing rules write was unknown: none fires, the entry writing
            # nothing and none being due where the game starts
            out = self.one_transition(setup, True, setup=True, quiet=True)
        if out.status == "proved":
            out.how = f"from the set-up ({assumed})"
        return out

    def by_effect(self) -> StepOutcome:
        """A property after an action: every event of it the rules allow, from any position
        at rest, leaves a position where the property holds of the event and the position
        before. A property that an action is allowed: every event of it whose arguments
        and position satisfy the property, from any position at rest, passes every check
        it makes."""
        action = self.p.after or self.p.allows
        checked = 0
        worst: StepOutcome | None = None
        for t in transitions(self.sym):
            if t.allow is None or t.allow.name != action:
                continue
            checked += 1
            out = self.one_transition(t, False)
            if out.status == "failed" and not self.p.allows:
                out = self.one_transition(t, False, all_checks=True)
            if out.status == "failed":
                return out
            if out.status in ("skipped", "unknown"):
                worst = out
        if not checked:
            return StepOutcome("skipped", reason=f"no step allows '{action}'")
        if self.p.allows:
            return worst or StepOutcome("proved", f"each of {checked} '{action}' event(s) allowed")
        return worst or StepOutcome("proved", f"after each of {checked} '{action}' event(s)")

    def opening(self, t: Transition) -> bool:
        """Whether the event is one of its procedure's opening step, which the procedure
        holds only once, on starting: no step leads back to it, each of its actions leads
        on, and nothing between the start and the event sets the procedure's variables
        (its entry, its triggers, the procedure's, the standing rules), nor what their
        starting values read. Before it, the variables hold their starting values."""
        proc = t.proc
        if proc is None or t.allow is None or not proc.steps:
            return False
        first = proc.steps[0]
        if t.allow not in first.allows:
            return False
        if any(a.then in ("", first.name) for a in first.allows):
            return False
        for step in proc.steps:
            if any(a.then == first.name for a in step.allows):
                return False
            if any(nxt == first.name for _, nxt in step.ends):
                return False
        between = list(first.enter)
        for g in [*first.triggers, *proc.triggers]:
            between += g.body
        for w in self.sym.standing:
            between += w.body
        # the starting values are taken on starting, before the step's entry: what they read
        # must not change before the event either
        starts = reads([v.value for v in proc.vars], self.sym)
        return not (writes(between, self.sym) & ({v.name for v in proc.vars} | starts))

    def one_transition(
        self,
        t: Transition,
        start: bool,
        all_checks: bool = False,
        outer: ast.Procedure | None = None,
        setup: bool = False,
        quiet: bool = False,
    ) -> StepOutcome:
        tr = self.translator()
        tr.at_start = setup  # the position before: the set-up (see at_start)
        if outer is not None:  # the invariant's procedure, running beneath the event's
            self.frame_of(tr, outer, False)
            tr.inv_frame = tr.frame, tr.frame_types
        tr.standing_cells = set(self.havoc_cells)
        allowing = bool(self.p.allows)  # every check is the property's, none is assumed
        not_theirs: Any = z3.BoolVal(False)  # the event sent by a side whose turn it is not
        tr.relevant = None if allowing else widen(t.body, set(self.inv_reads), self.sym)
        tr.all_checks = all_checks
        opening = not start and self.opening(t)
        self.frame_of(tr, t.proc, start or opening)
        if t.decl:
            tr.read.add(t.decl)
        if (start or opening) and t.proc is not None:  # the variables' starting values
            tr.read |= {read_key(f"{t.proc.name}.{v.name}", t.proc.overlay) for v in t.proc.vars}
        pre_frame = dict(tr.frame)
        effect = bool(self.p.after or self.p.allows)
        try:
            saved_havoc, tr.havoc = tr.havoc, set()
            at, member = ({}, z3.BoolVal(True)) if effect else self.skolems(tr)
            tr.assumptions.append(member)
            if not start and not effect:  # the invariant, before, at the same values
                tr.assumptions.append(self.holds(tr, at))
            tr.havoc = saved_havoc
            env: dict[str, Any] = {}
            if t.allow is not None:
                env["by"] = self.actor(tr, t)
                for prm in t.allow.params:
                    env[prm.name] = tr.param_value(prm, prm.name)
                if allowing:  # the position before is at rest, and the property's case
                    follow = checks_after(t, self.sym)
                    if follow:
                        raise Untranslatable(f"the check {follow[0]}, which may follow the event")
                    # any player may send the event: the step's actor alone may play it
                    actor, step = env["by"], step_of(t)
                    if (
                        self.sym.players
                        and not isinstance(actor, Unknown)
                        and step is not None
                        and step.actor is not None
                    ):
                        env["by"] = tr.something(ast.TypeRef(self.sym.players), "by")
                        not_theirs = z3.Not(tr.eq(env["by"], actor))
                    tr.strict = True
                    self.quiescent(tr)
                    tr.assumptions.append(tr.expr(self.p.body, env))
                    tr.collected = []
                for ref in t.allow.requires:
                    tr.stmt(ast.CheckStmt(ref, None), env)
            if t.allow is not None:
                self.at_rest(tr, t)
                if effect and not start:
                    # the position before an event is at rest: no standing rule is due at
                    # the values the event names, asked of a counterexample only (one the
                    # referee would settle first is none a game reaches)
                    self.quiescent(tr, self.event_values(env), lazy=True)
            if t.guard is not None:
                tr.assumptions.append(tr.expr(t.guard, {}))
            tr.run(t.body, env)
            if tr.collected is not None:  # a counterexample: a check that does not pass
                if tr.unchecked:
                    raise Untranslatable(f"the check {tr.unchecked[0]}")
                goal = z3.Or(
                    not_theirs, z3.Not(z3.And(*[z3.Implies(g, c) for g, c, *_ in tr.collected]))
                )
            # the standing rules, once the event's statements are done (``quiet``: none
            # fires at the set-up, see at_start)
            for w in [] if allowing or quiet else self.sym.standing:
                ws = self.standing_writes[f"{w.clause}/{w.name}"]
                if ends_game(w.body):
                    tr.fresh += 1
                    fired = z3.Bool(f"fired~{w.name}~{tr.fresh}")
                    tr.assumptions.append(z3.Implies(fired, tr.over))
                    for name in ws:
                        if name in self.sym.values:
                            self._maybe_fresh(tr, name, fired)
                else:
                    for name in ws:
                        if name in self.sym.values:
                            tr.cells.pop(name, None)
                            if setup:  # unknown from here on, not at its start
                                tr.forgotten.add(name)
            if not allowing:
                tr.havoc, tr.dirty = set(), False  # the position after, at rest
                self.quiescent(tr, at)
                if effect:  # of the event, and of the position before it
                    tr.before_frame = pre_frame
                    after = tr.expr(self.p.body, env)
                else:
                    after = self.holds(tr, at)
                goal = z3.And(z3.Not(tr.over), z3.Not(after))
        except (Untranslatable, *SLIPS) as err:
            return StepOutcome("skipped", reason=f"cannot translate {err} (in {t.where})")
        return self.counterexample(tr, t, goal, env, pre_frame, at)

    def counterexample(
        self,
        tr: StepTranslator,
        t: Transition,
        goal: Any,
        env: dict[str, Any],
        pre_frame: dict[str, Any],
        at: dict[str, Any] | None = None,
    ) -> StepOutcome:
        """Whether the goal (a counterexample) can hold; failed, with the simplest position
        and event that show it."""
        at = at or {}
        result, solver = self.solve(tr, goal)
        if result == z3.unsat and tr.collected is not None:
            self.reached(tr)
        if result == z3.unsat:
            return StepOutcome("proved")
        if result == z3.unknown:
            return StepOutcome("unknown", reason=self.no_answer(solver, t.where))
        model = solver.model()
        out = StepOutcome("failed", "induction", where=t.where, model=model)
        if tr.at_start:  # no event: the values the invariant fails at, where the game starts
            self.looked = set()
            self.look(model, list(at.values()))
            out.values = self.start_values(tr, model, at)
            return out
        step = step_of(t)
        if t.proc is not None and step is not None:
            self.looked = set()
            self.look(model, [*at.values(), *env.values()])
            entries = self.entries(tr, tr.initial)
            starts = []
            for v in t.proc.vars:
                try:
                    starts.append((pre_frame[v.name], tr.expr(v.value, {})))
                except (Untranslatable, *SLIPS):
                    pass
            # the simplest position and event: the event may change, and the keys shown
            # with it
            # a record gives no variable at nothing (the referee would take its start)
            vars_: list[tuple[str, list[str], Any, Any]] = [("", [], a, b) for a, b in starts]
            fixed = self.statable(tr, vars_) + self.unwritable(tr, tr.initial)
            shown = [*at.values(), *env.values()]
            model = self.simplest(tr, solver, entries + vars_, [], fixed)
            # then the event and the values the invariant fails at stay as they are, and
            # the cells at the keys they name are at their starting values where they can
            # be, none at nothing (a record cannot give it)
            self.look(model, shown)
            entries = self.entries(tr, tr.initial)
            fixed = fixed + self.statable(tr, entries)
            model = self.simplest(tr, solver, entries + vars_, scalars(shown), fixed, model)
            out.position = self.position(tr, model, entries, t.proc, step, pre_frame)
            if t.allow is not None:
                out.event = self.event(tr, model, t, step, env)
        out.havoc = set(tr.missed)
        return out

    def due_at_start(self) -> bool:
        """Whether a standing rule may be due where the game starts (each cell at its
        declared starting value), for some values of its parameters: asked once a spec."""
        if _DUE_AT_START and _DUE_AT_START[0] is self.sym:
            return bool(_DUE_AT_START[1])
        due = False
        for w in self.sym.standing:
            tr = self.translator()
            tr.at_start = True
            try:
                env = {prm.name: tr.something(prm.type, prm.name) for prm in w.params}
                goal = tr.expr(w.cond, env)
            except (Untranslatable, *SLIPS):
                due = True
                break
            solver = self.budget.solver()
            solver.add(*tr.assumptions, goal)
            if solver.check() != z3.unsat:
                due = True
                break
        _DUE_AT_START[:] = [self.sym, due]
        return due

    def start_values(
        self, tr: StepTranslator, model: z3.ModelRef, at: dict[str, Any]
    ) -> dict[str, str]:
        """The values a failure at the set-up shows: the invariant's own variables, then the
        cells it reads as the game starts (or as the position was), at the keys those name."""
        out = {k: str(self.show(model, v)) for k, v in at.items()}
        small = {k for _, consts in tr.sorts.values() if len(consts) <= SMALL_ENUM for k in consts}
        for name, keys, value, _ in self.entries(tr, tr.initial):
            if name in self.inv_reads and all(k in self.looked or k in small for k in keys):
                where = f"{name}({', '.join(keys)})" if keys else name
                out[where] = str(self.show(model, value))
        return out

    def bounds(self) -> list[str]:
        """The bounds the proofs assumed, as said with the outcome: the most items each list
        of a type held (named by ``within``, or the default)."""
        if not self.bounds_used:
            return []
        each = [
            f"{n} {name}" + ("" if name in self.p.within else " (the default)")
            for name, n in sorted(self.bounds_used.items())
        ]
        out = [f"lists of at most {', '.join(each)}"]
        if self.longer_at_start:
            out.append("the set-up's lists as long as they start")
        return out

    def reached(self, tr: StepTranslator) -> None:
        """Of the checks an event the property allows makes, those it reaches read what they
        read (a check under a condition the property's case never meets reads nothing)."""
        assert tr.collected is not None
        solver = self.budget.solver()
        solver.add(*tr.assumptions, *[t[0] for t in tr.tracked])
        for guard, _, where, read, used in tr.collected:
            if z3.is_true(z3.simplify(guard)) or solver.check(guard) != z3.unsat:
                self.read |= read
                self.used |= used
                self.kept.add(where)
            else:
                self.left_out.add(where)

    def at_rest(self, tr: StepTranslator, t: Transition) -> None:
        """Before an event the rules are at rest: its step's triggers and end conditions
        (and its procedure's triggers) do not hold, or the step would have moved on."""
        step = step_of(t)
        if step is None or t.proc is None:
            return
        conds = [c for c, _ in step.ends] + [g.cond for g in step.triggers + t.proc.triggers]
        for cond in conds:
            with tr.apart() as (read, used):  # read only if the proof needs it
                try:
                    if isinstance(cond, ast.CheckStmt):  # `ends unless`: the requirement holds
                        term = tr.requirement(cond, {})
                    else:
                        term = z3.Not(tr.expr(cond, {}))
                except (Untranslatable, *SLIPS) as err:
                    if tr.strict:  # a failure must be a position the rules can reach
                        raise Untranslatable(f"the step's condition: {err}") from err
                    tr.missed.add(str(err))
                    continue
            tr.track(term, "", read, used)

    def actor(self, tr: StepTranslator, t: Transition) -> Any:
        """Who plays the event (``by``): the step's actor, or any player."""
        step = step_of(t)
        if step is not None and step.actor is not None:
            with contextlib.suppress(Untranslatable, *SLIPS):
                return tr.expr(step.actor, {})
        if not self.sym.players:
            return Unknown("the name 'by' (the game names no players)")
        return tr.something(ast.TypeRef(self.sym.players), "by")

    def _maybe_fresh(self, tr: StepTranslator, name: str, fired: Any) -> None:
        d = self.sym.values[name]
        assert isinstance(d, ast.StateDecl)
        old = tr.cell(name)
        new = tr.fresh_cell(name, d.type, old.keys)
        if old.scalar is None:
            tr.grow(new, len(old.present))  # as many slots as the old, grown by a write
        if old.scalar is not None:
            old.scalar = z3.If(fired, new.scalar, old.scalar)
        else:
            old.present = [
                z3.If(fired, a, b) for a, b in zip(new.present, old.present, strict=False)
            ]
            old.values = [z3.If(fired, a, b) for a, b in zip(new.values, old.values, strict=False)]


def prove_invariant(
    sym: Symbols,
    data_values: dict[str, set[str]],
    collections: dict[str, list[dict[str, Any]]],
    p: ast.Property,
    budget: Budget,
) -> tuple[StepOutcome, set[str], set[str], set[str]]:
    """Prove a step invariant; the outcome (with the bounds it assumed), the clauses the
    proof used, the declarations it read (see Outcome.reads), and the statements of those
    it left out, every time it met them (see Outcome.left_out)."""
    prover = InvariantProver(sym, data_values, collections, p, budget)
    out = _prove(prover, p)
    out[0].bounds = prover.bounds()
    return out


def _prove(
    prover: InvariantProver, p: ast.Property
) -> tuple[StepOutcome, set[str], set[str], set[str]]:
    if p.after or p.allows:
        try:
            found = prover.by_effect()
        except Untranslatable as err:
            found = StepOutcome("skipped", reason=f"cannot translate {err}")
        return found, prover.used, prover.read, prover.left_out - prover.kept
    try:
        # (its counterexample is built only if it is the one shown: see below)
        first = prover.by_standing_rules(show=False)
        # the clauses and declarations of that way alone
        standing = set(prover.used), prover.read.copy(), prover.left_out - prover.kept
        if first.status == "proved":
            return first, *standing
        second = prover.by_induction()
        # where the standing rules govern what the invariant reads, or the steps gave no
        # position, the standing rules' counterexample (a position, and an idle event)
        if (
            second.status == "failed"
            and not second.values  # a failure at the set-up is shown as such
            and first.status == "failed"
            and (not second.position or prover.inv_reads & prover.havoc_cells)
        ):
            first = prover.by_standing_rules()
            if first.position:
                return first, *standing
    except Untranslatable as err:
        out = StepOutcome("skipped", reason=f"cannot translate {err}")
        return out, prover.used, prover.read, prover.left_out - prover.kept
    return second, prover.used, prover.read, prover.left_out - prover.kept
