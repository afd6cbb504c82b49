"""The symbolic values of the step model: bounded lists, records, components' items,
state cells, the absent value; and small helpers over them and over z3 terms."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from referee.parse import ast

NOTHING = "nothing~"  # the absent value, one more value of every enumeration
TEXT_NOTHING = "\x00"
SMALL_ENUM = 8  # an enumeration this small is instantiated value by value
DEFAULT_BOUND = 3  # items in a list of a type the property's `within` does not name


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
    # a list's most items in the model (its slots may be more: see StateModel.write_cell)
    room: int = 0


class Absent:
    pass


# Values the translator does not expect where it meets them (a record where a number was
# looked for): the statement is not translated, as one it cannot express.
SLIPS = (z3.Z3Exception, ValueError, KeyError, TypeError, AttributeError, AssertionError)


ABSENT = Absent()


@dataclass
class Unknown:
    why: str


class UnknownUsed(Exception):
    pass


def item_key(item: Any) -> str:
    if isinstance(item, dict):
        for k in ("name", "id"):
            if isinstance(item.get(k), str):
                return str(item[k])
    return ""


def item_keys(items: list[dict[str, Any]]) -> list[str]:
    """The items' names; an item without one is known by its place (``#3``)."""
    return [item_key(i) or f"#{n}" for n, i in enumerate(items)]


def copy_cell(c: Cell) -> Cell:
    return Cell(c.decl_type, c.keys, c.scalar, list(c.present), list(c.values), c.room)


def term_bounds(
    t: Any,
    known: dict[str, tuple[int, int]] | None = None,
    memo: dict[int, tuple[int | None, int | None]] | None = None,
) -> tuple[int | None, int | None]:
    """The least and the greatest value an integer term can take, from its shape (lists'
    sizes are sums of ``If(present, 1, 0)``; ``known``: functions' least and greatest
    values, by name); None where the shape does not say. Only the arithmetic is walked (an
    ``If``'s condition is not), each shared term once."""
    known = {} if known is None else known
    memo = {} if memo is None else memo
    if z3.is_int_value(t):
        return t.as_long(), t.as_long()
    if not z3.is_app(t):
        return None, None
    if t.decl().name() in known:
        return known[t.decl().name()]
    k = t.decl().kind()
    if k not in (z3.Z3_OP_ITE, z3.Z3_OP_ADD, z3.Z3_OP_SUB, z3.Z3_OP_UMINUS):
        return None, None
    key = t.get_id()
    if key in memo:
        return memo[key]
    kids = t.children()
    out: tuple[int | None, int | None] = (None, None)
    if k == z3.Z3_OP_ITE:
        (a, b), (c, d) = term_bounds(kids[1], known, memo), term_bounds(kids[2], known, memo)
        out = (
            min(a, c) if a is not None and c is not None else None,
            max(b, d) if b is not None and d is not None else None,
        )
    elif k == z3.Z3_OP_ADD:
        each = [term_bounds(c, known, memo) for c in kids]
        los, his = [x for x, _ in each], [y for _, y in each]
        out = (
            None if None in los else sum(x for x in los if x is not None),
            None if None in his else sum(y for y in his if y is not None),
        )
    elif k == z3.Z3_OP_SUB and len(kids) == 2:
        (a, b), (c, d) = term_bounds(kids[0], known, memo), term_bounds(kids[1], known, memo)
        out = (
            a - d if a is not None and d is not None else None,
            b - c if b is not None and c is not None else None,
        )
    elif k == z3.Z3_OP_UMINUS:
        a, b = term_bounds(kids[0], known, memo)
        out = (-b if b is not None else None, -a if a is not None else None)
    memo[key] = out
    return out


def scalars(values: list[Any]) -> list[Any]:
    """The z3 terms in values (through lists' slots and records' fields)."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, SList):
            out += [p for p, _ in v.slots] + scalars([x for _, x in v.slots])
        elif isinstance(v, Rec):
            out += scalars(list(v.fields.values()))
        elif isinstance(v, Item):
            out.append(v.term)
        elif isinstance(v, z3.ExprRef):
            out.append(v)
    return out


def clean(v: Any) -> Any:
    """A record as a record file writes it: no field left at nothing."""
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
