"""Values shown for people: in a message, a verdict, an explanation: short, or listed as data."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

SHOWN_VALUE = 1_000  # characters of a value in a message or a told text
LISTED_ITEMS = 1_000  # items of a value given as data (JSON) before it is given as text


def brief(v: Any, limit: int = 60) -> str:
    """A value shown within about ``limit`` characters, cut only between items: a long
    list keeps its first items and says how many more there are. What is cut is never
    written out: a list of a million long texts costs what its first items cost."""
    text = _shown_within(v, limit)
    if text is not None:
        return text
    if isinstance(v, dict) and "id" not in v and "name" not in v:
        parts = (f"{k}: {brief(x, max(limit // 2, 12))}" for k, x in v.items())
        return "{" + _fit(parts, len(v), limit, " fields") + "}"
    if isinstance(v, (tuple, list, frozenset)):
        items = (brief(x, max(limit // 2, 12)) for x in v)
        return "[" + _fit(items, len(v), limit) + "]"
    if isinstance(v, str):
        cut = v[:limit].rsplit(" ", 1)[0]
        return cut + " ..."
    return show(v)


def _shown_within(v: Any, limit: int) -> str | None:
    """``show(v)`` if it is at most ``limit`` characters long, else None: found out without
    writing more than ``limit`` characters of it."""
    return show(v) if _room_left(v, limit) >= 0 else None


def _room_left(x: Any, room: int) -> int:
    """``room`` less the length of ``show(x)``; negative (and no more looked at) once that is
    longer than ``room``."""
    if isinstance(x, str):
        return room - len(x)
    if isinstance(x, dict) and "id" not in x and "name" not in x:
        room -= 2  # {}
        for i, (k, y) in enumerate(x.items()):
            room -= len(str(k)) + (4 if i else 2)  # ", " between, and "k: "
            if room < 0:
                return room
            room = _room_left(y, room)
            if room < 0:
                return room
        return room
    if isinstance(x, (tuple, list, frozenset)):
        room -= 2  # []
        for i, y in enumerate(x):
            if i:
                room -= 2  # ", "
            room = _room_left(y, room)
            if room < 0:
                return room
        return room
    return room - len(show(x))


def _fit(parts: Iterator[str], total: int, limit: int, what: str = "") -> str:
    out: list[str] = []
    used = 0
    for p in parts:
        if out and used + len(p) + 2 > limit:
            break
        out.append(p)
        used += len(p) + 2
    rest = total - len(out)
    return ", ".join(out) + (f", ... {rest:,} more{what}" if rest else "")


def listed(v: Any) -> Any:
    """A value as data for JSON (``plain``), unless it holds more than LISTED_ITEMS items or
    texts longer than SHOWN_VALUE characters in all: then as a text (``brief``) that keeps
    its first items and says how many more there are."""
    budget = [LISTED_ITEMS, SHOWN_VALUE * 10]

    def small(x: Any) -> bool:
        if isinstance(x, str):
            budget[1] -= len(x)
            return budget[1] >= 0
        if isinstance(x, dict):
            if "id" in x or "name" in x:
                return True
            budget[0] -= len(x)
            return budget[0] >= 0 and all(small(y) for y in x.values())
        if isinstance(x, (tuple, list, frozenset)):
            budget[0] -= len(x)
            return budget[0] >= 0 and all(small(y) for y in x)
        return True

    return plain(v) if small(v) else brief(v, SHOWN_VALUE)


def show(v: Any) -> str:
    if isinstance(v, dict):
        if "id" in v or "name" in v:
            return str(v.get("id", v.get("name")))
        return "{" + ", ".join(f"{k}: {show(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (tuple, list, frozenset)):
        return "[" + ", ".join(show(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "nothing"
    return str(v)


def plain(v: Any) -> Any:
    """A value as data for JSON: items of data by their name or id, lists and sets as lists."""
    if isinstance(v, dict):
        if "id" in v or "name" in v:
            return v.get("id", v.get("name"))
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, frozenset):
        return sorted((plain(x) for x in v), key=show)
    if isinstance(v, (tuple, list)):
        return [plain(x) for x in v]
    return v
