"""The position of the step model: state cells as z3 arrays over their keys, bounded
lists as slots, components' items as enumerations whose fields are looked up in the data,
fresh values for events' arguments and procedures' variables."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from typing import Any

import z3

from referee.parse import ast
from referee.resolve.symbols import Symbols
from referee.verify.common import Untranslatable, enum
from referee.verify.fast import And, If
from referee.verify.reuse import counted, region
from referee.verify.terms import Translator
from referee.verify.values import (
    ABSENT,
    DEFAULT_BOUND,
    NOTHING,
    TEXT_NOTHING,
    Absent,
    Cell,
    Item,
    Rec,
    SList,
    Sub,
    copy_cell,
    item_keys,
)


class StateModel(Translator):
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
        self.frame_types: dict[str, ast.TypeRef] = {}  # and their types
        self.bounds_used: dict[str, int] = {}  # the most items of a list, by element type
        self.longer_at_start = False  # a list at the set-up holds more than its bound
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
        self.data_fns: dict[tuple[str, tuple[str, ...]], Any] = {}  # see data_value
        self.fn_bounds: dict[str, tuple[int, int]] = {}  # such a function's least and most
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
        with region() as read:  # its lookups count where its reads join the proof's
            self.read, self.used = read, set()
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
            self.sorts[name] = enum(name, [*values, NOTHING])
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
            keys = item_keys(self.collections.get(coll, []))
            self.item_sorts[coll] = enum(f"{coll}_items", [*keys, NOTHING])
        return self.item_sorts[coll]

    def bound(self, t: ast.TypeRef | None) -> int:
        name = t.name if t is not None else ""
        n = self.within.get(name, DEFAULT_BOUND)
        if name:
            self.bounds_used[name] = n  # said with the proof (see InvariantProver.bounds)
        return n

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
            self.assumptions.append(z3.Not(self.eq(v, ABSENT)))
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
        if t.name == "text":
            return z3.StringSort()
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.EnumDecl):
            return self.enum_sort(t.name)[0]
        if isinstance(d, ast.RecordDecl) and d.from_data:
            return self.item_sort(d.from_data)[0]
        raise Untranslatable(f"a value of type {t}")

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
        with counted():  # kept, and read by other regions too
            return self._cell(name)

    def _cell(self, name: str) -> Cell:
        if self.before_mode:
            if name not in self.initial:
                self.before_mode = False
                try:
                    self._cell(name)  # untouched by the event: the same cell before and after
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
            if self.at_start and name not in self.forgotten:
                self.cells[name] = self.start_cell(name, d)
            else:
                self.cells[name] = self.fresh_cell(
                    name, d.type, [self.sort_of(p.type) for p in d.params]
                )
            if name not in self.initial and name not in self.forgotten:
                self.initial[name] = copy_cell(self.cells[name])  # the position before
        return self.cells[name]

    def fresh_cell(
        self, name: str, t: ast.TypeRef, keys: list[z3.SortRef], slots: int | None = None
    ) -> Cell:
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
            for i in range(self.bound(t.arg) if slots is None else slots):
                c.present.append(array(f"{tag}.p{i}", z3.BoolSort()))
                c.values.append(array(f"{tag}.v{i}", esort))
            c.room = len(c.present)
        else:
            c.scalar = array(tag, self.sort_of(t))
        return c

    # The position the game starts from: each cell, when first read, at its declared starting
    # value at every key (a list as long as it starts, beyond the property's bound if need be)
    at_start = False
    MAX_START_KEYS = 4096

    def start_cell(self, name: str, d: ast.StateDecl) -> Cell:
        keys = [self.sort_of(p.type) for p in d.params]
        combos = list(itertools.product(*[self.key_values(p.type) for p in d.params]))
        if len(combos) > self.MAX_START_KEYS:
            raise Untranslatable(f"the starting value of {name} at {len(combos)} keys")
        values: list[tuple[list[Any], Any]] = []
        for combo in combos:
            env = {p.name: self.wrap(p.type, k) for p, k in zip(d.params, combo, strict=True)}
            v = self.expr(d.value, env)
            values.append((list(combo), self.nothing_of(d.type) if isinstance(v, Absent) else v))
        slots = None
        if d.type.name in ("list", "set"):
            values = [(at, _known_slots(v)) for at, v in values]
            longest = max((len(v.slots) for _, v in values), default=0)
            assert d.type.arg is not None
            slots = max(self.bound(d.type.arg), longest)
            self.longer_at_start = self.longer_at_start or longest > self.bound(d.type.arg)
        c = self.fresh_cell(name, d.type, keys, slots)  # a key of nothing: unknown

        def put(a: Any, combo: list[Any], v: Any) -> Any:
            return z3.Store(a, *combo, v) if combo else v

        for at, v in values:
            if c.scalar is not None:
                c.scalar = put(c.scalar, at, self.unwrap(v))
                continue
            packed = _packed(v, len(c.present)) or self.pack(v, len(c.present), d.type.arg)
            c.present = [put(a, at, q) for a, (q, _) in zip(c.present, packed, strict=True)]
            c.values = [
                put(a, at, self.unwrap(x)) for a, (_, x) in zip(c.values, packed, strict=True)
            ]
        return c

    def key_values(self, t: ast.TypeRef) -> list[Any]:
        """Every value of a key's type but nothing (an enumeration, a component's items)."""
        d = self.sym.types.get(t.name)
        if isinstance(d, ast.EnumDecl):
            consts = self.enum_sort(t.name)[1]
        elif isinstance(d, ast.RecordDecl) and d.from_data:
            consts = self.item_sort(d.from_data)[1]
        else:
            raise Untranslatable(f"a key of type {t}")
        return [c for k, c in consts.items() if k != NOTHING]

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
        if isinstance(value, Absent):  # set x = nothing
            value = self.nothing_of(c.decl_type)

        def store(a: Any, v: Any) -> Any:
            if not keys:
                return z3.If(g, v, a)
            return z3.Store(a, *keys, z3.If(g, v, z3.Select(a, *keys)))

        if c.decl_type.name in ("list", "set"):
            assert isinstance(value, SList)
            many = len(value.slots)
            if many > c.room:  # the model holds no longer list
                self.assumptions.append(z3.Implies(g, self.size(value) <= c.room))
            if len(c.present) < many <= self.GROW * c.room:
                self.grow(c, many)
            packed = self.fit(value, len(c.present), c.decl_type.arg)
            c.present = [store(a, p) for a, (p, _) in zip(c.present, packed, strict=False)]
            c.values = [
                store(a, self.unwrap(v)) for a, (_, v) in zip(c.values, packed, strict=False)
            ]
        else:
            c.scalar = store(c.scalar, self.unwrap(value))

    # A list cell takes a longer list (two joined) in as many slots, up to GROW times its
    # room, rather than packing it into its room: the packed slots are chains of choices
    # over the ranks that z3 reasons over far more slowly than the slots as they are.
    GROW = 2

    def grow(self, c: Cell, slots: int) -> None:
        """More slots for a list cell, absent at every key."""
        assert c.decl_type.arg is not None
        esort = self.sort_of(c.decl_type.arg)
        while len(c.present) < slots:
            self.fresh += 1
            value = z3.Const(f"slot~{self.fresh}", esort)
            c.present.append(_everywhere(c.keys, z3.BoolVal(False)))
            c.values.append(_everywhere(c.keys, value))

    def fit(self, lst: SList, n: int, elem: ast.TypeRef | None = None) -> list[tuple[Any, Any]]:
        """The list in n slots: as it is where it has no more (the slots it lacks absent),
        else packed. A cell's list need not hold its present slots first: what reads it
        counts them (see at, size), and one unpacked is lighter to reason over."""
        if not lst.slots or len(lst.slots) > n:
            return self.pack(lst, n, elem)
        absent = [(z3.BoolVal(False), lst.slots[-1][1])] * (n - len(lst.slots))
        return [*lst.slots, *absent]

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
        return z3.Sum([If(p, 1, 0) for p, _ in lst.slots]) if lst.slots else z3.IntVal(0)

    def ranks(self, lst: SList) -> list[Any]:
        out, r = [], z3.IntVal(0)
        for p, _ in lst.slots:
            out.append(r)
            r = r + If(p, 1, 0)
        return out

    def at(self, lst: SList, i: Any) -> Any:
        if not lst.slots:
            if lst.elem is None:
                raise Untranslatable("an item of an empty list")
            return self.fresh_value(lst.elem, "none")
        out = lst.slots[-1][1]
        for (p, v), r in reversed(list(zip(lst.slots, self.ranks(lst), strict=False))[:-1]):
            out = self.ite(And(p, r == i), v, out)
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
        if isinstance(a, Absent) and not isinstance(b, Absent):
            a = self.nothing_like(b)
        if isinstance(b, Absent) and not isinstance(a, Absent):
            b = self.nothing_like(a)
        if isinstance(a, SList) and isinstance(b, SList):
            n = max(len(a.slots), len(b.slots))
            sa = a.slots + [(z3.BoolVal(False), b.slots[i][1]) for i in range(len(a.slots), n)]
            sb = b.slots + [(z3.BoolVal(False), a.slots[i][1]) for i in range(len(b.slots), n)]
            pa, pb = self.pack(SList(sa), n), self.pack(SList(sb), n)
            return SList(
                [(If(c, x, y), self.ite(c, u, w)) for (x, u), (y, w) in zip(pa, pb, strict=False)],
                a.elem or b.elem,
            )
        if isinstance(a, Item) and isinstance(b, Item):
            return Item(a.coll, a.type, If(c, a.term, b.term))
        if isinstance(a, Rec) and isinstance(b, Rec):
            return Rec({k: self.ite(c, a.fields[k], b.fields[k]) for k in a.fields}, a.type)
        if isinstance(a, (Item, Sub, Rec)) or isinstance(b, (Item, Sub, Rec)):
            raise Untranslatable("a choice between records")
        return If(c, a, b)

    def eq(self, a: Any, b: Any) -> Any:
        if isinstance(a, Absent):
            a, b = b, a
        if isinstance(b, Absent):
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
        terms = [If(And(p, self.eq(x, v)), 1, 0) for p, x in slots]
        return z3.Sum(terms) if terms else z3.IntVal(0)

    # ------------------------------------------------------------ components
    def data_value(self, item: Item, path: tuple[str, ...], t: ast.TypeRef) -> Any:
        """A scalar field of a component's item: the item's own value when the item is
        known, else a function of the item, given once its value at each item (and nothing
        at nothing), which z3 reads as a table."""
        table = self.data_table(item.coll, path, t)
        name = str(item.term) if z3.is_const(item.term) else ""
        if name in table:
            return table[name]
        key = (item.coll, path)
        if key not in self.data_fns:
            self.fresh += 1
            fn = z3.Function(
                f"{item.coll}.{'.'.join(path)}~{self.fresh}", item.term.sort(), self.sort_of(t)
            )
            _, consts = self.item_sort(item.coll)
            self.assumptions += [fn(consts[k]) == v for k, v in table.items()]
            if t.name not in ("int", "bool"):
                self.assumptions.append(fn(consts[NOTHING]) == self.unwrap(self.nothing_of(t)))
            numbers = [v.as_long() for v in table.values() if z3.is_int_value(v)]
            if t.name == "int" and numbers and len(numbers) == len(table):
                self.fn_bounds[fn.name()] = (min(numbers), max(numbers))  # see term_bounds
            self.data_fns[key] = fn
        return self.data_fns[key](item.term)

    def data_table(self, coll: str, path: tuple[str, ...], t: ast.TypeRef) -> dict[str, Any]:
        """Each item's value at a field path, by the item's name."""
        if (coll, path) not in self.tables:
            items = self.collections.get(coll, [])
            table = {}
            for k, raw in zip(item_keys(items), items, strict=False):
                v: Any = raw
                for p in path:
                    v = v.get(p) if isinstance(v, dict) else None
                if v is None and t.name in ("int", "bool") and len(path) > 1:
                    # a number or truth of a part the item lacks (a location's set-up spot
                    # where none is printed): any value, which only a read that does not
                    # ask first whether the part is there could see
                    self.fresh += 1
                    tag = f"{coll}.{'.'.join(path)}.{k}~{self.fresh}"
                    table[k] = z3.Int(tag) if t.name == "int" else z3.Bool(tag)
                    continue
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
        for k, raw in zip(item_keys(items), items, strict=False):
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
        for key, raw in zip(item_keys(items), items, strict=False):
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


def _everywhere(keys: list[z3.SortRef], v: Any) -> Any:
    """The same value at every key (the value itself for a cell without keys)."""
    if not keys:
        return v
    bound = [z3.FreshConst(k, "key") for k in keys]
    return z3.Lambda(bound, v)


def _known_slots(v: Any) -> SList:
    """A starting list with the slots z3 shows absent left out (a filter over the data is
    known item by item), so that it takes no more slots than it holds."""
    if not isinstance(v, SList):
        raise Untranslatable("a list cell whose starting value is not a list")
    kept = [(p, x) for p, x in v.slots if not z3.is_false(z3.simplify(p))]
    return SList(kept, v.elem)


def _packed(v: SList, n: int) -> list[tuple[Any, Any]] | None:
    """A list whose every slot is present, in n slots (the rest absent); None if one slot
    may be absent (pack then puts the present ones first)."""
    if len(v.slots) > n or not all(z3.is_true(z3.simplify(p)) for p, _ in v.slots):
        return None
    if not v.slots and n:
        return None  # an empty list: pack gives its absent slots a value of the right sort
    pad = [(z3.BoolVal(False), v.slots[-1][1])] * (n - len(v.slots)) if v.slots else []
    return [(z3.BoolVal(True), x) for _, x in v.slots] + pad
