"""The `hidden` declaration checked: what each seat sees (docs/rules-language.md).

Every piece of state and every argument of an event that holds a value of a secret type must
say who sees it, once for a state, and for an event's argument in lines read in order whose
last has no `when`. A `when` reads only the event's arguments that everybody sees, so that a
view of a record can always tell which line applies. The helpers here (the secret paths of a
type, the actions an event names) serve `referee hide` too (records/views.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from referee.parse import ast
from referee.resolve.reads import reads
from referee.resolve.symbols import Symbols
from referee.resolve.types import BOOL

if TYPE_CHECKING:
    from referee.resolve.expressions import ExpressionChecker

VIEWERS = ("everybody", "nobody", "actor")


def holds_secret(sym: Symbols, t: ast.TypeRef, secret: dict[str, bool]) -> bool:
    """Whether a value of type ``t`` can hold a value of a secret type."""
    return any(True for _ in secret_paths(sym, t, secret))


def secret_paths(
    sym: Symbols, t: ast.TypeRef, secret: dict[str, bool], seen: frozenset[str] = frozenset()
) -> Iterator[list[str]]:
    """The paths of fields (through lists and structures) to the parts of a value of type
    ``t`` that are of a secret type or a list of one: ``[]`` for the value itself."""
    if leaf_type(t) in secret:
        yield []
        return
    while t.arg is not None:
        t = t.arg
    d = sym.types.get(t.name)
    if isinstance(d, ast.RecordDecl) and not d.from_data and d.name not in seen:
        for f in d.fields:
            for rest in secret_paths(sym, f.type, secret, seen | {d.name}):
                yield [f.name, *rest]


def leaf_type(t: ast.TypeRef) -> str:
    """The type a value or a (nested) list of values holds: ``face`` for ``list of face``."""
    while t.arg is not None:
        t = t.arg
    return t.name


def field_type(sym: Symbols, t: ast.TypeRef, name: str) -> ast.TypeRef | None:
    """The type of field ``name`` of a structure (or of the items of a list of them)."""
    while t.arg is not None:
        t = t.arg
    d = sym.types.get(t.name)
    if isinstance(d, ast.RecordDecl) and not d.from_data:
        for f in d.fields:
            if f.name == name:
                return f.type
    return None


def allows_of(sym: Symbols, action: str) -> list[ast.Allow]:
    """Every `allow` of an action, in every step that allows it."""
    return [
        a for p in sym.procedures().values() for s in p.steps for a in s.allows if a.name == action
    ]


def check_hidden(ck: ExpressionChecker, decls: list[ast.Hidden]) -> None:
    """Check the spec's `hidden` declaration (at most one) and keep it in the symbols."""
    if not decls:
        return
    for extra in decls[1:]:
        ck.error(
            extra.span, "a spec declares what each seat sees once", f"first at {decls[0].span}"
        )
    h = decls[0]
    ck.sym.hidden = h
    for name in h.secret:
        if name not in ck.sym.types:
            ck.unknown(h.span, "type", name, list(ck.sym.types))
    states: dict[str, ast.Seen] = {}
    events: dict[str, list[ast.Seen]] = {}
    for s in h.seen:
        for number in s.clauses:
            if number not in ck.sym.clauses:
                ck.error(s.span, f"{s.target()} rests on a missing clause {number}")
        if s.kind == "state":
            prev = states.get(s.name)
            if prev is not None:
                ck.error(s.span, f"who sees {s.name} is said twice", f"first at {prev.span}")
            states[s.name] = s
            _state(ck, h, s)
        else:
            events.setdefault(".".join([s.name, *s.path]), []).append(s)
            _event(ck, h, s)
    _complete(ck, h, states, events)


def _state(ck: ExpressionChecker, h: ast.Hidden, s: ast.Seen) -> None:
    d = ck.sym.values.get(s.name)
    if not isinstance(d, ast.StateDecl):
        states = [k for k, v in ck.sym.values.items() if isinstance(v, ast.StateDecl)]
        ck.unknown(s.span, "state", s.name, states)
        return
    if len(s.path) != len(d.params):
        ck.error(
            s.span,
            f"{s.name} has {len(d.params)} key(s), {len(s.path)} named here",
            f"as declared: {s.name}({', '.join(p.name for p in d.params)})",
        )
        return
    if not holds_secret(ck.sym, d.type, h.secret):
        ck.error(s.span, f"{s.name} ({d.type}) holds nothing secret: there is nothing to hide")
    if s.viewer == "actor":
        ck.error(s.span, "a piece of state has no actor: name its side, everybody or nobody")
    elif s.side is not None:
        env = {k: ck.typeref(p.type) for k, p in zip(s.path, d.params, strict=True)}
        ck.expect(s.side, env, ck.players)


def _event(ck: ExpressionChecker, h: ast.Hidden, s: ast.Seen) -> None:
    allows = allows_of(ck.sym, s.name)
    if not allows:
        ck.unknown(s.span, "action", s.name, sorted(ck.sym.event_actions()))
        return
    for allow in allows:
        params = {p.name: p for p in allow.params}
        first = params.get(s.path[0])
        if first is None:
            ck.unknown(s.span, f"argument of {s.name}", s.path[0], list(params))
            return
        t: ast.TypeRef | None = first.type
        for name in s.path[1:]:
            assert t is not None
            inner = field_type(ck.sym, t, name)
            if inner is None:
                ck.error(s.span, f"{s.target()}: {t} has no field '{name}'")
                return
            t = inner
        assert t is not None
        if leaf_type(t) not in h.secret:
            ck.error(
                s.span,
                f"{s.target()} is {t}, not of a secret type ({', '.join(h.secret)})",
                "name the field that holds the secret values",
            )
        env = ck.params(allow.params)
        env["by"] = ck.players
        if s.side is not None:
            ck.expect(s.side, env, ck.players)
            _only_arguments(ck, h, s, s.side, allow)
        if s.when is not None:
            ck.expect(s.when, env, BOOL)
            _only_arguments(ck, h, s, s.when, allow)


def _only_arguments(
    ck: ExpressionChecker, h: ast.Hidden, s: ast.Seen, e: ast.Expr, allow: ast.Allow
) -> None:
    """An event's line reads its public arguments only: a view can always tell who sees."""
    secret = {p.name for p in allow.params if holds_secret(ck.sym, p.type, h.secret)}
    for name in sorted(secret & _names(e)):
        ck.error(e.span, f"{s.target()}: '{name}' may be hidden: a view could not read it")
    for name in sorted(reads(e, ck.sym)):
        if isinstance(ck.sym.values.get(name), ast.StateDecl):
            ck.error(
                e.span,
                f"{s.target()}: reads the state '{name}': an event's line reads"
                " only the event's arguments",
            )


def _complete(
    ck: ExpressionChecker,
    h: ast.Hidden,
    states: dict[str, ast.Seen],
    events: dict[str, list[ast.Seen]],
) -> None:
    for name, d in ck.sym.values.items():
        if not isinstance(d, ast.StateDecl) or name in states:
            continue
        if holds_secret(ck.sym, d.type, h.secret):
            ck.error(
                h.span,
                f"who sees the state {name} ({d.type}) is not said",
                f"add: state {name}{_keys(d)} seen by ... under {d.clause}",
            )
    clause_of = {
        id(a): p.clause for p in ck.sym.procedures().values() for st in p.steps for a in st.allows
    }
    for action in sorted(ck.sym.event_actions()):
        for allow in allows_of(ck.sym, action)[:1]:
            for p in allow.params:
                for rest in secret_paths(ck.sym, p.type, h.secret):
                    target = ".".join([action, p.name, *rest])
                    lines = events.get(target)
                    if not lines:
                        ck.error(
                            h.span,
                            f"who sees {target} ({leaf_type(p.type)}) is not said",
                            f"add: event {target} seen by ... under"
                            f" {allow.clause or clause_of[id(allow)]}",
                        )
                        continue
                    for i, line in enumerate(lines):
                        last = i == len(lines) - 1
                        if last and line.when is not None:
                            ck.error(
                                line.span,
                                f"{target}: the last line has a `when`: say who"
                                " sees it when no line's condition holds",
                            )
                        elif not last and line.when is None:
                            ck.error(
                                lines[i + 1].span,
                                f"{target}: this line is never read:"
                                f" the one at line {line.span.line} has no `when`",
                            )


def _names(node: object) -> set[str]:
    """Every name an expression mentions."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, list):
        return set().union(*(_names(x) for x in node)) if node else set()
    if hasattr(node, "__dataclass_fields__"):
        return set().union(*(_names(getattr(node, f)) for f in node.__dataclass_fields__))
    return set()


def _keys(d: ast.StateDecl) -> str:
    return f"({', '.join(p.name for p in d.params)})" if d.params else ""
