"""What the rules' statements write, check and start: the transitions between two events,
the write sets, and the slicing of what flows into what a property reads (z3's unsat core
then names the checks a proof used)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from referee.parse import ast
from referee.resolve.reads import procedure_statements, reads
from referee.resolve.symbols import Symbols
from referee.verify.common import read_key


@dataclass
class Transition:
    where: str  # procedure.step[.action]
    proc: ast.Procedure | None
    allow: ast.Allow | None
    body: list[ast.Stmt]
    guard: ast.Expr | None = None
    decl: str = ""  # the declaration read, as Outcome.reads names it

    def __post_init__(self) -> None:
        if self.proc is not None and self.decl:
            self.decl = read_key(self.decl, self.proc.overlay)


# ---------------------------------------------------------------- write sets


def writes(
    stmts: list[ast.Stmt], sym: Symbols, seen: set[str] | None = None, whole: bool = False
) -> set[str]:
    """The state cells (and procedure variables) a list of statements may set. A procedure
    (or an action outside the rules language) they start may write anything: its steps are
    transitions of their own, checked one by one, so it is left out; with ``whole`` it is
    named "*" (what the statements may set is then unknown)."""
    seen = set() if seen is None else seen
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ast.SetStmt):
            t = st.target
            name = t.func.id if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) else ""
            out.add(t.id if isinstance(t, ast.Name) else name)
        elif isinstance(st, ast.IfStmt):
            out |= writes(st.then, sym, seen, True) | writes(st.orelse, sym, seen, True)
        elif isinstance(st, ast.ForStmt):
            out |= writes(st.body, sym, seen, True)
        elif isinstance(st, ast.DoStmt) and st.name not in seen:
            callee = sym.actions.get(st.name)
            if isinstance(callee, ast.Routine):
                out |= writes(callee.body, sym, seen | {st.name}, True)
            else:
                out.add("*")
    if not whole:
        out.discard("*")
    return out


def widen(stmts: list[ast.Stmt], names: set[str], sym: Symbols) -> set[str]:
    """What the statements that set the given names read, and so on: the names (state cells,
    the event's parameters, lets, loop variables) whose values may flow into them, and the
    lets and loop variables that flow from those. A check of one of these may decide what the
    event sets, so the slicing keeps it (z3's unsat core then tells the ones the proof used)."""
    out = set(names)

    def walk(block: list[ast.Stmt], seen: frozenset[str]) -> None:
        for st in block:
            if isinstance(st, ast.LetStmt):
                value = reads([st.value], sym)
                if st.name in out:
                    out.update(value)
                elif value & out:  # a name for what flows from them: a check of it decides
                    out.add(st.name)
            elif isinstance(st, ast.SetStmt):
                if writes([st], sym) & out:
                    out.update(reads([st.value, st.target], sym))
            elif isinstance(st, ast.IfStmt):
                if writes(st.then + st.orelse, sym) & out:
                    out.update(reads([st.cond], sym))
                walk(st.then, seen)
                walk(st.orelse, seen)
            elif isinstance(st, ast.ForStmt):
                domain = reads([st.domain], sym)
                if writes(st.body, sym) & out or st.var in out:
                    out.update(domain)
                if domain & out:  # each item of a list that flows into them
                    out.add(st.var)
                walk(st.body, seen)
            elif isinstance(st, ast.DoStmt) and st.name not in seen:
                callee = sym.actions.get(st.name)
                if isinstance(callee, ast.Routine) and writes([st], sym) & out:
                    out.update(reads(st.args, sym))
                    walk(callee.body, seen | {st.name})

    while True:
        size = len(out)
        walk(stmts, frozenset())
        if len(out) == size:
            return out


def transitions(sym: Symbols) -> Iterator[Transition]:
    """Every atomic change the rules make between two events: each allowed action's
    effect, each step's entry, each trigger."""
    for proc in sym.procedures().values():
        for step in proc.steps:
            where, decl = f"{proc.name}.{step.name}", f"{proc.name}/{step.name}"
            if step.enter:
                yield Transition(f"{where} (enter)", proc, None, step.enter, decl=decl)
            for a in step.allows:
                yield Transition(f"{where}.{a.name}", proc, a, a.effects, decl=f"{decl}/{a.name}")
            for t in step.triggers:
                yield Transition(
                    f"{where} ({t.clause}/{t.name})",
                    proc,
                    None,
                    t.body,
                    t.cond,
                    decl=f"{decl}/{t.name}",
                )
        for t in proc.triggers:
            yield Transition(
                f"{proc.name} ({t.clause}/{t.name})",
                proc,
                None,
                t.body,
                t.cond,
                decl=f"{proc.name}/{t.name}",
            )


def checks_in(stmts: list[ast.Stmt], sym: Symbols, seen: set[str] | None = None) -> list[str]:
    """The requirements the statements check, through the routines they run and the first
    steps of the procedures they start."""
    seen = set() if seen is None else seen
    out: list[str] = []
    for st in stmts:
        if isinstance(st, ast.CheckStmt):
            out.append(str(st.ref))
        elif isinstance(st, ast.IfStmt):
            out += checks_in(st.then, sym, seen) + checks_in(st.orelse, sym, seen)
        elif isinstance(st, ast.ForStmt):
            out += checks_in(st.body, sym, seen)
        elif isinstance(st, ast.DoStmt) and st.name not in seen:
            seen.add(st.name)
            callee = sym.actions.get(st.name)
            if isinstance(callee, ast.Routine):
                out += checks_in(callee.body, sym, seen)
            elif isinstance(callee, ast.Procedure):
                out += checks_around(callee, sym, seen)
    return out


def checks_around(proc: ast.Procedure, sym: Symbols, seen: set[str] | None = None) -> list[str]:
    """The requirements a procedure may check outside its actions: its steps' entries and
    triggers, and its own triggers."""
    seen = set() if seen is None else seen
    out: list[str] = []
    for step in proc.steps:
        out += checks_in(step.enter, sym, seen)
        for g in step.triggers:
            out += checks_in(g.body, sym, seen)
    for g in proc.triggers:
        out += checks_in(g.body, sym, seen)
    return out


def starts_in(stmts: list[ast.Stmt], sym: Symbols, seen: set[str] | None = None) -> set[str]:
    """The procedures the statements start, through the routines they run."""
    seen = set() if seen is None else seen
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ast.IfStmt):
            out |= starts_in(st.then, sym, seen) | starts_in(st.orelse, sym, seen)
        elif isinstance(st, ast.ForStmt):
            out |= starts_in(st.body, sym, seen)
        elif isinstance(st, ast.DoStmt) and st.name not in seen:
            seen.add(st.name)
            callee = sym.actions.get(st.name)
            if isinstance(callee, ast.Routine):
                out |= starts_in(callee.body, sym, seen)
            elif isinstance(callee, ast.Procedure):
                out.add(callee.name)
    return out


def checks_after(t: Transition, sym: Symbols) -> list[str]:
    """The requirements the referee may check once an event's own statements are done, as
    part of the same event: the standing rules', those around its procedure (its steps'
    entries and triggers), around the procedures it starts, and around those that start its
    procedure (they resume when it ends)."""
    out = [c for w in sym.standing for c in checks_in(w.body, sym)]
    procs = sym.procedures()
    around = set(starts_in(t.body, sym))
    if t.proc is not None:
        around.add(t.proc.name)
        starters = {t.proc.name}
        while True:  # the procedures that start it, and those that start them
            more = {
                name
                for name, proc in procs.items()
                if name not in starters
                and starts_in([st for tt in transitions_of(proc) for st in tt], sym) & starters
            }
            if not more:
                break
            starters |= more
        around |= starters
    for name in sorted(around):
        out += checks_around(procs[name], sym)
    return out


def transitions_of(proc: ast.Procedure) -> list[list[ast.Stmt]]:
    """The statements of a procedure's steps: entries, actions' effects, triggers."""
    out = [step.enter for step in proc.steps]
    out += [a.effects for step in proc.steps for a in step.allows]
    out += [g.body for step in proc.steps for g in step.triggers] + [g.body for g in proc.triggers]
    return out


def ends_game(stmts: list[ast.Stmt]) -> bool:
    return any(isinstance(s, ast.GameOverStmt) for s in stmts)


def has_check(stmts: list[ast.Stmt]) -> bool:
    for st in stmts:
        if isinstance(st, (ast.CheckStmt, ast.DoStmt, ast.GameOverStmt)):
            return True
        if isinstance(st, ast.IfStmt) and (has_check(st.then) or has_check(st.orelse)):
            return True
        if isinstance(st, ast.ForStmt) and has_check(st.body):
            return True
    return False


def beneath(proc: ast.Procedure, sym: Symbols) -> set[str]:
    """The procedures that may run at any moment while the procedure runs: those the
    standing rules start, and those they start, and so on. (One the procedure starts itself
    runs at a point of its own steps, a battle's follow-on combat, say; an invariant speaks
    of the procedure's variables while they are its own, not while such a one runs.)"""
    procs = sym.procedures()
    found = starts_in([st for w in sym.standing for st in w.body], sym)
    todo = list(found)
    while todo:
        more = starts_in(procedure_statements(procs[todo.pop()]), sym) - found
        found |= more
        todo += more
    found.discard(proc.name)
    return found


def starts_any(stmts: list[ast.Stmt], sym: Symbols) -> bool:
    return any(isinstance(st, ast.DoStmt) for st in stmts)


def step_of(t: Transition) -> ast.Step | None:
    if t.proc is None:
        return None
    for step in t.proc.steps:
        if t.allow is not None and t.allow in step.allows:
            return step
        if t.where.startswith(f"{t.proc.name}.{step.name} "):
            return step
    return t.proc.steps[0] if t.proc.steps else None
