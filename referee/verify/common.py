"""What every part of the prover shares: the exception for what cannot be translated,
how a proof names what it read, and z3's enumeration sorts (declared once a process)."""

from __future__ import annotations

import z3

MAX_INLINE = 64

# z3 declares an enumeration sort once per process: keep each, by its values.
_SORTS: dict[tuple[str, tuple[str, ...]], tuple[z3.SortRef, dict[str, z3.ExprRef]]] = {}


def enum(name: str, values: list[str]) -> tuple[z3.SortRef, dict[str, z3.ExprRef]]:
    key = (name, tuple(values))
    if key not in _SORTS:
        taken = sum(1 for k in _SORTS if k[0] == name)
        sort, consts = z3.EnumSort(f"{name}_{taken}" if taken else name, values)
        _SORTS[key] = (sort, dict(zip(values, consts, strict=True)))
    return _SORTS[key]


def read_key(key: str, overlay: str = "") -> str:
    """How Outcome.reads names a declaration: its key, and the overlay that put it in force."""
    return f"{key} [{overlay}]" if overlay else key


class Untranslatable(Exception):
    """A construct the prover cannot express (lists, state, data): the property is skipped."""
