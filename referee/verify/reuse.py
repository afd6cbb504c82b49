"""What a proof read: the declarations an overlay can change, noted as the proof looks them
up, so that a proof under another overlay set is reused where none of them changed."""

from __future__ import annotations

import copy
from typing import Any

from referee.parse import ast
from referee.resolve.symbols import Symbols

# The tables of declarations an overlay can change.
_WATCHED = ("values", "labels", "dropped", "exceptions")


def token(v: Any) -> Any:
    """What identifies a declaration across overlay sets: the overlay that put it in force
    (its copy is new each time), or the declaration itself."""
    if v is None:
        return None
    if isinstance(v, ast.Decl):
        return ("overlay", v.overlay) if v.overlay else ("decl", id(v))
    if isinstance(v, list):
        return tuple(oid for _, oid in v)
    return v


class _Watched(dict[str, Any]):
    """A table of declarations that notes every name looked up in it."""

    def __init__(self, table: str, items: dict[str, Any], deps: dict[tuple[str, str], Any]):
        super().__init__(items)
        self.table, self.deps = table, deps

    def __getitem__(self, key: str) -> Any:
        self.deps[(self.table, key)] = token(dict.get(self, key))
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.deps[(self.table, key)] = token(dict.get(self, key))
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.deps[(self.table, key)] = token(dict.get(self, key))
        return super().__contains__(key)


def watching(sym: Symbols) -> tuple[Symbols, dict[tuple[str, str], Any]]:
    """A copy of the symbols whose overlay-changeable tables note what is read."""
    deps: dict[tuple[str, str], Any] = {}
    out = copy.copy(sym)
    for table in _WATCHED:
        setattr(out, table, _Watched(table, getattr(sym, table), deps))
    return out, deps


def still_same(sym: Symbols, deps: dict[tuple[str, str], Any]) -> bool:
    """Whether every declaration a proof read is the same under these symbols."""
    return all(token(getattr(sym, t).get(k)) == v for (t, k), v in deps.items())
