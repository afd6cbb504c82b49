"""`referee check` on a view record: consistent (a witness, and what every witness agrees on
at each event), inconsistent (the first event no assignment makes legal, and why) or unknown
(a bound reached: which). See docs/hidden.md.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field
from typing import Any

from referee.compile.spec import Spec
from referee.hidden.holes import (
    Hole,
    domain,
    holes_of_event,
    holes_of_position,
    put,
    shown_of_event,
)
from referee.hidden.search import Limits, Outcome, Search, item_key
from referee.records.notation_read import is_notation_source, notation_document
from referee.records.record import Event, Record, Source, load_record
from referee.records.views import MARK
from referee.resolve.overlays import Choice
from referee.resolve.symbols import Symbols
from referee.run.referee import Referee
from referee.run.verdict import Violation

FACT_CANDIDATES = 60  # candidates of an event judged to find what every witness agrees on
POSITIONS = 50  # assignments of a position's holes tried, at most


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
    facts: list[Fact] = field(default_factory=list)
    failure: dict[str, Any] | None = None
    reason: str = ""
    judged: int = 0
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file,
            "view": self.view,
            "status": self.status,
            "holes": self.holes,
            "judged": self.judged,
            "seconds": round(self.seconds, 3),
            "facts": [f.__dict__ for f in self.facts],
        }
        if self.witness is not None:
            out["witness"] = self.witness
        if self.failure is not None:
            out["failure"] = self.failure
        if self.reason:
            out["reason"] = self.reason
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
    }


def judge_view(spec: Spec, path: Source, choice: Choice, limits: Limits | None = None) -> Judgement:
    read = (lambda s: notation_document(spec, s)) if is_notation_source(path) else None
    record = load_record(path, spec.game_dir.parent / "schema", read)
    limits = limits or Limits()
    sym = spec.sym
    holes: dict[int, list[Hole]] = {}
    for ev in record.events:
        hs = holes_of_event(sym, ev)
        if hs:
            holes[ev.index] = hs
    at_start = holes_of_position(sym, record)
    count = sum(len(h) for h in holes.values()) + len(at_start)
    later = _later(sym, record)
    merged = _choice(spec, record, choice)
    judgement = Judgement(record.doc.file, record.view, "unknown", count)
    outcome: Outcome | None = None
    position_choice: list[list[str]] = []
    for values in _position_candidates(spec, record, at_start, later):
        complete = _complete_record(record, at_start, values)
        ref = Referee(spec, complete, merged)
        try:
            ref.start()
            search = Search(spec, ref, record.events, holes, later, limits)
            for h in at_start:  # what the position's holes fill depends on them
                table = ref.interp.state.get(str(h.path[2]))
                for key in table if isinstance(table, dict) else [None]:
                    search.taint[(str(h.path[2]), key)] = frozenset({0})
            outcome = search.run()
        finally:
            ref.release()
        judgement.judged += outcome.judged
        judgement.seconds += outcome.seconds
        position_choice = values
        if outcome.found or outcome.visible or outcome.bound:
            break
    if outcome is not None and at_start and not (outcome.found or outcome.visible):
        outcome.bound = outcome.bound or f"{POSITIONS} assignments of the position's hidden values"
    if outcome is None:
        judgement.reason = "no assignment of the position's hidden values to try"
        return judgement
    if outcome.found:
        judgement.status = "consistent"
        judgement.witness = _witness(record, at_start, position_choice, outcome.chosen)
        judgement.facts = facts(spec, record, merged, at_start, position_choice, outcome, holes)
    elif outcome.bound:
        judgement.reason = (
            f"the search reached its bound ({outcome.bound}) before finding a witness or"
            " ruling every assignment out"
        )
    else:
        judgement.status = "inconsistent"
    if outcome.failure is not None and not outcome.found:
        f = outcome.failure
        ev = record.events[f.index - 1]
        judgement.failure = {
            "index": f.index,
            "action": ev.action,
            "line": record.doc.span(ev.path[:2]).line,
            "tried": f.tried,
            "visible": outcome.visible,
            "depends_on": sorted(f.depends),
            "violations": _distinct([_violation_json(v) for v in f.violations]),
        }
    return judgement


def _distinct(vs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for v in vs:
        kept = out.setdefault(v["cites"], {**v, "count": 0})
        kept["count"] += 1
    return sorted(out.values(), key=lambda v: -int(v["count"]))


def _position_candidates(
    spec: Spec, record: Record, holes: list[Hole], later: dict[int, list[str]]
) -> Any:
    if not holes:
        yield []
        return
    wanted = list(dict.fromkeys(v.split(":", 1)[1] for vs in later.values() for v in vs))
    per = []
    for h in holes:
        every = domain(spec, spec.sym, h.type)
        order = list(dict.fromkeys([*(v for v in wanted if v in every), *every]))
        per.append(itertools.islice(itertools.combinations_with_replacement(order, h.size), 20))
    for n, vs in enumerate(itertools.product(*[list(p) for p in per])):
        if n >= POSITIONS:
            return
        yield [list(v) for v in vs]


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
                for cand in cands:
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


def render_judgement(j: Judgement) -> str:
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
                scope = "every witness" if f.exact else "after the witness's earlier choices"
                out.append(
                    f"    event {f.index} ({f.action}): {f.text}; else {', '.join(f.cites)}"
                    f" ({scope})"
                )
        out.append("  --witness FILE writes the witness, a complete record `referee check` judges")
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
            out.append(
                f"{j.file}:{fail['line']}: event {fail['index']} ({fail['action']}) is illegal"
                f" {how}:"
            )
            for v in fail["violations"]:
                out.append(f"  {v['cites']}" + (f" ({v['title']})" if v["title"] else ""))
                out.append(f"    {v['message']}")
                if v["numbers"]:
                    out.append("    the numbers that decide it:")
                    out += [f"      {n}" for n in v["numbers"][:8]]
    return "\n".join(out)
