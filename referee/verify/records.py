"""Counterexamples as records: the simplest position and event a failing proof's model
allows, written as a record file that ``referee check`` replays to the miss."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import z3

from referee.parse import ast
from referee.resolve.reads import names_written
from referee.resolve.symbols import Symbols
from referee.verify.common import Untranslatable
from referee.verify.flow import Transition
from referee.verify.steps import StepTranslator
from referee.verify.values import (
    ABSENT,
    NOTHING,
    SLIPS,
    SMALL_ENUM,
    TEXT_NOTHING,
    Absent,
    Cell,
    Item,
    Rec,
    SList,
    Unknown,
    clean,
)

RLIMIT = 20_000_000  # the work a counterexample's simplest form may take (z3 resource units)


def source_of(e: ast.Expr) -> str:
    try:
        with open(e.span.file, encoding="utf-8") as f:
            return f.read()[e.span.start : e.span.end]
    except OSError:
        return ""


def as_many(base: list[Any], wanted: list[Any]) -> list[Any]:
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
    values: dict[str, str] = field(default_factory=dict)  # a failure at the set-up: its values
    bounds: list[str] = field(default_factory=list)  # what the proof assumed (Outcome.bounds)


class Counterexamples:
    """How a failing proof's model becomes a record's position and event."""

    sym: Symbols
    collections: dict[str, list[dict[str, Any]]]

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
        if isinstance(v, (Absent, Unknown)):
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
                except (Untranslatable, *SLIPS):
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
                    except (Untranslatable, *SLIPS):
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
                    parts = [z3.Implies(p, z3.Not(tr.eq(x, ABSENT))) for p, x in value.slots]
                    out.append(z3.Or(tr.eq(value, default), z3.And(*parts)))
                elif isinstance(value, Item) or (
                    isinstance(value, z3.ExprRef) and value.sort().kind() == z3.Z3_DATATYPE_SORT
                ):
                    out.append(z3.Or(tr.eq(value, default), z3.Not(tr.eq(value, ABSENT))))
            except (Untranslatable, *SLIPS):
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
        opt.add(*as_many(list(solver.assertions()), [*(fixed or []), *pins]))
        distance = []
        for name, _, value, default in entries:
            if default is not None:
                try:
                    # a procedure's variables (named "") weigh more
                    opt.add_soft(tr.eq(value, default), 1 if name else 3)
                    term, start = tr.unwrap(value), tr.unwrap(default)
                    if isinstance(term, z3.ArithRef) and isinstance(start, z3.ArithRef):
                        distance.append(z3.If(term >= start, term - start, start - term))
                except (Untranslatable, *SLIPS):
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
        if not isinstance(env.get("by"), (Unknown, type(None))):
            fields["by"] = self.show(model, env["by"])
        for prm in t.allow.params:
            if prm.name in env and self.show(model, env[prm.name]) is not None:
                fields[prm.name] = clean(self.show(model, env[prm.name]))
        return {t.allow.name: fields}


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
    source = " ".join(source_of(p.body).split())
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
