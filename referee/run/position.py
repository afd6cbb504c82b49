"""Where a record stands at one of its events: ``referee show``.

The record is replayed by the same Referee as ``referee check`` (its start, then each event
judged) up to the point asked for; the position is then read off the interpreter and the
procedure machine. Nothing here knows the game: what is shown is every state the spec
declares whose cells differ from their declared starting values, each with its clause, the
spec's own ``summary()``, and the procedures running, outermost first.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from referee.budget import within_limit
from referee.compile.builtins import key_of
from referee.compile.interp import RULES_FAILURES
from referee.compile.shown import brief, show
from referee.compile.spec import Spec
from referee.errors import Problem, RefereeError
from referee.parse import ast
from referee.records.record import Event, Source, record_name
from referee.resolve.overlays import Choice
from referee.resolve.symbols import Symbols
from referee.run.referee import Referee
from referee.run.replay import CANNOT_ARISE, expectations, open_referee, refused_position
from referee.run.verdict import Violation
from referee.text import shown

MAX_SUMMARY = 2_000  # characters of the spec's summary shown
WIDTH = 100  # a line of text output wraps (between items, never inside one) past this


@dataclass
class Position:
    file: str
    events: int  # how many events the record holds
    at: int | None  # the event the position stands before; None after the last
    after: int  # how many events have been applied
    event: dict[str, Any] | None  # the event asked about (or the illegal one), if any
    summary: str
    frames: list[dict[str, Any]]
    over: str  # the clause whose rule ended the game, if one did
    state: dict[str, dict[str, Any]]
    defaults: list[str]  # the states every cell of which holds its starting value
    printing: str
    overlays: list[str]
    illegal: dict[str, Any] | None = None  # the first illegal event, before which we stand
    asked: str = ""  # what was asked for: "--at 5", "--after 5", or "" for the end
    kinds: dict[str, str] = field(default_factory=dict)  # overlay id -> its kind

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        del out["kinds"]
        return out


# ------------------------------------------------------------ replaying


def show_position(
    spec: Spec, path: Source, choice: Choice, at: int | None = None, after: int | None = None
) -> Position:
    """The position before event ``at``, after event ``after``, or (neither given) at the
    end of the record; before the first illegal event on the way, if one is."""
    return within_limit(
        lambda: _show(spec, path, choice, at, after), record_name(path), "replaying"
    )


def _show(spec: Spec, path: Source, choice: Choice, at: int | None, after: int | None) -> Position:
    ref = open_referee(spec, path, choice)
    try:
        # a record's expectations are read and type-checked as `check` reads them (a bad
        # one is bad input), not evaluated: the position is what is shown
        expectations(ref, ref.record)
        events = ref.record.events
        n = len(events)
        for flag, value in (("--at", at), ("--after", after)):
            if value is not None and not 1 <= value <= n:
                raise out_of_range(ref, flag, value, n)
        # how many events to apply, and the event named
        named: Event | None
        if at is not None:
            count, named = at - 1, events[at - 1]
        elif after is not None:
            count, named = after, events[after - 1]
        else:
            count, named = n, events[-1] if events else None
        ref.start()
        unreachable = refused_position(ref)
        if unreachable is not None:  # refused as `referee check` refuses it: no event applied
            pos = _read(ref, 0, events[0] if events else None, True, unreachable.violations[0])
            pos.asked = f"--at {at}" if at is not None else f"--after {after}" if after else ""
            return pos
        for ev in events[:count]:
            violations = ref.judge(ev)
            if violations:
                # the event may have changed the position before its check failed:
                # replay again, up to the event before it
                fresh = open_referee(spec, path, choice)
                ref.release()
                ref = fresh
                ref.start()
                for earlier in events[: ev.index - 1]:
                    ref.judge(earlier)
                pos = _read(ref, ev.index - 1, ev, before=True, illegal=violations[0])
                break
        else:
            pos = _read(ref, count, named, before=at is not None)
        pos.asked = f"--at {at}" if at is not None else f"--after {after}" if after else ""
        return pos
    finally:
        ref.release()


def out_of_range(ref: Referee, flag: str, value: int, n: int) -> RefereeError:
    doc = ref.record.doc
    if abs(value) >= 10**100:  # described, not printed: Python prints at most 4,300 digits
        digits = int(abs(value).bit_length() * 0.30103) + 1
        sign = "a negative" if value < 0 else "a"
        value = f"({sign} number of about {digits:,} digits)"  # type: ignore[assignment]
    if n == 0:
        message = f"{flag} {value}: this record has no events"
        hint = f"leave out {flag} to see the position it starts from"
    else:
        message = f"{flag} {value}: this record has {n} event(s), numbered 1 to {n}"
        hint = f"{flag} takes a number from 1 to {n}"
    return RefereeError([Problem(doc.span(("events",)), message, hint)], {doc.file: doc.text})


# ------------------------------------------------------------ reading the position


def _read(
    ref: Referee,
    applied: int,
    named: Event | None,
    before: bool,
    illegal: Violation | None = None,
) -> Position:
    record = ref.record
    n = len(record.events)
    d = ref.sym.values.get("summary")
    summary = brief(ref.interp.call("summary"), MAX_SUMMARY) if isinstance(d, ast.Define) else ""
    state, defaults = read_state(ref)
    return Position(
        file=record.doc.file,
        events=n,
        at=applied + 1 if applied < n else None,
        after=applied,
        event=event_of(ref, named, before) if named is not None else None,
        summary=summary,
        frames=[
            {
                "procedure": f.proc.name,
                "title": f.proc.title,
                "step": f.step.name if f.step else None,
                "args": {p.name: show(f.vars.get(p.name)) for p in f.proc.params},
            }
            for f in ref.machine.frames
        ],
        over=ref.machine.over,
        state=state,
        defaults=defaults,
        printing=ref.printing,
        overlays=ref.overlays,
        illegal=_illegal(illegal) if illegal else None,
        kinds={o: ref.sym.overlays[o].kind for o in ref.overlays if o in ref.sym.overlays},
    )


def event_of(ref: Referee, ev: Event, before: bool) -> dict[str, Any]:
    """An event as a position names it: its number, action, player, place, and whether the
    position stands before or after it."""
    span = ref.record.doc.span(ev.path[:2])
    by = ev.args.get("by")
    return {
        "index": ev.index,
        "action": ev.action,
        "by": by if isinstance(by, str) or by is None else str(by),
        "line": span.line,
        "column": span.column,
        "position": "before" if before else "after",
    }


def _illegal(v: Violation) -> dict[str, Any]:
    return {
        "index": v.index,
        "action": v.action,
        "line": v.line,
        "column": v.column,
        "cites": v.cites,
        "clause": v.clause,
        "title": v.title,
        "message": v.message,
    }


def _clause_order(number: str) -> tuple[Any, ...]:
    """Clause numbers in the rulebook's order: 4.10 after 4.9."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.:]", number))


def read_state(
    ref: Referee, names: frozenset[str] | None = None
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every state whose cells differ from their declared starting values, in clause order,
    as plain data (nested by key); and the names of the states that hold their defaults.
    ``names``: only these states (a picture reads the few it draws)."""
    sym = ref.sym
    interp = ref.interp
    decls = [
        d
        for d in sym.values.values()
        if isinstance(d, ast.StateDecl) and (names is None or d.name in names)
    ]
    order = {id(d): i for i, d in enumerate(decls)}
    decls.sort(key=lambda d: (_clause_order(d.clause), order[id(d)]))
    keys = _Keys(ref)
    out: dict[str, dict[str, Any]] = {}
    defaults: list[str] = []
    for d in decls:
        clause = sym.clauses.get(d.clause)
        entry: dict[str, Any] = {"clause": d.clause, "title": clause.title if clause else ""}
        if not d.params:
            if d.name in interp.state and not _is_default(ref, d, (), interp.state[d.name]):
                entry["value"] = plain(sym, d.type, interp.state[d.name])
                out[d.name] = entry
            else:
                defaults.append(d.name)
            continue
        table = interp.state.get(d.name) or {}
        cells = []
        for k, value in list(table.items()):  # reading a default may add cells
            args = tuple(keys.value(p.type, part) for p, part in zip(d.params, k, strict=True))
            if not _is_default(ref, d, args, value):
                cells.append((k, args, value))
        if _worked_out(d):  # a default the rules work out (from the map, say): shown too
            shown = {c[0] for c in cells}
            for v in keys.every(d.params[0].type):
                k = (key_of(v),)
                value = interp.read_state(d, (v,))
                if k not in shown and value not in (None, (), frozenset(), 0, False):
                    cells.append((k, (v,), value))
        if not cells:
            defaults.append(d.name)
            continue
        types = [p.type for p in d.params]
        cells.sort(key=lambda c: [keys.rank(t, part) for t, part in zip(types, c[0], strict=True)])
        nested: dict[str, Any] = {}
        for _, args, value in cells:
            level = nested
            texts = [_text(plain(sym, p.type, a)) for p, a in zip(d.params, args, strict=True)]
            for t in texts[:-1]:
                level = level.setdefault(t, {})
            level[texts[-1]] = plain(sym, d.type, value)
        entry["params"] = [p.name for p in d.params]
        entry["value"] = nested
        out[d.name] = entry
    return out, defaults


def _worked_out(d: ast.StateDecl) -> bool:
    """A state of one key whose starting value the rules work out for each key (a castle's
    owner from the map), rather than one written as a constant: its cells tell the position
    even before anything changes them."""
    literal = (ast.IntLit, ast.BoolLit, ast.Nothing, ast.StrLit, ast.ListLit)
    return len(d.params) == 1 and not isinstance(d.value, literal)


def _is_default(ref: Referee, d: ast.StateDecl, args: tuple[Any, ...], value: Any) -> bool:
    env = {p.name: a for p, a in zip(d.params, args, strict=True)}
    try:
        return bool(ref.interp.eval(d.value, env) == value)
    except RULES_FAILURES:
        return False  # no default to compare with: the cell is shown


class _Keys:
    """A state cell's key back to the values it stands for, and their order: the order the
    spec lists an enum's values or a data collection's items in."""

    def __init__(self, ref: Referee) -> None:
        self.ref = ref
        self._items: dict[str, dict[Any, tuple[int, Any]]] = {}

    def _domain(self, t: ast.TypeRef) -> dict[Any, tuple[int, Any]]:
        if t.name not in self._items:
            items = (self.ref.every(t) if t.arg is None else None) or []
            self._items[t.name] = {key_of(v): (i, v) for i, v in enumerate(items)}
        return self._items[t.name]

    def value(self, t: ast.TypeRef, key: Any) -> Any:
        found = self._domain(t).get(key)
        return found[1] if found else key

    def every(self, t: ast.TypeRef) -> list[Any]:
        """Every value of an enum or data type, in the spec's order."""
        return [v for _, v in sorted(self._domain(t).values(), key=lambda iv: iv[0])]

    def rank(self, t: ast.TypeRef, key: Any) -> tuple[int, str]:
        found = self._domain(t).get(key)
        return (found[0], "") if found else (1 << 30, show(key))


# ------------------------------------------------------------ values as data


def plain(sym: Symbols, t: ast.TypeRef | None, v: Any) -> Any:
    """A value as plain JSON: items of data by their name or id, lists as lists (sets
    sorted), a record without a name by its declared fields, nothing as null."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    arg = t.arg if t is not None else None
    if isinstance(v, frozenset):
        return sorted((plain(sym, arg, x) for x in v), key=_text)
    if isinstance(v, (tuple, list)):
        return [plain(sym, arg, x) for x in v]
    if isinstance(v, dict):
        if "id" in v or "name" in v:
            return v.get("id", v.get("name"))
        decl = sym.types.get(t.name) if t is not None else None
        if isinstance(decl, ast.RecordDecl):
            return {f.name: plain(sym, f.type, v.get(f.name)) for f in decl.fields}
        return {str(k): plain(sym, None, x) for k, x in v.items()}
    return show(v)


def _text(v: Any) -> str:
    """Plain data as the referee writes values: lists in brackets, nothing as `nothing`."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_text(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "nothing"
    return str(v)


# ------------------------------------------------------------ text


LONG_LIST = 12  # items, beyond which repeats next to each other are counted


def _wrap(head: str, v: Any, counted: bool = True) -> list[str]:
    """``head`` then the value; a list wraps between its items, each line under the first
    item, so that no item is ever cut. ``counted``: a long list counts its repeats."""
    if not isinstance(v, list) or not v:
        return [head + _text(v)]
    items = [_text(x) for x in v]
    if len(items) > LONG_LIST and counted:  # a long list with repeats (a deck): each run counted
        runs: list[list[Any]] = []
        for item in items:
            if runs and runs[-1][0] == item:
                runs[-1][1] += 1
            else:
                runs.append([item, 1])
        if len(runs) < len(items):
            items = [f"{item} x{n}" if n > 1 else item for item, n in runs]
    lines: list[str] = []
    line = head + "["
    pad = " " * (len(head) + 1)
    for i, item in enumerate(items):
        piece = item + (", " if i < len(items) - 1 else "]")
        if len(line) + len(piece.rstrip()) > WIDTH and line.strip() and not line.endswith("["):
            lines.append(line.rstrip())
            line = pad
        line += piece
    lines.append(line)
    return lines


def _label(name: str, v: Any) -> str:
    return f"{name} ({len(v)})" if isinstance(v, list) and len(v) > 1 else name


def _rows(value: dict[str, Any], depth: int) -> list[tuple[list[str], Any]]:
    """A nested mapping as rows: the keys leading to each value."""
    rows: list[tuple[list[str], Any]] = []
    for k, v in value.items():
        if depth > 1:
            rows += [([k, *ks], x) for ks, x in _rows(v, depth - 1)]
        else:
            rows.append(([k], v))
    return rows


def _state_lines(name: str, entry: dict[str, Any], runs: bool = True) -> list[str]:
    heading = f"{name} ({entry['clause']}" + (f" {entry['title']})" if entry["title"] else ")")
    value = entry["value"]
    params = entry.get("params")
    if not params:
        return _wrap(f"  {heading}: ", value, runs)
    out = [f"  {heading}"]
    rows = _rows(value, len(params))
    if len(params) == 1 and not any(isinstance(v, (list, dict)) for _, v in rows):
        return out + _packed([f"{k}: {_text(v)}" for (k,), v in rows], 4)
    if len(params) == 1:
        return out + [line for (k,), v in rows for line in _wrap(f"    {_label(k, v)}: ", v, runs)]
    # the first key once, in a column; the rest of the key with each value
    width = max(len(ks[0]) for ks, _ in rows)
    previous = None
    for ks, v in rows:
        first = ks[0] if ks[0] != previous else ""
        previous = ks[0]
        rest = _label(", ".join(ks[1:]), v)
        out += _wrap(f"    {first:<{width}}  {rest}: ", v, runs)
    return out


def render(pos: Position, runs: bool = True) -> str:
    """The position as text; ``runs``: a long list with repeats counts each run."""
    out: list[str] = []
    ev = pos.event
    if pos.illegal is not None and pos.illegal["index"] == 0:
        out.append(f"{pos.file}: the position the record starts from")
    elif pos.illegal is not None:
        out.append(f"{pos.file}: the position before event {pos.at} of {pos.events}")
    elif ev is None:
        out.append(f"{pos.file}: the position the record starts from (it has no events)")
    else:
        where = "before" if ev["position"] == "before" else "after"
        end = " (the end of the record)" if pos.at is None else ""
        out.append(f"{pos.file}: the position {where} event {ev['index']} of {pos.events}{end}")
    if ev is not None:
        by = f" by {ev['by']}" if ev["by"] is not None else ""
        out.append(f"  event {ev['index']}: {ev['action']}{by}, line {ev['line']}")
    if pos.illegal is not None:
        v = pos.illegal
        asked = f"{pos.asked}: " if pos.asked else ""
        what = (
            f"{CANNOT_ARISE}, so it is shown as given:"
            if v["index"] == 0
            else f"event {v['index']} is illegal, so the position shown is before it:"
        )
        out.append(f"  {asked}{what} {v['cites']}" + (f" ({v['title']})" if v["title"] else ""))
        out.append(f"    {v['message']}")
    out.append(f"  rules: {pos.summary}" if pos.summary else "  rules:")
    for f in pos.frames:
        args = ", ".join(f"{k}: {a}" for k, a in f["args"].items())
        step = f"step {f['step']}" if f["step"] else "done"
        out.append(f"    {f['title']}" + (f" ({args})" if args else "") + f", {step}")
    if not pos.frames:
        out.append(
            f"    no procedure runs: the game is over ({pos.over})"
            if pos.over
            else "    no procedure runs"
        )
    named = [o for o in pos.overlays if pos.kinds.get(o) not in ("clarification", "decision")]
    counted = [
        f"{n} {kind}s"
        for kind in ("clarification", "decision")
        if (n := sum(1 for o in pos.overlays if pos.kinds.get(o) == kind))
    ]
    out.append(
        f"  printing {pos.printing}; overlays in force: {', '.join(named + counted) or 'none'}"
    )
    out.append("")
    out.append("state (by clause: what differs from its starting value, and for each place what")
    out.append("the rules work out from the start, such as a castle's owner):")
    for name, entry in pos.state.items():
        out += _state_lines(name, entry, runs)
    if pos.defaults:
        out.append(f"{len(pos.defaults)} state(s) at their starting values:")
        out += _packed(pos.defaults, 2)
    # names and values come from the spec and the record: escaped, one line each
    return "\n".join(shown(line, 10 * WIDTH) for line in out)


def _packed(pieces: list[str], indent: int) -> list[str]:
    """Short pieces, comma-separated, as many to a line as fit."""
    lines: list[str] = []
    line = " " * indent
    for i, piece in enumerate(pieces):
        piece += "," if i < len(pieces) - 1 else ""
        if len(line) + len(piece) + 1 > WIDTH and line.strip():
            lines.append(line.rstrip())
            line = " " * indent
        line += piece + " "
    lines.append(line.rstrip())
    return lines
