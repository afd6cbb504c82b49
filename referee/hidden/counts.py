"""The components' counts as constraints on a view: a list of marks cannot hide more values
of a type than the components hold (a hand of 999 cards), nor a side's cells more of its
items than it owns. Where the data leave a count unknown, no bound is invented: the check is
made only with what the data say, and says which counts it lacked. Nothing here names a game:
the counts are the components' `count` fields, the owner the spec's one definition from an
item to the key of the cell that holds it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.compile.spec import Spec, multiplicity
from referee.hidden.holes import Hole, owner_rule, viewer_key
from referee.parse import ast
from referee.records.record import Record
from referee.records.views import MARK
from referee.resolve.hidden import leaf_type


def _clauses(sym: Any, kind: str, name: str) -> list[str]:
    hidden = sym.hidden
    if hidden is None:
        return []
    return [c for s in hidden.seen if s.kind == kind and s.name == name for c in s.clauses]


def _over(
    where: str, index: int, action: str, n: int, bound: int, what: str, clauses: list[str]
) -> dict[str, Any]:
    message = f"{where} holds {n} of {what}, more than the {bound} the components hold"
    return {
        "index": index,
        "action": action,
        "tried": 0,
        "visible": True,
        "depends_on": [],
        "violations": [
            {
                "cites": "components",
                "clause": ", ".join(dict.fromkeys(clauses)),
                "label": "",
                "title": "the components' counts",
                "message": message,
                "numbers": [f"{what} = {n}", f"the components' {what} = {bound}"],
                "relied": [],
                "count": 1,
            }
        ],
    }


def count_failure(
    spec: Spec,
    record: Record,
    holes: dict[int, list[Hole]],
    owner_of: Callable[[str, str, str], str | None],
) -> tuple[dict[str, Any] | None, list[str]]:
    """The first list of marks (or cell) that holds more than the components allow (the
    holes by event, 0 the position's), as a
    judgement's failure (None if none); and what could not be checked for want of a count.
    ``owner_of(rule, type, value)`` evaluates the spec's owner rule on a value."""
    sym = spec.sym
    lacking: list[str] = []
    totals: dict[str, int | None] = {}

    def total(t: str, keep: Callable[[str], bool] = lambda v: True) -> int | None:
        counts = {v: n for v, n in multiplicity(spec, sym, t).items() if keep(v)}
        if not counts or any(n is None for n in counts.values()):
            return None
        return sum(n for n in counts.values() if n is not None)

    for index, hs in sorted(holes.items()):  # index 0: the position's holes
        action = record.events[index - 1].action if index else "position"
        for h in hs:
            if h.type not in totals:
                totals[h.type] = total(h.type)
            bound = totals[h.type]
            if bound is None:
                lacking.append(h.type)
            elif h.size > bound:
                kind, name = ("event", action) if index else ("state", str(h.path[2]))
                clauses = _clauses(sym, kind, name)
                return _over(h.where(), index, action, h.size, bound, h.type, clauses), []
    pos = record.position if isinstance(record.position, dict) else {}
    got = pos.get("state")
    state: dict[str, Any] = got if isinstance(got, dict) else {}
    held: dict[tuple[str, str, str], int] = {}  # (type, key type, key): marks and items
    names: dict[str, str] = {}  # the cell each type was last counted in: its clauses
    for name, value in state.items():
        d = sym.values.get(name)
        if not isinstance(d, ast.StateDecl):
            continue
        t = leaf_type(d.type)
        if sym.hidden is None or t not in sym.hidden.secret:
            continue

        def walk(v: Any, keys: tuple[Any, ...], d: ast.StateDecl = d, t: str = t) -> None:
            if len(keys) < len(d.params):
                for k, x in v.items() if isinstance(v, dict) else []:
                    walk(x, keys + (str(k),))
                return
            n = v if isinstance(v, int) and not isinstance(v, bool) else None
            items = v if isinstance(v, list) else []
            at = viewer_key(sym, d.name)
            if at is not None and at < len(keys):
                p, k = d.params[at], keys[at]
                rule = owner_rule(sym, t, p.type.name)
                if rule is None:
                    return
                mine = sum(1 for x in items if x == MARK) + (n or 0)
                mine += sum(1 for x in items if x != MARK and owner_of(rule, t, str(x)) == k)
                held[(t, p.type.name, k)] = held.get((t, p.type.name, k), 0) + mine

        walk(value, ())
        names[t] = name
    for (t, key_type, k), n in held.items():
        rule = owner_rule(sym, t, key_type)
        assert rule is not None

        def owned(v: str, rule: str = rule, t: str = t, k: str = k) -> bool:
            return owner_of(rule, t, v) == k

        bound = total(t, owned)
        if bound is None:
            lacking.append(f"{t} of {k}")
        elif n > bound:
            where = f"the position's cells of {k}"
            clauses = _clauses(sym, "state", names.get(t, ""))
            return _over(where, 0, "position", n, bound, t, clauses), []
    return None, sorted(set(lacking))
