"""Step invariants: properties that hold after every event the rules allow.

A bounded model of the position and of the event, translated from the same tree the
referee runs. A position is symbolic: each state cell a z3 array over its keys (a list
cell, one array a slot, at most the property's ``within`` bound of items); the
components (the map, the blocks) are concrete, their items enumerations. An event is
symbolic too: its arguments free constants, its lists bounded the same way. The
translator runs a transition's statements as z3 terms: ``check`` adds the requirement's
own condition (as the interpreter would evaluate it, overlays' exceptions included) to
the assumptions, ``set`` updates the arrays, ``for`` unrolls over the slots of a bounded
list, ``do`` inlines a routine, ``game over`` marks the game over.

The standing rules (``whenever``) fire after every write the interpreter makes; the
model does not follow them step by step. Instead, every cell a standing rule may write
is unknown after the event (and when read during it), and once the event is over, with
the game going on, no standing rule's condition holds (the interpreter runs them until
none does). A standing rule that always ends the game is followed: if it fired, the game
is over, and no event follows.

An invariant is proved in one of two ways. By the standing rules: every position in
which no standing rule is due satisfies it. Otherwise by induction on the transitions:
for each allowed action, step entry and trigger that writes a cell the invariant reads,
from a position that satisfies the invariant, with every check passing, the position
after satisfies it. A statement the translator cannot express makes the cells it writes
unknown (and a check it cannot express is left out): the model only ever allows more.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import z3

from referee.parse import ast
from referee.resolve.reads import floors, names_written, procedure_statements, reads
from referee.resolve.symbols import Symbols
from referee.verify.prover import MAX_INLINE, Translator, Untranslatable, _enum, read_key

NOTHING = "nothing~"  # the absent value, one more value of every enumeration
TEXT_NOTHING = "\x00"
SMALL_ENUM = 8  # an enumeration this small is instantiated value by value
DEFAULT_BOUND = 3  # items in a list of a type the property's `within` does not name
RLIMIT = 20_000_000  # the work a counterexample's simplest form may take (z3 resource units)


# ---------------------------------------------------------------- symbolic values


@dataclass
class SList:
    """A bounded list: slots, each (present, value); the list is the present values."""

    slots: list[tuple[Any, Any]]
    elem: ast.TypeRef | None = None


@dataclass
class Rec:
    """A record that is not a component: its fields by name."""

    fields: dict[str, Any]
    type: str = ""


@dataclass
class Item:
    """An item of a component collection: a value of the collection's enumeration."""

    coll: str
    type: str  # the record type
    term: Any


@dataclass
class Sub:
    """A record nested in a component's item (``data locations[l].disk``)."""

    item: Item
    path: tuple[str, ...]
    type: str


@dataclass
class Cell:
    """A state cell: arrays over its keys (slots for a list), or constants without keys."""

    decl_type: ast.TypeRef
    keys: list[z3.SortRef]
    scalar: Any = None  # array or constant
    present: list[Any] = field(default_factory=list)
    values: list[Any] = field(default_factory=list)


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


@dataclass
class StepOutcome:
    status: str  # proved | failed | skipped
    how: str = ""
    reason: str = ""
    where: str = ""
    model: z3.ModelRef | None = None
    position: dict[str, Any] = field(default_factory=dict)
    event: dict[str, Any] = field(default_factory=dict)
    havoc: set[str] = field(default_factory=set)


# ---------------------------------------------------------------- write sets


def writes(stmts: list[ast.Stmt], sym: Symbols, seen: set[str] | None = None) -> set[str]:
    """The state cells (and procedure variables) a list of statements may set."""
    seen = set() if seen is None else seen
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ast.SetStmt):
            t = st.target
            name = t.func.id if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) else ""
            out.add(t.id if isinstance(t, ast.Name) else name)
        elif isinstance(st, ast.IfStmt):
            out |= writes(st.then, sym, seen) | writes(st.orelse, sym, seen)
        elif isinstance(st, ast.ForStmt):
            out |= writes(st.body, sym, seen)
        elif isinstance(st, ast.DoStmt) and st.name not in seen:
            callee = sym.actions.get(st.name)
            if isinstance(callee, ast.Routine):
                out |= writes(callee.body, sym, seen | {st.name})
            elif isinstance(callee, ast.Procedure):
                out.add("*")  # a procedure it starts may write anything: its steps are
                # transitions of their own, checked one by one
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


# ---------------------------------------------------------------- the translator


class StepTranslator(Translator):
    def __init__(
        self,
        sym: Symbols,
        data_values: dict[str, set[str]],
        collections: dict[str, list[dict[str, Any]]],
        within: dict[str, int],
    ) -> None:
        super().__init__(sym, data_values)
        self.collections = collections
        self.within = within
        self.floors: dict[tuple[str, str], int] = {}  # see referee.resolve.reads.floors
        self.cells: dict[str, Cell] = {}
        self.havoc: set[str] = set()  # cells unknown when read (standing rules write them)
        self.frame: dict[str, Any] = {}  # the procedure's parameters and variables
        # an event of another procedure, run while the invariant's own is running: the
        # invariant reads that one's parameters and variables (see invariant_frame)
        self.inv_frame: tuple[dict[str, Any], dict[str, ast.TypeRef]] | None = None
        self.assumptions: list[Any] = []
        # what the rules make true of every position (a count never below its start): not
        # needed to prove, so added only where the proof fails without them
        self.facts: list[Any] = []
        self.over: Any = z3.BoolVal(False)
        self.guard: Any = z3.BoolVal(True)
        self.missed: set[str] = set()  # what could not be translated, said in a reason
        self.item_sorts: dict[str, tuple[z3.SortRef, dict[str, z3.ExprRef]]] = {}
        self.data_cache: dict[tuple[str, tuple[str, ...], int], Any] = {}
        self.initial: dict[str, Cell] = {}  # each cell as the position before had it
        # the cells the standing rules may set: unknown when read once the event has
        # written something (before that, the position was at rest)
        self.standing_cells: set[str] = set()
        self.dirty = False
        self.forgotten: set[str] = set()
        # the statements run, and those left out (file:start:end): see Outcome.left_out
        self.kept: set[str] = set()
        self.left_out: set[str] = set()
        self.tables: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
        # the checks and standing rules assumed, each behind an indicator: a proof reads
        # what one of them reads only if it needs it (z3's unsat core): its indicator, the
        # statement (file:start:end, "" for a standing rule), the declarations and clauses
        self.tracked: list[tuple[Any, str, set[str], set[str]]] = []

    def track(self, cond: Any, where: str, read: set[str], used: set[str]) -> None:
        """Assume cond, counted as read only if the proof needs it."""
        ind = z3.Bool(f"assumed~{len(self.tracked)}")
        self.assumptions.append(z3.Implies(ind, cond))
        self.tracked.append((ind, where, read, used))

    @contextlib.contextmanager
    def apart(self) -> Iterator[tuple[set[str], set[str]]]:
        """What is translated inside is noted apart: the declarations and clauses it reads."""
        saved = self.read, self.used
        self.read, self.used = set(), set()
        try:
            yield self.read, self.used
        finally:
            self.read, self.used = saved

    # ------------------------------------------------------------ sorts and fresh values
    def enum_sort(self, name: str) -> tuple[z3.SortRef, dict[str, z3.ExprRef]]:
        if name not in self.sorts:
            d = self.sym.types[name]
            assert isinstance(d, ast.EnumDecl)
            values = d.values or sorted(self.data_values.get(d.from_data, set()))
            self.sorts[name] = _enum(name, [*values, NOTHING])
        return self.sorts[name]

    def record_decl(self, name: str) -> ast.RecordDecl | None:
        d = self.sym.types.get(name)
        return d if isinstance(d, ast.RecordDecl) else None

    def item_sort(self, coll: str) -> tuple[z3.SortRef, dict[str, z3.ExprRef]]:
        """The enumeration of a collection's items: the enum declared from it, if any."""
        for name, d in self.sym.types.items():
            if isinstance(d, ast.EnumDecl) and d.from_data == coll:
                return self.enum_sort(name)
        if coll not in self.item_sorts:
            keys = _keys(self.collections.get(coll, []))
            self.item_sorts[coll] = _enum(f"{coll}_items", [*keys, NOTHING])
        return self.item_sorts[coll]

    def bound(self, t: ast.TypeRef | None) -> int:
        name = t.name if t is not None else ""
        return self.within.get(name, DEFAULT_BOUND)

    def param_value(self, p: ast.Param, name: str) -> Any:
        """A parameter's or a field's value: nothing only where its default is nothing."""
        if isinstance(p.default, ast.Nothing):
            return self.fresh_value(p.type, name)
        return self.something(p.type, name)

    def something(self, t: ast.TypeRef, name: str) -> Any:
        """A fresh value that is not nothing (a parameter without a default, a field)."""
        v = self.fresh_value(t, name)
        if isinstance(v, Item) or (
            isinstance(v, z3.ExprRef) and v.sort().kind() == z3.Z3_DATATYPE_SORT
        ):
            self.assumptions.append(z3.Not(self.eq(v, _NOTHING)))
        return v

    @contextlib.contextmanager
    def invariant_frame(self) -> Iterator[None]:
        """The invariant's procedure's frame in place of the event's, while it is read."""
        if self.inv_frame is None:
            yield
            return
        saved = self.frame, self.frame_types
        self.frame, self.frame_types = self.inv_frame
        try:
            yield
        finally:
            self.frame, self.frame_types = saved

    def fresh_value(self, t: ast.TypeRef, name: str) -> Any:
        self.fresh += 1
        tag = f"{name}~{self.fresh}"
        if t.name in ("list", "set"):
            n = self.bound(t.arg)
            size = z3.Int(f"{tag}.size")
            self.assumptions.append(z3.And(size >= 0, size <= n))
            assert t.arg is not None
            return SList(
                [(z3.IntVal(i) < size, self.something(t.arg, f"{tag}[{i}]")) for i in range(n)],
                t.arg,
            )
        if t.name == "int":
            return z3.Int(tag)
        if t.name == "bool":
            return z3.Bool(tag)
        if t.name == "text":
            return z3.String(tag)
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.EnumDecl):
            return z3.Const(tag, self.enum_sort(t.name)[0])
        if isinstance(d, ast.RecordDecl) and d.from_data:
            return Item(d.from_data, d.name, z3.Const(tag, self.item_sort(d.from_data)[0]))
        if isinstance(d, ast.RecordDecl):
            return Rec({p.name: self.param_value(p, f"{tag}.{p.name}") for p in d.fields}, d.name)
        raise Untranslatable(f"a value of type {t}")

    def sort_of(self, t: ast.TypeRef) -> z3.SortRef:
        if t.name == "int":
            return z3.IntSort()
        if t.name == "bool":
            return z3.BoolSort()
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.EnumDecl):
            return self.enum_sort(t.name)[0]
        if isinstance(d, ast.RecordDecl) and d.from_data:
            return self.item_sort(d.from_data)[0]
        raise Untranslatable(f"state of type {t}")

    def wrap(self, t: ast.TypeRef, term: Any) -> Any:
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.RecordDecl) and d.from_data:
            return Item(d.from_data, d.name, term)
        return term

    def unwrap(self, v: Any) -> Any:
        return v.term if isinstance(v, Item) else v

    def nothing_of(self, t: ast.TypeRef) -> Any:
        if t.name == "text":
            return z3.StringVal(TEXT_NOTHING)
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.EnumDecl):
            return self.enum_sort(t.name)[1][NOTHING]
        if isinstance(d, ast.RecordDecl) and d.from_data:
            return Item(d.from_data, d.name, self.item_sort(d.from_data)[1][NOTHING])
        raise Untranslatable(f"nothing as a value of type {t}")

    # ------------------------------------------------------------ state cells
    # A property after an action reads the position before the event through before(...):
    # the cells as that position had them (self.initial) and the procedure's variables then.
    before_mode = False
    before_frame: dict[str, Any] | None = None

    def cell(self, name: str) -> Cell:
        if self.before_mode:
            if name not in self.initial:
                self.before_mode = False
                try:
                    self.cell(name)  # untouched by the event: the same cell before and after
                finally:
                    self.before_mode = True
            if name not in self.initial:  # forgotten: the event's writes are unknown
                d = self.sym.values[name]
                assert isinstance(d, ast.StateDecl)
                self.initial[name] = self.fresh_cell(
                    name, d.type, [self.sort_of(p.type) for p in d.params]
                )
            return self.initial[name]
        if name not in self.cells:
            d = self.sym.values[name]
            assert isinstance(d, ast.StateDecl)
            self.cells[name] = self.fresh_cell(
                name, d.type, [self.sort_of(p.type) for p in d.params]
            )
            if name not in self.initial and name not in self.forgotten:
                self.initial[name] = _copy_cell(self.cells[name])  # the position before
        return self.cells[name]

    def fresh_cell(self, name: str, t: ast.TypeRef, keys: list[z3.SortRef]) -> Cell:
        self.fresh += 1
        tag = f"{name}~{self.fresh}"

        def array(label: str, sort: z3.SortRef) -> Any:
            if not keys:
                return z3.Const(label, sort)
            return z3.Array(label, *keys, sort)

        c = Cell(t, keys)
        if t.name in ("list", "set"):
            assert t.arg is not None
            esort = self.sort_of(t.arg)
            for i in range(self.bound(t.arg)):
                c.present.append(array(f"{tag}.p{i}", z3.BoolSort()))
                c.values.append(array(f"{tag}.v{i}", esort))
        else:
            c.scalar = array(tag, self.sort_of(t))
        return c

    def read_cell(self, name: str, args: list[Any]) -> Any:
        if not self.before_mode and (
            name in self.havoc or (self.dirty and name in self.standing_cells)
        ):
            d = self.sym.values[name]
            assert isinstance(d, ast.StateDecl)
            return self.at_least(name, self.fresh_value(d.type, f"{name}?"))
        c = self.cell(name)
        keys = [self.unwrap(a) for a in args]

        def sel(a: Any) -> Any:
            return z3.Select(a, *keys) if keys else a

        if c.decl_type.name in ("list", "set"):
            assert c.decl_type.arg is not None
            elem = c.decl_type.arg
            # present slots come first: a stored list is packed
            return SList(
                [
                    (sel(p), self.wrap(elem, sel(v)))
                    for p, v in zip(c.present, c.values, strict=False)
                ],
                elem,
            )
        return self.at_least(name, self.wrap(c.decl_type, sel(c.scalar)))

    def at_least(self, name: str, value: Any) -> Any:
        """A cell's value, never below its start where the rules only count it up."""
        floor = self.floors.get(("", name))
        if floor is not None and isinstance(value, z3.ArithRef):
            self.facts.append(value >= floor)
        return value

    def write_cell(self, name: str, args: list[Any], value: Any) -> None:
        self.dirty = True  # from here on, a standing rule may have fired
        c = self.cell(name)
        keys = [self.unwrap(a) for a in args]
        g = self.guard

        def store(a: Any, v: Any) -> Any:
            if not keys:
                return z3.If(g, v, a)
            return z3.Store(a, *keys, z3.If(g, v, z3.Select(a, *keys)))

        if c.decl_type.name in ("list", "set"):
            assert isinstance(value, SList)
            packed = self.pack(value, len(c.present), c.decl_type.arg)
            c.present = [store(a, p) for a, (p, _) in zip(c.present, packed, strict=False)]
            c.values = [
                store(a, self.unwrap(v)) for a, (_, v) in zip(c.values, packed, strict=False)
            ]
        else:
            c.scalar = store(c.scalar, self.unwrap(value))

    def pack(self, lst: SList, n: int, elem: ast.TypeRef | None = None) -> list[tuple[Any, Any]]:
        """The list in its first n slots, present ones first (the model holds no longer one)."""
        if not lst.slots and (lst.elem or elem) is not None:  # an empty list: no slot present
            empty = lst.elem or elem
            assert empty is not None
            return [(z3.BoolVal(False), self.fresh_value(empty, "none")) for _ in range(n)]
        size = self.size(lst)
        self.assumptions.append(z3.Implies(self.guard, size <= n))
        return [(z3.IntVal(j) < size, self.at(lst, z3.IntVal(j))) for j in range(n)]

    # ------------------------------------------------------------ list helpers
    def size(self, lst: SList) -> Any:
        return z3.Sum([z3.If(p, 1, 0) for p, _ in lst.slots]) if lst.slots else z3.IntVal(0)

    def ranks(self, lst: SList) -> list[Any]:
        out, r = [], z3.IntVal(0)
        for p, _ in lst.slots:
            out.append(r)
            r = r + z3.If(p, 1, 0)
        return out

    def at(self, lst: SList, i: Any) -> Any:
        if not lst.slots:
            if lst.elem is None:
                raise Untranslatable("an item of an empty list")
            return self.fresh_value(lst.elem, "none")
        out = lst.slots[-1][1]
        for (p, v), r in reversed(list(zip(lst.slots, self.ranks(lst), strict=False))[:-1]):
            out = self.ite(z3.And(p, r == i), v, out)
        return out

    def nothing_like(self, v: Any) -> Any:
        if isinstance(v, Item):
            return Item(v.coll, v.type, self.item_sort(v.coll)[1][NOTHING])
        if isinstance(v, z3.SeqRef):
            return z3.StringVal(TEXT_NOTHING)
        if isinstance(v, z3.ExprRef) and v.sort().kind() == z3.Z3_DATATYPE_SORT:
            for sort, consts in [*self.sorts.values(), *self.item_sorts.values()]:
                if sort == v.sort():
                    return consts[NOTHING]
        raise Untranslatable("nothing beside a value that cannot be nothing")

    def ite(self, c: Any, a: Any, b: Any) -> Any:
        if isinstance(a, _Nothing) and not isinstance(b, _Nothing):
            a = self.nothing_like(b)
        if isinstance(b, _Nothing) and not isinstance(a, _Nothing):
            b = self.nothing_like(a)
        if isinstance(a, SList) and isinstance(b, SList):
            n = max(len(a.slots), len(b.slots))
            sa = a.slots + [(z3.BoolVal(False), b.slots[i][1]) for i in range(len(a.slots), n)]
            sb = b.slots + [(z3.BoolVal(False), a.slots[i][1]) for i in range(len(b.slots), n)]
            pa, pb = self.pack(SList(sa), n), self.pack(SList(sb), n)
            return SList(
                [
                    (z3.If(c, x, y), self.ite(c, u, w))
                    for (x, u), (y, w) in zip(pa, pb, strict=False)
                ],
                a.elem or b.elem,
            )
        if isinstance(a, Item) and isinstance(b, Item):
            return Item(a.coll, a.type, z3.If(c, a.term, b.term))
        if isinstance(a, Rec) and isinstance(b, Rec):
            return Rec({k: self.ite(c, a.fields[k], b.fields[k]) for k in a.fields}, a.type)
        if isinstance(a, (Item, Sub, Rec)) or isinstance(b, (Item, Sub, Rec)):
            raise Untranslatable("a choice between records")
        return z3.If(c, a, b)

    def eq(self, a: Any, b: Any) -> Any:
        if isinstance(a, _Nothing):
            a, b = b, a
        if isinstance(b, _Nothing):
            if isinstance(a, Item):
                return a.term == self.item_sort(a.coll)[1][NOTHING]
            if isinstance(a, Sub):
                return z3.Not(self.sub_present(a))
            if isinstance(a, z3.SeqRef):
                return a == z3.StringVal(TEXT_NOTHING)
            return a == self.nothing_like(a)
        if isinstance(a, SList) and isinstance(b, SList):
            n = min(len(a.slots), len(b.slots))
            sa, sb = self.size(a), self.size(b)
            parts = [sa == sb]
            for k in range(n):
                kk = z3.IntVal(k)
                parts.append(z3.Implies(kk < sa, self.eq(self.at(a, kk), self.at(b, kk))))
            if len(a.slots) != len(b.slots):
                parts.append(sa <= n)
            return z3.And(*parts)
        if isinstance(a, Item) and isinstance(b, Item):
            return a.term == b.term
        if isinstance(a, Rec) and isinstance(b, Rec):
            return z3.And(*[self.eq(a.fields[k], b.fields[k]) for k in a.fields])
        return a == b

    def count_of(self, lst: SList, v: Any, upto: int | None = None) -> Any:
        slots = lst.slots if upto is None else lst.slots[:upto]
        terms = [z3.If(z3.And(p, self.eq(x, v)), 1, 0) for p, x in slots]
        return z3.Sum(terms) if terms else z3.IntVal(0)

    # ------------------------------------------------------------ components
    def data_value(self, item: Item, path: tuple[str, ...], t: ast.TypeRef) -> Any:
        """A scalar field of a component's item: the item's own value when the item is
        known, else a chain of ``If`` over the items (built once for each item term)."""
        key = (item.coll, path, item.term.get_id())
        if key in self.data_cache:
            return self.data_cache[key]
        table = self.data_table(item.coll, path, t)
        name = str(item.term) if z3.is_const(item.term) else ""
        if name in table:
            out = table[name]
        else:
            default = self.nothing_of(t) if t.name not in ("int", "bool") else None
            if default is None:
                default = z3.Function(
                    f"{item.coll}.{'.'.join(path)}", item.term.sort(), self.sort_of(t)
                )(item.term)
            out = self.unwrap(default)
            _, consts = self.item_sort(item.coll)
            for k, v in table.items():
                out = z3.If(item.term == consts[k], v, out)
        self.data_cache[key] = out
        return out

    def data_table(self, coll: str, path: tuple[str, ...], t: ast.TypeRef) -> dict[str, Any]:
        """Each item's value at a field path, by the item's name."""
        if (coll, path) not in self.tables:
            items = self.collections.get(coll, [])
            table = {}
            for k, raw in zip(_keys(items), items, strict=False):
                v: Any = raw
                for p in path:
                    v = v.get(p) if isinstance(v, dict) else None
                table[k] = self.unwrap(self.literal(v, t))
            self.tables[(coll, path)] = table
        return self.tables[(coll, path)]

    def data_list(self, item: Item, path: tuple[str, ...], t: ast.TypeRef) -> SList:
        """A list field of a component's item: a slot for each place the longest of the
        items' lists has, present where the item's own list reaches it."""
        if t.arg is None:
            raise Untranslatable("a list of no type")
        lists: dict[str, list[Any]] = {}
        items = self.collections.get(item.coll, [])
        for k, raw in zip(_keys(items), items, strict=False):
            v: Any = raw
            for p in path:
                v = v.get(p) if isinstance(v, dict) else None
            lists[k] = v if isinstance(v, list) else []
        name = str(item.term) if z3.is_const(item.term) else ""
        if name in lists:  # the item is known: its own list
            lists = {name: lists[name]}
        _, consts = self.item_sort(item.coll)
        slots = []
        for i in range(max((len(v) for v in lists.values()), default=0)):
            here = {k: v[i] for k, v in lists.items() if len(v) > i}
            present = z3.Or(*[item.term == consts[k] for k in here]) if name not in lists else True
            slots.append(
                (
                    z3.BoolVal(True) if present is True else present,
                    self.data_elem(item, here, t.arg),
                )
            )
        return SList(slots, t.arg)

    def data_elem(self, item: Item, values: dict[str, Any], t: ast.TypeRef) -> Any:
        """The element of each item's list at one place (values: by the item's name), as
        one value: a chain of ``If`` over the items (a record: field by field)."""
        decl = self.record_decl(t.name)
        if decl is not None and not decl.from_data:
            return Rec(
                {
                    f.name: self.data_elem(
                        item,
                        {
                            k: v.get(f.name) if isinstance(v, dict) else None
                            for k, v in values.items()
                        },
                        f.type,
                    )
                    for f in decl.fields
                },
                t.name,
            )
        if t.name in ("list", "set"):
            raise Untranslatable("a list within a list of a component")
        terms = {k: self.unwrap(self.literal(v, t)) for k, v in values.items()}
        _, consts = self.item_sort(item.coll)
        out = next(iter(terms.values()))
        for k, v in terms.items():
            out = z3.If(item.term == consts[k], v, out)
        return self.wrap(t, out)

    def sub_present(self, s: Sub) -> Any:
        _, consts = self.item_sort(s.item.coll)
        out: Any = z3.BoolVal(False)
        items = self.collections.get(s.item.coll, [])
        for key, raw in zip(_keys(items), items, strict=False):
            v: Any = raw
            for p in s.path:
                v = v.get(p) if isinstance(v, dict) else None
            if v is not None:
                out = z3.Or(out, s.item.term == consts[key])
        return out

    def literal(self, v: Any, t: ast.TypeRef) -> Any:
        if v is None:
            return self.nothing_of(t)
        if t.name == "int":
            if not isinstance(v, int):
                raise Untranslatable(f"a component's number given as {v!r}")
            return z3.IntVal(v)
        if t.name == "bool":
            return z3.BoolVal(bool(v))
        if t.name == "text":
            return z3.StringVal(str(v))
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.EnumDecl):
            return self.enum_sort(t.name)[1][str(v)]
        if isinstance(d, ast.RecordDecl) and d.from_data:
            return Item(d.from_data, d.name, self.item_sort(d.from_data)[1][str(v)])
        raise Untranslatable(f"a component value of type {t}")

    def field_of(self, obj: Any, name: str) -> Any:
        if isinstance(obj, Rec):
            return obj.fields[name]
        if isinstance(obj, (Item, Sub)):
            rtype = obj.type
            decl = self.record_decl(rtype)
            assert decl is not None
            ftype = next(p.type for p in decl.fields if p.name == name)
            item = obj if isinstance(obj, Item) else obj.item
            path = (obj.path if isinstance(obj, Sub) else ()) + (name,)
            sub = self.record_decl(ftype.name)
            if sub is not None and not sub.from_data:
                return Sub(item, path, ftype.name)
            if ftype.name in ("list", "set"):
                return self.data_list(item, path, ftype)
            return self.wrap(ftype, self.data_value(item, path, ftype))
        raise Untranslatable(f"the field {name} of a value that is not a record")

    # ------------------------------------------------------------ expressions
    def expr(self, e: ast.Expr, env: dict[str, Any]) -> Any:  # noqa: C901 - one case a node
        if isinstance(e, ast.Nothing):
            return _NOTHING
        if isinstance(e, ast.StrLit):
            return z3.StringVal(e.value)
        if isinstance(e, ast.Name):
            if e.id in env:
                if isinstance(env[e.id], _Unknown):
                    raise Untranslatable(env[e.id].why)
                self.let_used(e.id)
                return env[e.id]
            if e.id in self.frame:
                return self.frame[e.id]
            d = self.sym.values.get(e.id)
            if isinstance(d, ast.StateDecl) and not d.params:
                self.used.add(d.clause)
                return self.read_cell(e.id, [])
            if isinstance(d, ast.ConstDecl):
                self.note(d)
                return self.expr(d.value, {})
            raise Untranslatable(f"the name '{e.id}'")
        if isinstance(e, ast.Data):
            sort, consts = self.item_sort(e.collection)
            rec = next(
                (
                    n
                    for n, d in self.sym.types.items()
                    if isinstance(d, ast.RecordDecl) and d.from_data == e.collection
                ),
                "",
            )
            items = [
                (z3.BoolVal(True), Item(e.collection, rec, consts[k]))
                for k in _keys(self.collections.get(e.collection, []))
            ]
            return SList(items, ast.TypeRef(rec))
        if isinstance(e, ast.Field):
            if isinstance(e.obj, ast.Name) and e.obj.id not in env and e.obj.id in self.sym.types:
                return self.enum_sort(e.obj.id)[1][e.name]
            return self.field_of(self.expr(e.obj, env), e.name)
        if isinstance(e, ast.Index):
            if isinstance(e.obj, ast.Data):
                key = self.expr(e.index, env)
                rec = next(
                    n
                    for n, d in self.sym.types.items()
                    if isinstance(d, ast.RecordDecl) and d.from_data == e.obj.collection
                )
                return Item(e.obj.collection, rec, self.unwrap(key))
            lst = self.expr(e.obj, env)
            if not isinstance(lst, SList):
                raise Untranslatable("an index into something that is not a list")
            return self.at(lst, self.expr(e.index, env))
        if isinstance(e, ast.ListLit):
            items = [self.expr(i, env) for i in e.items]
            return SList([(z3.BoolVal(True), v) for v in items])
        if isinstance(e, ast.RecordLit):
            return Rec({k: self.expr(v, env) for k, v in e.fields})
        if isinstance(e, ast.Range):
            return self.range(e, env)
        if isinstance(e, (ast.Count, ast.Sum, ast.Comp)):
            return self.fold(e, env)
        if isinstance(e, ast.If):
            return self.ite(
                self.expr(e.cond, env), self.expr(e.then, env), self.expr(e.orelse, env)
            )
        if isinstance(e, ast.Text):
            raise Untranslatable("text built from values")
        return super().expr(e, env)

    def range(self, e: ast.Range, env: dict[str, Any]) -> SList:
        lo, hi = z3.simplify(self.expr(e.lo, env)), z3.simplify(self.expr(e.hi, env))
        if z3.is_int_value(lo) and z3.is_int_value(hi):
            a, b = lo.as_long(), hi.as_long()
            if b - a > 4096:
                raise Untranslatable("a range of more than 4096 numbers")
            return SList([(z3.BoolVal(True), z3.IntVal(i)) for i in range(a, b + 1)])
        top, bottom = _bounds(hi)[1], _bounds(lo)[0]
        if top is None or bottom is None:
            raise Untranslatable("a range whose ends the model does not bound")
        if top - bottom > 4096:
            raise Untranslatable("a range of more than 4096 numbers")
        return SList([(lo + k <= hi, lo + k) for k in range(max(0, top - bottom + 1))])

    def fold(self, e: ast.Count | ast.Sum | ast.Comp, env: dict[str, Any]) -> Any:
        dom = self.expr(e.domain, env)
        if not isinstance(dom, SList):
            raise Untranslatable("a loop over something that is not a list")
        slots = []
        for p, x in dom.slots:
            scope = {**env, e.var: x}
            keep = p if e.where is None else z3.And(p, self.expr(e.where, scope))
            value = None if isinstance(e, ast.Count) else self.expr(e.value, scope)
            slots.append((keep, value))
        if isinstance(e, ast.Count):
            return z3.Sum([z3.If(k, 1, 0) for k, _ in slots]) if slots else z3.IntVal(0)
        if isinstance(e, ast.Sum):
            return z3.Sum([z3.If(k, v, 0) for k, v in slots]) if slots else z3.IntVal(0)
        return SList(slots)

    def quant(self, e: ast.Quant, env: dict[str, Any]) -> Any:
        def go(i: int, scope: dict[str, Any]) -> Any:
            if i == len(e.binders):
                return self.expr(e.body, scope)
            b = e.binders[i]
            try:
                dom = self.expr(b.domain, scope)
            except Untranslatable:
                if not isinstance(b.domain, ast.Range):
                    raise
                dom = None
            if isinstance(dom, SList):
                parts = [(p, go(i + 1, {**scope, b.name: x})) for p, x in dom.slots]
                if e.kind == "forall":
                    return z3.And(*[z3.Implies(p, v) for p, v in parts])
                return z3.Or(*[z3.And(p, v) for p, v in parts])
            # a range of numbers: z3's own quantifier
            self.fresh += 1
            x = self.const(f"{b.name}_{self.fresh}", b.type, b.domain)
            c = self.domain(x, b.domain, scope)
            body = go(i + 1, {**scope, b.name: x})
            if e.kind == "forall":
                return z3.ForAll([x], z3.Implies(c, body))
            return z3.Exists([x], z3.And(c, body))

        return go(0, env)

    def binop(self, e: ast.BinOp, env: dict[str, Any]) -> Any:
        if e.op in ("==", "!=", "in", "+") or e.op in ("and", "or", "implies"):
            a, b = self.expr(e.left, env), self.expr(e.right, env)
            if e.op == "==":
                return self.eq(a, b)
            if e.op == "!=":
                return z3.Not(self.eq(a, b))
            if e.op == "in":
                if not isinstance(b, SList):
                    raise Untranslatable("'in' something that is not a list")
                return (
                    z3.Or(*[z3.And(p, self.eq(a, x)) for p, x in b.slots])
                    if b.slots
                    else (z3.BoolVal(False))
                )
            if e.op == "+" and isinstance(a, SList) and isinstance(b, SList):
                return SList(a.slots + b.slots, a.elem or b.elem)
            ops = {
                "+": lambda: a + b,
                "and": lambda: z3.And(a, b),
                "or": lambda: z3.Or(a, b),
                "implies": lambda: z3.Implies(a, b),
            }
            return ops[e.op]()
        return super().binop(e, env)

    def call(self, e: ast.Call, env: dict[str, Any]) -> Any:  # noqa: C901 - one case a builtin
        assert isinstance(e.func, ast.Name)
        name = e.func.id
        d = self.sym.values.get(name)
        if d is None and name == "before" and len(e.args) == 1:
            if self.before_frame is None:
                raise Untranslatable("before(...) outside a property after an action")
            saved, self.frame = self.frame, self.before_frame
            self.before_mode = True
            try:
                return self.expr(e.args[0], env)
            finally:
                self.before_mode = False
                self.frame = saved
        if isinstance(d, ast.StateDecl):
            self.used.add(d.clause)
            return self.read_cell(name, [self.expr(a, env) for a in e.args])
        if d is not None:  # a definition is inlined, a table looked up, as for any property
            return super().call(e, env)
        args = [self.expr(a, env) for a in e.args]
        lists = [a for a in args if isinstance(a, SList)]
        if name in ("min", "max") and len(args) == 1 and lists:
            lst = lists[0]
            out: Any = None
            for p, x in lst.slots:
                if out is None:
                    out = x  # a list max and min are asked of starts with a known item
                    continue
                better = (x < out) if name == "min" else (x > out)
                out = z3.If(z3.And(p, better), x, out)
            if out is None:
                raise Untranslatable(f"the {name} of an empty list")
            return out
        if name == "size" and lists:
            return self.size(lists[0])
        if name in ("take", "drop") and lists:
            lst, n = args[0], args[1]
            return SList(
                [
                    (z3.And(p, (r < n) if name == "take" else (r >= n)), x)
                    for (p, x), r in zip(lst.slots, self.ranks(lst), strict=False)
                ],
                lst.elem,
            )
        if name == "last" and lists:
            return self.at(lists[0], self.size(lists[0]) - 1)
        if name == "flatten" and lists:
            slots = []
            for p, inner in lists[0].slots:
                if not isinstance(inner, SList):
                    raise Untranslatable("flatten of a list of non-lists")
                slots += [(z3.And(p, q), x) for q, x in inner.slots]
            return SList(slots)
        if name == "distinct" and lists:
            lst = lists[0]
            slots = []
            for i, (p, x) in enumerate(lst.slots):
                seen = [z3.And(q, self.eq(y, x)) for q, y in lst.slots[:i]]
                slots.append((z3.And(p, z3.Not(z3.Or(*seen))) if seen else p, x))
            return SList(slots, lst.elem)
        if name == "includes" and len(lists) == 2:
            a, b = args
            return z3.And(
                *[z3.Implies(p, self.count_of(b, x) <= self.count_of(a, x)) for p, x in b.slots]
            )
        if name == "without" and len(lists) == 2:
            a, b = args
            slots = []
            for i, (p, x) in enumerate(a.slots):
                so_far = self.count_of(a, x, i + 1)
                slots.append((z3.And(p, so_far > self.count_of(b, x)), x))
            return SList(slots, a.elem)
        return super().call(e, env)

    # ------------------------------------------------------------ statements
    def run(self, stmts: list[ast.Stmt], env: dict[str, Any]) -> dict[str, Any]:
        for st in stmts:
            env = self.stmt(st, env)
        return env

    relevant: set[str] | None = None  # when given: what the statements kept may read or set
    all_checks = False  # every check is kept (a counterexample's event is then legal)
    # when given, the checks are not assumed but gathered (whether an event is allowed), and
    # those that cannot be translated are named in unchecked
    collected: list[tuple[Any, Any, str, set[str], set[str]]] | None = None
    strict = False  # what cannot be translated leaves the proof skipped, not assumed away
    unchecked: list[str] = []
    let_reads: dict[str, set[str]] = {}
    # a `let`'s name: the declarations and clauses its translation read, counted as read
    # (self.read, self.used) only when a statement kept uses the name
    let_notes: dict[str, tuple[set[str], set[str]]] = {}

    def let_used(self, name: str) -> None:
        notes = self.let_notes.get(name)
        if notes is not None:
            self.read |= notes[0]
            self.used |= notes[1]

    def reads_of(self, exprs: list[ast.Expr], env_names: list[str]) -> set[str]:
        out = reads(exprs, self.sym)
        for n in [*env_names, *out]:
            out = out | self.let_reads.get(n, set())
        return out

    def sliced(self, st: ast.Stmt, env: dict[str, Any]) -> bool:
        """Whether a statement is left out: it sets nothing the property reads (what it sets
        is unknown from here on), or it checks nothing the property reads."""
        if self.relevant is None:
            return False
        if isinstance(st, ast.CheckStmt):
            if self.all_checks:
                return False
            req = self.sym.labels.get(str(st.ref))
            names = [p.name for p in req.params] if isinstance(req, ast.Require) else []
            got = self.reads_of(st.args or [], names if st.args is None else [])
            return not (got & self.relevant)
        if self.all_checks and isinstance(st, ast.DoStmt) and _has_check([st]):
            return False  # its checks are the event's too
        if isinstance(st, (ast.SetStmt, ast.DoStmt)) and not (
            writes([st], self.sym) & self.relevant
        ):
            self.forget(writes([st], self.sym))
            return True
        return False

    def forget(self, names: set[str]) -> None:
        self.dirty = self.dirty or bool(names)
        for name in names:
            if name in self.frame:
                d = self.frame_types.get(name)
                if d is not None:
                    self.frame[name] = self.fresh_value(d, name)
            else:
                self.havoc.add(name)
                self.forgotten.add(name)
                self.cells.pop(name, None)

    def stmt(self, st: ast.Stmt, env: dict[str, Any]) -> dict[str, Any]:  # noqa: C901
        where = f"{st.span.file}:{st.span.start}:{st.span.end}"
        if isinstance(st, ast.TellStmt) or self.sliced(st, env):
            self.left_out.add(where)  # a tell changes nothing the model holds
            return env
        if not isinstance(st, ast.CheckStmt):  # a check counts as kept if the proof needs it
            self.kept.add(where)
        if isinstance(st, ast.LetStmt):
            self.let_reads = {**self.let_reads, st.name: self.reads_of([st.value], [])}
            # what its translation reads counts once a statement kept uses the name
            with self.apart() as notes:
                try:
                    return {**env, st.name: self.expr(st.value, env)}
                except (Untranslatable, *_SLIPS) as err:
                    self.missed.add(str(err))
                    return {**env, st.name: _Unknown(str(err))}
                finally:
                    self.let_notes = {**self.let_notes, st.name: notes}
        if isinstance(st, ast.CheckStmt) and self.collected is not None:
            with self.apart() as (read, used):
                try:
                    cond = self.requirement(st, env)
                except (Untranslatable, _UnknownUsed, *_SLIPS) as err:
                    self.unchecked = [*self.unchecked, f"{st.ref}: {err}"]
                    return env
            self.collected.append((self.guard, cond, where, read, used))
            return env
        if isinstance(st, ast.CheckStmt):
            with self.apart() as (read, used):
                try:
                    cond = z3.Implies(self.guard, self.requirement(st, env))
                except (Untranslatable, _UnknownUsed, *_SLIPS) as err:
                    self.missed.add(f"{st.ref}: {err}")  # left out: more is allowed, not less
                    return env
            self.track(cond, where, read, used)
            return env
        if isinstance(st, ast.GameOverStmt):
            self.over = z3.Or(self.over, self.guard)
            return env
        try:
            if isinstance(st, ast.SetStmt):
                self.set(st, env)
            elif isinstance(st, ast.IfStmt):
                c = self.expr(st.cond, env)
                saved = self.guard
                self.guard = z3.And(saved, c)
                self.run(st.then, env)
                self.guard = z3.And(saved, z3.Not(c))
                self.run(st.orelse, env)
                self.guard = saved
            elif isinstance(st, ast.ForStmt):
                dom = self.expr(st.domain, env)
                if not isinstance(dom, SList):
                    raise Untranslatable("a loop over something that is not a list")
                saved = self.guard
                for p, x in dom.slots:
                    self.guard = z3.And(saved, p)
                    self.run(st.body, {**env, st.var: x})
                self.guard = saved
            elif isinstance(st, ast.DoStmt):
                callee = self.sym.actions.get(st.name)
                if not isinstance(callee, ast.Routine):
                    return env  # a procedure starts: its steps are transitions of their own
                args = [self.expr(a, env) for a in st.args]
                self.note(callee)
                self.depth += 1
                if self.depth > MAX_INLINE:
                    raise Untranslatable(f"{st.name} calls itself too deeply")
                outer, self.let_notes = self.let_notes, {}
                try:
                    self.run(
                        callee.body, {p.name: a for p, a in zip(callee.params, args, strict=True)}
                    )
                finally:
                    self.depth -= 1
                    self.let_notes = outer
        except (Untranslatable, _UnknownUsed, *_SLIPS) as err:
            # what it may write is unknown from here on
            self.missed.add(str(err))
            self.forget(writes([st], self.sym))
            if self.collected is not None and checks_in([st], self.sym):
                self.unchecked = [*self.unchecked, f"{', '.join(checks_in([st], self.sym))}: {err}"]
        return env

    frame_types: dict[str, ast.TypeRef] = {}

    def set(self, st: ast.SetStmt, env: dict[str, Any]) -> None:
        t = st.target
        if isinstance(t, ast.Name):
            name, args = t.id, []
        elif isinstance(t, ast.Call) and isinstance(t.func, ast.Name):
            name, args = t.func.id, [self.expr(a, env) for a in t.args]
        else:
            raise Untranslatable("a target that is not a state cell")
        value = self.expr(st.value, env)
        if st.op != "=":
            old = self.frame[name] if name in self.frame else self.read_cell(name, args)
            if isinstance(old, SList):
                if st.op != "+=" or not isinstance(value, SList):
                    raise Untranslatable("-= on a list")
                value = SList(old.slots + value.slots, old.elem)
            else:
                value = old + value if st.op == "+=" else old - value
        if name in self.frame:
            self.frame[name] = self.ite(self.guard, value, self.frame[name])
            self.dirty = True
            return
        self.write_cell(name, args, value)

    def requirement(self, st: ast.CheckStmt, env: dict[str, Any]) -> Any:
        ref = str(st.ref)
        if ref in self.sym.dropped:
            return z3.BoolVal(True)
        req = self.sym.labels[ref]
        assert isinstance(req, ast.Require)
        self.note(req, ref)
        args = st.bind(req, env, self.frame, lambda a: self.expr(a, env))
        if st.args is None:
            for p in req.params:
                if p.name in env:
                    self.let_used(p.name)
        for v in args.values():
            if isinstance(v, _Unknown):
                raise _UnknownUsed(v.why)
        conds = [self.expr(req.cond, dict(args))]
        for cond, oid in self.sym.exceptions.get(ref, []):
            self.read.add(read_key(f"except {ref}", oid))
            conds.append(self.expr(cond, dict(args)))
        return z3.Or(*conds)


class _Nothing:
    pass


# Values the translator does not expect where it meets them (a record where a number was
# looked for): the statement is not translated, as one it cannot express.
_SLIPS = (z3.Z3Exception, ValueError, KeyError, TypeError, AttributeError, AssertionError)


_NOTHING = _Nothing()


@dataclass
class _Unknown:
    why: str


class _UnknownUsed(Exception):
    pass


def _key(item: Any) -> str:
    if isinstance(item, dict):
        for k in ("name", "id"):
            if isinstance(item.get(k), str):
                return str(item[k])
    return ""


def _keys(items: list[dict[str, Any]]) -> list[str]:
    """The items' names; an item without one is known by its place (``#3``)."""
    return [_key(i) or f"#{n}" for n, i in enumerate(items)]


# ---------------------------------------------------------------- proving an invariant


def _source(e: ast.Expr) -> str:
    try:
        with open(e.span.file, encoding="utf-8") as f:
            return f.read()[e.span.start : e.span.end]
    except OSError:
        return ""


def _as_many(base: list[Any], wanted: list[Any]) -> list[Any]:
    """Of the constraints wanted, all if they hold with the base ones; else, in order, each
    that holds with the base and those kept before it."""
    if not wanted:
        return []
    solver = z3.Solver()
    solver.set("rlimit", RLIMIT)
    solver.add(*base)
    if solver.check(*wanted) == z3.sat:
        return wanted
    kept = []
    for c in wanted:
        if solver.check(c) == z3.sat:
            solver.add(c)
            kept.append(c)
    return kept


class InvariantProver:
    def __init__(
        self,
        sym: Symbols,
        data_values: dict[str, set[str]],
        collections: dict[str, list[dict[str, Any]]],
        p: ast.Property,
        timeout_ms: int,
    ) -> None:
        self.sym, self.data_values, self.collections, self.p = sym, data_values, collections, p
        self.timeout_ms = timeout_ms
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
        self.read: set[str] = set()  # the declarations read (see Outcome.reads)
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

    def quiescent(self, tr: StepTranslator, at: dict[str, Any] | None = None) -> None:
        """Assume no standing rule is due, at each combination of its parameters' values (a
        big enumeration only at the invariant's own constants of its type: assuming less),
        each behind an indicator of its own (see StepTranslator.track)."""
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
                tr.track(cond, "", read, used)

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
        solver = z3.Solver()
        solver.set("timeout", self.timeout_ms)
        solver.set("core.minimize", True)
        solver.add(*tr.assumptions)
        solver.add(goal)
        indicators = [t[0] for t in tr.tracked]
        result = solver.check(*indicators)
        if result != z3.unsat and tr.facts:  # a counterexample: one a game can reach?
            solver.add(*tr.facts)
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
        self.kept |= tr.kept
        self.left_out |= tr.left_out
        return result, solver

    def no_answer(self, solver: z3.Solver, where: str) -> str:
        """Why z3 gave no answer, the limit it had, and where (a longer --timeout may do)."""
        at = f" in {where}" if where else ""
        return f"z3 gave no answer ({solver.reason_unknown()}; limit {self.timeout_ms} ms){at}"

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
    def by_standing_rules(self) -> StepOutcome:
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
            if event is not None:
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
                    if a.params or a.requires or _has_check(a.effects):
                        continue
                    if writes(a.effects, self.sym) & watched or _starts(a.effects, self.sym):
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
        return StepOutcome("proved", f"by induction over {checked} transition(s)")

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
    ) -> StepOutcome:
        tr = self.translator()
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
                    actor, step = env["by"], _step_of(t)
                    if (
                        self.sym.players
                        and not isinstance(actor, _Unknown)
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
            if t.guard is not None:
                tr.assumptions.append(tr.expr(t.guard, {}))
            tr.run(t.body, env)
            if tr.collected is not None:  # a counterexample: a check that does not pass
                if tr.unchecked:
                    raise Untranslatable(f"the check {tr.unchecked[0]}")
                goal = z3.Or(
                    not_theirs, z3.Not(z3.And(*[z3.Implies(g, c) for g, c, *_ in tr.collected]))
                )
            # the standing rules, once the event's statements are done
            for w in [] if allowing else self.sym.standing:
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
            if not allowing:
                tr.havoc, tr.dirty = set(), False  # the position after, at rest
                self.quiescent(tr, at)
                if effect:  # of the event, and of the position before it
                    tr.before_frame = pre_frame
                    after = tr.expr(self.p.body, env)
                else:
                    after = self.holds(tr, at)
                goal = z3.And(z3.Not(tr.over), z3.Not(after))
        except (Untranslatable, *_SLIPS) as err:
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
        step = _step_of(t)
        if t.proc is not None and step is not None:
            self.looked = set()
            self.look(model, [*at.values(), *env.values()])
            entries = self.entries(tr, tr.initial)
            starts = []
            for v in t.proc.vars:
                try:
                    starts.append((pre_frame[v.name], tr.expr(v.value, {})))
                except (Untranslatable, *_SLIPS):
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
            model = self.simplest(tr, solver, entries + vars_, _scalars(shown), fixed, model)
            out.position = self.position(tr, model, entries, t.proc, step, pre_frame)
            if t.allow is not None:
                out.event = self.event(tr, model, t, step, env)
        out.havoc = set(tr.missed)
        return out

    def reached(self, tr: StepTranslator) -> None:
        """Of the checks an event the property allows makes, those it reaches read what they
        read (a check under a condition the property's case never meets reads nothing)."""
        assert tr.collected is not None
        solver = z3.Solver()
        solver.set("timeout", self.timeout_ms)
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
        step = _step_of(t)
        if step is None or t.proc is None:
            return
        conds = [c for c, _ in step.ends] + [g.cond for g in step.triggers + t.proc.triggers]
        for cond in conds:
            with tr.apart() as (read, used):  # read only if the proof needs it
                try:
                    term = z3.Not(tr.expr(cond, {}))
                except (Untranslatable, *_SLIPS) as err:
                    if tr.strict:  # a failure must be a position the rules can reach
                        raise Untranslatable(f"the step's condition: {err}") from err
                    tr.missed.add(str(err))
                    continue
            tr.track(term, "", read, used)

    def actor(self, tr: StepTranslator, t: Transition) -> Any:
        """Who plays the event (``by``): the step's actor, or any player."""
        step = _step_of(t)
        if step is not None and step.actor is not None:
            with contextlib.suppress(Untranslatable, *_SLIPS):
                return tr.expr(step.actor, {})
        if not self.sym.players:
            return _Unknown("the name 'by' (the game names no players)")
        return tr.something(ast.TypeRef(self.sym.players), "by")

    def _maybe_fresh(self, tr: StepTranslator, name: str, fired: Any) -> None:
        d = self.sym.values[name]
        assert isinstance(d, ast.StateDecl)
        old = tr.cell(name)
        new = tr.fresh_cell(name, d.type, old.keys)
        if old.scalar is not None:
            old.scalar = z3.If(fired, new.scalar, old.scalar)
        else:
            old.present = [
                z3.If(fired, a, b) for a, b in zip(new.present, old.present, strict=False)
            ]
            old.values = [z3.If(fired, a, b) for a, b in zip(new.values, old.values, strict=False)]

    # ------------------------------------------------------------ counterexamples
    looked: set[str] = set()

    def look(self, model: z3.ModelRef, values: list[Any]) -> None:
        """The keys a counterexample shows: the values the invariant and the event name."""
        for v in values:
            shown = self.show(model, v)
            stack = [shown]
            while stack:
                x = stack.pop()
                if isinstance(x, list):
                    stack += x
                elif isinstance(x, dict):
                    stack += list(x.values())
                elif isinstance(x, str):
                    self.looked.add(x)

    def show(self, model: z3.ModelRef, v: Any) -> Any:
        if isinstance(v, SList):
            return [self.show(model, x) for p, x in v.slots if z3.is_true(model.eval(p, True))]
        if isinstance(v, Item):
            return self.show(model, v.term)
        if isinstance(v, Rec):
            return {k: self.show(model, x) for k, x in v.fields.items()}
        if isinstance(v, (_Nothing, _Unknown)):
            return None
        got = model.eval(v, model_completion=True)
        if z3.is_int_value(got):
            return got.as_long()
        if z3.is_true(got) or z3.is_false(got):
            return z3.is_true(got)
        if z3.is_string_value(got):
            text = got.as_string()
            return None if text == TEXT_NOTHING else text
        text = str(got)
        return None if text == NOTHING else text

    def entries(
        self, tr: StepTranslator, cells: dict[str, Cell]
    ) -> list[tuple[str, list[str], Any, Any]]:
        """Each cell at each key a counterexample may show: its value and its starting one."""
        out = []
        for name, c in sorted(cells.items()):
            d = self.sym.values[name]
            assert isinstance(d, ast.StateDecl)
            domains = []
            for prm in d.params:
                pd = self.sym.types.get(prm.type.name)
                if isinstance(pd, ast.EnumDecl):
                    _, consts = tr.enum_sort(prm.type.name)
                else:
                    assert isinstance(pd, ast.RecordDecl)
                    _, consts = tr.item_sort(pd.from_data)
                values = [(k, cst) for k, cst in consts.items() if k != NOTHING]
                if len(values) > SMALL_ENUM:  # only where the model looked
                    values = [(k, cst) for k, cst in values if k in self.looked]
                domains.append(values)
            for combo in itertools.product(*domains):
                keys = [cst for _, cst in combo]

                def sel(a: Any, keys: list[Any] = keys) -> Any:
                    return z3.Select(a, *keys) if keys else a

                if c.scalar is not None:
                    value: Any = tr.wrap(d.type, sel(c.scalar))
                else:
                    assert d.type.arg is not None
                    value = SList(
                        [
                            (sel(p), tr.wrap(d.type.arg, sel(v)))
                            for p, v in zip(c.present, c.values, strict=False)
                        ],
                        d.type.arg,
                    )
                try:
                    env = {
                        prm.name: tr.wrap(prm.type, cst)
                        for prm, cst in zip(d.params, keys, strict=False)
                    }
                    default = tr.expr(d.value, env)
                except (Untranslatable, *_SLIPS):
                    default = None
                shown = [
                    self.item_text(prm.type, k) for prm, (k, _) in zip(d.params, combo, strict=True)
                ]
                out.append((name, shown, value, default))
        return out

    def item_text(self, t: ast.TypeRef, key: str) -> str:
        """A key as a record's position gives it: an item without a name (``#3``) by its
        fields, as the referee shows it (``{a: X, b: Y}``)."""
        d = self.sym.types.get(t.name)
        if not key.startswith("#") or not (isinstance(d, ast.RecordDecl) and d.from_data):
            return key
        item = self.collections.get(d.from_data, [])[int(key[1:])]
        fields = [(f.name, item.get(f.name)) for f in d.fields]
        return "{" + ", ".join(f"{k}: {v}" for k, v in fields if v is not None) + "}"

    def unwritable(self, tr: StepTranslator, cells: dict[str, Cell]) -> list[Any]:
        """Each cell keyed by items without names (roads) at its starting value, for every
        item: a position names such a key only by the item's fields, and reads better
        without."""
        out = []
        for name, c in cells.items():
            d = self.sym.values[name]
            assert isinstance(d, ast.StateDecl)
            if len(d.params) != 1 or c.scalar is None:
                continue
            pd = self.sym.types.get(d.params[0].type.name)
            if not (isinstance(pd, ast.RecordDecl) and pd.from_data):
                continue
            _, consts = tr.item_sort(pd.from_data)
            for k, cst in consts.items():
                if k.startswith("#"):
                    try:
                        default = tr.expr(
                            d.value, {d.params[0].name: tr.wrap(d.params[0].type, cst)}
                        )
                        out.append(z3.Select(c.scalar, cst) == tr.unwrap(default))
                    except (Untranslatable, *_SLIPS):
                        pass
        return out

    def statable(
        self, tr: StepTranslator, entries: list[tuple[str, list[str], Any, Any]]
    ) -> list[Any]:
        """That each value a record's position would give is not nothing (a record cannot
        give nothing), where its starting value is not nothing either."""
        out = []
        for _, _, value, default in entries:
            if default is None:
                continue
            try:
                if isinstance(value, SList):
                    parts = [z3.Implies(p, z3.Not(tr.eq(x, _NOTHING))) for p, x in value.slots]
                    out.append(z3.Or(tr.eq(value, default), z3.And(*parts)))
                elif isinstance(value, Item) or (
                    isinstance(value, z3.ExprRef) and value.sort().kind() == z3.Z3_DATATYPE_SORT
                ):
                    out.append(z3.Or(tr.eq(value, default), z3.Not(tr.eq(value, _NOTHING))))
            except (Untranslatable, *_SLIPS):
                pass
        return out

    def simplest(
        self,
        tr: StepTranslator,
        solver: z3.Solver,
        entries: list[tuple[str, list[str], Any, Any]],
        pinned: list[Any],
        fixed: list[Any] | None = None,
        pin_to: z3.ModelRef | None = None,
    ) -> z3.ModelRef:
        """A model that leaves as much as it can at its starting value (the values the keys
        shown were chosen by stay as they were; what a record cannot give, ``fixed``, at its
        starting value if the failure can do without)."""
        first = pin_to or solver.model()
        pins = []
        for v in pinned:
            term = tr.unwrap(v)
            if isinstance(term, z3.ExprRef):
                pins.append(term == first.eval(term, model_completion=True))
        opt = z3.Optimize()
        opt.set("rlimit", RLIMIT)  # a limit of work, not of time: the same model on any machine
        opt.add(*solver.assertions())
        # what a record cannot give first, then the values shown: all of them where the
        # failure allows, else each one the failure allows with those kept before it
        opt.add(*_as_many(list(solver.assertions()), [*(fixed or []), *pins]))
        distance = []
        for name, _, value, default in entries:
            if default is not None:
                try:
                    # a procedure's variables (named "") weigh more
                    opt.add_soft(tr.eq(value, default), 1 if name else 3)
                    term, start = tr.unwrap(value), tr.unwrap(default)
                    if isinstance(term, z3.ArithRef) and isinstance(start, z3.ArithRef):
                        distance.append(z3.If(term >= start, term - start, start - term))
                except (Untranslatable, *_SLIPS):
                    pass
        if distance:  # then a number off its start as near it as can be
            opt.minimize(z3.Sum(distance))
        if opt.check() == z3.sat:
            return opt.model()
        return solver.model()

    def position(
        self,
        tr: StepTranslator,
        model: z3.ModelRef,
        entries: list[tuple[str, list[str], Any, Any]],
        proc: ast.Procedure | None,
        step: ast.Step,
        frame: dict[str, Any],
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if proc is not None:
            out["procedure"] = proc.name
            out["args"] = {q.name: self.show(model, frame[q.name]) for q in proc.params}
            out["step"] = step.name
            shown = {v.name: self.show(model, frame[v.name]) for v in proc.vars if v.name in frame}
            # a record cannot give nothing: a variable at nothing is left out (where its
            # starting value is something, the model keeps it something if it can)
            out["vars"] = {k: v for k, v in shown.items() if v is not None}
        state: dict[str, Any] = {}
        for name, names, value, default in entries:
            shown = self.show(model, value)
            if default is not None and shown == self.show(model, default):
                continue
            if not names:
                state[name] = shown
                continue
            place = state.setdefault(name, {})
            for k in names[:-1]:
                place = place.setdefault(k, {})
            place[names[-1]] = shown
        out["state"] = state
        return out

    def event(
        self,
        tr: StepTranslator,
        model: z3.ModelRef,
        t: Transition,
        step: ast.Step,
        env: dict[str, Any],
    ) -> dict[str, Any]:
        assert t.allow is not None
        fields: dict[str, Any] = {}
        if not isinstance(env.get("by"), (_Unknown, type(None))):
            fields["by"] = self.show(model, env["by"])
        for prm in t.allow.params:
            if prm.name in env and self.show(model, env[prm.name]) is not None:
                fields[prm.name] = _clean(self.show(model, env[prm.name]))
        return {t.allow.name: fields}


def _copy_cell(c: Cell) -> Cell:
    return Cell(c.decl_type, c.keys, c.scalar, list(c.present), list(c.values))


def _bounds(t: Any) -> tuple[int | None, int | None]:
    """The least and the greatest value an integer term can take, from its shape (lists'
    sizes are sums of ``If(present, 1, 0)``); None where the shape does not say."""
    if z3.is_int_value(t):
        return t.as_long(), t.as_long()
    if z3.is_app(t):
        k = t.decl().kind()
        kids = [_bounds(c) for c in t.children()]
        if k == z3.Z3_OP_ITE:
            (_, _), (a, b), (c, d) = kids
            return (
                min(a, c) if a is not None and c is not None else None,
                max(b, d) if b is not None and d is not None else None,
            )
        if k == z3.Z3_OP_ADD:
            los, his = [x for x, _ in kids], [y for _, y in kids]
            return (
                None if None in los else sum(x for x in los if x is not None),
                None if None in his else sum(y for y in his if y is not None),
            )
        if k == z3.Z3_OP_SUB and len(kids) == 2:
            (a, b), (c, d) = kids
            return (
                a - d if a is not None and d is not None else None,
                b - c if b is not None and c is not None else None,
            )
        if k == z3.Z3_OP_UMINUS:
            a, b = kids[0]
            return (-b if b is not None else None, -a if a is not None else None)
    return None, None


def _scalars(values: list[Any]) -> list[Any]:
    """The z3 terms in values (through lists' slots and records' fields)."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, SList):
            out += [p for p, _ in v.slots] + _scalars([x for _, x in v.slots])
        elif isinstance(v, Rec):
            out += _scalars(list(v.fields.values()))
        elif isinstance(v, Item):
            out.append(v.term)
        elif isinstance(v, z3.ExprRef):
            out.append(v)
    return out


def _clean(v: Any) -> Any:
    """A record as a record file writes it: no field left at nothing."""
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def _has_check(stmts: list[ast.Stmt]) -> bool:
    for st in stmts:
        if isinstance(st, (ast.CheckStmt, ast.DoStmt, ast.GameOverStmt)):
            return True
        if isinstance(st, ast.IfStmt) and (_has_check(st.then) or _has_check(st.orelse)):
            return True
        if isinstance(st, ast.ForStmt) and _has_check(st.body):
            return True
    return False


def _started(stmts: list[ast.Stmt], sym: Symbols, seen: set[str]) -> set[str]:
    """The procedures the statements start (`do`), through the routines they run."""
    out: set[str] = set()
    for st in stmts:
        if isinstance(st, ast.IfStmt):
            out |= _started(st.then, sym, seen) | _started(st.orelse, sym, seen)
        elif isinstance(st, ast.ForStmt):
            out |= _started(st.body, sym, seen)
        elif isinstance(st, ast.DoStmt) and st.name not in seen:
            seen.add(st.name)
            callee = sym.actions.get(st.name)
            if isinstance(callee, ast.Procedure):
                out.add(st.name)
            elif isinstance(callee, ast.Routine):
                out |= _started(callee.body, sym, seen)
    return out


def beneath(proc: ast.Procedure, sym: Symbols) -> set[str]:
    """The procedures that may run at any moment while the procedure runs: those the
    standing rules start, and those they start, and so on. (One the procedure starts itself
    runs at a point of its own steps, a battle's follow-on combat, say; an invariant speaks
    of the procedure's variables while they are its own, not while such a one runs.)"""
    procs = sym.procedures()
    found = _started([st for w in sym.standing for st in w.body], sym, set())
    todo = list(found)
    while todo:
        more = _started(procedure_statements(procs[todo.pop()]), sym, set()) - found
        found |= more
        todo += more
    found.discard(proc.name)
    return found


def _starts(stmts: list[ast.Stmt], sym: Symbols) -> bool:
    return any(isinstance(st, ast.DoStmt) for st in stmts)


def _step_of(t: Transition) -> ast.Step | None:
    if t.proc is None:
        return None
    for step in t.proc.steps:
        if t.allow is not None and t.allow in step.allows:
            return step
        if t.where.startswith(f"{t.proc.name}.{step.name} "):
            return step
    return t.proc.steps[0] if t.proc.steps else None


def prove_invariant(
    sym: Symbols,
    data_values: dict[str, set[str]],
    collections: dict[str, list[dict[str, Any]]],
    p: ast.Property,
    timeout_ms: int,
) -> tuple[StepOutcome, set[str], set[str], set[str]]:
    """Prove a step invariant; the outcome, the clauses the proof used, the declarations
    it read (see Outcome.reads), and the statements of those it left out, every time it
    met them (see Outcome.left_out)."""
    prover = InvariantProver(sym, data_values, collections, p, timeout_ms)
    if p.after or p.allows:
        try:
            found = prover.by_effect()
        except Untranslatable as err:
            found = StepOutcome("skipped", reason=f"cannot translate {err}")
        return found, prover.used, prover.read, prover.left_out - prover.kept
    try:
        first = prover.by_standing_rules()
        # the clauses and declarations of that way alone
        standing = set(prover.used), set(prover.read), prover.left_out - prover.kept
        if first.status == "proved":
            return first, *standing
        second = prover.by_induction()
    except Untranslatable as err:
        out = StepOutcome("skipped", reason=f"cannot translate {err}")
        return out, prover.used, prover.read, prover.left_out - prover.kept
    # where the standing rules govern what the invariant reads, or the steps gave no
    # position, the standing rules' counterexample (a position, and an idle event)
    if (
        second.status == "failed"
        and first.position
        and (not second.position or prover.inv_reads & prover.havoc_cells)
    ):
        return first, *standing
    return second, prover.used, prover.read, prover.left_out - prover.kept


def record_of(p: ast.Property, found: StepOutcome) -> dict[str, Any]:
    """A record that replays a failure: the position, the event, and the invariant expected
    to hold after it (``referee check`` reports the miss)."""
    record: dict[str, Any] = {
        "game": "",
        "title": f"Counterexample to {p.clause}/{p.name}: {p.text}",
    }
    if found.position:
        record["position"] = found.position
    event = dict(found.event)
    source = " ".join(_source(p.body).split())
    # a property after an action reads the position before the event, which an expect:
    # cannot state: the record gives the position and the event, the property says the rest;
    # one that an action is allowed fails with an event the referee refuses, citing the check
    args: dict[str, Any] = next(iter(event.values()), {}) if event else {}
    if (
        event
        and source
        and not p.allows
        and not (p.after and set(names_written(p.body)) & {"before", *args})
    ):
        # an invariant, or a property after an action that reads neither the position before
        # it nor the event: the record expects it after the event
        event["expect"] = {source: True}
    elif event and p.after:
        record["title"] += (
            f" (the referee allows the event: the property, which reads the event and the"
            f" position before it, fails after it: {source})"
        )
    elif event:
        record["title"] += (
            " (the property holds this event allowed: the referee refuses it, citing the"
            " check that makes the difference)"
        )
    if event:
        record["events"] = [event]
    return record


# ---------------------------------------------------------------- what a proof read

# The tables of declarations an overlay can change.
_WATCHED = ("values", "labels", "dropped", "exceptions")


def _token(v: Any) -> Any:
    """What identifies a declaration across overlay sets: the overlay that put it in force
    (its copy is new each time), or the declaration itself."""
    if v is None:
        return None
    if isinstance(v, ast.Decl):
        return ("overlay", v.overlay) if v.overlay else ("decl", id(v))
    if isinstance(v, list):
        return tuple(oid for _, oid in v)
    return v


class _Watched(dict[str, Any]):
    """A table of declarations that notes every name looked up in it."""

    def __init__(self, table: str, items: dict[str, Any], deps: dict[tuple[str, str], Any]):
        super().__init__(items)
        self.table, self.deps = table, deps

    def __getitem__(self, key: str) -> Any:
        self.deps[(self.table, key)] = _token(dict.get(self, key))
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.deps[(self.table, key)] = _token(dict.get(self, key))
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.deps[(self.table, key)] = _token(dict.get(self, key))
        return super().__contains__(key)


def watching(sym: Symbols) -> tuple[Symbols, dict[tuple[str, str], Any]]:
    """A copy of the symbols whose overlay-changeable tables note what is read."""
    deps: dict[tuple[str, str], Any] = {}
    out = copy.copy(sym)
    for table in _WATCHED:
        setattr(out, table, _Watched(table, getattr(sym, table), deps))
    return out, deps


def still_same(sym: Symbols, deps: dict[tuple[str, str], Any]) -> bool:
    """Whether every declaration a proof read is the same under these symbols."""
    return all(_token(getattr(sym, t).get(k)) == v for (t, k), v in deps.items())
