"""Views of a record (issue 31.2): a record as one seat kept it, or as both saw it.

A view record says `view: public` or `view: SIDE` in its header. What the view did not see is
written as the spec's `hidden` declaration says (resolve/hidden.py): a hidden list of a type
marked `as count` as its size (`cards: 5`), of another as one mark a value (`blocks: ['?',
'?']`), a hidden single value as a mark. The size of a list is always kept. ``hide`` writes a
record (complete, or a view that saw more) as a view would have kept it; nothing here knows a
game: who sees what is the spec's.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Callable
from typing import Any

from referee.data.source import Path_
from referee.errors import Problem, RefereeError, Span
from referee.parse import ast
from referee.records.record import Record
from referee.resolve.hidden import allows_of, leaf_type
from referee.resolve.symbols import Symbols

MARK = "?"  # a value the view did not see
PUBLIC = "public"

# an expression evaluated with names bound: the interpreter's, at the record's start
Evaluate = Callable[[ast.Expr, dict[str, Any]], Any]
# a value of the record converted to the spec's type, at its path (records/values.py)
Convert = Callable[[Any, ast.TypeRef, Path_], Any]


def counted(sym: Symbols, t: ast.TypeRef, items: list[Any]) -> bool:
    """Whether a list of marks in a view is hidden values of a type written as a count."""
    secret = sym.hidden.secret if sym.hidden is not None else {}
    return bool(items) and all(x == MARK for x in items) and secret.get(leaf_type(t), False)


def command_line(message: str, hint: str = "") -> RefereeError:
    return RefereeError([Problem(Span("<command line>", 0, 0), message, hint)])


def _bad(record: Record, path: Path_, message: str, hint: str = "") -> RefereeError:
    doc = record.doc
    return RefereeError([Problem(doc.span(path), message, hint)], {doc.file: doc.text})


class Hider:
    """Writes records as one view would have kept them, by the spec's declaration."""

    def __init__(
        self, sym: Symbols, players: list[str], evaluate: Evaluate, convert: Convert
    ) -> None:
        if sym.hidden is None:
            raise command_line(
                "this game's spec declares nothing hidden: every record of it is complete",
                "a `hidden` declaration says who sees what (docs/rules-language.md)",
            )
        self.sym = sym
        self.hidden = sym.hidden
        self.players = players
        self.evaluate = evaluate
        self.convert = convert
        self.events: dict[str, list[list[ast.Seen]]] = {}
        for s in self.hidden.seen:
            if s.kind == "event":
                groups = self.events.setdefault(s.name, [])
                same = [g for g in groups if g[0].path == s.path]
                if same:
                    same[0].append(s)
                else:
                    groups.append([s])
        self.states = {s.name: s for s in self.hidden.seen if s.kind == "state"}
        self.allows: dict[str, list[ast.Allow]] = {}  # each action's, as events name them

    def check_view(self, view: str, record: Record) -> None:
        views = ", ".join([PUBLIC, *self.players])
        if view != PUBLIC and view not in self.players:
            raise command_line(f"--view {view}: no such view", f"views: {views}")
        had = record.view
        if had and had != PUBLIC and had not in self.players:
            raise _bad(record, ("view",), f"view: no such view '{had}'", f"views: {views}")
        if had and had != view and view != PUBLIC:
            where = record.doc.span(("view",))
            raise RefereeError(
                [Problem(where, f"this record is the {had} view: it cannot show the {view} view")],
                {record.doc.file: record.doc.text},
            )

    def hide(self, record: Record, view: str) -> dict[str, Any]:
        """The record as ``view`` would have kept it (expectations left out: they are the
        complete record's answers)."""
        self.check_view(view, record)
        data = record.doc.data
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key != "view":
                out[key] = copy.deepcopy(value)
            if key == "game":
                out["view"] = view
        position = out.get("position")
        if isinstance(position, dict) and isinstance(position.get("state"), dict):
            for name, value in position["state"].items():
                seen = self.states.get(name)
                if seen is not None:
                    where: Path_ = ("position", "state", name)
                    position["state"][name] = self._state(seen, value, {}, view, where)
        for ev in record.events:
            self._read(record, ev.action, ev.args, ev.path)
        out["events"] = [self._event(ev.action, ev.args, ev.path, view) for ev in record.events]
        return out

    def _read(self, record: Record, action: str, args: dict[str, Any], path: Path_) -> None:
        """Refuse an event the referee would refuse as input, as it would: an unknown action,
        actor or argument; in a complete record, a value that is not of its type (an unknown
        location). A view's values may be marks, which only the judging of a view reads."""
        if action not in self.allows:
            self.allows[action] = allows_of(self.sym, action)
        allows = self.allows[action]
        if not allows:
            known = sorted(
                {
                    a.name
                    for p in self.sym.procedures().values()
                    for st in p.steps
                    for a in st.allows
                }
            )
            close = difflib.get_close_matches(action, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"actions: {', '.join(known)}"
            raise _bad(record, path[:2], f"unknown action '{action}'", hint)
        if self.sym.players:
            if "by" not in args:
                raise _bad(record, path, "'by' is missing: who acts?")
            self.convert(args["by"], ast.TypeRef(self.sym.players), path + ("by",))
        params = {p.name: p for p in allows[0].params}
        for key, value in args.items():
            if key == "by":
                continue
            if key not in params:
                hint = f"its arguments: {', '.join(sorted(params))}" if params else "it takes none"
                raise _bad(record, path + (key,), f"unknown argument '{key}'", hint)
            if not record.view:
                self.convert(value, params[key].type, path + (key,))

    # ------------------------------------------------------------ the position
    def _state(
        self, seen: ast.Seen, value: Any, keys: dict[str, Any], view: str, path: Path_
    ) -> Any:
        d = self.sym.values[seen.name]
        assert isinstance(d, ast.StateDecl)
        depth = len(keys)
        if depth < len(d.params):
            if not isinstance(value, dict):
                return value  # said when the record is judged
            param = d.params[depth]
            return {
                k: self._state(
                    seen,
                    v,
                    {**keys, seen.path[depth]: self.convert(k, param.type, path + (k,))},
                    view,
                    path + (k,),
                )
                for k, v in value.items()
            }
        if self._sees(seen, view, keys, None):
            return value
        return self._hidden(d.type, value)

    # ------------------------------------------------------------ events
    def _event(self, action: str, args: dict[str, Any], path: Path_, view: str) -> dict[str, Any]:
        out = copy.deepcopy(args)
        groups = self.events.get(action, [])
        env: dict[str, Any] | None = None
        for lines in groups:
            if any(s.when is not None or s.side is not None for s in lines) and env is None:
                env = self._arguments(action, args, path)
            line = next(
                (s for s in lines if s.when is None or self.evaluate(s.when, env or {})), None
            )
            if line is None or self._sees(line, view, env or {}, args.get("by")):
                continue
            t = self._type(action, line.path)
            self._hide_at(out, line.path, t)
        return {action: out}

    def _arguments(self, action: str, args: dict[str, Any], path: Path_) -> dict[str, Any]:
        """The event's arguments no line hides, typed (those a `when` may read)."""
        hidden = {g[0].path[0] for g in self.events.get(action, [])}
        env: dict[str, Any] = {}
        allows = allows_of(self.sym, action)
        for p in allows[0].params if allows else []:
            if p.name in hidden:
                continue
            if p.name in args:
                env[p.name] = self.convert(args[p.name], p.type, path + (p.name,))
            elif p.default is not None:
                env[p.name] = self.evaluate(p.default, {})
        if "by" in args and self.sym.players:
            env["by"] = self.convert(args["by"], ast.TypeRef(self.sym.players), path + ("by",))
        return env

    def _sees(self, seen: ast.Seen, view: str, env: dict[str, Any], by: Any) -> bool:
        if seen.viewer == "everybody":
            return True
        if view == PUBLIC or seen.viewer == "nobody":
            return False
        if seen.viewer == "actor":
            return bool(by == view)
        assert seen.side is not None
        return bool(self.evaluate(seen.side, env) == view)

    def _type(self, action: str, path: list[str]) -> ast.TypeRef:
        allow = allows_of(self.sym, action)[0]
        t = next(p.type for p in allow.params if p.name == path[0])
        for name in path[1:]:
            while t.arg is not None:
                t = t.arg
            d = self.sym.types[t.name]
            assert isinstance(d, ast.RecordDecl)
            t = next(f.type for f in d.fields if f.name == name)
        return t

    def _hide_at(self, value: Any, path: list[str], t: ast.TypeRef) -> None:
        """Hide the field at ``path`` of a mapping (or of each of a list of mappings)."""
        if isinstance(value, list):
            for item in value:
                self._hide_at(item, path, t)
            return
        if not isinstance(value, dict) or path[0] not in value:
            return  # left out: its default, which every view knows
        if len(path) > 1:
            self._hide_at(value[path[0]], path[1:], t)
        else:
            value[path[0]] = self._hidden(t, value[path[0]])

    def _hidden(self, t: ast.TypeRef, value: Any) -> Any:
        if isinstance(value, list) and not value:
            return value  # nothing to hide: its size, none, is seen
        if isinstance(value, list):
            if self.hidden.secret.get(leaf_type(t), False):
                return len(value)
            return [MARK] * len(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value  # a count already
        return None if value is None else MARK
