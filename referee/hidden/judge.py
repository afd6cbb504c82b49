"""`referee check` on a view record: consistent (a witness, and what every witness agrees on
at each event), inconsistent (the first event no assignment makes legal, and why) or unknown
(a bound reached: which). See docs/hidden.md.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.compile.spec import Spec
from referee.data.write import write_file
from referee.errors import Problem, RefereeError
from referee.hidden.counts import count_failure
from referee.hidden.holes import (
    Hole,
    domain,
    holes_of_event,
    holes_of_position,
    owner_rule,
    put,
    shown_of_event,
    viewer_key,
)
from referee.hidden.search import Failure, Limits, Outcome, Search, item_key
from referee.parse import ast
from referee.records.notation_read import is_notation_source, notation_document
from referee.records.record import Event, Record, Source, load_record
from referee.records.views import MARK, PUBLIC
from referee.resolve.hidden import leaf_type
from referee.resolve.overlays import Choice
from referee.resolve.symbols import Symbols
from referee.run.play import as_yaml
from referee.run.referee import Referee
from referee.run.verdict import Violation
from referee.text import shown

FACT_CANDIDATES = 60  # candidates of an event judged to find what every witness agrees on
POSITIONS = 50  # assignments of a position's holes tried, at most
EXHAUSTIVE = 500  # fewer assignments of a position's holes than this: every one is tried


@dataclass
class Fact:
    index: int
    action: str
    text: str
    cites: list[str]
    exact: bool  # every earlier hole had one legal choice: every witness agrees


@dataclass
class Judgement:
    file: str
    view: str
    status: str  # consistent, inconsistent, unknown
    holes: int
    witness: dict[str, Any] | None = None
    assigned: list[dict[str, Any]] = field(default_factory=list)  # the witness's hidden values
    facts: list[Fact] = field(default_factory=list)
    failure: dict[str, Any] | None = None
    reason: str = ""
    judged: int = 0
    seconds: float = 0.0
    printing: str = ""
    overlays: list[str] = field(default_factory=list)  # the overlays in force
    kinds: dict[str, str] = field(default_factory=dict)  # each overlay's kind
    lacking: list[str] = field(default_factory=list)  # counts the data do not give

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file,
            "view": self.view,
            "status": self.status,
            "holes": self.holes,
            "judged": self.judged,
            "seconds": round(self.seconds, 3),
            "facts": [f.__dict__ for f in self.facts],
            "printing": self.printing,
            "overlays": self.overlays,
        }
        if self.witness is not None:
            out["witness"] = self.witness
            out["assigned"] = self.assigned
        if self.failure is not None:
            out["failure"] = self.failure
        if self.reason:
            out["reason"] = self.reason
        if self.lacking:
            out["counts_unchecked"] = self.lacking
        return out


def _later(sym: Symbols, record: Record) -> dict[int, list[str]]:
    """For each event, the items the view shows in the events after it, in order, each as
    ``actor:value`` (the actor of the event that shows it)."""
    shown = [
        (ev.index, f"{ev.args.get('by', '')}:{v}")
        for ev in record.events
        for _, v in shown_of_event(sym, ev)
    ]
    return {ev.index: [v for i, v in shown if i > ev.index] for ev in record.events}


def _choice(spec: Spec, record: Record, choice: Choice) -> Choice:
    return Choice(
        choice.printing or record.printing,
        record.overlays_on + choice.on,
        record.overlays_off + choice.off,
    )


def _violation_json(v: Violation) -> dict[str, Any]:
    return {
        "cites": f"{v.clause}/{v.label}" if v.label else v.clause,
        "clause": v.clause,
        "label": v.label,
        "title": v.title,
        "message": v.message,
        "numbers": list(v.numbers),
        "relied": list(v.relied),
    }


def judge_view(spec: Spec, path: Source, choice: Choice, limits: Limits | None = None) -> Judgement:
    read = (lambda s: notation_document(spec, s)) if is_notation_source(path) else None
    record = load_record(path, spec.game_dir.parent / "schema", read)
    limits = limits or Limits()
    sym = spec.sym
    merged = _choice(spec, record, choice)
    in_force = _check_view_name(spec, record, merged)
    holes: dict[int, list[Hole]] = {}
    for ev in record.events:
        hs = holes_of_event(sym, ev)
        if hs:
            holes[ev.index] = hs
    at_start = holes_of_position(sym, record)
    _refuse_stray_marks(spec, record, holes, at_start)
    count = sum(len(h) for h in holes.values()) + len(at_start)
    later = _later(sym, record)
    judgement = Judgement(record.doc.file, record.view, "unknown", count)
    judgement.printing, judgement.overlays, judgement.kinds = in_force
    owners = _owners(spec, record, merged)
    counted = {0: at_start, **holes} if at_start else holes
    over, judgement.lacking = count_failure(
        spec, record, counted, lambda rule, t, v: owners.get((rule, v))
    )
    if over is not None:  # more marks than the components hold: no assignment at all
        judgement.status = "inconsistent"
        at = record.events[over["index"] - 1].path[:2] if over["index"] else ("position",)
        over["line"] = record.doc.span(at).line
        judgement.failure = over
        return judgement
    outcome: Outcome | None = None
    position_choice: list[list[str]] = []
    exhaustive = bool(at_start) and position_exhaustive(spec, at_start)
    tried: list[tuple[list[list[str]], Outcome]] = []  # every position assignment, when few
    owned = [_owned(spec, h, owners) for h in at_start]
    for values in _position_candidates(spec, record, at_start, owned):
        if outcome is not None and outcome.found:  # the rest: for what every witness shares
            tried.append((values, _search_position(spec, record, merged, at_start, values, holes)))
            continue
        complete = _complete_record(record, at_start, values)
        ref = Referee(spec, complete, merged)
        judgement.printing, judgement.overlays = ref.printing, list(ref.overlays)
        judgement.kinds = {
            o: ref.sym.overlays[o].kind for o in ref.overlays if o in ref.sym.overlays
        }
        try:
            ref.start()
            unreachable = ref.unreachable()  # a position no game reaches: no event judged
            if unreachable is not None:
                depends = {0} if at_start else set()
                outcome = Outcome(False, failure=Failure(0, [unreachable], depends, 1))
                outcome.visible = not at_start
            else:
                search = Search(spec, ref, record.events, holes, later, limits)
                for cell in _hole_cells(ref, at_start):  # what the position's holes fill
                    search.taint[cell] = frozenset({0})
                outcome = search.run()
        finally:
            ref.release()
        judgement.judged += outcome.judged
        judgement.seconds += outcome.seconds
        position_choice = values
        if exhaustive and not outcome.bound:
            tried.append((values, outcome))
        if outcome.found and exhaustive and not outcome.bound:
            continue
        if outcome.found or outcome.visible or outcome.bound:
            break
    if (
        outcome is not None
        and at_start
        and not (outcome.found or outcome.visible)
        and not position_exhaustive(spec, at_start)
    ):
        outcome.bound = outcome.bound or f"{POSITIONS} assignments of the position's hidden values"
    if outcome is None:
        judgement.reason = "no assignment of the position's hidden values to try"
        return judgement
    if outcome.found:
        judgement.status = "consistent"
        judgement.witness = _witness(record, at_start, position_choice, outcome.chosen)
        judgement.assigned = [
            {"index": 0, "action": "position", "where": h.where(), "values": v}
            for h, v in zip(at_start, position_choice, strict=True)
        ] + [
            {
                "index": i,
                "action": ev.action,
                "where": h.where(),
                "values": _hole_values(outcome.chosen.get(i, ev), h),
            }
            for i, hs in holes.items()
            for ev in [record.events[i - 1]]
            for h in hs
        ]
        judgement.facts = facts(spec, record, merged, at_start, position_choice, outcome, holes)
        if exhaustive and all(not o.bound for _, o in tried):
            judgement.facts = _position_facts(spec, at_start, tried) + judgement.facts
    elif outcome.bound:
        judgement.reason = (
            f"the search reached its bound ({outcome.bound}) before finding a witness or"
            " ruling every assignment out"
        )
    else:
        judgement.status = "inconsistent"
    if outcome.failure is not None and not outcome.found:
        f = outcome.failure
        every = [
            o.failure for _, o in tried if o.failure is not None and o.failure.index == f.index
        ]
        if exhaustive and every:  # every assignment of the position: what each broke
            f = Failure(f.index, [v for x in every for v in x.violations], f.depends, f.tried)
        at = record.events[f.index - 1].path[:2] if f.index else ("position",)
        judgement.failure = {
            "index": f.index,
            "action": record.events[f.index - 1].action if f.index else "position",
            "line": record.doc.span(at).line,
            "tried": f.tried,
            "visible": outcome.visible,
            "depends_on": sorted(f.depends),
            "violations": _distinct([_violation_json(v) for v in f.violations]),
        }
    return judgement


def _marks(value: Any, path: tuple[str | int, ...]) -> Iterator[tuple[str | int, ...]]:
    """The path of each mark below ``value``."""
    if value == MARK:
        yield path
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _marks(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _marks(v, path + (i,))


def _refuse_stray_marks(
    spec: Spec, record: Record, holes: dict[int, list[Hole]], at_start: list[Hole]
) -> None:
    """A mark is a value of a type the spec's `hidden` declaration keeps secret (a block's
    face, a card); one anywhere else (an actor, a location, a path) is no view's record of
    what it saw: refused where it stands (bad input), never searched for."""
    secret = spec.sym.hidden.secret if spec.sym.hidden is not None else {}

    def covered(path: tuple[str | int, ...], hs: list[Hole]) -> bool:
        return any(
            h.type in secret and (h.path == path or (not h.single and path[:-1] == h.path))
            for h in hs
        )

    stray: list[tuple[str | int, ...]] = [
        ev.path + p
        for ev in record.events
        for p in _marks(ev.args, ())
        if not covered(p, holes.get(ev.index, []))
    ]
    state = record.position.get("state") if isinstance(record.position, dict) else None
    stray += [p for p in _marks(state, ("position", "state")) if not covered(p, at_start)]
    if stray:
        kinds = ", ".join(secret)
        problems = [
            Problem(
                record.doc.span(p),
                f"'{MARK}' where every view sees the value: only what the spec keeps secret"
                f" ({kinds}) may be written unseen",
            )
            for p in stray[:20]
        ]
        raise RefereeError(problems, {record.doc.file: record.doc.text})


def _check_view_name(
    spec: Spec, record: Record, choice: Choice
) -> tuple[str, list[str], dict[str, str]]:
    """Refuse, at the record's `view:`, a view no side has, or any view of a game whose spec
    declares nothing hidden (every record of it is complete), as `referee hide` does. The
    printing, the overlays in force and each one's kind."""
    where = record.doc.span(("view",))
    if spec.sym.hidden is None:
        raise RefereeError(
            [
                Problem(
                    where,
                    "this game's spec declares nothing hidden: every record of it is complete",
                    "leave `view:` out and write every value the record names",
                )
            ],
            {record.doc.file: record.doc.text},
        )
    ref = Referee(spec, record, choice)
    try:
        players = ref.interp.enum_values(ref.sym.players) if ref.sym.players else []
        overlays = list(ref.overlays)
        kinds = {o: ref.sym.overlays[o].kind for o in overlays if o in ref.sym.overlays}
        in_force = (ref.printing, overlays, kinds)
    finally:
        ref.release()
    views = [PUBLIC, *(str(p) for p in players)]
    if record.view not in views:
        problem = Problem(
            where, f"view: no such view '{shown(record.view)}'", f"views: {', '.join(views)}"
        )
        raise RefereeError([problem], {record.doc.file: record.doc.text})
    return in_force


def _owners(spec: Spec, record: Record, choice: Choice) -> dict[tuple[str, str], str]:
    """Each item's owner by the spec's owner rules (referee/hidden/holes.py, owner_rule): for
    every secret type and every key type of a cell holding it, the rule's value on each
    item, evaluated by a referee on the spec."""
    sym = spec.sym
    ref = Referee(spec, record, choice)
    out: dict[tuple[str, str], str] = {}
    try:
        for t in sym.hidden.secret if sym.hidden is not None else {}:
            held = [
                d
                for d in sym.values.values()
                if isinstance(d, ast.StateDecl) and leaf_type(d.type) == t
            ]
            keyed = [(d, viewer_key(sym, d.name)) for d in held]
            for key_type in {d.params[i].type.name for d, i in keyed if i is not None}:
                rule = owner_rule(sym, t, key_type)
                for v in domain(spec, sym, t) if rule is not None else []:
                    try:
                        item = ref.convert.convert(v, ast.TypeRef(t), ())
                        out[(str(rule), v)] = str(ref.interp.call(str(rule), item))
                    except (RefereeError, KeyError, TypeError):
                        continue
    finally:
        ref.release()
    return out


def _hole_cells(ref: Referee, holes: list[Hole]) -> set[tuple[str, Any]]:
    """The state cells a position's holes fill (the cell its path names; every cell of the
    table where the path names none the referee holds)."""
    out: set[tuple[str, Any]] = set()
    for h in holes:
        name = str(h.path[2])
        d = ref.sym.values.get(name)
        n = len(d.params) if isinstance(d, ast.StateDecl) else 0
        table = ref.interp.state.get(name)
        key = tuple(h.path[3 : 3 + n])
        if isinstance(table, dict) and key in table:
            out.add((name, key))
        else:
            out |= {(name, k) for k in (table if isinstance(table, dict) else [None])}
    return out


def _distinct(vs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for v in vs:
        kept = out.setdefault(v["cites"], {**v, "count": 0})
        kept["count"] += 1
    return sorted(out.values(), key=lambda v: -int(v["count"]))


def _owned(spec: Spec, h: Hole, owners: dict[tuple[str, str], str]) -> list[str]:
    """The values a position's hole may take: those of its type whose owner (by the spec's
    owner rule for a key of its cell) is that key; a side's stack holds that side's blocks."""
    sym = spec.sym
    every = domain(spec, sym, h.type)
    d = sym.values.get(str(h.path[2]))
    if not isinstance(d, ast.StateDecl):
        return every
    at = viewer_key(sym, d.name)
    if at is None or at >= len(h.path) - 3:
        return every
    key = str(h.path[3 + at])
    rule = owner_rule(sym, h.type, d.params[at].type.name)
    return [v for v in every if rule is None or owners.get((rule, v), key) == key]


def _position_candidates(
    spec: Spec, record: Record, holes: list[Hole], owned: list[list[str]] | None = None
) -> Any:
    """Assignments of a position's holes, the likeliest first: each hole of a cell keyed by
    a side takes the items that side shows later, those shown in events naming the cell's
    other keys (the battle's location) first, each item once; the slots left take items
    like the ones that side is seen with (those agreeing on every field its shown items
    agree on: a colour, a deck), the first assignment in order, then shuffled ones."""
    if not holes:
        yield []
        return
    sym = spec.sym
    items = _items(spec)
    shown: dict[str, list[tuple[list[str], str, str]]] = {}  # actor: (context, type, value)
    context: list[str] = []
    times: dict[tuple[str, str, str], int] = {}
    for ev in record.events:
        named = [v for k, v in ev.args.items() if k != "by" and isinstance(v, str) and v != MARK]
        context = [c for c in context if c not in named] + named
        by = str(ev.args.get("by", ""))
        for t, v in shown_of_event(sym, ev):  # an item as many times as one action shows it
            n = times[(by, ev.action, v)] = times.get((by, ev.action, v), 0) + 1
            if sum(1 for x in shown.setdefault(by, []) if x[2] == v) < n:
                shown[by].append((list(context), t, v))
    keys = [[str(k) for k in h.path[3:]] for h in holes]
    base: list[list[str]] = [[] for _ in holes]
    for actor, values in shown.items():
        for ctx, t, v in values:
            room = [
                i
                for i, h in enumerate(holes)
                if h.type == t and actor in keys[i] and len(base[i]) < h.size
            ]
            if not room:
                continue

            def recent(i: int, ctx: list[str] = ctx, actor: str = actor) -> int:
                others = [k for k in keys[i] if k != actor]
                return min((ctx.index(k) if k in ctx else -1 for k in others), default=-1)

            base[max(room, key=recent)].append(v)

    def agreed(actor: str, t: str) -> dict[str, Any]:
        seen = [items.get(v, {}) for _, t2, v in shown.get(actor, []) if t2 == t]
        if not seen:
            return {}
        return {k: x for k, x in seen[0].items() if k != "id" and all(s.get(k) == x for s in seen)}

    def fits(v: str, pairs: dict[str, Any]) -> bool:
        return all(items.get(v, {}).get(k) == x for k, x in pairs.items())

    like: list[list[str]] = []
    for i, h in enumerate(holes):
        actor = next((k for k in keys[i] if k in shown), "")
        mine = agreed(actor, h.type)
        theirs = [p for a in shown if a != actor for p in [agreed(a, h.type)] if p]
        like.append(  # like what the side is seen with; else unlike what the others are
            [
                v
                for v in domain(spec, sym, h.type)
                if fits(v, mine) and (mine or not any(fits(v, p) for p in theirs))
            ]
        )
    every = owned or [domain(spec, sym, h.type) for h in holes]
    like = [[v for v in vs if v in e] for vs, e in zip(like, every, strict=True)]
    if position_exhaustive(spec, holes):  # few enough: every assignment
        alls = [
            [list(c) for c in itertools.combinations_with_replacement(e, h.size)]
            for h, e in zip(holes, every, strict=True)
        ]
        for vs in itertools.product(*alls):
            yield [list(v) for v in vs]
        return
    for n in range(POSITIONS):
        chance = random.Random(n)
        out: list[list[str]] = []
        for i, h in enumerate(holes):
            pool = list(like[i]) or list(every[i])
            if n:
                chance.shuffle(pool)
            fill = list(base[i])
            for v in itertools.chain(pool, itertools.cycle(pool)):
                if len(fill) >= h.size:
                    break
                if v not in fill or len(pool) < h.size:
                    fill.append(v)
            out.append(fill[: h.size])
        yield out


def _search_position(
    spec: Spec,
    record: Record,
    choice: Choice,
    at_start: list[Hole],
    values: list[list[str]],
    holes: dict[int, list[Hole]],
) -> Outcome:
    """Whether some assignment of the events' holes is legal from this position (a short
    search: the facts' witnesses)."""
    ref = Referee(spec, _complete_record(record, at_start, values), choice)
    try:
        ref.start()
        return Search(spec, ref, record.events, holes, {}, Limits(judged=200)).run()
    finally:
        ref.release()


def _position_facts(
    spec: Spec, at_start: list[Hole], tried: list[tuple[list[list[str]], Outcome]]
) -> list[Fact]:
    """What every assignment of the position's holes that has a witness shares and some
    refused one lacks, with the clauses the refused ones broke (every assignment tried)."""
    items = _items(spec)
    legal = [vs for vs, o in tried if o.found]
    refused = [(vs, o) for vs, o in tried if not o.found and o.failure is not None]
    out: list[Fact] = []
    for i, h in enumerate(at_start):
        fields = {k for v in legal[0][i] for k, x in items.get(v, {}).items() if x is True}
        for name in sorted(fields):

            def has(vals: list[str], name: str = name) -> bool:
                return any(items.get(v, {}).get(name) is True for v in vals)

            if all(has(vs[i]) for vs in legal):
                cites = sorted(
                    {
                        f"{x.clause}/{x.label}" if x.label else x.clause
                        for vs, o in refused
                        if not has(vs[i]) and o.failure is not None
                        for x in o.failure.violations[:1]
                    }
                )
                if cites:
                    text = f"{h.where()} holds one whose {name} is true"
                    out.append(Fact(0, "position", text, cites, True))
    return out


def position_exhaustive(spec: Spec, holes: list[Hole]) -> bool:
    """Whether every assignment of a position's holes is tried (few enough of them)."""
    total = 1
    for h in holes:
        total *= math.comb(len(domain(spec, spec.sym, h.type)) + h.size - 1, h.size)
    return total <= EXHAUSTIVE


def _complete_record(record: Record, holes: list[Hole], values: list[list[str]]) -> Record:
    data = copy.deepcopy(record.doc.data)
    for h, v in zip(holes, values, strict=True):
        put(data, h.path, v[0] if h.single else list(v))
    return Record(
        record.doc,
        record.game,
        record.printing,
        record.overlays_on,
        record.overlays_off,
        data.get("position"),
        record.events,
        "",
    )


def _witness(
    record: Record, at_start: list[Hole], values: list[list[str]], chosen: dict[int, Event]
) -> dict[str, Any]:
    data = copy.deepcopy(record.doc.data)
    data.pop("view", None)
    for h, v in zip(at_start, values, strict=True):
        put(data, h.path, v[0] if h.single else list(v))
    events = []
    for ev, raw in zip(record.events, data["events"], strict=True):
        ev2 = chosen.get(ev.index, ev)
        item = {ev.action: ev2.args}
        if isinstance(raw, dict) and "expect" in raw:
            item["expect"] = raw["expect"]
        events.append(item)
    data["events"] = events
    return dict(data)


def facts(
    spec: Spec,
    record: Record,
    choice: Choice,
    at_start: list[Hole],
    values: list[list[str]],
    outcome: Outcome,
    holes: dict[int, list[Hole]],
) -> list[Fact]:
    """At each event with holes, on the witness's position before it: what every legal
    assignment of its holes has in common that some refused one lacks."""
    from referee.hidden.search import Checkpoints

    complete = _complete_record(record, at_start, values)
    ref = Referee(spec, complete, choice)
    out: list[Fact] = []
    exact = not at_start
    try:
        ref.start()
        search = Search(spec, ref, record.events, holes, {}, Limits(candidates=FACT_CANDIDATES))
        cp = Checkpoints(ref)
        search.cp = cp
        items = _items(spec)
        for ev in record.events:
            if ev.index in holes:
                legal: list[tuple[Event, list[Violation]]] = []
                refused: list[tuple[Event, list[Violation]]] = []
                cands, whole = search.event_candidates(ev)
                for cand, _ in cands:
                    mark = cp.mark()
                    violations = ref.judge(cand)
                    cp.back(mark)
                    (refused if violations else legal).append((cand, violations))
                found = _facts_of(ev, holes[ev.index], legal, refused, items, exact and whole)
                out += found
                exact = exact and whole and len(legal) == 1
            ref.judge(outcome.chosen.get(ev.index, ev))
    finally:
        ref.release()
    return out


def _items(spec: Spec) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for coll in spec.components.collections.values():
        for item in coll if isinstance(coll, list) else []:
            if isinstance(item, dict):
                key = item.get("id", item.get("name"))
                if isinstance(key, str):
                    out.setdefault(key, item)
    return out


def _hole_values(ev: Event, h: Hole) -> list[str]:
    v: Any = ev.args
    for p in h.path:
        v = v[p]
    return [str(item_key(x)) for x in (v if isinstance(v, list) else [v])]


def _facts_of(
    ev: Event,
    hs: list[Hole],
    legal: list[tuple[Event, list[Violation]]],
    refused: list[tuple[Event, list[Violation]]],
    items: dict[str, dict[str, Any]],
    exact: bool,
) -> list[Fact]:
    if not legal or not refused:
        return []
    out = []
    for h in hs:
        lv = [_hole_values(e, h) for e, _ in legal]
        rv = [(_hole_values(e, h), vs) for e, vs in refused]
        common = set(lv[0]).intersection(*lv[1:])
        for v in sorted(common):
            cites = sorted({x.cites for vals, vs in rv if v not in vals for x in vs[:1]})
            if cites:
                out.append(Fact(ev.index, ev.action, f"{h.where()} holds {v}", cites, exact))
        fields = {k for v in lv[0] for k, x in items.get(v, {}).items() if x is True}
        for name in sorted(fields):

            def has(vals: list[str], name: str = name) -> bool:
                return any(items.get(v, {}).get(name) is True for v in vals)

            if all(has(vals) for vals in lv):
                cites = sorted({x.cites for vals, vs in rv if not has(vals) for x in vs[:1]})
                if cites:
                    text = f"{h.where()} holds one whose {name} is true"
                    out.append(Fact(ev.index, ev.action, text, cites, exact))
    return out


def is_view_record(spec: Spec, path: Source) -> bool:
    """Whether a record file says `view:` in its header (a record that does not read is
    not one: its problems are check's to report)."""
    read = (lambda s: notation_document(spec, s)) if is_notation_source(path) else None
    try:
        return bool(load_record(path, spec.game_dir.parent / "schema", read).view)
    except RefereeError:
        return False


def write_witness(path: Path, witness: dict[str, Any]) -> None:
    """A witness written as a record file (YAML; JSON for a .json name): a regular file,
    made or truncated; anything else there (a folder, a FIFO, a device) refused, never
    waited on (RefereeError)."""
    text = json.dumps(witness, indent=1) + "\n" if path.suffix == ".json" else as_yaml(witness)
    write_file(path, text)


def witness_brief(j: Judgement, most: int = 12) -> list[str]:
    """The witness's hidden values, a line each (the first ``most``)."""
    lines = [
        (f"event {a['index']} ({a['action']})" if a["index"] else "the position")
        + f": {a['where']} = {', '.join(a['values'][:most])}"
        + (f", ... and {len(a['values']) - most:,} more" if len(a["values"]) > most else "")
        for a in j.assigned
    ]
    more = len(lines) - most
    return lines[:most] + ([f"... and {more} more"] if more > 0 else [])


def render_judgement(j: Judgement, witness: Path | None = None) -> str:
    head = f"{j.file} (view: {j.view}): "
    out: list[str] = []
    if j.status == "consistent":
        out.append(
            head + f"consistent: a witness makes every event legal ({j.holes} hidden"
            f" value(s) assigned; {j.judged} judgement(s), {j.seconds:.1f} s)"
        )
        if j.facts:
            out.append("  what the legal assignments agree on:")
            for f in j.facts:
                scope = "every witness" if f.exact else "not exhaustive: given the earlier choices"
                out.append(
                    f"    event {f.index} ({f.action}): {f.text}; else {', '.join(f.cites)}"
                    f" ({scope})"
                )
        if witness is not None:
            out.append(
                "  the witness, a complete record `referee check` judges legal:"
                f" {shown(str(witness))}"
            )
        else:
            out.append("  a witness, in brief (--witness FILE writes it whole):")
            out += [f"    {line}" for line in witness_brief(j)]
    else:
        word = "inconsistent" if j.status == "inconsistent" else "unknown"
        out.append(head + f"{word}" + (f": {j.reason}" if j.reason else ""))
        fail = j.failure
        if fail is not None:
            how = (
                "whatever is hidden (the fault is visible to the view)"
                if fail["visible"]
                else f"under every assignment tried ({fail['tried']} candidate(s) of it)"
            )
            what = (
                f"event {fail['index']} ({fail['action']}) is illegal"
                if fail["index"]
                else "the starting position cannot arise"
            )
            out.append(f"{j.file}:{fail['line']}: {what} {how}:")
            for v in fail["violations"]:
                out.append(f"  {v['cites']}" + (f" ({v['title']})" if v["title"] else ""))
                out.append(f"    {v['message']}")
                if v["numbers"]:
                    out.append("    the numbers that decide it:")
                    out += [f"      {n}" for n in v["numbers"][:8]]
    if j.lacking:
        out.append(
            "  the components give no count for "
            + ", ".join(j.lacking)
            + ": those marks are not bounded by a count"
        )
    named = [o for o in j.overlays if j.kinds.get(o) not in ("clarification", "decision")]
    counted = [
        f"{n} {kind}s"
        for kind in ("clarification", "decision")
        if (n := sum(1 for o in j.overlays if j.kinds.get(o) == kind))
    ]
    relied = sorted({r for v in (j.failure or {}).get("violations", []) for r in v["relied"]})
    out.append(
        f"  printing {j.printing}; overlays in force: {', '.join(named + counted) or 'none'}"
        + (f"; relied on: {', '.join(relied)}" if relied else "")
    )
    return "\n".join(out)
