"""The replay page's log: each event in words, as a game log reads. Its action and side, its
details from the record (a path as "from A via B to C", lists joined, the rest as "name:
value"), what it left standing (a combat's Impact, the units lost at it), what the rules
told of it and its verdict with the clause. Nothing here knows a game: the path's field, the
Impact's state and the losses' state are the display data's."""

from __future__ import annotations

from typing import Any

from referee.compile.shown import show
from referee.render.display import Display
from referee.render.layout import clean
from referee.render.steps import Step

ARGS_KEPT = 12  # fields of an event told
ITEMS_KEPT = 12  # items of one list told


def words(value: Any, path: tuple[str, ...] = (), depth: int = 0) -> str:
    """A value of a record in words: lists joined by commas (counted past a few), a mapping
    as "name value" pairs, the fields ``path`` (lists of places) as routes."""
    if isinstance(value, list):
        items = [words(v, path, depth + 1) for v in value[:ITEMS_KEPT]]
        more = len(value) - ITEMS_KEPT
        return ", ".join(items) + (f" and {more} more" if more > 0 else "") if items else "none"
    if isinstance(value, dict) and depth < 3:
        return ", ".join(
            named_route(k, v, path)
            if k in path and isinstance(v, list)
            else f"{clean(k, 40)} {words(v, path, depth + 1)}"
            for k, v in list(value.items())[:ARGS_KEPT]
        )
    if isinstance(value, bool):
        return show(value)  # as the record and the rules write it: true, not True
    return clean(value, 60)


def route(path: list[Any]) -> str:
    """A path in words: from its first place, via those between, to its last."""
    names = [clean(p, 60) for p in path]
    if len(names) < 2:
        return f"at {names[0]}" if names else "nowhere"
    via = f" via {', '.join(names[1:-1])}" if len(names) > 2 else ""
    return f"from {names[0]}{via} to {names[-1]}"


def named_route(key: str, path: list[Any], keys: tuple[str, ...]) -> str:
    """The display's first path field as a bare route (a move's); another with its name (a
    retreat's: "retreat from A to B")."""
    return route(path) if key == keys[0] else f"{clean(key, 40)} {route(path)}"


def details(display: Display, args: Any) -> list[str]:
    """An event's fields (but its side) in words; the display's path fields as routes."""
    if not isinstance(args, dict):
        return []
    out = []
    for k, v in list(args.items())[: ARGS_KEPT + 1]:
        if k == "by":
            continue
        if k in display.path and isinstance(v, list):
            out.append(named_route(k, v, display.path))
        else:
            out.append(f"{clean(k, 40)} {words(v, display.path)}")
    return out


def impact(display: Display, state: dict[str, Any]) -> str:
    """A combat's Impact, each side by its letter, while one is fought."""
    fought = any(isinstance(state.get(s), str) for s in display.combat_at)
    value = state.get(display.impact) if display.impact else None
    if not fought or not isinstance(value, dict):
        return ""
    return "Impact " + " : ".join(
        f"{look.letter} {value.get(side, 0)}" for side, look in display.sides.items()
    )


def losses(display: Display, step: Step) -> str:
    parts = []
    for side, faces in step.lost_here.items():
        look = display.sides.get(side)
        parts.append(f"{look.letter if look else clean(side, 20)} lost {words(faces)}")
    return "; ".join(parts)


def verdict(step: Step) -> str:
    if step.verdict == "illegal" and step.violation:
        v = step.violation
        return f"\u2717 ILLEGAL ({v['cites']}): {clean(v['message'], 300)}"
    if step.verdict == "legal":
        said = [f"{t['cites']}: {clean(t['text'], 200)}" for t in step.told[:3]]
        more = len(step.told) - 3 + step.told_left_out
        if more > 0:
            said.append(f"and {more} more")
        return "\u2713 " + ("; ".join(said) if said else "legal")
    return ""


def entry(display: Display, step: Step, after: dict[str, Any] | None) -> dict[str, Any]:
    """The log's line for a step: ``by``, ``kind`` (the action), and ``text`` in words;
    ``after``: the position after its event (the next step's), for what it left standing."""
    ev = step.event
    if ev is None:
        return {"by": "", "kind": "", "text": clean(step.summary or step.position, 200)}
    who = clean(ev["by"], 40) if ev["by"] is not None else ""
    parts = details(display, ev.get("args"))
    standing = impact(display, after) if after is not None else ""
    text = f"{who} {clean(ev['action'], 40)}".strip()
    if parts:
        text += ": " + "; ".join(parts)
    for extra in (standing, losses(display, step), verdict(step)):
        if extra:
            text += f" \u2014 {extra}"
    return {"by": who, "kind": clean(ev["action"], 40), "text": clean(text, 900)}
