"""What a proof read: the declarations an overlay can change, noted as the proof looks them
up, so that a proof under another overlay set is reused where none of them changed.

A proof's checks and standing rules are assumed each behind an indicator, and z3's unsat core
names those a proved result needed (see invariants.py ``solve``): what was looked up only to
translate the others cannot change that result. So a lookup is noted both in all the proof's
lookups and in the region being translated (``region``, one a tracked assumption, outside any:
the proof's own); a region's lookups join the proof's (``Reads``, a set of reads that carries
them) where its reads do. A proved result is then kept under another overlay set where what
it needed is the same, though something only a left-out check read changed."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import Any, Self

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


Deps = dict[tuple[str, str], Any]  # (table, name): the token of what was found there


class Reads(set[str]):
    """A region's reads (see Outcome.reads), with the lookups made while translating it:
    joined to another such set, its lookups join too."""

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.deps: Deps = {}

    # (mypy holds `|=` to the signature of set's generic `|`)
    def __ior__(self, other: AbstractSet[str]) -> Self:  # type: ignore[override, misc]
        super().__ior__(other)
        self.deps.update(deps_of(other))
        return self

    def copy(self) -> Reads:
        out = Reads(self)
        out.deps = dict(self.deps)
        return out


def deps_of(reads: Any) -> Deps:
    """The lookups a set of reads carries (none for a plain set)."""
    return reads.deps if isinstance(reads, Reads) else {}


def carry(reads: Any, deps: Deps) -> None:
    """Lookups a proof needed beside its reads (a fact asked of a counterexample)."""
    if isinstance(reads, Reads):
        reads.deps.update(deps)


_OPEN: list[Reads] = []  # the regions being translated, innermost last


@contextlib.contextmanager
def region() -> Iterator[Reads]:
    """A part of a proof whose lookups count only where its reads are joined to the proof's."""
    mine = Reads()
    _OPEN.append(mine)
    try:
        yield mine
    finally:
        _OPEN.pop()


@contextlib.contextmanager
def counted() -> Iterator[None]:
    """Lookups that always count, inside a region or not (what a translator keeps for later,
    as a cell's starting value, serves other regions too)."""
    saved = _OPEN[:]
    _OPEN.clear()
    try:
        yield
    finally:
        _OPEN[:] = saved


class Lookups:
    """A proof's lookups: all of them, and those outside any region."""

    def __init__(self) -> None:
        self.all: Deps = {}
        self.own: Deps = {}

    def note(self, table: str, key: str, found: Any) -> None:
        self.all[(table, key)] = found
        (_OPEN[-1].deps if _OPEN else self.own)[(table, key)] = found

    def needed(self, reads: Any) -> Deps:
        """What a proved result needed: the proof's own lookups, and those its reads carry."""
        return {**self.own, **deps_of(reads)}


class _Watched(dict[str, Any]):
    """A table of declarations that notes every name looked up in it."""

    def __init__(self, table: str, items: dict[str, Any], deps: Lookups):
        super().__init__(items)
        self.table, self.deps = table, deps

    def __getitem__(self, key: str) -> Any:
        self.deps.note(self.table, key, token(dict.get(self, key)))
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.deps.note(self.table, key, token(dict.get(self, key)))
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.deps.note(self.table, key, token(dict.get(self, key)))
        return super().__contains__(key)


def watching(sym: Symbols) -> tuple[Symbols, Lookups]:
    """A copy of the symbols whose overlay-changeable tables note what is read."""
    deps = Lookups()
    out = copy.copy(sym)
    for table in _WATCHED:
        setattr(out, table, _Watched(table, getattr(sym, table), deps))
    return out, deps


def still_same(sym: Symbols, deps: Deps) -> bool:
    """Whether every declaration a proof read is the same under these symbols."""
    return all(token(getattr(sym, t).get(k)) == v for (t, k), v in deps.items())
