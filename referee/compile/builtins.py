"""The built-in functions of the rules language, on values, and the hashable keys values are
compared and kept by."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from math import comb
from typing import Any

from referee.budget import MAX_ITEMS, flattened, repeated
from referee.errors import Span, fail
from referee.resolve.types import hex_distance

_PLAIN = frozenset({str, int, bool, type(None)})


def args_key(args: tuple[Any, ...]) -> Any:
    """``key_of(args)``, without building a new tuple when the arguments are plain values."""
    for a in args:
        if type(a) not in _PLAIN:
            return key_of(args)
    return args


# The keys of records with no name, by the record's address, each kept with its record so
# that the address is not reused while the entry lasts (values are never changed in place:
# the rules make new ones). Emptied when full: a key is only worked out again.
_KEYS: dict[int, tuple[dict[str, Any], Any]] = {}
_KEYS_KEPT = 20_000


def forget_keys() -> None:
    """Let go of the records whose keys are kept (another game begins)."""
    _KEYS.clear()


def key_of(v: Any) -> Any:
    """A hashable stand-in for a value: records by their name or id."""
    t = type(v)
    if t is str or t is int or t is bool or v is None:
        return v
    if t is dict:
        name = v.get("id")
        if name is None:
            name = v.get("name")
        if name is not None:
            return name
        # a record with no name (a road, a struct): by its fields, never by
        # its address, which a later value may reuse
        kept = _KEYS.get(id(v))
        if kept is not None:
            return kept[1]
        key = tuple((k, key_of(x)) for k, x in v.items())
        if len(_KEYS) >= _KEYS_KEPT:
            _KEYS.clear()
        _KEYS[id(v)] = (v, key)
        return key
    if t is tuple:
        for x in v:
            if type(x) not in _PLAIN:
                return tuple([x if type(x) in _PLAIN else key_of(x) for x in v])
        return v  # plain values: the tuple is its own key
    if t is list:
        return tuple([x if type(x) in _PLAIN else key_of(x) for x in v])
    if isinstance(v, dict):
        return key_of(dict(v))
    if isinstance(v, (tuple, list)):
        return tuple(map(key_of, v))
    return v


def without(xs: Any, ys: Any) -> tuple[Any, ...]:
    out = list(xs)
    keys = [key_of(x) for x in out]
    for y in ys:
        k = key_of(y)
        if k in keys:
            i = keys.index(k)
            del out[i], keys[i]
    return tuple(out)


def includes(xs: Any, ys: Any) -> bool:
    return len(without(xs, ys)) == len(xs) - len(tuple(ys))


def _unique(xs: Any, key: Callable[[Any], Any] = key_of) -> tuple[Any, ...]:
    """Items in first-seen order, each key once."""
    seen: set[Any] = set()
    out = []
    for x in xs:
        k = key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return tuple(out)


def subsets(xs: tuple[Any, ...], most: int) -> tuple[tuple[Any, ...], ...]:
    """``subsets(xs, n)``: the sub-lists of 1 to ``n`` items, in the list's order, fewest
    first, each choice of items once (two equal items are one choice); refused when there
    would be more than MAX_ITEMS."""
    most = min(max(most, 0), len(xs))
    count = sum(comb(len(xs), k) for k in range(1, most + 1))
    if count > MAX_ITEMS:
        raise fail(
            Span("<rules>", 0, 0),
            f"subsets of {len(xs)} items, up to {most} at a time: {count:,} sub-lists,"
            f" over the limit of {MAX_ITEMS:,}",
        )
    return _unique(c for k in range(1, most + 1) for c in combinations(xs, k))


def _builtin(name: str, args: tuple[Any, ...]) -> Any:
    if name == "size":
        return len(args[0])
    if name == "includes":
        return includes(*args)
    if name == "without":
        return without(*args)
    if name == "take":
        return tuple(args[0])[: max(args[1], 0)]
    if name == "drop":
        return tuple(args[0])[max(args[1], 0) :]
    if name == "last":
        return tuple(args[0])[-1] if args[0] else None
    if name == "distinct":
        return _unique(args[0])
    if name == "shuffled":  # with no random source (the referee's suggestions): as it is
        return tuple(args[0])
    if name == "repeat":
        return repeated(args[0], args[1])
    if name == "flatten":
        return flattened(args[0])
    if name == "subsets":
        return subsets(tuple(args[0]), args[1])
    if name == "abs":
        return abs(args[0])
    if name == "clamp":
        return min(max(args[0], args[1]), args[2])
    if name == "hex_distance":
        return hex_distance(*args)
    values = args[0] if len(args) == 1 else args
    if name == "min":
        return min(values)
    if name == "max":
        return max(values)
    raise AssertionError(f"unknown built-in {name}")
