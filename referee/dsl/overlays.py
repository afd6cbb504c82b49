"""Put overlays in force: a printing's, the default ones, and those asked for.

The result is a new symbol table in which amended declarations replace the
base ones. Each amended declaration remembers its overlay, so the interpreter
can tell which overlays a verdict actually relied on.
"""

from __future__ import annotations

import copy
import difflib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from referee.dsl import ast
from referee.dsl.checker import Symbols
from referee.errors import RefereeError, Span, fail


@dataclass
class Choice:
    """Which printing, and which overlays switched on or off beyond the defaults."""

    printing: str = ""
    on: list[str] = field(default_factory=list)
    off: list[str] = field(default_factory=list)


def base_printing(sym: Symbols) -> str:
    return next((p.id for p in sym.printings.values() if p.base), "")


def in_force(
    sym: Symbols, choice: Choice, where: Callable[[str], Span]
) -> tuple[str, list[ast.Overlay]]:
    """The printing and overlays in force; ``where`` locates a name the user gave."""
    printing = choice.printing or base_printing(sym)
    if printing and printing not in sym.printings:
        raise _unknown(where(printing), "printing", printing, list(sym.printings))
    for oid in choice.on + choice.off:
        if oid not in sym.overlays:
            raise _unknown(where(oid), "overlay", oid, list(sym.overlays))
    chosen = []
    for o in sym.overlays.values():
        on = printing in o.printings or bool(o.default) or o.id in choice.on
        if on and o.id not in choice.off:
            chosen.append(o)
    return printing, chosen


def _unknown(where: Span, what: str, name: str, known: list[str]) -> RefereeError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(known))}"
    return fail(where, f"unknown {what} '{name}'", hint)


def apply(sym: Symbols, overlays: list[ast.Overlay]) -> Symbols:
    """A copy of ``sym`` with the overlays' amendments in force."""
    out = copy.copy(sym)
    out.values = dict(sym.values)
    out.labels = dict(sym.labels)
    out.dropped = dict(sym.dropped)
    out.exceptions = {k: list(v) for k, v in sym.exceptions.items()}
    out.used_by = defaultdict(set, sym.used_by)
    for o in overlays:
        for am in o.amends:
            for ch in am.changes:
                if ch.decl is not None:
                    decl = replace(ch.decl, overlay=o.id)
                    if isinstance(decl, (ast.Require, ast.Property)):
                        out.labels[f"{am.clause}/{decl.name}"] = decl
                        out.dropped.pop(f"{am.clause}/{decl.name}", None)
                    else:
                        out.values[decl.name] = decl
                elif ch.action == "drop" and ch.ref is not None:
                    out.dropped[str(ch.ref)] = o.id
                elif ch.action == "except" and ch.ref is not None and ch.cond is not None:
                    out.exceptions.setdefault(str(ch.ref), []).append((ch.cond, o.id))
    return out
